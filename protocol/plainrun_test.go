package protocol

import (
	"math/rand/v2"
	"testing"
)

// TestPlainRun: plainRun stops exactly at the first byte that is not
// printable ASCII other than '"' and '\\' when one is in a whole word of
// eight, and otherwise at the start of the last bytes, fewer than eight;
// it never passes over such a byte. The bytes are drawn around the
// thresholds of its tests (0x1f/0x20, '"', '\\', 0x7f/0x80) so that the
// borrows of one byte into the next are exercised.
func TestPlainRun(t *testing.T) {
	rnd := rand.New(rand.NewPCG(24, 2))
	pool := []byte{0x00, 0x1f, 0x20, 0x21, '"', '#', '[', '\\', ']', 'a', 0x7e, 0x7f, 0x80, 0xc3, 0xff}
	special := func(c byte) bool { return c < 0x20 || c == '"' || c == '\\' || c >= 0x80 }
	for range 200000 {
		b := make([]byte, rnd.IntN(40))
		for i := range b {
			if rnd.IntN(4) == 0 {
				b[i] = pool[rnd.IntN(len(pool))]
			} else {
				b[i] = 'a' + byte(rnd.IntN(26))
			}
		}
		first := len(b)
		for i, c := range b {
			if special(c) {
				first = i
				break
			}
		}
		want := first
		if first/8*8+8 > len(b) {
			want = min(first, len(b)/8*8) // in the tail: not scanned word-wise
		}
		if got := plainRun(b); got != want {
			t.Fatalf("plainRun(%q) = %d, want %d", b, got, want)
		}
	}
}
