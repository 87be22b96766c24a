package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// maxNestingDepth bounds how deep inline object members are expanded into
// dotted member paths, and how deep allOf/$ref chains are followed while
// merging. MCP schemas stay far below it; it only guards against
// pathological or cyclic input.
const maxNestingDepth = 16

// Member is one property of a definition as seen by the diff: its path
// (dotted for members of inline nested objects, with "[]" for array items),
// a short description of its type, and whether it is required.
type Member struct {
	// Name is the member path, e.g. "resultType" or "capabilities.tools".
	Name string
	// Type is the short type description produced by describe.
	Type string
	// Required reports whether the member is listed in its object's
	// "required" array (after allOf flattening).
	Required bool
}

// TypeInfo is the API-level view of one definition.
type TypeInfo struct {
	// Name is the definition name (the key in $defs or definitions).
	Name string
	// Shape is a short description of the definition itself, e.g. "object",
	// "anyOf union", "enum [a b]" or "string|integer".
	Shape string
	// Members are the flattened properties, keyed by member path.
	Members map[string]Member
	// Variants are the descriptions of the branches of a top-level anyOf or
	// oneOf union; nil for non-union definitions.
	Variants []string
}

// Model is the API-level summary of one schema revision: its types, the
// JSON-RPC methods the types carry and the error codes they define.
type Model struct {
	// Types maps definition name to its summary.
	Types map[string]*TypeInfo
	// Methods maps a method name to the sorted names of the definitions whose
	// "method" property is a const of that name.
	Methods map[string][]string
	// ErrorCodes maps an error code to the sorted names of the definitions
	// containing a "code" property that is a const of that value.
	ErrorCodes map[int64][]string
}

// MemberTypeChange records a member whose type description differs between
// the two revisions.
type MemberTypeChange struct {
	// Name is the member path.
	Name string
	// Old is the type description in the old revision.
	Old string
	// New is the type description in the new revision.
	New string
}

// RequiredChange records a member whose required-ness differs between the
// two revisions.
type RequiredChange struct {
	// Name is the member path.
	Name string
	// OldRequired is the required-ness in the old revision.
	OldRequired bool
	// NewRequired is the required-ness in the new revision.
	NewRequired bool
}

// TypeChange collects every difference found in a definition present in both
// revisions. Every slice is sorted by member name (or variant text).
type TypeChange struct {
	// Type is the definition name.
	Type string
	// ShapeOld and ShapeNew are set (and differ) when the definition's own
	// shape changed, e.g. an enum gained a value.
	ShapeOld, ShapeNew string
	// Added are members present only in the new revision.
	Added []Member
	// Removed are members present only in the old revision.
	Removed []Member
	// Retyped are members whose type description changed.
	Retyped []MemberTypeChange
	// Requiredness are members whose required-ness changed.
	Requiredness []RequiredChange
	// VariantsAdded are union branches present only in the new revision.
	VariantsAdded []string
	// VariantsRemoved are union branches present only in the old revision.
	VariantsRemoved []string
}

// Method is a JSON-RPC method name together with the definitions carrying it.
type Method struct {
	// Name is the method, e.g. "tools/call".
	Name string
	// Defs are the sorted names of the definitions carrying the method.
	Defs []string
}

// ErrorCode is an integer error code together with the definitions defining
// it.
type ErrorCode struct {
	// Code is the error code, e.g. -32602.
	Code int64
	// Defs are the sorted names of the definitions defining the code.
	Defs []string
}

// Report is the API-level difference between two schema revisions. Every
// slice is sorted deterministically: names lexically, error codes
// numerically.
type Report struct {
	// TypesAdded are definitions present only in the new revision.
	TypesAdded []string
	// TypesRemoved are definitions present only in the old revision.
	TypesRemoved []string
	// Changed are definitions present in both revisions that differ,
	// sorted by type name.
	Changed []TypeChange
	// MethodsAdded are methods carried only by the new revision.
	MethodsAdded []Method
	// MethodsRemoved are methods carried only by the old revision.
	MethodsRemoved []Method
	// ErrorCodesAdded are error codes defined only by the new revision.
	ErrorCodesAdded []ErrorCode
	// ErrorCodesRemoved are error codes defined only by the old revision.
	ErrorCodesRemoved []ErrorCode
}

// Diff parses two JSON-schema documents (draft-07 with "definitions" or
// draft 2020-12 with "$defs") and returns their API-level difference.
func Diff(oldSchema, newSchema []byte) (Report, error) {
	oldModel, err := Parse(oldSchema)
	if err != nil {
		return Report{}, fmt.Errorf("old schema: %w", err)
	}
	newModel, err := Parse(newSchema)
	if err != nil {
		return Report{}, fmt.Errorf("new schema: %w", err)
	}
	return Compare(oldModel, newModel), nil
}

// Parse builds the API-level Model of one JSON-schema document.
func Parse(data []byte) (*Model, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: trailing data after the top-level value")
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, errors.New("top-level JSON value is not an object")
	}
	defs := map[string]any{}
	found := false
	// Draft-07 uses "definitions", 2020-12 uses "$defs"; accept either (and
	// both, with "$defs" winning on a name clash).
	for _, key := range []string{"definitions", "$defs"} {
		raw, present := obj[key]
		if !present {
			continue
		}
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%q is not an object", key)
		}
		found = true
		for name, def := range m {
			defs[name] = def
		}
	}
	if !found {
		return nil, errors.New(`schema has neither "$defs" nor "definitions"`)
	}

	p := &parser{defs: defs}
	model := &Model{
		Types:      make(map[string]*TypeInfo, len(defs)),
		Methods:    map[string][]string{},
		ErrorCodes: map[int64][]string{},
	}
	for _, name := range sortedKeys(defs) {
		def := asSchema(defs[name])
		model.Types[name] = p.typeInfo(name, def)
		methods := map[string]bool{}
		codes := map[int64]bool{}
		collectConsts(def, methods, codes, 0)
		for m := range methods {
			model.Methods[m] = append(model.Methods[m], name)
		}
		for c := range codes {
			model.ErrorCodes[c] = append(model.ErrorCodes[c], name)
		}
	}
	// Definitions were visited in sorted order, so the name lists are
	// already sorted.
	return model, nil
}

// Compare computes the Report between two parsed models.
func Compare(oldModel, newModel *Model) Report {
	var r Report
	r.TypesAdded, r.TypesRemoved = keyDiff(oldModel.Types, newModel.Types)
	for _, name := range sortedKeys(oldModel.Types) {
		nt, ok := newModel.Types[name]
		if !ok {
			continue
		}
		if tc, changed := compareType(oldModel.Types[name], nt); changed {
			r.Changed = append(r.Changed, tc)
		}
	}

	added, removed := keyDiff(oldModel.Methods, newModel.Methods)
	for _, m := range added {
		r.MethodsAdded = append(r.MethodsAdded, Method{Name: m, Defs: newModel.Methods[m]})
	}
	for _, m := range removed {
		r.MethodsRemoved = append(r.MethodsRemoved, Method{Name: m, Defs: oldModel.Methods[m]})
	}

	codesAdded, codesRemoved := keyDiff(oldModel.ErrorCodes, newModel.ErrorCodes)
	for _, c := range codesAdded {
		r.ErrorCodesAdded = append(r.ErrorCodesAdded, ErrorCode{Code: c, Defs: newModel.ErrorCodes[c]})
	}
	for _, c := range codesRemoved {
		r.ErrorCodesRemoved = append(r.ErrorCodesRemoved, ErrorCode{Code: c, Defs: oldModel.ErrorCodes[c]})
	}
	return r
}

// compareType diffs two summaries of the same definition and reports
// whether anything changed.
func compareType(o, n *TypeInfo) (TypeChange, bool) {
	tc := TypeChange{Type: o.Name}
	changed := false
	if o.Shape != n.Shape {
		tc.ShapeOld, tc.ShapeNew = o.Shape, n.Shape
		changed = true
	}
	for _, name := range sortedKeys(n.Members) {
		if _, ok := o.Members[name]; !ok {
			tc.Added = append(tc.Added, n.Members[name])
		}
	}
	for _, name := range sortedKeys(o.Members) {
		om := o.Members[name]
		nm, ok := n.Members[name]
		if !ok {
			tc.Removed = append(tc.Removed, om)
			continue
		}
		if om.Type != nm.Type {
			tc.Retyped = append(tc.Retyped, MemberTypeChange{Name: name, Old: om.Type, New: nm.Type})
		}
		if om.Required != nm.Required {
			tc.Requiredness = append(tc.Requiredness, RequiredChange{Name: name, OldRequired: om.Required, NewRequired: nm.Required})
		}
	}
	tc.VariantsAdded, tc.VariantsRemoved = stringSetDiff(o.Variants, n.Variants)
	changed = changed || len(tc.Added) > 0 || len(tc.Removed) > 0 || len(tc.Retyped) > 0 ||
		len(tc.Requiredness) > 0 || len(tc.VariantsAdded) > 0 || len(tc.VariantsRemoved) > 0
	return tc, changed
}

// IsEmpty reports whether the report contains no differences at all.
func (r Report) IsEmpty() bool {
	return len(r.TypesAdded) == 0 && len(r.TypesRemoved) == 0 && len(r.Changed) == 0 &&
		len(r.MethodsAdded) == 0 && len(r.MethodsRemoved) == 0 &&
		len(r.ErrorCodesAdded) == 0 && len(r.ErrorCodesRemoved) == 0
}

// String renders the report as plain text, one section per heading.
func (r Report) String() string {
	var b strings.Builder
	section := func(title string, lines []string) {
		fmt.Fprintf(&b, "%s (%d):\n", title, len(lines))
		if len(lines) == 0 {
			b.WriteString("  (none)\n")
		}
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}

	section("types added", prefixed("  + ", r.TypesAdded))
	section("types removed", prefixed("  - ", r.TypesRemoved))

	fmt.Fprintf(&b, "members changed (%d types):\n", len(r.Changed))
	if len(r.Changed) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, tc := range r.Changed {
		fmt.Fprintf(&b, "  %s:\n", tc.Type)
		for _, l := range tc.lines() {
			b.WriteString("    ")
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}

	section("methods added", methodLines("  + ", r.MethodsAdded))
	section("methods removed", methodLines("  - ", r.MethodsRemoved))
	section("error codes added", codeLines("  + ", r.ErrorCodesAdded))
	section("error codes removed", codeLines("  - ", r.ErrorCodesRemoved))
	return b.String()
}

// WriteTo writes the text form of the report (see String) to w.
func (r Report) WriteTo(w io.Writer) (int64, error) {
	n, err := io.WriteString(w, r.String())
	return int64(n), err
}

// lines renders the individual differences of one type, without indentation.
func (tc TypeChange) lines() []string {
	var out []string
	if tc.ShapeOld != tc.ShapeNew {
		out = append(out, fmt.Sprintf("~ (shape): %s -> %s", tc.ShapeOld, tc.ShapeNew))
	}
	for _, m := range tc.Added {
		out = append(out, fmt.Sprintf("+ %s %s (%s)", m.Name, m.Type, requiredWord(m.Required)))
	}
	for _, m := range tc.Removed {
		out = append(out, fmt.Sprintf("- %s %s (%s)", m.Name, m.Type, requiredWord(m.Required)))
	}
	for _, c := range tc.Retyped {
		out = append(out, fmt.Sprintf("~ %s: %s -> %s", c.Name, c.Old, c.New))
	}
	for _, c := range tc.Requiredness {
		out = append(out, fmt.Sprintf("~ %s: %s -> %s", c.Name, requiredWord(c.OldRequired), requiredWord(c.NewRequired)))
	}
	for _, v := range tc.VariantsAdded {
		out = append(out, "+ variant "+v)
	}
	for _, v := range tc.VariantsRemoved {
		out = append(out, "- variant "+v)
	}
	return out
}

// requiredWord renders required-ness for the text report.
func requiredWord(required bool) string {
	if required {
		return "required"
	}
	return "optional"
}

// prefixed returns each item with prefix prepended.
func prefixed(prefix string, items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = prefix + s
	}
	return out
}

// methodLines renders methods as "<prefix>name (Def1, Def2)".
func methodLines(prefix string, ms []Method) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmt.Sprintf("%s%s (%s)", prefix, m.Name, strings.Join(m.Defs, ", "))
	}
	return out
}

// codeLines renders error codes as "<prefix>code Def1, Def2".
func codeLines(prefix string, cs []ErrorCode) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%s%d %s", prefix, c.Code, strings.Join(c.Defs, ", "))
	}
	return out
}

// parser holds the definitions of one document so that local $refs can be
// followed while flattening allOf.
type parser struct {
	defs map[string]any
}

// typeInfo summarises one definition.
func (p *parser) typeInfo(name string, def map[string]any) *TypeInfo {
	ti := &TypeInfo{Name: name, Members: map[string]Member{}}
	switch {
	case def["anyOf"] != nil:
		ti.Shape = "anyOf union"
		ti.Variants = branchDescriptions(def["anyOf"])
	case def["oneOf"] != nil:
		ti.Shape = "oneOf union"
		ti.Variants = branchDescriptions(def["oneOf"])
	default:
		ti.Shape = describe(def)
	}
	p.addMembers(ti.Members, "", def, map[string]bool{name: true}, 0)
	return ti
}

// addMembers flattens node (merging allOf branches and following local
// $refs inside them) and records its properties under prefix. Members whose
// schema is an inline object (not a $ref) are expanded further as
// "prefix.member.child"; array items that are inline objects as
// "prefix.member[].child".
func (p *parser) addMembers(dst map[string]Member, prefix string, node map[string]any, seen map[string]bool, depth int) {
	if depth > maxNestingDepth {
		return
	}
	props, required := p.flatten(node, seen, depth)
	for _, name := range sortedKeys(props) {
		prop := props[name]
		path := prefix + name
		dst[path] = Member{Name: path, Type: describe(prop), Required: required[name]}
		if hasInlineMembers(prop) {
			p.addMembers(dst, path+".", prop, seen, depth+1)
		}
		if items, ok := prop["items"].(map[string]any); ok && hasInlineMembers(items) {
			p.addMembers(dst, path+"[].", items, seen, depth+1)
		}
	}
}

// hasInlineMembers reports whether a member schema defines its own
// properties (directly or via allOf) rather than just naming another type.
func hasInlineMembers(s map[string]any) bool {
	if _, isRef := s["$ref"]; isRef {
		return false
	}
	if _, ok := s["properties"].(map[string]any); ok {
		return true
	}
	_, ok := s["allOf"].([]any)
	return ok
}

// flatten merges the properties and required lists of node, of each of its
// allOf branches and of any local definition those branches (or node itself)
// reference via $ref. Later sources override earlier ones for the same
// property, and node's own properties are applied last, as they are the most
// specific. seen guards against reference cycles.
func (p *parser) flatten(node map[string]any, seen map[string]bool, depth int) (map[string]map[string]any, map[string]bool) {
	props := map[string]map[string]any{}
	required := map[string]bool{}
	if depth > maxNestingDepth {
		return props, required
	}
	merge := func(ps map[string]map[string]any, rs map[string]bool) {
		for k, v := range ps {
			props[k] = v
		}
		for k := range rs {
			required[k] = true
		}
	}
	if ref, ok := node["$ref"].(string); ok {
		if name, local := localRefName(ref); local && !seen[name] {
			if target, exists := p.defs[name]; exists {
				merge(p.flatten(asSchema(target), with(seen, name), depth+1))
			}
		}
	}
	if branches, ok := node["allOf"].([]any); ok {
		for _, b := range branches {
			merge(p.flatten(asSchema(b), seen, depth+1))
		}
	}
	if ps, ok := node["properties"].(map[string]any); ok {
		for k, v := range ps {
			props[k] = asSchema(v)
		}
	}
	if rs, ok := node["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	return props, required
}

// with returns a copy of set with key added.
func with(set map[string]bool, key string) map[string]bool {
	out := make(map[string]bool, len(set)+1)
	for k, v := range set {
		out[k] = v
	}
	out[key] = true
	return out
}

// collectConsts walks a definition structurally (properties, items,
// additionalProperties, allOf/anyOf/oneOf, not) and records const values of
// "method" properties (strings) and of "code" properties (integers). $refs
// are not followed, so a const is attributed only to the definition that
// spells it out.
func collectConsts(node map[string]any, methods map[string]bool, codes map[int64]bool, depth int) {
	if depth > maxNestingDepth {
		return
	}
	if props, ok := node["properties"].(map[string]any); ok {
		if m, ok := props["method"].(map[string]any); ok {
			if s, ok := m["const"].(string); ok {
				methods[s] = true
			}
		}
		if c, ok := props["code"].(map[string]any); ok {
			if n, ok := c["const"].(json.Number); ok {
				if v, err := n.Int64(); err == nil {
					codes[v] = true
				}
			}
		}
		for _, k := range sortedKeys(props) {
			collectConsts(asSchema(props[k]), methods, codes, depth+1)
		}
	}
	for _, key := range []string{"items", "additionalProperties", "not"} {
		switch v := node[key].(type) {
		case map[string]any:
			collectConsts(v, methods, codes, depth+1)
		case []any:
			for _, b := range v {
				collectConsts(asSchema(b), methods, codes, depth+1)
			}
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if branches, ok := node[key].([]any); ok {
			for _, b := range branches {
				collectConsts(asSchema(b), methods, codes, depth+1)
			}
		}
	}
}

// describe renders a short, comparable description of a schema: "string",
// "array of X", a referenced type's name, `const "x"`, "enum [a b]",
// "anyOf[A|B]", "allOf[A & B]", "string|integer", "object" or "any".
func describe(s map[string]any) string {
	return describeDepth(s, 0)
}

// describeDepth is describe with a recursion bound.
func describeDepth(s map[string]any, depth int) string {
	if depth > maxNestingDepth {
		return "..."
	}
	if ref, ok := s["$ref"].(string); ok {
		if name, local := localRefName(ref); local {
			return name
		}
		return ref
	}
	if c, ok := s["const"]; ok {
		return "const " + formatConst(c)
	}
	if e, ok := s["enum"].([]any); ok {
		vals := make([]string, len(e))
		for i, v := range e {
			vals[i] = formatValue(v)
		}
		return "enum [" + strings.Join(vals, " ") + "]"
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if branches, ok := s[key].([]any); ok {
			return key + "[" + strings.Join(describeAll(branches, depth+1), "|") + "]"
		}
	}
	if branches, ok := s["allOf"].([]any); ok {
		return "allOf[" + strings.Join(describeAll(branches, depth+1), " & ") + "]"
	}
	switch t := s["type"].(type) {
	case string:
		return describeType(t, s, depth)
	case []any:
		parts := make([]string, 0, len(t))
		for _, v := range t {
			if ts, ok := v.(string); ok {
				parts = append(parts, describeType(ts, s, depth))
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "|")
		}
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	return "any"
}

// describeType renders one JSON-schema primitive type name, expanding
// arrays into "array of X".
func describeType(t string, s map[string]any, depth int) string {
	if t != "array" {
		return t
	}
	switch items := s["items"].(type) {
	case map[string]any:
		return "array of " + describeDepth(items, depth+1)
	case []any:
		return "array of tuple[" + strings.Join(describeAll(items, depth+1), ", ") + "]"
	}
	return "array of any"
}

// describeAll describes each schema of a list.
func describeAll(list []any, depth int) []string {
	out := make([]string, len(list))
	for i, b := range list {
		out[i] = describeDepth(asSchema(b), depth)
	}
	return out
}

// branchDescriptions describes the branches of a union, sorted and
// de-duplicated so that reordering a union is not reported as a change.
func branchDescriptions(v any) []string {
	list, _ := v.([]any)
	out := describeAll(list, 0)
	sort.Strings(out)
	return dedupe(out)
}

// formatConst renders a const value: strings quoted, everything else as
// JSON.
func formatConst(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return formatValue(v)
}

// formatValue renders an enum or const value compactly: strings unquoted,
// other values as JSON.
func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// localRefName extracts the definition name from a local reference such as
// "#/$defs/Name" or "#/definitions/Name", unescaping JSON-pointer syntax.
func localRefName(ref string) (string, bool) {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if rest, ok := strings.CutPrefix(ref, prefix); ok && rest != "" && !strings.Contains(rest, "/") {
			return strings.NewReplacer("~1", "/", "~0", "~").Replace(rest), true
		}
	}
	return "", false
}

// asSchema returns v as a schema object; boolean schemas and any other
// non-object values become the empty schema.
func asSchema(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

// sortedKeys returns the keys of m in ascending order.
func sortedKeys[K interface{ ~string | ~int64 }, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// keyDiff returns the sorted keys present only in newM (added) and only in
// oldM (removed).
func keyDiff[K interface{ ~string | ~int64 }, V any](oldM, newM map[K]V) (added, removed []K) {
	for _, k := range sortedKeys(newM) {
		if _, ok := oldM[k]; !ok {
			added = append(added, k)
		}
	}
	for _, k := range sortedKeys(oldM) {
		if _, ok := newM[k]; !ok {
			removed = append(removed, k)
		}
	}
	return added, removed
}

// stringSetDiff returns the sorted strings only in newS (added) and only in
// oldS (removed).
func stringSetDiff(oldS, newS []string) (added, removed []string) {
	toSet := func(ss []string) map[string]bool {
		m := make(map[string]bool, len(ss))
		for _, s := range ss {
			m[s] = true
		}
		return m
	}
	return keyDiff(toSet(oldS), toSet(newS))
}

// dedupe removes adjacent duplicates from a sorted slice.
func dedupe(ss []string) []string {
	out := ss[:0]
	for i, s := range ss {
		if i == 0 || s != ss[i-1] {
			out = append(out, s)
		}
	}
	return out
}
