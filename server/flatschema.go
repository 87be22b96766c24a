package server

import (
	"encoding/json"
	"fmt"
	"math/big"
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
	return f
}

// validate checks a parsed instance (as parseValue returns it).
func (f *flatSchema) validate(v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("at /: got %s, want object", jsonKind(v))
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
			problems = append(problems, fmt.Sprintf("at /%s: got %s, want %s", k, jsonKind(val), typ))
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
		r, ok := new(big.Rat).SetString(string(n))
		return ok && r.IsInt()
	}
	return false
}

func jsonKind(v any) string {
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
