package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Structural equality of two schema definitions, for mapping an extension's
// copies of core definitions onto the core package (extension.go).
//
// The rule: two definitions are structurally equal when their JSON is
// equal after decoding (so member order and white space do not count),
// except for the annotation keywords in annotationKeys, which are ignored
// wherever a schema stands (not where a member name stands: a property
// called "title" is compared). Everything that constrains a value, and
// "default", "$schema" and "$ref" (compared as text: both schemas name
// their definitions alike), counts.

// annotationKeys are the keywords that only document a schema.
var annotationKeys = map[string]bool{"description": true, "title": true, "$comment": true, "examples": true}

// Keywords whose value is a map of names to schemas, a schema, or a list of
// schemas (2020-12 and draft-07).
var (
	schemaMapKeys  = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}
	schemaKeys     = map[string]bool{"items": true, "additionalProperties": true, "not": true, "propertyNames": true, "contains": true, "if": true, "then": true, "else": true, "additionalItems": true, "unevaluatedProperties": true, "unevaluatedItems": true, "contentSchema": true}
	schemaListKeys = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true, "items": true}
)

// rawDefinitions decodes the definitions of a schema document ($defs, or
// draft-07 definitions) as generic JSON, numbers kept exact.
func rawDefinitions(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	for _, k := range []string{"$defs", "definitions"} {
		if defs, ok := doc[k].(map[string]any); ok {
			return defs, nil
		}
	}
	return nil, fmt.Errorf("parse schema: no $defs or definitions")
}

// stripAnnotations returns a copy of schema s without annotation keywords at
// schema positions.
func stripAnnotations(s any) any {
	obj, ok := s.(map[string]any)
	if !ok {
		return s // a boolean schema
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if annotationKeys[k] {
			continue
		}
		switch {
		case schemaMapKeys[k]:
			if m, ok := v.(map[string]any); ok {
				mm := make(map[string]any, len(m))
				for name, sub := range m {
					mm[name] = stripAnnotations(sub)
				}
				v = mm
			}
		case schemaListKeys[k]:
			if l, ok := v.([]any); ok {
				ll := make([]any, len(l))
				for i, sub := range l {
					ll[i] = stripAnnotations(sub)
				}
				v = ll
			} else if schemaKeys[k] {
				v = stripAnnotations(v)
			}
		case schemaKeys[k]:
			v = stripAnnotations(v)
		}
		out[k] = v
	}
	return out
}

// firstDifference compares two annotation-free JSON values and returns the
// JSON pointer (below base) of the first difference in sorted member order,
// with what differs there, or "" when they are equal.
func firstDifference(a, b any, base string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return base + ": an object in the extension, " + jsonKind(b) + " in the core"
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, dup := x[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := base + "/" + pointerEscape(k)
			xv, inX := x[k]
			yv, inY := y[k]
			switch {
			case !inY:
				return p + ": only in the extension"
			case !inX:
				return p + ": only in the core"
			}
			if d := firstDifference(xv, yv, p); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			return base + ": an array in the extension, " + jsonKind(b) + " in the core"
		}
		for i := 0; i < min(len(x), len(y)); i++ {
			if d := firstDifference(x[i], y[i], base+"/"+strconv.Itoa(i)); d != "" {
				return d
			}
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s: %d elements in the extension, %d in the core", base, len(x), len(y))
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %s in the extension, %s in the core", base, compactJSON(a), compactJSON(b))
	}
	return ""
}

// pointerEscape escapes one JSON pointer segment (RFC 6901).
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// localRefs returns the definition names a schema refers to with local
// $refs (prefix "#/$defs/" or "#/definitions/"), sorted.
func localRefs(s any) []string {
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, sub := range x {
				if k == "$ref" {
					if r, ok := sub.(string); ok {
						for _, p := range []string{"#/$defs/", "#/definitions/"} {
							if n, ok := strings.CutPrefix(r, p); ok {
								seen[n] = true
							}
						}
					}
					continue
				}
				walk(sub)
			}
		case []any:
			for _, sub := range x {
				walk(sub)
			}
		}
	}
	walk(s)
	return slices.Sorted(maps.Keys(seen))
}
