package main

import (
	"slices"
	"testing"
)

// The schema forms of ext-tasks (normalize.go), on a small schema: each
// maps to what the core's form of the same thing maps to.
func TestNormalizedForms(t *testing.T) {
	const src = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {
  "State": {"anyOf": [{"type": "string", "const": "on"}, {"type": "string", "const": "off"}]},
  "Base": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
  "A": {"type": "object", "properties": {"kind": {"type": "string", "const": "a"}}, "required": ["kind"]},
  "B": {"type": "object", "properties": {"kind": {"type": "string", "const": "b"}}, "required": ["kind"]},
  "Job": {"type": "object", "properties": {
    "ttl": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
    "state": {"anyOf": [{"type": "string", "const": "on"}, {"type": "string", "const": "off"}]},
    "params": {"type": "object", "properties": {"n": {"type": "integer"}}}
  }, "required": ["ttl"]},
  "JobParams": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"n": {"type": "integer"}}},
  "Either": {"anyOf": [{"type": "object", "properties": {"kind": {"type": "string", "const": "a"}}, "required": ["kind"]}, {"$ref": "#/$defs/B"}]},
  "Res": {"allOf": [{"$ref": "#/$defs/Base"}, {"anyOf": [
    {"type": "object", "properties": {"kind": {"type": "string", "const": "x"}}, "required": ["kind"]},
    {"type": "object", "properties": {"kind": {"type": "string", "const": "y"}, "y": {"type": "integer"}}, "required": ["kind", "y"]}
  ]}, {"type": "object", "properties": {"more": {"type": "boolean"}}}]}
}}`
	s, defPath, err := parseSchema([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := buildModel(s, defPath)
	if err != nil {
		t.Fatal(err)
	}
	field := func(decl, name string) *Field {
		t.Helper()
		d := m.Decls[decl]
		if d == nil {
			t.Fatalf("no declaration %s (have %v)", decl, m.Order)
		}
		for _, f := range d.Fields {
			if f.JSONName == name {
				return f
			}
		}
		t.Fatalf("%s has no member %s", decl, name)
		return nil
	}
	// anyOf [integer, null] is a nullable integer, its minimum kept.
	if f := field("Job", "ttl"); f.Type.Kind != KInt || !f.Nullable || !f.Required || f.Minimum == nil || *f.Minimum != 0 {
		t.Errorf("Job.ttl = %+v, want a required nullable integer with minimum 0", f)
	}
	// anyOf of string consts is an enum; an inline copy of it is that enum.
	if d := m.Decls["State"]; d == nil || d.Kind != DEnum || !slices.Equal(d.Values, []string{"on", "off"}) {
		t.Errorf("State = %+v, want the enum [on off]", d)
	}
	if f := field("Job", "state"); f.Type.Kind != KNamed || f.Type.Name != "State" {
		t.Errorf("Job.state type = %+v, want State", f.Type)
	}
	// An inline copy of the definition named after it is that definition.
	if f := field("Job", "params"); f.Type.Name != "JobParams" {
		t.Errorf("Job.params type = %+v, want JobParams", f.Type)
	}
	// A union branch that copies a definition is that definition.
	if d := m.Decls["Either"]; d == nil || d.Kind != DUnion || d.Variants[0].GoName != "A" || d.Variants[1].GoName != "B" {
		t.Errorf("Either = %+v, want the union of A and B", d)
	}
	// allOf with a union inside is a union of the flattened objects.
	d := m.Decls["Res"]
	if d == nil || d.Kind != DUnion || len(d.Variants) != 2 {
		t.Fatalf("Res = %+v, want a union of two branches", d)
	}
	for i, want := range [][]string{{"id", "kind", "more"}, {"id", "kind", "more", "y"}} {
		var got []string
		for _, f := range m.Decls[d.Variants[i].GoName].Fields {
			got = append(got, f.JSONName)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Res branch %d members = %v, want %v", i, got, want)
		}
	}
	if len(d.Variants[0].Consts) != 1 || d.Variants[0].Consts[0].Values[0] != "x" {
		t.Errorf("Res branch 0 consts = %+v, want kind x", d.Variants[0].Consts)
	}
}
