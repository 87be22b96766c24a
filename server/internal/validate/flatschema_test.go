package validate

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The flat validator must reach the same verdict as the general one on
// every schema it accepts, and must decline every schema it cannot judge.
func TestFlatSchemaAgrees(t *testing.T) {
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
		` { "text" : "a" , "n" : 7 } `, `{"text":"a\u0041"}`, `{"te\u0078t":"a"}`, `{"text":"a","Text":"b"}`,
		`{"n":-12,"x":3,"b":true,"text":"é"}`, `{"n":1,"ı":"x"}`, `{"I":1,"ı":2}`, `{"i":1,"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"ı":"x"}`,
		`{"i":1,"İ":2}`, `{"k":1,"K":2}`, `{"x":1E5}`, `{"n":1e+2}`, `{"text":"a","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"o":14,"p":15,"q":16}`,
		// Case variants of declared names alone (R-TOOL-10, R-HDR-07),
		// and numbers over the limits (WithNumberLimits).
		`{"Text":"a"}`, `{"text":"a","N":-1}`, `{"TEXT":1}`, `{"R":"eu"}`, `{"text":"a","\u212a":1}`, `{"text":"a","ſ":1}`,
		`{"text":"a","x":1e999999}`, `{"text":"a","n":1e400}`, `{"text":"a","n":1e401}`, `{"text":"a","x":-1E-999999}`,
		`{"text":"a","x":1e000000001}`, `{"text":"a","x":1e00000001}`, `{"text":"a","n":1e-` + strings.Repeat("0", 100) + `1}`,
		`{"text":"a","x":` + strings.Repeat("9", 100) + `}`, `{"text":"a","x":` + strings.Repeat("9", 101) + `}`, `{"text":"a","other":1e999999}`,
	}
	// validRaw, which reads the text without parsing it, may only say yes
	// where the general validator does (it may decline); it must decide
	// the plain instances itself, or the fast path is never taken.
	plainValid := map[string]bool{`{"text":"a"}`: true, ` { "text" : "a" , "n" : 7 } `: true}
	for _, sc := range schemas {
		f := compileFlat([]byte(sc))
		if f == nil {
			t.Fatalf("schema %s should be flat", sc)
		}
		general, err := compileSchema([]byte(sc))
		if err != nil {
			t.Fatal(err)
		}
		index, err := newArgIndex(general)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range instances {
			rawOK := f.validRaw([]byte(in), DefaultLimits())
			v, err := ParseValue(context.Background(), []byte(in), DefaultLimits())
			if err != nil {
				if rawOK {
					t.Errorf("schema %s, instance %s: validRaw accepts what parseValue refuses (%v)", sc, in, err)
				}
				continue
			}
			flatOK := f.validate(v) == nil
			generalOK := general.Validate(v) == nil
			if flatOK != generalOK {
				t.Errorf("schema %s, instance %s: flat says %v, general says %v", sc, in, flatOK, generalOK)
			}
			if rawOK && !generalOK {
				t.Errorf("schema %s, instance %s: validRaw accepts what the general validator refuses", sc, in)
			}
			if _, variants, _ := index.scan(context.Background(), v, math.MaxInt64); rawOK && len(variants) > 0 {
				t.Errorf("schema %s, instance %s: validRaw accepts a case variant of a declared name (%v)", sc, in, variants)
			}
			if plainValid[in] && generalOK && !rawOK {
				t.Errorf("schema %s, instance %s: validRaw declines a plain valid instance", sc, in)
			}
		}
	}
	for _, notFlat := range []string{
		`{"type":"object","properties":{"a":{"type":"number","multipleOf":2}}}`,
		`{"type":"object","properties":{"a":{"type":"string","enum":["x",null]}}}`,
		`{"type":"object","properties":{"a":{"type":"integer","enum":[1]}}}`,
		`{"type":"object","properties":{"a":{"type":"integer","minLength":1}}}`,
		`{"type":"object","properties":{"a":{"type":"string","minimum":1}}}`,
		`{"type":"object","properties":{"a":{"type":"string","maxLength":1.5}}}`,
		`{"type":"object","properties":{"a":{"type":"string","format":"email"}}}`,
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

// FuzzFlatRaw: whatever JSON text validRaw accepts, the slow path accepts
// too: the parser (with the number limits), the case-variant check and
// the general validator (the fast path never lets through what the slow
// path would refuse), for a closed and an open flat schema, and one with
// value keywords.
func FuzzFlatRaw(f *testing.F) {
	for _, seed := range []string{`{"text":"a"}`, `{"text":"a","n":1}`, `{"n":1.0}`, `{"Text":"a","text":"b"}`, `{"b":true,"x":-1e3}`, `{}`,
		// Case variants of a declared name alone (R-TOOL-10, R-HDR-07).
		`{"Text":"a"}`, `{"text":"a","N":-1}`, `{"text":"a","B":true}`, `{"TEXT":"a"}`, `{"text":"a","X":1}`,
		// Numbers over the limits (WithNumberLimits).
		`{"text":"a","x":1e999999}`, `{"text":"a","n":1E-999999}`, `{"text":"a","x":1e400}`, `{"text":"a","x":1e401}`,
		`{"text":"a","x":` + strings.Repeat("7", 100) + `}`, `{"text":"a","n":` + strings.Repeat("7", 101) + `}`, `{"text":"a","other":1e999999}`,
		// Exponents written with more than 8 digits (leading zeros).
		`{"text":"a","x":1e000000001}`, `{"text":"a","x":1e00000001}`, `{"text":"a","n":1E-` + strings.Repeat("0", 1000) + `1}`, `{"text":"a","other":-1e+000000000}`,
		// Case variants of names a pattern could match (none here: the
		// flat path has no patterns) and of the declared ones.
		`{"text":"a","TeXt":"b"}`, `{"tExt":"a"}`, `{"text":"a","\u0054ext":"b"}`,
	} {
		f.Add([]byte(seed))
	}
	const props = `"properties":{"text":{"type":"string"},"n":{"type":"integer"},"x":{"type":"number"},"b":{"type":"boolean"}},"required":["text"]`
	var tools []*Input
	const checked = `"properties":{"text":{"type":"string","minLength":1,"maxLength":8,"pattern":"^[a-z]"},"n":{"type":"integer","minimum":-5,"exclusiveMaximum":1e2},` +
		`"x":{"type":"number","exclusiveMinimum":0.5},"b":{"type":"boolean"},"e":{"type":"string","enum":["a","é"]}},"required":["text"]`
	for _, sc := range []string{`{"type":"object",` + props + `,"additionalProperties":false}`, `{"type":"object",` + props + `}`, `{"type":"object",` + checked + `}`} {
		t := inputFor(f, sc)
		if t.flat == nil {
			f.Fatalf("schema %s must be flat", sc)
		}
		tools = append(tools, t)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		lim := DefaultLimits()
		for _, tl := range tools {
			if !tl.flat.validRaw(in, lim) {
				continue
			}
			v, err := ParseValue(context.Background(), in, lim)
			if err != nil {
				t.Fatalf("validRaw accepts %q, parseValue refuses it: %v", in, err)
			}
			if err := tl.root.Validate(v); err != nil {
				t.Fatalf("validRaw accepts %q, the general validator refuses it: %v", in, err)
			}
			if res, err := checkArgs(context.Background(), tl, in, lim); res != "" || err != nil {
				t.Fatalf("validRaw accepts %q, the slow path refuses it: %v %v", in, res, err)
			}
		}
	})
}
