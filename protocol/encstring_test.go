package protocol

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// referenceString is the byte-at-a-time string encoder that
// encoder.string replaced: its output is the specification of the fast
// one.
func referenceString(buf []byte, s string) []byte {
	b := append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// TestEncodeStringDifferential: encoder.string, which scans eight bytes
// at a time, writes exactly what the byte-at-a-time encoder wrote, for
// edge cases (every byte alone and in every position of a word, control
// characters, quotes, backslashes, DEL, U+2028/U+2029, invalid and
// truncated UTF-8, multi-byte runes across word boundaries) and for
// random strings drawn around the thresholds of its tests; and what it
// writes is valid JSON that decodes to the string (invalid UTF-8 as
// U+FFFD).
func TestEncodeStringDifferential(t *testing.T) {
	check := func(s string) {
		t.Helper()
		e := encoder{buf: []byte("x")}
		e.string(s)
		want := referenceString([]byte("x"), s)
		if string(e.buf) != string(want) {
			t.Fatalf("string(%q) = %s, want %s", s, e.buf, want)
		}
		var back string
		if err := json.Unmarshal(e.buf[1:], &back); err != nil {
			t.Fatalf("string(%q) = %s: not JSON: %v", s, e.buf, err)
		}
		if back != strings.ToValidUTF8(s, "\ufffd") && utf8.ValidString(s) {
			t.Fatalf("string(%q) decodes to %q", s, back)
		}
	}
	edges := []string{"", "a", "abcdefg", "abcdefgh", "abcdefghi", `"`, `\`, "\x00", "\x1f", " ", "\x7f", "\x80", "\xff",
		"\u2028", "\u2029", "\u2027", "\u202a", "é", "日本語", "\xe2\x80", "\xe2\x80\xa8", "\xed\xa0\x80", "\xf4\x90\x80\x80",
		"<>&", "\t\n\r\b\f", `{"text":"hello"}`, "hello world, a plain sentence of ASCII text",
		strings.Repeat("a", 1000), strings.Repeat("\"", 17), strings.Repeat("é", 9)}
	for _, s := range edges {
		check(s)
	}
	// Every byte at every offset of the first two words.
	for c := range 256 {
		for pos := range 17 {
			b := []byte(strings.Repeat("a", 18))
			b[pos] = byte(c)
			check(string(b))
		}
	}
	// U+2028/U+2029 and multi-byte runes straddling a word boundary.
	for pos := range 12 {
		for _, r := range []string{"\u2028", "\u2029", "é", "日", "😀", "\xe2\x80\xa8", "\xe2\x80", "\xc3"} {
			check(strings.Repeat("b", pos) + r + strings.Repeat("c", 9))
		}
	}
	rnd := rand.New(rand.NewPCG(24, 28))
	pool := []string{"\x00", "\x1f", " ", "!", `"`, "#", "[", `\`, "]", "a", "~", "\x7f", "\x80", "\xc3", "\xff", "é", "\u2028", "\u2029", "日", "😀", "\xe2\x80"}
	for range 200000 {
		var sb strings.Builder
		for n := rnd.IntN(40); n > 0; n-- {
			if rnd.IntN(4) == 0 {
				sb.WriteString(pool[rnd.IntN(len(pool))])
			} else {
				sb.WriteByte('a' + byte(rnd.IntN(26)))
			}
		}
		check(sb.String())
	}
}

// FuzzEncodeString: encoder.string and the byte-at-a-time encoder agree
// on any string.
func FuzzEncodeString(f *testing.F) {
	for _, s := range []string{"", `{"a":"\u2028"}`, "\xff\xfe", "plain text of more than eight bytes"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := encoder{}
		e.string(s)
		if want := referenceString(nil, s); string(e.buf) != string(want) {
			t.Fatalf("string(%q) = %s, want %s", s, e.buf, want)
		}
	})
}
