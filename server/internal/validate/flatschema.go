package validate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// flatSchema validates the most common tool input schema without the
// general validator: an object of named primitive members, with required
// members and optionally no others, each member's value bounded by enum
// (of strings), minLength, maxLength, pattern or the four bounds. compileFlat recognises exactly that
// shape and returns nil for anything else, which the general JSON Schema
// validator then handles. TestFlatSchemaAgrees checks both validators reach
// the same verdict.
type flatSchema struct {
	props    map[string]string // member → "string", "integer", "number" or "boolean"
	names    []string          // the keys of props, sorted
	types    []string          // props[names[i]], for a look-up without hashing (prop)
	required []string
	closed   bool // additionalProperties: false
	// checks are the members' value keywords (enum, lengths, pattern,
	// bounds), nil when none has any: validRaw judges them, and an
	// argument it declines goes to the general validator for its verdict
	// and its message (validate checks types alone).
	checks map[string]*propCheck
}

// propCheck is what a flat schema's member asks of its value besides its
// type: for a string, enum (strings only), minLength, maxLength and
// pattern; for a number, the bounds.
type propCheck struct {
	enum           []string
	minLen, maxLen int // -1: none
	pattern        *regexp.Regexp
	bounds         []bound
}

// bound is minimum, maximum, exclusiveMinimum or exclusiveMaximum.
type bound struct {
	lit  string // the number as the schema writes it
	keep func(sign int) bool
}

// compileCheck reads the value keywords of a member of type typ; false
// when one is not of the form validRaw judges (the schema is then not
// flat).
func compileCheck(typ string, kw map[string]json.RawMessage) (*propCheck, bool) {
	c := &propCheck{minLen: -1, maxLen: -1}
	for k, v := range kw {
		var err error
		switch k {
		case "enum":
			var vals []any
			if err = json.Unmarshal(v, &vals); err != nil {
				return nil, false
			}
			c.enum = []string{}
			for _, e := range vals {
				s, ok := e.(string)
				if !ok {
					return nil, false // a null or a number: the general path's
				}
				c.enum = append(c.enum, s)
			}
		case "minLength", "maxLength":
			var n uint32
			if err = json.Unmarshal(v, &n); err == nil && !bytes.ContainsAny(v, ".eE") {
				if k == "minLength" {
					c.minLen = int(n)
				} else {
					c.maxLen = int(n)
				}
			} else {
				return nil, false
			}
		case "pattern":
			var p string
			if err = json.Unmarshal(v, &p); err == nil {
				c.pattern, err = regexp.Compile(p) // as the validator compiles it
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			var n json.Number
			if err = json.Unmarshal(v, &n); err != nil || !boundFits(string(n)) {
				return nil, false
			}
			keep := map[string]func(int) bool{
				"minimum":          func(s int) bool { return s >= 0 },
				"maximum":          func(s int) bool { return s <= 0 },
				"exclusiveMinimum": func(s int) bool { return s > 0 },
				"exclusiveMaximum": func(s int) bool { return s < 0 },
			}[k]
			c.bounds = append(c.bounds, bound{lit: string(n), keep: keep})
		}
		if err != nil {
			return nil, false
		}
	}
	str := c.enum != nil || c.minLen >= 0 || c.maxLen >= 0 || c.pattern != nil
	switch {
	case str && typ != "string", c.bounds != nil && typ != "integer" && typ != "number":
		return nil, false
	case !str && c.bounds == nil:
		return nil, true
	}
	return c, true
}

// holds reports whether the plain scalar raw (as scalarKind read it, of
// the member's type) certainly satisfies c; false when it does not or
// when it is not certain.
func (c *propCheck) holds(raw []byte) bool {
	if raw[0] == '"' {
		s := raw[1 : len(raw)-1] // no escapes: the text is the value
		if c.enum != nil && !slices.Contains(c.enum, string(s)) {
			return false
		}
		if c.minLen >= 0 || c.maxLen >= 0 {
			n := utf8.RuneCount(s) // code points, as the validator counts
			if n < c.minLen || c.maxLen >= 0 && n > c.maxLen {
				return false
			}
		}
		return c.pattern == nil || c.pattern.Match(s)
	}
	for _, b := range c.bounds {
		sign, ok := compareNumbers(string(raw), b.lit)
		if !ok || !b.keep(sign) {
			return false
		}
	}
	return true
}

// compareNumbers compares two JSON numbers: the sign of a - b, and whether
// it is certain. Integer literals that fit an int64 compare exactly; others as
// float64 (each within 2^-53 of its value) only where they differ by more
// than a billionth, well clear of the rounding; anything closer, or tiny,
// is not certain (the general validator compares exactly).
func compareNumbers(a, b string) (int, bool) {
	if x, err := strconv.ParseInt(a, 10, 64); err == nil {
		if y, err := strconv.ParseInt(b, 10, 64); err == nil {
			return cmp.Compare(x, y), true
		}
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	m := max(math.Abs(x), math.Abs(y))
	if err1 != nil || err2 != nil || m < 1e-300 || math.Abs(x-y) <= 1e-9*m {
		return 0, false
	}
	return cmp.Compare(x, y), true
}

// isAnnotation reports keywords a flat schema may carry besides its
// structure: annotations that do not affect validation.
func isAnnotation(k string) bool {
	switch k {
	case "title", "description", "$comment", "examples", "default", "x-mcp-header", "deprecated", "readOnly", "writeOnly":
		return true
	}
	return false
}

func compileFlat(raw []byte) *flatSchema {
	var root map[string]json.RawMessage
	if json.Unmarshal(raw, &root) != nil {
		return nil
	}
	f := &flatSchema{props: map[string]string{}}
	for k, v := range root {
		switch k {
		case "type":
			if string(v) != `"object"` {
				return nil
			}
		case "$schema":
			var s string
			if json.Unmarshal(v, &s) != nil || s != "https://json-schema.org/draft/2020-12/schema" {
				return nil
			}
		case "required":
			if json.Unmarshal(v, &f.required) != nil {
				return nil
			}
		case "additionalProperties":
			switch string(v) {
			case "false":
				f.closed = true
			case "true", "{}":
			default:
				return nil
			}
		case "properties":
			var props map[string]map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil {
				return nil
			}
			for name, p := range props {
				var typ string
				kw := map[string]json.RawMessage{}
				for pk, pv := range p {
					switch pk {
					case "type":
						if json.Unmarshal(pv, &typ) != nil {
							return nil
						}
					case "enum", "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
						kw[pk] = pv
					default:
						if !isAnnotation(pk) {
							return nil
						}
					}
				}
				switch typ {
				case "string", "integer", "number", "boolean":
					f.props[name] = typ
				default:
					return nil
				}
				c, ok := compileCheck(typ, kw)
				if !ok {
					return nil
				}
				if c != nil {
					if f.checks == nil {
						f.checks = map[string]*propCheck{}
					}
					f.checks[name] = c
				}
			}
		default:
			if !isAnnotation(k) {
				return nil
			}
		}
	}
	if _, ok := root["type"]; !ok {
		return nil
	}
	f.names = slices.Sorted(maps.Keys(f.props))
	for _, n := range f.names {
		f.types = append(f.types, f.props[n])
	}
	return f
}

// prop is props[name]: found by comparing the names while they are few,
// which is cheaper than hashing name.
func (f *flatSchema) prop(name []byte) (string, bool) {
	if len(f.names) > 8 {
		typ, ok := f.props[string(name)]
		return typ, ok
	}
	for i, n := range f.names {
		if n == string(name) {
			return f.types[i], true
		}
	}
	return "", false
}

// validate checks a parsed instance (as ParseValue returns it).
func (f *flatSchema) validate(v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("at /: got %s, want object", Kind(v))
	}
	var problems []string
	for _, r := range f.required {
		if _, ok := obj[r]; !ok {
			problems = append(problems, fmt.Sprintf("at /: missing property '%s'", r))
		}
	}
	var extra []string
	for k, val := range obj {
		typ, declared := f.props[k]
		if !declared {
			if f.closed {
				extra = append(extra, k)
			}
			continue
		}
		if !hasType(val, typ) {
			problems = append(problems, fmt.Sprintf("at /%s: got %s, want %s", k, Kind(val), typ))
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		problems = append(problems, fmt.Sprintf("at /: additional properties '%s' not allowed", strings.Join(extra, "', '")))
	}
	if len(problems) == 0 {
		return nil
	}
	sort.Strings(problems)
	return fmt.Errorf("%s", strings.Join(problems, "; "))
}

func hasType(v any, typ string) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		if !strings.ContainsAny(string(n), ".eE") {
			return true
		}
		// An integer value (1.0, 1e2), decided on the digits: no big.Rat,
		// whose cost grows with the exponent.
		d, ok := ParseDecimal(string(n))
		return ok && d.exp >= 0
	}
	return false
}

// Kind names the JSON type of v, a value as ParseValue or encoding/json
// (UseNumber) returns it, as the validator's messages do: "null",
// "boolean", "string", "integer" (a json.Number of an integer value),
// "number", "array" or "object"; for anything else, its Go type.
func Kind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if hasType(x, "integer") {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// maxFastMembers is the most members validRaw looks at; larger objects
// take the general path.
const maxFastMembers = 16

// validRaw reports whether args certainly satisfy f, reading the JSON text
// directly instead of building a value tree. args has passed the strict
// decoder (valid JSON, no duplicate member names). false means "not
// certain": the caller then parses and validates, which gives the verdict
// and the message. Only the plain cases are decided here: escaped names
// or strings, non-ASCII names, nested values, a non-integer literal for an integer member,
// names that differ only in case from each other or from a declared
// property, a number over lim, more values than lim allows, or more than
// maxFastMembers members all answer false.
func (f *flatSchema) validRaw(args []byte, lim Limits) bool {
	var names [maxFastMembers][]byte
	n, required := 0, 0
	i := SkipWS(args, 0)
	if i >= len(args) || args[i] != '{' {
		return false
	}
	i = SkipWS(args, i+1)
	if i < len(args) && args[i] == '}' {
		return len(f.required) == 0 && SkipWS(args, i+1) == len(args)
	}
	for {
		if n == maxFastMembers || i >= len(args) || args[i] != '"' {
			return false
		}
		end := plainStringEnd(args, i+1)
		if end < 0 {
			return false
		}
		name := args[i+1 : end]
		if !isASCII(name) {
			return false // non-ASCII names: case folding is the general path's
		}
		for _, prev := range names[:n] {
			if bytes.EqualFold(prev, name) {
				return false // case variants: the general path refuses them
			}
		}
		names[n] = name
		n++
		i = SkipWS(args, end+1)
		if i >= len(args) || args[i] != ':' {
			return false
		}
		i = SkipWS(args, i+1)
		kind, next := scalarKind(args, i)
		if kind == "" {
			return false
		}
		if kind == "integer" || kind == "number" {
			if numberProblem(lim, args[i:next]) != "" {
				return false
			}
		}
		typ, declared := f.prop(name)
		switch {
		case !declared && f.closed:
			return false
		case declared && typ != kind && (typ != "number" || kind != "integer"):
			return false
		case !declared && f.variantOf(name):
			return false // a declared property in another case: refused by the general path
		case f.checks != nil && f.checks[string(name)] != nil && !f.checks[string(name)].holds(args[i:next]):
			return false
		}
		for _, r := range f.required { // slices.Contains, without copying name into a string
			if r == string(name) {
				required++
				break
			}
		}
		i = SkipWS(args, next)
		if i >= len(args) {
			return false
		}
		switch args[i] {
		case ',':
			i = SkipWS(args, i+1)
		case '}':
			if lim.MaxValues > 0 && 1+n > lim.MaxValues {
				return false // more values than the limit: the general path refuses them
			}
			return required == len(f.required) && SkipWS(args, i+1) == len(args)
		default:
			return false
		}
	}
}

// variantOf reports whether name, which is not a declared property,
// differs from one only in case.
func (f *flatSchema) variantOf(name []byte) bool {
	for _, p := range f.names {
		if sameFolded(p, string(name)) {
			return true
		}
	}
	return false
}

// SkipWS returns the index of the first byte of b at or after i that is
// not JSON white space.
func SkipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainStringEnd returns the index of the quote that closes a string
// starting at i, or -1 when the string has an escape or is not closed.
func plainStringEnd(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i
		case '\\':
			return -1
		}
	}
	return -1
}

// scalarKind classifies the plain scalar at i as "string", "integer" (an
// integer literal), "number", "boolean" or "null", and returns where it
// ends; "" means it is not a plain scalar.
func scalarKind(b []byte, i int) (string, int) {
	if i >= len(b) {
		return "", i
	}
	switch c := b[i]; {
	case c == '"':
		end := plainStringEnd(b, i+1)
		if end < 0 {
			return "", i
		}
		return "string", end + 1
	case c == 't' && bytes.HasPrefix(b[i:], []byte("true")):
		return "boolean", i + 4
	case c == 'f' && bytes.HasPrefix(b[i:], []byte("false")):
		return "boolean", i + 5
	case c == 'n' && bytes.HasPrefix(b[i:], []byte("null")):
		return "null", i + 4
	case c == '-' || c >= '0' && c <= '9':
		kind := "integer"
		j := i
		for ; j < len(b); j++ {
			c := b[j]
			if c == '.' || c == 'e' || c == 'E' || c == '+' {
				kind = "number"
			} else if (c < '0' || c > '9') && c != '-' {
				break
			}
		}
		return kind, j
	}
	return "", i
}
