package server

import (
	"testing"
)

// The flat validator must reach the same verdict as the general one on
// every schema it accepts, and must decline every schema it cannot judge.
func TestFlatSchemaAgrees(t *testing.T) {
	s := newServer(t)
	schemas := []string{
		`{"type":"object"}`,
		`{"type":"object","properties":{"text":{"type":"string","description":"d"}},"required":["text"]}`,
		`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"},"b":{"type":"boolean"}},"additionalProperties":false}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}},"required":["r","missing"]}`,
		`{"type":"object","additionalProperties":true,"properties":{}}`,
	}
	instances := []string{
		`{}`, `{"text":"a"}`, `{"text":1}`, `{"text":null}`, `{"n":1}`, `{"n":1.0}`, `{"n":1.5}`, `{"n":1e2}`, `{"n":"1"}`,
		`{"x":2.5}`, `{"x":true}`, `{"b":false}`, `{"b":0}`, `{"other":1}`, `{"r":"eu"}`, `{"r":"eu","missing":[]}`,
		`[]`, `"s"`, `null`, `{"n":12345678901234567890}`, `{"n":-0}`, `{"text":"a","extra":{"deep":[1]}}`,
	}
	for _, sc := range schemas {
		f := compileFlat([]byte(sc))
		if f == nil {
			t.Fatalf("schema %s should be flat", sc)
		}
		general, err := s.compileSchema([]byte(sc))
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range instances {
			v, err := parseValue([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			flatOK := f.validate(v) == nil
			generalOK := general.Validate(v) == nil
			if flatOK != generalOK {
				t.Errorf("schema %s, instance %s: flat says %v, general says %v", sc, in, flatOK, generalOK)
			}
		}
	}
	for _, notFlat := range []string{
		`{"type":"object","properties":{"a":{"type":"string","minLength":2}}}`,
		`{"type":"object","properties":{"a":{"type":"array"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{}}}`,
		`{"type":"object","allOf":[{}]}`,
		`{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
		`{"type":"object","properties":{"a":{"enum":["x"]}}}`,
		`{"type":"object","additionalProperties":{"type":"string"}}`,
		`{"properties":{}}`,
	} {
		if compileFlat([]byte(notFlat)) != nil {
			t.Errorf("schema %s must go to the general validator", notFlat)
		}
	}
}
