package protocol

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestReadInt64FastPath: readInt64's fast path (digits at the position)
// reads what its full path reads (the same text after a space, which the
// fast path declines): the same value, the same verdict, the same end.
func TestReadInt64FastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	texts := []string{"0", "1", "9", "10", "007", "123456789012345678", "999999999999999999",
		"1000000000000000000", "9223372036854775807", "9223372036854775808", "99999999999999999999", "1.5", "1e3", "12a", "12-", "12+", "12."}
	for i := 0; i < 2000; i++ {
		texts = append(texts, strconv.FormatUint(r.Uint64()>>uint(r.IntN(64)), 10))
	}
	ends := []string{"", ",", "}", "]", " ", "\t", "\n", "\r", "x", ".", "e", "0", ":", "\""}
	for _, n := range texts {
		for _, end := range ends {
			fast := decoder{buf: []byte(n + end), maxDepth: 10, maxString: 100, maxMembers: 100}
			slow := decoder{buf: []byte(" " + n + end), maxDepth: 10, maxString: 100, maxMembers: 100}
			a, errA := fast.readInt64()
			b, errB := slow.readInt64()
			if a != b || (errA == nil) != (errB == nil) || (errA == nil && fast.pos+1 != slow.pos) {
				t.Fatalf("%q: fast path %d, %v, at %d; full path %d, %v, at %d", n+end, a, errA, fast.pos, b, errB, slow.pos-1)
			}
		}
	}
}
