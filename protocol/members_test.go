package protocol

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// extraObject returns a ClientCapabilities object with n undeclared
// members x0…x(n-1); when dup ≥ 0, member n-1 repeats the name of
// member dup.
func extraObject(n, dup int) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		name := i
		if dup >= 0 && i == n-1 {
			name = dup
		}
		b.WriteString(`"x` + strconv.Itoa(name) + `":0`)
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// extraMembers returns n undeclared members x0…x(n-1); when dup ≥ 0,
// member at repeats the name of member dup.
func extraMembers(n, dup, at int) Members {
	m := make(Members, n)
	for i := range m {
		m[i] = Member{Name: "x" + strconv.Itoa(i), Value: []byte("0")}
	}
	if dup >= 0 {
		m[at].Name = m[dup].Name
	}
	return m
}

// memberCounts are the object sizes tested: around the point where the
// runtime switches from a scan to a set (linearMembers), and large ones.
var memberCounts = []int{1, 2, 15, 16, 17, 18, 33, 1000, 8000}

// TestExtraMembersDuplicates checks that a repeated undeclared member is
// refused, wherever the first of the two is, and that n distinct members
// decode and encode back, for sizes on both sides of the scan/set switch.
func TestExtraMembersDuplicates(t *testing.T) {
	for _, n := range memberCounts {
		var v ClientCapabilities
		if err := Unmarshal(extraObject(n, -1), &v); err != nil {
			t.Fatalf("n=%d distinct: %v", n, err)
		}
		if len(v.Extra) != n {
			t.Fatalf("n=%d distinct: decoded %d members", n, len(v.Extra))
		}
		out, err := Marshal(&v)
		if err != nil {
			t.Fatalf("n=%d distinct: encode: %v", n, err)
		}
		if string(out) != string(extraObject(n, -1)) {
			t.Fatalf("n=%d distinct: encode gave %.80s…", n, out)
		}
		if n < 2 {
			continue
		}
		for _, first := range []int{0, (n - 1) / 2, n - 2} {
			// Decode: the last member repeats member first.
			var w ClientCapabilities
			err := Unmarshal(extraObject(n, first), &w)
			var de *DecodeError
			if !errors.As(err, &de) || de.Kind != KindDuplicate || de.Path != "x"+strconv.Itoa(first) {
				t.Errorf("n=%d decode repeat of member %d: got %v", n, first, err)
			}
			// Encode: the repeat at the end, in the middle (when it can
			// follow first) and right after first.
			for _, at := range []int{n - 1, first + 1, (first + n) / 2} {
				if at <= first || at >= n {
					continue
				}
				c := ClientCapabilities{Extra: extraMembers(n, first, at)}
				_, err := Marshal(&c)
				want := `extra member "x` + strconv.Itoa(first) + `" appears twice`
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("n=%d encode repeat of member %d at %d: got %v", n, first, at, err)
				}
			}
		}
	}
}

// BenchmarkExtraMembers decodes and encodes an object with n undeclared
// members; time and allocations per member should not grow with n.
func BenchmarkExtraMembers(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000, 8000} {
		data := extraObject(n, -1)
		b.Run("decode/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				var v ClientCapabilities
				if err := Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
		var v ClientCapabilities
		if err := Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
		b.Run("encode/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Marshal(&v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
