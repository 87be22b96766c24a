package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Schema rules: rewrites of an extension schema, applied to its JSON before
// anything else reads it (GenerateExt), for forms that the builder does not
// map and that say something the builder can say another way. Each rule is
// turned on per extension in extRules, with the reason it is right for that
// schema; a rule turned on that rewrites nothing fails generation (the
// table holds no stale entries), and so does a place a rule recognises but
// cannot rewrite without changing what the schema accepts.

// A schemaRule rewrites one form wherever it stands in a definition and
// returns how many places it rewrote.
type schemaRule func(defs map[string]any) (int, error)

// schemaRules are the rules an extension can turn on, by name.
var schemaRules = map[string]schemaRule{
	"undefined-record-values": undefinedRecordValues,
	"definition-local-defs":   definitionLocalDefs,
	"forbidden-members":       forbiddenMembers,
	"inline-definition-copies": func(defs map[string]any) (int, error) {
		return inlineDefinitionCopies(defs), nil
	},
}

// schemaRuleOrder is the order rules run in: inline copies are compared
// once the other rules have rewritten both sides alike.
var schemaRuleOrder = []string{"undefined-record-values", "definition-local-defs", "forbidden-members", "inline-definition-copies"}

// extRules, per extension, turn schema rules on, each with its reason.
//
// The MCP Apps schema (@modelcontextprotocol/ext-apps 2.0.4,
// dist/src/generated/schema.json) is generated from Zod; four of its forms
// need a rule:
var extRules = map[string]map[string]string{
	"apps": {
		// McpUiStyles and every copy of McpUiHostStyles.variables are
		// TypeScript's Record<McpUiStyleVariableKey, string | undefined>:
		// Zod writes propertyNames (the 76 keys), required (all 76), and
		// additionalProperties anyOf [{type: string}, {}], the {} standing
		// for undefined. JSON has no undefined: the value is a string, and
		// the key is absent when it would be undefined; the description says
		// hosts send "any subset". Taken literally the schema accepts any
		// value and refuses every subset, so the rule makes it a map of
		// strings with no required keys. propertyNames stays unchecked, as
		// everywhere the builder meets it (the key list is documented on
		// McpUiStyleVariableKey).
		"undefined-record-values": "Zod's Record<K, string | undefined>: {} is undefined, which JSON cannot send; the keys are optional (any subset)",
		// McpUiHostContext, McpUiInitializeResult and
		// McpUiHostContextChangedNotification each carry $defs/__schema0,
		// a recursive union of every JSON kind (Zod's JSON value), referred
		// to as "#/$defs/__schema0", which from the document root names no
		// definition. The rule replaces each such reference by {} (any JSON
		// value, kept as validated raw JSON, as the core's JSONValue is) and
		// drops the local $defs.
		"definition-local-defs": "Zod writes a JSON value as a per-definition $defs/__schema0 that the document's root does not have; it is any JSON value",
		// McpUiToolMeta.csp and .permissions are {not: {}} in a closed
		// object (z.never(): a tool's _meta.ui carries no CSP; the
		// resource's does). A closed object refuses an undeclared member
		// already, so the rule drops the two members.
		"forbidden-members": "z.never() members of a closed object: dropping them refuses them all the same",
		// The schema inlines its definitions wherever they are used
		// (McpUiResourceMeta.csp is McpUiResourceCsp, hostContext is
		// McpUiHostContext, …); without the rule each copy would be a Go
		// type of its own with an invented name.
		"inline-definition-copies": "Zod inlines every definition where it is used; a copy equal to a definition (annotations aside) refers to it",
	},
	"tasks": {},
}

// applySchemaRules rewrites the definitions of an extension schema by the
// rules turned on for it, and returns the schema's new JSON and how many
// places each rule rewrote.
func applySchemaRules(data []byte, rules map[string]string) ([]byte, map[string]int, error) {
	if len(rules) == 0 {
		return data, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, fmt.Errorf("parse schema: %w", err)
	}
	defs, ok := doc["$defs"].(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("parse schema: schema rules need a 2020-12 $defs")
	}
	for name := range rules {
		if schemaRules[name] == nil {
			return nil, nil, fmt.Errorf("schema rule %q: no such rule (rules: %s)", name, strings.Join(slices.Sorted(maps.Keys(schemaRules)), ", "))
		}
	}
	counts := map[string]int{}
	var stale []string
	for _, name := range schemaRuleOrder {
		if _, on := rules[name]; !on {
			continue
		}
		n, err := schemaRules[name](defs)
		if err != nil {
			return nil, nil, fmt.Errorf("schema rule %s: %w", name, err)
		}
		if n == 0 {
			stale = append(stale, name)
		}
		counts[name] = n
	}
	if len(stale) > 0 {
		return nil, nil, fmt.Errorf("schema rules rewrite nothing in this schema (drop them from gen/ext_rules.go): %s", strings.Join(stale, ", "))
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, nil, err
	}
	return out, counts, nil
}

// walkSchemas calls f on every schema object below root (not root itself),
// parents before children; f returns the value to keep in its place and
// whether to descend into it.
func walkSchemas(root map[string]any, f func(s map[string]any) (any, bool)) {
	visit := func(v any) any {
		s, ok := v.(map[string]any)
		if !ok {
			return v
		}
		nv, descend := f(s)
		if ns, ok := nv.(map[string]any); ok && descend {
			walkSchemas(ns, f)
		}
		return nv
	}
	for k, v := range root {
		switch {
		case schemaMapKeys[k]:
			if m, ok := v.(map[string]any); ok {
				for name, sub := range m {
					m[name] = visit(sub)
				}
			}
		case schemaListKeys[k]:
			if l, ok := v.([]any); ok {
				for i, sub := range l {
					l[i] = visit(sub)
				}
			} else if schemaKeys[k] {
				root[k] = visit(v)
			}
		case schemaKeys[k]:
			root[k] = visit(v)
		}
	}
}

// eachDef runs walkSchemas over every definition, in name order.
func eachDef(defs map[string]any, f func(def string, s map[string]any) (any, bool)) {
	for _, n := range slices.Sorted(maps.Keys(defs)) {
		if d, ok := defs[n].(map[string]any); ok {
			walkSchemas(d, func(s map[string]any) (any, bool) { return f(n, s) })
		}
	}
}

// undefinedRecordValues rewrites {propertyNames: …, required: [every key],
// additionalProperties: {anyOf: [X, {}]}} as {additionalProperties: X}.
func undefinedRecordValues(defs map[string]any) (int, error) {
	n := 0
	var err error
	rewrite := func(def string, s map[string]any) {
		ap, ok := s["additionalProperties"].(map[string]any)
		if !ok {
			return
		}
		branches, ok := ap["anyOf"].([]any)
		if !ok || len(branches) != 2 {
			return
		}
		if e, ok := branches[1].(map[string]any); !ok || len(e) != 0 {
			return
		}
		keys := constStrings(s["propertyNames"])
		req := anyStrings(s["required"])
		if keys == nil || !slices.Equal(slices.Sorted(slices.Values(keys)), slices.Sorted(slices.Values(req))) {
			if err == nil {
				err = fmt.Errorf("%s: a record with undefined values whose required list is not its key list", def)
			}
			return
		}
		x := branches[0]
		if xm, ok := x.(map[string]any); ok {
			c := maps.Clone(xm)
			if d, ok := ap["description"]; ok {
				c["description"] = d
			}
			x = c
		}
		s["additionalProperties"] = x
		delete(s, "required")
		n++
	}
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		if d, ok := defs[name].(map[string]any); ok {
			rewrite(name, d)
		}
	}
	eachDef(defs, func(def string, s map[string]any) (any, bool) {
		rewrite(def, s)
		return s, true
	})
	return n, err
}

// constStrings returns the consts of an anyOf of {type: string, const: v}.
func constStrings(v any) []string {
	s, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	branches, ok := s["anyOf"].([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(branches))
	for _, b := range branches {
		bm, ok := b.(map[string]any)
		c, isStr := bm["const"].(string)
		if !ok || !isStr {
			return nil
		}
		out = append(out, c)
	}
	return out
}

// anyStrings returns a JSON array of strings as a slice.
func anyStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// definitionLocalDefs replaces each "#/$defs/N" reference inside a
// definition that has N in its own $defs, N being a JSON value (a recursive
// union of every JSON kind), by {}; the local $defs is dropped.
func definitionLocalDefs(defs map[string]any) (int, error) {
	n := 0
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		d, ok := defs[name].(map[string]any)
		if !ok {
			continue
		}
		local, ok := d["$defs"].(map[string]any)
		if !ok {
			continue
		}
		for ln, lv := range local {
			if _, clash := defs[ln]; clash {
				return 0, fmt.Errorf("%s: its local definition %s has the name of a document definition", name, ln)
			}
			if !isJSONValueSchema(lv, "#/$defs/"+ln) {
				return 0, fmt.Errorf("%s: its local definition %s is not a JSON value schema; no rule maps it", name, ln)
			}
		}
		delete(d, "$defs")
		walkSchemas(d, func(s map[string]any) (any, bool) {
			ref, _ := s["$ref"].(string)
			if ln, ok := strings.CutPrefix(ref, "#/$defs/"); ok && local[ln] != nil {
				n++
				out := map[string]any{}
				if desc, ok := s["description"]; ok {
					out["description"] = desc
				}
				return out, false
			}
			return s, true
		})
	}
	return n, nil
}

// isJSONValueSchema reports the union of every JSON kind whose object
// values and array items refer to self.
func isJSONValueSchema(v any, self string) bool {
	want := []any{
		map[string]any{"type": "string"},
		map[string]any{"type": "number"},
		map[string]any{"type": "boolean"},
		map[string]any{"type": "null"},
		map[string]any{"type": "object", "propertyNames": map[string]any{"type": "string"}, "additionalProperties": map[string]any{"$ref": self}},
		map[string]any{"type": "array", "items": map[string]any{"$ref": self}},
	}
	return reflect.DeepEqual(stripAnnotations(v), map[string]any{"anyOf": want})
}

// forbiddenMembers drops the members whose schema is {not: {}} from closed
// objects; in an open object such a member cannot be dropped.
func forbiddenMembers(defs map[string]any) (int, error) {
	n := 0
	var err error
	drop := func(def string, s map[string]any) {
		props, ok := s["properties"].(map[string]any)
		if !ok {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(props)) {
			p, ok := props[k].(map[string]any)
			if !ok || len(p) == 0 {
				continue
			}
			sp := stripAnnotations(p).(map[string]any)
			if not, ok := sp["not"].(map[string]any); !ok || len(not) != 0 || len(sp) != 1 {
				continue
			}
			if s["additionalProperties"] != false {
				if err == nil {
					err = fmt.Errorf("%s: member %s is forbidden ({not: {}}) in an object that is not closed", def, k)
				}
				continue
			}
			delete(props, k)
			n++
		}
	}
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		if d, ok := defs[name].(map[string]any); ok {
			drop(name, d)
		}
	}
	eachDef(defs, func(def string, s map[string]any) (any, bool) {
		drop(def, s)
		return s, true
	})
	return n, err
}

// inlineDefinitionCopies replaces each inline schema below a definition's
// root that equals another definition (annotations and $schema aside) by a
// $ref to it, keeping the inline schema's description. Definitions that
// are empty or are plain scalars are not matched: an inline {type: string}
// is no copy of anything.
func inlineDefinitionCopies(defs map[string]any) int {
	type cand struct {
		name string
		key  string
	}
	var cands []cand
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		s, ok := stripAnnotations(defs[name]).(map[string]any)
		if !ok {
			continue
		}
		delete(s, "$schema")
		if !isComposite(s) {
			continue
		}
		b, err := json.Marshal(s)
		if err != nil {
			continue
		}
		cands = append(cands, cand{name, string(b)})
	}
	n := 0
	eachDef(defs, func(def string, s map[string]any) (any, bool) {
		c, ok := stripAnnotations(s).(map[string]any)
		if !ok || !isComposite(c) {
			return s, true
		}
		delete(c, "$schema")
		b, err := json.Marshal(c)
		if err != nil {
			return s, true
		}
		for _, cd := range cands {
			if cd.name != def && cd.key == string(b) {
				n++
				out := map[string]any{"$ref": "#/$defs/" + cd.name}
				if desc, ok := s["description"]; ok {
					out["description"] = desc
				}
				return out, false
			}
		}
		return s, true
	})
	return n
}

// isComposite reports a schema with members, branches, an enum or typed
// map values: one whose copy is worth naming. A free-form object
// ({type: object, additionalProperties: {}}) is not: it is a copy of
// nothing in particular.
func isComposite(s map[string]any) bool {
	for _, k := range []string{"properties", "anyOf", "oneOf", "allOf", "enum"} {
		if _, ok := s[k]; ok {
			return true
		}
	}
	ap, isMap := s["additionalProperties"].(map[string]any)
	return isMap && len(ap) > 0 && s["type"] == "object"
}
