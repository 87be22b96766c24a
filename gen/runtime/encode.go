//go:build ignore

package protocol

import (
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// encoder appends JSON to a byte slice. The generated encoders write member
// names as pre-quoted literals and call the value writers below.
type encoder struct {
	buf []byte
	// trusted is MarshalOptions.Trusted; meta and metaJSON are
	// MarshalOptions.Meta and MetaJSON.
	trusted  []byte
	meta     any
	metaJSON []byte
}

// member writes the separator (none before the first member) and a
// pre-quoted `"name":` literal.
func (e *encoder) member(first *bool, quotedNameColon string) {
	if *first {
		*first = false
	} else {
		e.buf = append(e.buf, ',')
	}
	e.buf = append(e.buf, quotedNameColon...)
}

// element writes the separator before an array element.
func (e *encoder) element(i int) {
	if i > 0 {
		e.buf = append(e.buf, ',')
	}
}

// bool writes true or false.
func (e *encoder) bool(v bool) {
	if v {
		e.buf = append(e.buf, "true"...)
	} else {
		e.buf = append(e.buf, "false"...)
	}
}

// int writes an integer.
func (e *encoder) int(v int64) {
	e.buf = strconv.AppendInt(e.buf, v, 10)
}

// float writes a number the way encoding/json does; NaN and infinities have
// no JSON form.
func (e *encoder) float(path string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return encodeError(path, "number %v has no JSON form", v)
	}
	abs := math.Abs(v)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	e.buf = strconv.AppendFloat(e.buf, v, format, -1, 64)
	return nil
}

const hexDigits = "0123456789abcdef"

// plainString[c] is 1 for a byte a JSON string holds as it is: printable
// ASCII other than '"' and '\\'. Bytes from 0x80 are 0: they start UTF-8
// sequences, which string checks one by one. (A constant, so that no
// package state can change it.)
const plainString = "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x01\x01\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// string writes a quoted JSON string. Invalid UTF-8 becomes U+FFFD, as in
// encoding/json; '<', '>' and '&' are written as they are.
//
// Runs of bytes written as they are (plainString) are found eight at a
// time and copied whole; only the bytes around them are looked at one by
// one (TestEncodeStringDifferential compares it with the byte-at-a-time
// encoder it replaces).
func (e *encoder) string(s string) {
	b := append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if len(s)-i >= 8 {
			// The lowest flagged byte is the first one that is not plain:
			// the borrows of the tests only carry to higher bytes.
			w := s[i : i+8]
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			quote := x ^ (swarOnes * '"')
			back := x ^ (swarOnes * '\\')
			special := (x - swarOnes*0x20) | // bytes below 0x20 borrow into the high bit
				(quote-swarOnes) & ^quote | // a zero byte where x had '"'
				(back-swarOnes) & ^back | // a zero byte where x had '\\'
				x // bytes of 0x80 and above
			if special &= swarHighs; special == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(special) / 8
		} else if plainString[s[i]] != 0 {
			i++
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
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
	e.buf = append(b, '"')
}

// raw writes already-validated JSON, or null for an empty value.
func (e *encoder) raw(v []byte) {
	if len(v) == 0 {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.buf = append(e.buf, v...)
}

// checkRaw validates raw JSON held in a Go value before it is written, so
// that Marshal never emits invalid JSON. The one value it does not
// validate again is the caller's MarshalOptions.Trusted, where any JSON
// value may go (rawAny): the very same bytes, not an equal copy, which the
// caller vouches for.
func (e *encoder) checkRaw(path string, v []byte, mode rawMode) error {
	if mode == rawAny && len(v) > 0 && len(v) == len(e.trusted) && &v[0] == &e.trusted[0] {
		return nil
	}
	return checkRaw(path, v, mode)
}

// checkRaw validates raw JSON held in a Go value before it is written, so
// that Marshal never emits invalid JSON.
func checkRaw(path string, v []byte, mode rawMode) error {
	if err := validRaw(v, mode); err != nil {
		return rawError(path, err)
	}
	return nil
}

// rawError reports invalid raw JSON at path.
func rawError(path string, err error) error {
	return &EncodeError{Path: path, Msg: "invalid raw JSON: " + err.Error()}
}

// validRaw reports what is wrong with raw JSON text v of the given mode.
func validRaw(v []byte, mode rawMode) error {
	d := decoder{buf: v, maxDepth: DefaultMaxDepth, maxString: DefaultMaxStringBytes, maxMembers: DefaultMaxMembers}
	err := d.checkRawKind(mode)
	if err == nil {
		err = d.skip(mode >= rawJSONValue)
	}
	if err == nil {
		err = d.end()
	}
	return err
}
