//go:build ignore

package protocol

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decoder is a single-pass, strict JSON reader over a byte slice. The
// generated decoders drive it member by member; nothing is decoded twice and
// nothing goes through an intermediate map.
type decoder struct {
	buf      []byte
	pos      int
	depth    int
	maxDepth int
	// maxString and maxMembers are the other limits of UnmarshalOptions;
	// members counts the object members read so far.
	maxString  int
	maxMembers int
	members    int
	scratch    []byte // unescaped strings; valid until the next string read
	escaped    bool   // the last string read had escapes, so it lives in scratch
	// unchecked says that the name nextName returned last is raw bytes,
	// not yet read as a JSON string; nameAt is its opening quote.
	unchecked bool
	nameAt    int
}

func (d *decoder) errAt(kind ErrorKind, msg string) error {
	return &DecodeError{Kind: kind, Offset: d.pos, Msg: msg}
}

// ws skips JSON white space.
func (d *decoder) ws() {
	b, i := d.buf, d.pos
	for i < len(b) {
		c := b[i]
		if c > ' ' || (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
			break
		}
		i++
	}
	d.pos = i
}

// The SWAR constants for scanning strings eight bytes at a time.
const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// plainRun returns how many leading bytes of b are printable ASCII other
// than '"' and '\\', found eight at a time: bytes that a string scan can
// pass over without looking at them one by one. In the word that holds
// the first other byte it stops at that byte (the lowest flagged one:
// the borrows of the tests only carry to higher bytes); in the last
// bytes, fewer than eight, it stops at their start.
//
// It is not inlined: inlined into its callers, the loop ran out of
// registers and reloaded their values from the stack at every word.
//
//go:noinline
func plainRun(b []byte) int {
	n := 0
	for ; len(b) >= 8; b, n = b[8:], n+8 {
		x := binary.LittleEndian.Uint64(b)
		quote := x ^ (swarOnes * '"')
		back := x ^ (swarOnes * '\\')
		special := (x - swarOnes*0x20) | // bytes below 0x20 borrow into the high bit
			(quote-swarOnes) & ^quote | // a zero byte where x had '"'
			(back-swarOnes) & ^back | // a zero byte where x had '\\'
			x // bytes of 0x80 and above
		if special &= swarHighs; special != 0 {
			return n + bits.TrailingZeros64(special)/8
		}
	}
	return n
}

// peek returns the next non-space byte without consuming it, or 0 at the end.
// The common case, no white space before a token, is tested first.
func (d *decoder) peek() byte {
	if b, i := d.buf, d.pos; uint(i) < uint(len(b)) && b[i] > ' ' {
		return b[i]
	}
	return d.peekSpace()
}

// peekSpace is peek past white space.
func (d *decoder) peekSpace() byte {
	d.ws()
	if d.pos < len(d.buf) {
		return d.buf[d.pos]
	}
	return 0
}

// eof reports whether only white space is left.
func (d *decoder) eof() bool {
	d.ws()
	return d.pos >= len(d.buf)
}

// nextKind names the kind of the next value, for error messages, telling
// the end of input apart from a NUL byte.
func (d *decoder) nextKind() string {
	if d.eof() {
		return "end of input"
	}
	c := d.buf[d.pos]
	if c == 0 {
		return "invalid character '\\x00'"
	}
	return kindName(c)
}

// kindName names the JSON kind that starts with c, for error messages.
func kindName(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case 0:
		return "end of input"
	}
	if c == '-' || (c >= '0' && c <= '9') {
		return "number"
	}
	return "invalid character " + strconv.QuoteRune(rune(c))
}

// unexpected reports that the next value is not of the wanted kind.
func (d *decoder) unexpected(want string) error {
	if d.eof() {
		return d.errAt(KindSyntax, "unexpected end of input, expected "+want)
	}
	c := d.buf[d.pos]
	got := d.nextKind()
	switch {
	case c == 'n' && d.hasLiteral("null"):
		if d.literalEnds(4) {
			return d.errAt(KindNull, "expected "+want+", got null")
		}
		return d.errAt(KindSyntax, "invalid literal")
	case c == 't' && !(d.hasLiteral("true") && d.literalEnds(4)),
		c == 'f' && !(d.hasLiteral("false") && d.literalEnds(5)),
		c == 'n':
		return d.errAt(KindSyntax, "invalid literal")
	}
	if len(got) > 7 && got[:7] == "invalid" {
		return d.errAt(KindSyntax, got+", expected "+want)
	}
	return d.errAt(KindType, "expected "+want+", got "+got)
}

func (d *decoder) hasLiteral(lit string) bool {
	return len(d.buf)-d.pos >= len(lit) && string(d.buf[d.pos:d.pos+len(lit)]) == lit
}

// literalEnds reports whether the literal of length n at the position is
// not run into further letters or digits, as in "truex".
func (d *decoder) literalEnds(n int) bool {
	if d.pos+n >= len(d.buf) {
		return true
	}
	c := d.buf[d.pos+n]
	return !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
}

// enter and leave count nesting depth.
func (d *decoder) enter() error {
	d.depth++
	if d.depth > d.maxDepth {
		return d.errAt(KindDepth, "nesting deeper than "+strconv.Itoa(d.maxDepth)+" levels")
	}
	return nil
}

func (d *decoder) leave() { d.depth-- }

// beginObject consumes '{'. The caller then loops over nextMember.
func (d *decoder) beginObject() error {
	if d.peek() != '{' {
		return d.unexpected("object")
	}
	d.pos++
	return d.enter()
}

// nextMember advances to the next member of the current object and returns
// its unescaped name, positioned at the member's value. It returns ok=false
// after consuming the closing '}'. first must point at a variable that is
// true before the first call.
func (d *decoder) nextMember(first *bool) (name []byte, ok bool, err error) {
	// The common cases, the closing '}' and a plain name right after the
	// '{' or ',' with a ':' right after it, are read here; anything else
	// (white space, escapes, an error) by nextMemberSlow, from the start.
	b, i := d.buf, d.pos
	if uint(i) >= uint(len(b)) {
		return d.nextMemberSlow(first)
	}
	switch c := b[i]; {
	case c == '}':
		*first = false
		d.pos = i + 1
		d.leave()
		return nil, false, nil
	case !*first:
		if c != ',' {
			return d.nextMemberSlow(first)
		}
		i++
	}
	if uint(i) < uint(len(b)) && b[i] == '"' && d.members < d.maxMembers {
		start := i + 1
		j := start + plainRun(b[start:])
		if j+1 < len(b) && b[j] == '"' && b[j+1] == ':' && j-start <= d.maxString {
			*first = false
			d.members++
			d.escaped = false
			d.unchecked = false
			d.pos = j + 2
			return b[start:j], true, nil
		}
	}
	return d.nextMemberSlow(first)
}

// nextName is nextMember for a struct whose declared member names are
// all printable ASCII other than '"' and '\\'. Its common case finds the
// end of the name by the first '"' and does not check the bytes before
// it: when they equal a declared name, they are a valid name that ends
// there. Any other name is unchecked (d.unchecked): the generated decoder
// reads it again with checkName, which gives nextMember's errors, and
// matches the result against its declared names again when it had
// escapes.
func (d *decoder) nextName(first *bool) (name []byte, ok bool, err error) {
	b, i := d.buf, d.pos
	if uint(i) >= uint(len(b)) {
		return d.nextMemberSlow(first)
	}
	switch c := b[i]; {
	case c == '}':
		*first = false
		d.pos = i + 1
		d.leave()
		return nil, false, nil
	case !*first:
		if c != ',' {
			return d.nextMemberSlow(first)
		}
		i++
	}
	if uint(i) < uint(len(b)) && b[i] == '"' && d.members < d.maxMembers {
		start := i + 1
		if n := bytes.IndexByte(b[start:], '"'); n >= 0 && n <= d.maxString && start+n+1 < len(b) && b[start+n+1] == ':' {
			*first = false
			d.members++
			d.escaped = false
			d.unchecked = true
			d.nameAt = i
			d.pos = start + n + 2
			return b[start : start+n], true, nil
		}
	}
	return d.nextMemberSlow(first)
}

// checkName reads the unchecked name that nextName returned again, from
// its opening quote, as nextMember would have (the member is counted
// already), and leaves the position at its value.
func (d *decoder) checkName() ([]byte, error) {
	d.unchecked = false
	d.pos = d.nameAt
	name, err := d.readStringBytes()
	if err != nil {
		return nil, err
	}
	if d.peek() != ':' {
		return nil, d.errAt(KindSyntax, "expected ':' after member name")
	}
	d.pos++
	return name, nil
}

// nextMemberSlow is nextMember for every case.
func (d *decoder) nextMemberSlow(first *bool) (name []byte, ok bool, err error) {
	d.unchecked = false
	c := d.peek()
	if *first {
		*first = false
		if c == '}' {
			d.pos++
			d.leave()
			return nil, false, nil
		}
	} else {
		switch c {
		case '}':
			d.pos++
			d.leave()
			return nil, false, nil
		case ',':
			d.pos++
			c = d.peek()
			if c == '}' {
				return nil, false, d.errAt(KindSyntax, "trailing comma in object")
			}
		default:
			if d.eof() {
				return nil, false, d.errAt(KindSyntax, "unexpected end of input in object")
			}
			return nil, false, d.errAt(KindSyntax, "expected ',' or '}' after object member, got "+d.nextKind())
		}
	}
	if c != '"' {
		if d.eof() {
			return nil, false, d.errAt(KindSyntax, "unexpected end of input in object")
		}
		return nil, false, d.errAt(KindSyntax, "expected member name, got "+d.nextKind())
	}
	name, err = d.readStringBytes()
	if err != nil {
		return nil, false, err
	}
	if d.members++; d.members > d.maxMembers {
		return nil, false, d.errAt(KindLimit, "more than "+strconv.Itoa(d.maxMembers)+" object members")
	}
	if d.peek() != ':' {
		return nil, false, d.errAt(KindSyntax, "expected ':' after member name")
	}
	d.pos++
	return name, true, nil
}

// beginArray consumes '['.
func (d *decoder) beginArray() error {
	if d.peek() != '[' {
		return d.unexpected("array")
	}
	d.pos++
	return d.enter()
}

// nextElement reports whether another element follows, consuming ',' or the
// closing ']'.
func (d *decoder) nextElement(first *bool) (bool, error) {
	c := d.peek()
	if c == ']' {
		d.pos++
		d.leave()
		return false, nil
	}
	if *first {
		*first = false
		if d.eof() {
			return false, d.errAt(KindSyntax, "unexpected end of input in array")
		}
		return true, nil
	}
	if c != ',' {
		if d.eof() {
			return false, d.errAt(KindSyntax, "unexpected end of input in array")
		}
		return false, d.errAt(KindSyntax, "expected ',' or ']' after array element, got "+d.nextKind())
	}
	d.pos++
	if d.peek() == ']' {
		return false, d.errAt(KindSyntax, "trailing comma in array")
	}
	return true, nil
}

// readStringBytes reads a JSON string and returns its unescaped bytes. The
// result aliases the input or the scratch buffer: copy it to keep it.
func (d *decoder) readStringBytes() ([]byte, error) {
	if i := d.pos; uint(i) >= uint(len(d.buf)) || d.buf[i] != '"' {
		if d.peekSpace() != '"' {
			return nil, d.unexpected("string")
		}
	}
	d.escaped = false
	start := d.pos + 1
	// The common case, a string of printable ASCII ending within the
	// input, takes one scan and no further test per byte.
	i := start + plainRun(d.buf[start:])
	if i < len(d.buf) && d.buf[i] == '"' && i-start <= d.maxString {
		d.pos = i + 1
		return d.buf[start:i], nil
	}
	return d.readStringRest(start, i)
}

// readStringRest finishes a string that the fast path of readStringBytes
// did not: one with escapes, control characters, non-ASCII bytes, one
// over the length limit or one the input ends in. The bytes from start
// to i are plain.
func (d *decoder) readStringRest(start, i int) ([]byte, error) {
	d.pos = start
	ascii := true
	for ; i < len(d.buf); i++ {
		c := d.buf[i]
		switch {
		case c == '"':
			if i-start > d.maxString {
				d.pos = start
				return nil, d.errAt(KindLimit, "string longer than "+strconv.Itoa(d.maxString)+" bytes")
			}
			d.pos = i + 1
			s := d.buf[start:i]
			if !ascii && !utf8.Valid(s) {
				return nil, d.errAt(KindSyntax, "invalid UTF-8 in string")
			}
			return s, nil
		case c == '\\':
			return d.readEscaped(start, i)
		case c < 0x20:
			d.pos = i
			return nil, d.errAt(KindSyntax, "control character in string")
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	d.pos = len(d.buf)
	return nil, d.errAt(KindSyntax, "unexpected end of input in string")
}

// readEscaped finishes a string that contains escapes, from the first
// backslash at i.
func (d *decoder) readEscaped(start, i int) ([]byte, error) {
	d.escaped = true
	out := append(d.scratch[:0], d.buf[start:i]...)
	for i < len(d.buf) {
		c := d.buf[i]
		switch {
		case c == '"':
			if len(out) > d.maxString {
				d.pos = start
				return nil, d.errAt(KindLimit, "string longer than "+strconv.Itoa(d.maxString)+" bytes")
			}
			d.pos = i + 1
			d.scratch = out
			if !utf8.Valid(out) {
				return nil, d.errAt(KindSyntax, "invalid UTF-8 in string")
			}
			return out, nil
		case c < 0x20:
			d.pos = i
			return nil, d.errAt(KindSyntax, "control character in string")
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(d.buf) {
			break
		}
		e := d.buf[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(d.buf, i)
			if !ok {
				d.pos = i - 2
				return nil, d.errAt(KindSyntax, "invalid \\u escape in string")
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+6 <= len(d.buf) && d.buf[i] == '\\' && d.buf[i+1] == 'u' {
					r2, ok2 = hex4(d.buf, i+2)
				}
				dec := utf16.DecodeRune(r, r2)
				if !ok2 || dec == utf8.RuneError {
					d.pos = i - 6
					return nil, d.errAt(KindSyntax, "lone surrogate in \\u escape")
				}
				i += 6
				r = dec
			}
			out = utf8.AppendRune(out, r)
		default:
			d.pos = i - 2
			return nil, d.errAt(KindSyntax, "invalid escape "+strconv.Quote(string([]byte{'\\', e}))+" in string")
		}
	}
	d.pos = len(d.buf)
	return nil, d.errAt(KindSyntax, "unexpected end of input in string")
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// readString reads a JSON string into a new Go string.
func (d *decoder) readString() (string, error) {
	b, err := d.readStringBytes()
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// readBool reads true or false.
func (d *decoder) readBool() (bool, error) {
	switch d.peek() {
	case 't':
		if d.hasLiteral("true") {
			d.pos += 4
			return true, d.afterLiteral()
		}
	case 'f':
		if d.hasLiteral("false") {
			d.pos += 5
			return false, d.afterLiteral()
		}
	}
	return false, d.unexpected("boolean")
}

// afterLiteral rejects a literal run into other letters, as in "truex".
func (d *decoder) afterLiteral() error {
	if d.pos < len(d.buf) {
		c := d.buf[d.pos]
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			return d.errAt(KindSyntax, "invalid literal")
		}
	}
	return nil
}

// scanNumber consumes one JSON number and returns its text and whether it is
// an integer literal (no fraction, no exponent).
func (d *decoder) scanNumber() (text []byte, integer bool, err error) {
	start := d.pos
	i := d.pos
	b := d.buf
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		d.pos = i
		return nil, false, d.errAt(KindSyntax, "invalid number")
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		integer = false
		i++
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			d.pos = i
			return nil, false, d.errAt(KindSyntax, "invalid number: no digits after '.'")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			d.pos = i
			return nil, false, d.errAt(KindSyntax, "invalid number: no digits in exponent")
		}
	}
	if i < len(b) {
		if c := b[i]; (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '+' || c == '-' || (c >= '0' && c <= '9') {
			d.pos = i
			return nil, false, d.errAt(KindSyntax, "invalid number")
		}
	}
	d.pos = i
	return b[start:i], integer, nil
}

// readInt64 reads an integer literal. A fraction or exponent is a type
// error: the schema's "integer" members carry whole numbers on the wire.
func (d *decoder) readInt64() (int64, error) {
	// The common case, a positive integer of at most 18 digits (below
	// 2^63) followed by what ends a value, is read here.
	if b, i := d.buf, d.pos; i < len(b) && b[i] >= '1' && b[i] <= '9' {
		var n int64
		j := i
		for ; j < len(b) && j-i < 18 && b[j] >= '0' && b[j] <= '9'; j++ {
			n = n*10 + int64(b[j]-'0')
		}
		if j < len(b) && j-i < 18 {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				d.pos = j
				return n, nil
			}
		}
	}
	c := d.peek()
	if c != '-' && (c < '0' || c > '9') {
		return 0, d.unexpected("integer")
	}
	start := d.pos
	text, integer, err := d.scanNumber()
	if err != nil {
		return 0, err
	}
	if !integer {
		d.pos = start
		return 0, d.errAt(KindType, "expected integer, got number "+truncate(string(text)))
	}
	neg := text[0] == '-'
	digits := text
	if neg {
		digits = text[1:]
	}
	var n uint64
	for _, c := range digits {
		if n > (1<<63)/10 {
			d.pos = start
			return 0, d.errAt(KindRange, "integer "+truncate(string(text))+" out of range")
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			d.pos = start
			return 0, d.errAt(KindRange, "integer "+truncate(string(text))+" out of range")
		}
		return -int64(n), nil
	}
	if n > 1<<63-1 {
		d.pos = start
		return 0, d.errAt(KindRange, "integer "+truncate(string(text))+" out of range")
	}
	return int64(n), nil
}

// readFloat64 reads any JSON number.
func (d *decoder) readFloat64() (float64, error) {
	c := d.peek()
	if c != '-' && (c < '0' || c > '9') {
		return 0, d.unexpected("number")
	}
	start := d.pos
	text, _, err := d.scanNumber()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		d.pos = start
		return 0, d.errAt(KindRange, "number "+truncate(string(text))+" out of range")
	}
	return f, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// rawMode says which values readRaw accepts.
type rawMode uint8

const (
	rawAny        rawMode = iota // any JSON value
	rawObject                    // a JSON object with any members
	rawJSONValue                 // the schema's JSONValue: no null, integers only
	rawJSONObject                // an object of JSONValue
	rawJSONArray                 // an array of JSONValue
)

// readRaw validates one value strictly (grammar, UTF-8, duplicate member
// names, depth) and returns a copy of its bytes.
func (d *decoder) readRaw(mode rawMode) ([]byte, error) {
	if err := d.checkRawKind(mode); err != nil {
		return nil, err
	}
	start := d.pos
	if err := d.skip(mode >= rawJSONValue); err != nil {
		return nil, err
	}
	out := make([]byte, d.pos-start)
	copy(out, d.buf[start:d.pos])
	return out, nil
}

// checkRawKind checks the kind of the next value for modes that fix it.
func (d *decoder) checkRawKind(mode rawMode) error {
	c := d.peek()
	switch mode {
	case rawObject, rawJSONObject:
		if c != '{' {
			return d.unexpected("object")
		}
	case rawJSONArray:
		if c != '[' {
			return d.unexpected("array")
		}
	}
	return nil
}

// skip validates and passes over one value. jsonValue restricts it to the
// schema's JSONValue: no null and no non-integer numbers, at any depth.
func (d *decoder) skip(jsonValue bool) error {
	switch c := d.peek(); c {
	case '{':
		d.pos++
		if err := d.enter(); err != nil {
			return err
		}
		var small [8][]byte
		names := small[:0]
		var many map[string]struct{}
		first := true
		for {
			name, ok, err := d.nextMember(&first)
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			if d.escaped {
				// The scratch buffer is reused by the value that follows.
				name = bytes.Clone(name)
			}
			if many != nil {
				if _, dup := many[string(name)]; dup {
					return d.duplicate(string(name))
				}
				many[string(name)] = struct{}{}
			} else {
				for _, n := range names {
					if bytes.Equal(n, name) {
						return d.duplicate(string(name))
					}
				}
				if len(names) < cap(names) {
					names = append(names, name)
				} else {
					many = make(map[string]struct{}, 16)
					for _, n := range names {
						many[string(n)] = struct{}{}
					}
					many[string(name)] = struct{}{}
				}
			}
			if err := d.skip(jsonValue); err != nil {
				return inField(err, string(name))
			}
		}
	case '[':
		d.pos++
		if err := d.enter(); err != nil {
			return err
		}
		first := true
		for i := 0; ; i++ {
			more, err := d.nextElement(&first)
			if err != nil {
				return err
			}
			if !more {
				return nil
			}
			if err := d.skip(jsonValue); err != nil {
				return inIndex(err, i)
			}
		}
	case '"':
		_, err := d.readStringBytes()
		return err
	case 't', 'f':
		_, err := d.readBool()
		return err
	case 'n':
		if !d.hasLiteral("null") || !d.literalEnds(4) {
			return d.errAt(KindSyntax, "invalid literal")
		}
		if jsonValue {
			return d.errAt(KindNull, "null is not a JSONValue")
		}
		d.pos += 4
		return d.afterLiteral()
	default:
		if d.eof() {
			return d.errAt(KindSyntax, "unexpected end of input, expected a value")
		}
		if c == '-' || (c >= '0' && c <= '9') {
			start := d.pos
			_, integer, err := d.scanNumber()
			if err != nil {
				return err
			}
			if jsonValue && !integer {
				d.pos = start
				return d.errAt(KindType, "a JSONValue number must be an integer")
			}
			return nil
		}
		return d.errAt(KindSyntax, d.nextKind()+", expected a value")
	}
}

// duplicate reports a member seen twice.
func (d *decoder) duplicate(name string) error {
	return &DecodeError{Kind: KindDuplicate, Offset: d.pos, Path: name, Msg: "duplicate member " + strconv.Quote(name)}
}

// missing reports an absent required member.
func missing(name string) error {
	return &DecodeError{Kind: KindMissing, Offset: -1, Path: name, Msg: "required member is missing"}
}

// linearMembers is how many undeclared members of one object are checked
// for a repeat by scanning them; past it a set of their names is kept, so
// that the check stays linear in the number of members (a scan is as fast
// below it and allocates nothing).
const linearMembers = 16

// unknownMember handles a member name that the object does not declare: a
// case variant of a declared name is an error; otherwise the member is kept
// in extra, in order, unless closed is set. names is the caller's set of
// the names in extra, made here once extra holds more than linearMembers.
func (d *decoder) unknownMember(name []byte, declared string, closed bool, extra *Members, names *map[string]struct{}) error {
	for rest := declared; rest != ""; {
		var n string
		n, rest, _ = strings.Cut(rest, "\x00")
		// Unicode simple folding, as encoding/json matches names: "paramſ"
		// (U+017F) and "progressToKen" (U+212A) are variants too, whatever
		// their byte length.
		if strings.EqualFold(n, string(name)) {
			return &DecodeError{Kind: KindCaseVariant, Offset: d.pos, Path: string(name),
				Msg: "member name differs from declared member " + strconv.Quote(n) + " only in case"}
		}
	}
	if closed {
		return &DecodeError{Kind: KindUnknown, Offset: d.pos, Path: string(name), Msg: "unknown member in a closed object"}
	}
	if *names != nil {
		if _, dup := (*names)[string(name)]; dup {
			return d.duplicate(string(name))
		}
	} else {
		for _, m := range *extra {
			if m.Name == string(name) {
				return d.duplicate(m.Name)
			}
		}
	}
	key := string(name)
	raw, err := d.readRaw(rawAny)
	if err != nil {
		return inField(err, key)
	}
	*extra = append(*extra, Member{Name: key, Value: raw})
	switch {
	case *names != nil:
		(*names)[key] = struct{}{}
	case len(*extra) > linearMembers:
		*names = make(map[string]struct{}, 2*len(*extra))
		for _, m := range *extra {
			(*names)[m.Name] = struct{}{}
		}
	}
	return nil
}

// readConst reads a string and checks it against a const.
func (d *decoder) readConstString(want string) error {
	b, err := d.readStringBytes()
	if err != nil {
		return err
	}
	if string(b) != want {
		return &DecodeError{Kind: KindConst, Offset: d.pos, Msg: "must be " + strconv.Quote(want) + ", got " + strconv.Quote(truncate(string(b)))}
	}
	return nil
}

// readConstPlain is readConstString for a want of printable ASCII other
// than '"' and '\\' (the generator checks): the string written as want
// itself, without escapes, is matched byte for byte.
func (d *decoder) readConstPlain(want string) error {
	if i, end := d.pos, d.pos+len(want)+1; end < len(d.buf) && d.buf[i] == '"' && d.buf[end] == '"' &&
		string(d.buf[i+1:end]) == want && len(want) <= d.maxString {
		d.pos = end + 1
		return nil
	}
	return d.readConstString(want)
}

// readConstInt reads an integer and checks it against a const.
func (d *decoder) readConstInt(want int64) error {
	n, err := d.readInt64()
	if err != nil {
		return err
	}
	if n != want {
		return &DecodeError{Kind: KindConst, Offset: d.pos, Msg: "must be " + strconv.FormatInt(want, 10) + ", got " + strconv.FormatInt(n, 10)}
	}
	return nil
}

// end checks that only white space follows the top-level value.
func (d *decoder) end() error {
	if !d.eof() {
		return d.errAt(KindSyntax, "unexpected data after the top-level value")
	}
	return nil
}
