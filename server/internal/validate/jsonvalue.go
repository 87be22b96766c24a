package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ctxCheckEvery is how many values the parser reads between two checks of
// its context.
const ctxCheckEvery = 4096

// ParseValue turns JSON text into the values the schema validator takes:
// map[string]any, []any, string, json.Number, bool and nil. Its input has
// already passed protocol's strict decoder (valid JSON, no duplicate
// names, bounded depth), so this is a single allocation-lean pass, not a
// second validation; it still refuses anything malformed rather than
// guess. A number over lim is refused with a *ValueError naming its path;
// so is text with more values than lim.MaxValues, found by a pass over
// the text before any value is built (a *ValueError at the root); when
// ctx ends, its error is returned (a nil ctx is never checked).
//
// The tree is read-only: its strings and numbers share one copy of b,
// and all its empty objects, all its empty arrays and all its one-digit
// numbers are one value each.
func ParseValue(ctx context.Context, b []byte, lim Limits) (any, error) {
	p := valueParser{b: b, lim: lim, ctx: ctx}
	v, err := p.parse()
	if err != nil {
		return nil, err
	}
	if p.over != nil {
		return nil, p.over
	}
	return v, nil
}

// Args are tool arguments as Parse read them.
type Args struct {
	// Value is the arguments' value tree, as ParseValue returns it, for
	// the caller's own checks (the Mcp-Param-* headers) before Check.
	Value any
	over  *ValueError // the first number over the limits
}

// Parse reads tool arguments as ParseValue does, but for a number over
// lim: parsing goes on after it, and Check refuses it, so that the caller
// can still compare the Mcp-Param-* headers (step 7 of the order) with
// Value before the arguments are refused (step 8). Text with more values
// than lim.MaxValues is refused with a *ValueError before any value is
// built (HeaderArgs reads what the headers need of it); when ctx ends,
// its error is returned.
func Parse(ctx context.Context, b []byte, lim Limits) (Args, error) {
	p := valueParser{b: b, lim: lim, ctx: ctx}
	v, err := p.parse()
	if err != nil {
		return Args{}, err
	}
	return Args{Value: v, over: p.over}, nil
}

var errBadJSON = errors.New("malformed JSON")

// errCaseVariant refuses an object whose member names differ only in case:
// a handler decoding with encoding/json would read the other one than the
// schema check and the Mcp-Param-* headers saw.
var errCaseVariant = errors.New("member names that differ only in case")

// A ValueError refuses one value of well-formed JSON that the runtime will
// not validate (a number over the limits), or a member name the schema
// does not declare but a handler may take for a declared one. Callers
// answer it as invalid arguments: a tool execution error for tool
// arguments, -32602 elsewhere.
type ValueError struct {
	path   []string // reference tokens from the root, unescaped
	reason string
}

// Error is "at <JSON Pointer>: <reason>".
func (e *ValueError) Error() string { return "at " + jsonPointer(e.path) + ": " + e.reason }

// jsonPointer writes path as an RFC 6901 JSON Pointer ("/" for the root,
// as the validator's messages do).
func jsonPointer(path []string) string {
	if len(path) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, tok := range path {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// maxExponentDigits bounds how many digits an exponent is written with,
// leading zeros included: 1e0000001 is 1e1 to the limits, but every
// conversion to big.Rat reads all of it, and a million zeros cost some
// 20 ms each time. No encoder writes more than a few.
const maxExponentDigits = 8

// numberSize returns the digits of the mantissa of a well-formed number
// literal, its exponent as written (its absolute value, saturating far
// above any limit) and the digits the exponent is written with.
func numberSize[T ~string | ~[]byte](lit T) (digits, exp, expDigits int) {
	i := 0
	for ; i < len(lit) && lit[i] != 'e' && lit[i] != 'E'; i++ {
		if lit[i] >= '0' && lit[i] <= '9' {
			digits++
		}
	}
	if i < len(lit) {
		i++
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			i++
		}
		expDigits = len(lit) - i
		for ; i < len(lit); i++ {
			if exp < 1e15 { // past it every limit is crossed anyway; no overflow
				exp = exp*10 + int(lit[i]-'0')
			}
		}
	}
	return digits, exp, expDigits
}

// numberProblem checks a well-formed number literal against the limits
// and returns what is wrong with it, "" when nothing. Within them, a
// literal has at most maxDigits + maxExponentDigits + 4 bytes.
func numberProblem[T ~string | ~[]byte](l Limits, lit T) string {
	switch digits, exp, expDigits := numberSize(lit); {
	case digits > l.MaxDigits:
		return fmt.Sprintf("number has %d digits, more than the limit of %d", digits, l.MaxDigits)
	case exp > l.MaxExponent:
		return fmt.Sprintf("number's exponent is beyond the limit of ±%d", l.MaxExponent)
	case expDigits > maxExponentDigits:
		return fmt.Sprintf("number's exponent is written with %d digits, more than the limit of %d", expDigits, maxExponentDigits)
	}
	return ""
}

type valueParser struct {
	b   []byte
	i   int
	lim Limits
	ctx context.Context // when set, checked every ctxCheckEvery values
	// over is the first number over the limits. Parsing goes on after it,
	// so that the caller can still compare the Mcp-Param-* headers (step
	// 7 of the order) before refusing the arguments (step 8).
	over  *ValueError
	check int       // values until the next context check
	path  []pathSeg // where the parser is, for over

	src      string   // b, which strings and numbers share
	elems    []any    // the elements of the arrays being read, innermost last
	members  []member // the members of the objects being read, innermost last
	emptyObj any      // the one empty object
	emptyArr any      // the one empty array
	digits   [10]any  // the one-digit numbers, once read
}

// member is one member of an object being read.
type member struct {
	k string
	v any
}

// tooManyValues is the error of text with more than max values.
func tooManyValues(max int) *ValueError {
	return &ValueError{reason: fmt.Sprintf("more values (object members and array elements) than the limit of %d", max)}
}

// countValues counts the values of well-formed JSON text: the root, and
// every member and element (1 + commas + containers that are not empty),
// stopping once past limit. It reads each byte once and builds nothing.
func countValues(b []byte, limit int) int {
	n := 1
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			if i = stringEnd(b, i); i < 0 {
				return n // malformed: the parser refuses it
			}
		case ',':
			if n++; n > limit {
				return n
			}
		case '[', '{':
			if j := SkipWS(b, i+1); j < len(b) && b[j] != ']' && b[j] != '}' {
				if n++; n > limit {
					return n
				}
			}
		}
	}
	return n
}

// pathSeg is one step of a path: a member name, or an index when idx >= 0.
type pathSeg struct {
	key string
	idx int
}

// parse reads the whole of p.b.
func (p *valueParser) parse() (any, error) {
	if p.lim.MaxValues > 0 {
		n := countValues(p.b, p.lim.MaxValues)
		if n > p.lim.MaxValues {
			return nil, tooManyValues(p.lim.MaxValues)
		}
		p.elems = make([]any, 0, n) // no array has more elements than that
	}
	p.src = string(p.b)
	p.check = ctxCheckEvery
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, errBadJSON
	}
	return v, nil
}

func (p *valueParser) ws() { p.i = SkipWS(p.b, p.i) }

// counted counts one value, and checks the context every ctxCheckEvery
// values.
func (p *valueParser) counted() error {
	if p.check--; p.check <= 0 {
		p.check = ctxCheckEvery
		if p.ctx != nil {
			if err := p.ctx.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// renderPath turns a path into its reference tokens.
func renderPath(path []pathSeg) []string {
	out := make([]string, len(path))
	for i, seg := range path {
		if seg.idx >= 0 {
			out[i] = strconv.Itoa(seg.idx)
		} else {
			out[i] = seg.key
		}
	}
	return out
}

func (p *valueParser) value() (any, error) {
	p.ws()
	if p.i >= len(p.b) {
		return nil, errBadJSON
	}
	if err := p.counted(); err != nil {
		return nil, err
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		var folded map[string]struct{} // for large objects: folded names seen
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			if p.emptyObj == nil {
				p.emptyObj = map[string]any{}
			}
			return p.emptyObj, nil
		}
		mark := len(p.members)
		defer func() { clear(p.members[mark:]); p.members = p.members[:mark] }()
		for {
			p.ws()
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil, errBadJSON
			}
			p.i++
			p.path = append(p.path, pathSeg{key: k, idx: -1})
			v, err := p.value()
			p.path = p.path[:len(p.path)-1]
			if err != nil {
				return nil, err
			}
			seen := p.members[mark:]
			if folded == nil && len(seen) >= 8 {
				folded = make(map[string]struct{}, 16)
				for _, other := range seen {
					folded[foldKey(other.k)] = struct{}{}
				}
			}
			if folded != nil {
				f := foldKey(k)
				if _, dup := folded[f]; dup {
					return nil, errCaseVariant
				}
				folded[f] = struct{}{}
			} else {
				for _, other := range seen {
					if sameFolded(other.k, k) {
						return nil, errCaseVariant
					}
				}
			}
			p.members = append(p.members, member{k, v})
			p.ws()
			if p.i >= len(p.b) {
				return nil, errBadJSON
			}
			if p.b[p.i] == '}' {
				p.i++
				m := make(map[string]any, len(p.members)-mark)
				for _, e := range p.members[mark:] {
					m[e.k] = e.v
				}
				return m, nil
			}
			if p.b[p.i] != ',' {
				return nil, errBadJSON
			}
			p.i++
		}
	case c == '[':
		p.i++
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			if p.emptyArr == nil {
				p.emptyArr = []any{}
			}
			return p.emptyArr, nil
		}
		mark := len(p.elems)
		p.path = append(p.path, pathSeg{idx: 0})
		defer func() {
			p.path = p.path[:len(p.path)-1]
			clear(p.elems[mark:])
			p.elems = p.elems[:mark]
		}()
		for {
			p.path[len(p.path)-1].idx = len(p.elems) - mark
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			p.elems = append(p.elems, v)
			p.ws()
			if p.i >= len(p.b) {
				return nil, errBadJSON
			}
			if p.b[p.i] == ']' {
				p.i++
				return slices.Clone(p.elems[mark:]), nil
			}
			if p.b[p.i] != ',' {
				return nil, errBadJSON
			}
			p.i++
		}
	case c == '"':
		return p.str()
	case c == 't' && len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "true":
		p.i += 4
		return true, nil
	case c == 'f' && len(p.b)-p.i >= 5 && string(p.b[p.i:p.i+5]) == "false":
		p.i += 5
		return false, nil
	case c == 'n' && len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "null":
		p.i += 4
		return nil, nil
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		for p.i < len(p.b) {
			c := p.b[p.i]
			if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
				p.i++
				continue
			}
			break
		}
		if !validNumber(p.b[start:p.i]) {
			return nil, errBadJSON
		}
		if p.i-start == 1 && c != '-' {
			if p.digits[c-'0'] == nil {
				p.digits[c-'0'] = json.Number(p.text(start, p.i))
			}
			return p.digits[c-'0'], nil
		}
		n := json.Number(p.text(start, p.i))
		if p.over == nil {
			if problem := numberProblem(p.lim, n); problem != "" {
				// Kept as text (nothing converts it); the caller refuses
				// the arguments.
				p.over = &ValueError{path: renderPath(p.path), reason: problem}
			}
		}
		return n, nil
	}
	return nil, errBadJSON
}

// stringEnd returns the index of the quote that closes the string whose
// opening quote is at i, -1 when it is not closed.
func stringEnd(b []byte, i int) int {
	for {
		k := bytes.IndexByte(b[i+1:], '"')
		if k < 0 {
			return -1
		}
		i += 1 + k
		bs := 0 // the quote is escaped after an odd number of backslashes
		for j := i - 1; b[j] == '\\'; j-- {
			bs++
		}
		if bs%2 == 0 {
			return i
		}
	}
}

// text returns b[start:end] as a string, sharing src when parse set it.
func (p *valueParser) text(start, end int) string {
	if p.src != "" {
		return p.src[start:end]
	}
	return string(p.b[start:end])
}

// HeaderArgs reads, of arguments with too many values to build (Parse
// refuses them: WithMaxArgumentValues), only those the Mcp-Param-*
// headers are compared with: the members on paths (each a list of member
// names), through objects from the root. Every other value is skipped; an
// array or object at the end of a path becomes a value equal to no
// header. Of malformed text, what was read is returned.
func HeaderArgs(args []byte, paths [][]string) any {
	root := &pathTrie{}
	for _, path := range paths {
		t := root
		for _, k := range path {
			if t.next == nil {
				t.next = map[string]*pathTrie{}
			}
			if t.next[k] == nil {
				t.next[k] = &pathTrie{}
			}
			t = t.next[k]
		}
	}
	p := valueParser{b: args, lim: Limits{MaxDigits: math.MaxInt, MaxExponent: math.MaxInt}}
	return p.sparse(root)
}

// pathTrie is the member paths HeaderArgs reads.
type pathTrie struct{ next map[string]*pathTrie }

// sparse reads one value, building of it only what lies on t's paths.
func (p *valueParser) sparse(t *pathTrie) any {
	p.ws()
	if p.i >= len(p.b) {
		return nil
	}
	switch p.b[p.i] {
	case '{':
		if len(t.next) == 0 {
			p.skip()
			return struct{}{} // equals no header
		}
		p.i++
		m := map[string]any{}
		for {
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] == '}' {
				p.i++
				return m
			}
			k, err := p.str()
			if p.ws(); err != nil || p.i >= len(p.b) || p.b[p.i] != ':' {
				return m
			}
			p.i++
			if sub := t.next[k]; sub != nil {
				m[k] = p.sparse(sub)
			} else if !p.skip() {
				return m
			}
			if p.ws(); p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
			}
		}
	case '[':
		p.skip()
		return struct{}{}
	}
	v, err := p.value() // a scalar
	if err != nil {
		return nil
	}
	return v
}

// skip passes over one value, reporting whether it was well formed.
func (p *valueParser) skip() bool {
	p.ws()
	if p.i >= len(p.b) {
		return false
	}
	switch p.b[p.i] {
	case '"':
		end := stringEnd(p.b, p.i)
		p.i = end + 1
		return end >= 0
	case '{', '[':
		depth := 0
		for ; p.i < len(p.b); p.i++ {
			switch p.b[p.i] {
			case '"':
				if p.i = stringEnd(p.b, p.i); p.i < 0 {
					p.i = len(p.b)
					return false
				}
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					p.i++
					return true
				}
			}
		}
		return false
	}
	for p.i < len(p.b) && !strings.ContainsRune(",}] \t\n\r", rune(p.b[p.i])) {
		p.i++ // a number, true, false or null
	}
	return true
}

// foldKey maps names that differ only in case to one key: those
// strings.EqualFold finds equal, and also pairs such as "ı" and "I" that
// only full case mapping joins. Small and large objects use the same
// relation (sameFolded), so the verdict does not depend on the member
// count.
func foldKey(s string) string { return strings.ToLower(strings.ToUpper(s)) }

// sameFolded reports whether a and b have the same foldKey, without
// allocating for ASCII names (where strings.EqualFold is the same test).
func sameFolded(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	if isASCII(a) && isASCII(b) {
		return false
	}
	return foldKey(a) == foldKey(b)
}

// isASCII reports whether s has only ASCII bytes.
func isASCII[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// validNumber reports whether b is a JSON number (RFC 8259: -?int
// frac? exp?), whatever its size.
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - start
	}
	switch n := digits(); {
	case n == 0, n > 1 && b[i-n] == '0':
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

func (p *valueParser) str() (string, error) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", errBadJSON
	}
	p.i++
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			s := p.text(start, p.i)
			p.i++
			return s, nil
		}
		if c == '\\' {
			return p.escaped(start)
		}
		p.i++
	}
	return "", errBadJSON
}

func (p *valueParser) escaped(start int) (string, error) {
	out := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), nil
		case c != '\\':
			out = append(out, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			return "", errBadJSON
		}
		e := p.b[p.i+1]
		p.i += 2
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
			r, ok := hex4(p.b, p.i)
			if !ok {
				return "", errBadJSON
			}
			p.i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if p.i+6 <= len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					r2, ok2 = hex4(p.b, p.i+2)
				}
				if !ok2 {
					return "", errBadJSON
				}
				r = utf16.DecodeRune(r, r2)
				p.i += 6
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", errBadJSON
		}
	}
	return "", errBadJSON
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	return rune(n), err == nil
}
