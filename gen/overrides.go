package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The override table: every place where the schema alone does not say how a
// definition maps to Go. Each entry has its reason and the pinned revisions
// it was written for. An entry applies to every schema with a definition of
// that name, so older revisions still build; but when a pinned revision is
// generated for its package (Config.CheckOverrides), every entry must fit it
// exactly (see checkOverrides): an entry listed for the revision must match
// its schema, and an entry that matches must be listed. Moving a package to
// a new revision thus means reviewing each entry that still applies.

// rawDef keeps a definition as validated raw JSON.
type rawDef struct {
	Mode      RawMode
	Revisions []string
}

// rawDefs are definitions kept as validated raw JSON rather than expanded
// into Go types: JSONValue is a recursive union of every JSON kind, and a
// Go interface over it would only re-create encoding/json's any.
// (2025-11-25 has no JSONValue: its free-form members are plain {}.)
var rawDefs = map[string]rawDef{
	"JSONValue":  {RawJSONValue, []string{"2026-07-28"}},
	"JSONObject": {RawJSONObject, []string{"2026-07-28"}},
	"JSONArray":  {RawJSONArray, []string{"2026-07-28"}},
}

// discriminatorOverride adds consts to a definition: member name → value.
type discriminatorOverride struct {
	Members   map[string]string
	Revisions []string
}

// discriminatorOverrides add a const to a union branch for classification
// and encoding. InputRequiredResult and Result both require only
// resultType, and the schema says in prose (ResultType's description) that
// the value "input_required" is what tells them apart. (2025-11-25 has no
// resultType: its results are told apart by their required members.)
var discriminatorOverrides = map[string]discriminatorOverride{
	"InputRequiredResult": {map[string]string{"resultType": "input_required"}, []string{"2026-07-28"}},
}

// classifyRequire names members a union branch is recognised by.
type classifyRequire struct {
	Members   []string
	Revisions []string
}

// classifyRequires add members that a union branch is recognised by,
// although the schema leaves them optional. LegacyTitledEnumSchema is
// UntitledSingleSelectEnumSchema plus the optional enumNames: without this
// entry no input could tell the two apart, and a value with enumNames is
// the legacy form. Both revisions that have it define it alike.
var classifyRequires = map[string]classifyRequire{
	"LegacyTitledEnumSchema": {[]string{"enumNames"}, []string{"2025-11-25", "2026-07-28"}},
}

// nullAbsent names optional members of a definition whose JSON null
// decodes as if the member were absent.
type nullAbsent struct {
	Members   []string
	Revisions []string
}

// nullAsAbsent are the optional members whose null the decoder takes for
// the member's absence (the Go zero value, nil), although the schema has
// no null there; the encoder never writes one. It is the one leniency of
// the strict decoders (README "Strictness"), and it is kept to this one
// member:
//
// CallToolRequestParams.arguments: the Go clients most servers meet,
// github.com/mark3labs/mcp-go (v1.2.1) and
// github.com/modelcontextprotocol/go-sdk (v1.8.0), send "arguments": null
// for a call whose arguments map is left nil (CallToolParams{Name: "x",
// Arguments: args} with args a nil map[string]any: their Arguments is an
// `any` with omitempty, and a nil map in it is no nil interface), and the
// servers those SDKs build accept it as no arguments. Refused, the call of
// a tool without parameters fails from either client
// (interop/nullargs_go_test.go). Both
// revisions define arguments as an optional object (2025-11-25 serves
// every legacy session, 2026-07-28 the current revision), so the rule is
// written for both. prompts/get's arguments, _meta and every other member
// keep refusing null.
var nullAsAbsent = map[string]nullAbsent{
	"CallToolRequestParams": {[]string{"arguments"}, []string{"2025-11-25", "2026-07-28"}},
}

// nullAbsentField reports whether the override applies to member of the
// struct def: it is listed, optional, without null in the schema, and of
// a type whose zero value is nil (raw JSON, a map, a slice), so that
// absent and null decode alike.
func nullAbsentField(def string, f *Field) bool {
	if !slices.Contains(nullAsAbsent[def].Members, f.JSONName) || f.Required || f.Nullable || f.Const != nil {
		return false
	}
	switch f.Type.Kind {
	case KRaw, KMap, KSlice:
		return true
	}
	return false
}

// sharedEnumNames name inline enums that occur under the same member name
// with the same values in several definitions; one Go type serves them all.
// An inline enum found once is named after its parent and member.
//
// (No entries are needed: the name is derived from the member name, e.g.
// every cacheScope enum becomes CacheScope.)

// checkOverrides reports every override entry that does not fit revision,
// whose model is m: listed for it but matching nothing, or matching
// something without being listed.
func checkOverrides(m *Model, revision string) error {
	hasMembers := func(def string, members []string) bool {
		d := m.Decls[def]
		if d == nil || d.Kind != DStruct {
			return false
		}
		for _, name := range members {
			if !slices.ContainsFunc(d.Fields, func(f *Field) bool { return f.JSONName == name }) {
				return false
			}
		}
		return true
	}
	type entry struct {
		table, def string
		matches    bool
		revisions  []string
	}
	var entries []entry
	for def, o := range rawDefs {
		d := m.Decls[def]
		entries = append(entries, entry{"rawDefs", def, d != nil && d.Kind == DRaw, o.Revisions})
	}
	for def, o := range discriminatorOverrides {
		var members []string
		for k := range o.Members {
			members = append(members, k)
		}
		entries = append(entries, entry{"discriminatorOverrides", def, hasMembers(def, members), o.Revisions})
	}
	for def, o := range classifyRequires {
		entries = append(entries, entry{"classifyRequires", def, hasMembers(def, o.Members), o.Revisions})
	}
	for def, o := range nullAsAbsent {
		// It matches where the build applied it to every member it names
		// (see nullAbsentField): a member made required, nullable or of
		// another type no longer fits the reason.
		matches := hasMembers(def, o.Members)
		for _, name := range o.Members {
			if d := m.Decls[def]; matches {
				i := slices.IndexFunc(d.Fields, func(f *Field) bool { return f.JSONName == name })
				matches = d.Fields[i].NullAbsent
			}
		}
		entries = append(entries, entry{"nullAsAbsent", def, matches, o.Revisions})
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].table != entries[j].table {
			return entries[i].table < entries[j].table
		}
		return entries[i].def < entries[j].def
	})
	var problems []string
	for _, e := range entries {
		listed := slices.Contains(e.revisions, revision)
		switch {
		case listed && !e.matches:
			problems = append(problems, fmt.Sprintf("%s[%s] is listed for %s but matches nothing in its schema: take %s off its revisions, or drop the entry", e.table, e.def, revision, revision))
		case !listed && e.matches:
			problems = append(problems, fmt.Sprintf("%s[%s] applies to %s but is not listed for it: check that its reason holds in %s, then add %s to its revisions", e.table, e.def, revision, revision, revision))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("overrides do not fit revision %s (gen/overrides.go):\n  %s", revision, strings.Join(problems, "\n  "))
	}
	return nil
}
