package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// valueLimits bound what parseValue hands to the schema validator. The
// validator (santhosh-tekuri/jsonschema) turns a json.Number into a
// big.Rat for integer types, minimum/maximum, multipleOf, enum, const and
// uniqueItems: "1e999999" becomes a million-digit integer (about 20 ms of
// CPU each) and a 100,000-digit literal costs as much. So no number
// longer or with a larger exponent than these limits is let through.
type valueLimits struct {
	maxDigits   int             // digits of the mantissa (integer and fraction parts, leading zeros included)
	maxExponent int             // |exponent| as written ("1e400": 400)
	ctx         context.Context // when set, checked every ctxCheckEvery values
}

// ctxCheckEvery is how many values parseValue reads between two checks of
// its context.
const ctxCheckEvery = 4096

// defaultValueLimits are the limits of a Server built without
// WithNumberLimits.
func defaultValueLimits() valueLimits {
	return valueLimits{maxDigits: DefaultMaxNumberDigits, maxExponent: DefaultMaxNumberExponent}
}

// parseValue turns JSON text into the values the schema validator takes:
// map[string]any, []any, string, json.Number, bool and nil. Its input has
// already passed protocol's strict decoder (valid JSON, no duplicate
// names, bounded depth), so this is a single allocation-lean pass, not a
// second validation; it still refuses anything malformed rather than
// guess. A number over lim is refused with a *valueError naming its path;
// when lim has a context that ends, its error is returned.
func parseValue(b []byte, lim valueLimits) (any, error) {
	p := valueParser{b: b, lim: lim}
	v, err := p.parse()
	if err != nil {
		return nil, err
	}
	if p.over != nil {
		return nil, p.over
	}
	return v, nil
}

var errBadJSON = errors.New("malformed JSON")

// errCaseVariant refuses an object whose member names differ only in case:
// a handler decoding with encoding/json would read the other one than the
// schema check and the Mcp-Param-* headers saw.
var errCaseVariant = errors.New("member names that differ only in case")

// A valueError refuses one value of well-formed JSON that the runtime will
// not validate (a number over the limits), or a member name the schema
// does not declare but a handler may take for a declared one. Callers
// answer it as invalid arguments: a tool execution error for tool
// arguments, -32602 elsewhere.
type valueError struct {
	path   []string // reference tokens from the root, unescaped
	reason string
}

func (e *valueError) Error() string { return "at " + jsonPointer(e.path) + ": " + e.reason }

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
func numberProblem[T ~string | ~[]byte](l valueLimits, lit T) string {
	switch digits, exp, expDigits := numberSize(lit); {
	case digits > l.maxDigits:
		return fmt.Sprintf("number has %d digits, more than the limit of %d", digits, l.maxDigits)
	case exp > l.maxExponent:
		return fmt.Sprintf("number's exponent is beyond the limit of ±%d", l.maxExponent)
	case expDigits > maxExponentDigits:
		return fmt.Sprintf("number's exponent is written with %d digits, more than the limit of %d", expDigits, maxExponentDigits)
	}
	return ""
}

type valueParser struct {
	b   []byte
	i   int
	lim valueLimits
	// over is the first number over the limits. Parsing goes on after it,
	// so that the caller can still compare the Mcp-Param-* headers (step
	// 7 of the order) before refusing the arguments (step 8).
	over  *valueError
	check int       // values until the next context check
	path  []pathSeg // where the parser is, for over
}

// pathSeg is one step of a path: a member name, or an index when idx >= 0.
type pathSeg struct {
	key string
	idx int
}

// parse reads the whole of p.b.
func (p *valueParser) parse() (any, error) {
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

func (p *valueParser) ws() { p.i = skipWS(p.b, p.i) }

// counted counts one value, and checks the context every ctxCheckEvery
// values.
func (p *valueParser) counted() error {
	if p.check--; p.check <= 0 {
		p.check = ctxCheckEvery
		if p.lim.ctx != nil {
			if err := p.lim.ctx.Err(); err != nil {
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
		m := map[string]any{}
		var folded map[string]struct{} // for large objects: folded names seen
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return m, nil
		}
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
			if folded == nil && len(m) >= 8 {
				folded = make(map[string]struct{}, 16)
				for other := range m {
					folded[foldKey(other)] = struct{}{}
				}
			}
			if folded != nil {
				f := foldKey(k)
				if _, dup := folded[f]; dup {
					return nil, errCaseVariant
				}
				folded[f] = struct{}{}
			} else {
				for other := range m {
					if sameFolded(other, k) {
						return nil, errCaseVariant
					}
				}
			}
			m[k] = v
			p.ws()
			if p.i >= len(p.b) {
				return nil, errBadJSON
			}
			if p.b[p.i] == '}' {
				p.i++
				return m, nil
			}
			if p.b[p.i] != ',' {
				return nil, errBadJSON
			}
			p.i++
		}
	case c == '[':
		p.i++
		a := []any{}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return a, nil
		}
		p.path = append(p.path, pathSeg{idx: 0})
		defer func() { p.path = p.path[:len(p.path)-1] }()
		for {
			p.path[len(p.path)-1].idx = len(a)
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			p.ws()
			if p.i >= len(p.b) {
				return nil, errBadJSON
			}
			if p.b[p.i] == ']' {
				p.i++
				return a, nil
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
		n := json.Number(p.b[start:p.i])
		if p.over == nil {
			if problem := numberProblem(p.lim, n); problem != "" {
				// Kept as text (nothing converts it); the caller refuses
				// the arguments.
				p.over = &valueError{path: renderPath(p.path), reason: problem}
			}
		}
		return n, nil
	}
	return nil, errBadJSON
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
			s := string(p.b[start:p.i])
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
