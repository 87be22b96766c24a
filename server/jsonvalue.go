package server

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// parseValue turns JSON text into the values the schema validator takes:
// map[string]any, []any, string, json.Number, bool and nil. Its input has
// already passed protocol's strict decoder (valid JSON, no duplicate
// names, bounded depth), so this is a single allocation-lean pass, not a
// second validation; it still refuses anything malformed rather than
// guess.
func parseValue(b []byte) (any, error) {
	p := valueParser{b: b}
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

var errBadJSON = errors.New("malformed JSON")

// errCaseVariant refuses an object whose member names differ only in case:
// a handler decoding with encoding/json would read the other one than the
// schema check and the Mcp-Param-* headers saw.
var errCaseVariant = errors.New("member names that differ only in case")

type valueParser struct {
	b []byte
	i int
}

func (p *valueParser) ws() { p.i = skipWS(p.b, p.i) }

func (p *valueParser) value() (any, error) {
	p.ws()
	if p.i >= len(p.b) {
		return nil, errBadJSON
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
			v, err := p.value()
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
		for {
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
		n := json.Number(p.b[start:p.i])
		if _, err := strconv.ParseFloat(string(n), 64); err != nil && !isRange(err) {
			return nil, errBadJSON
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

func isRange(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)
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
