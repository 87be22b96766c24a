package main

// The override table: every place where the schema alone does not say how a
// definition maps to Go. Each entry has its reason; an entry that matches
// nothing in the schema it is applied to is an error only for the revision
// it was written for (see checkOverrides), so older revisions still build.

// rawDefs are definitions kept as validated raw JSON rather than expanded
// into Go types: JSONValue is a recursive union of every JSON kind, and a
// Go interface over it would only re-create encoding/json's any.
var rawDefs = map[string]RawMode{
	"JSONValue":  RawJSONValue,
	"JSONObject": RawJSONObject,
	"JSONArray":  RawJSONArray,
}

// discriminatorOverrides add a const to a union branch for classification
// and encoding. InputRequiredResult and Result both require only
// resultType, and the schema says in prose (ResultType's description) that
// the value "input_required" is what tells them apart.
var discriminatorOverrides = map[string]map[string]string{
	"InputRequiredResult": {"resultType": "input_required"},
}

// classifyRequires add members that a union branch is recognised by,
// although the schema leaves them optional. LegacyTitledEnumSchema is
// UntitledSingleSelectEnumSchema plus the optional enumNames: without this
// entry no input could tell the two apart, and a value with enumNames is
// the legacy form.
var classifyRequires = map[string][]string{
	"LegacyTitledEnumSchema": {"enumNames"},
}

// sharedEnumNames name inline enums that occur under the same member name
// with the same values in several definitions; one Go type serves them all.
// An inline enum found once is named after its parent and member.
//
// (No entries are needed: the name is derived from the member name, e.g.
// every cacheScope enum becomes CacheScope.)
