package server_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/server"
)

// TestHeaderChars: the check of a header value's characters (R-HDR-06),
// which passes eight bytes at a time, answers as the byte-at-a-time loop
// it replaced, for every byte at every place of the first words and for
// random values drawn around its thresholds (0x08..0x0a, 0x1f/0x20/0x21,
// 0x7e/0x7f/0x80, 0xff).
func TestHeaderChars(t *testing.T) {
	loop := func(v string) bool {
		for i := 0; i < len(v); i++ {
			if c := v[i]; (c < 0x21 || c > 0x7e) && c != ' ' && c != '\t' {
				return false
			}
		}
		return true
	}
	check := func(v string) {
		t.Helper()
		if got, want := server.HeaderChars(v), loop(v); got != want {
			t.Fatalf("headerChars(%q) = %v, want %v", v, got, want)
		}
	}
	for c := range 256 {
		for pos := range 17 {
			b := []byte(strings.Repeat("a", 18))
			b[pos] = byte(c)
			check(string(b))
			check(string(b[:pos+1]))
		}
	}
	rnd := rand.New(rand.NewPCG(6, 7))
	pool := []byte{0x00, 0x08, '\t', '\n', 0x1f, ' ', '!', '~', 0x7f, 0x80, 0xfe, 0xff}
	for range 100000 {
		b := make([]byte, rnd.IntN(30))
		for i := range b {
			if rnd.IntN(5) == 0 {
				b[i] = pool[rnd.IntN(len(pool))]
			} else {
				b[i] = byte(0x21 + rnd.IntN(0x5e))
			}
		}
		check(string(b))
	}
}
