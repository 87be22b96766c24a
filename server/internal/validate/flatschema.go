package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// flatSchema validates the most common tool input schema without the
// general validator: an object of named primitive members, with required
// members and optionally no others. compileFlat recognises exactly that
// shape and returns nil for anything else, which the general JSON Schema
// validator then handles. TestFlatSchemaAgrees checks both validators reach
// the same verdict.
type flatSchema struct {
	props    map[string]string // member → "string", "integer", "number" or "boolean"
	names    []string          // the keys of props, sorted
	required []string
	closed   bool // additionalProperties: false
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
				for pk, pv := range p {
					switch {
					case pk == "type":
						if json.Unmarshal(pv, &typ) != nil {
							return nil
						}
					case isAnnotation(pk):
					default:
						return nil
					}
				}
				switch typ {
				case "string", "integer", "number", "boolean":
					f.props[name] = typ
				default:
					return nil
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
	return f
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
		typ, declared := f.props[string(name)]
		switch {
		case !declared && f.closed:
			return false
		case declared && typ != kind && (typ != "number" || kind != "integer"):
			return false
		case !declared && f.variantOf(name):
			return false // a declared property in another case: refused by the general path
		}
		if slices.Contains(f.required, string(name)) {
			required++
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
