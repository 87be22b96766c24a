package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

// The runtime's own uniqueItems, enum and const (valueCheck, tameSchema)
// against the validator's.

// plainSchema compiles schema as compileSchema does, but untamed: the
// validator checks uniqueItems, enum, const and format itself.
func plainSchema(t testing.TB, schema string) *sjs.Schema {
	t.Helper()
	doc, err := sjs.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := sjs.NewCompiler()
	c.DefaultDraft(sjs.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource("mcpwire:///tool-schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mcpwire:///tool-schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// valueSchemas are schemas with uniqueItems, enum and const, alone, nested,
// and under every keyword that turns a failure into something else (anyOf,
// oneOf, not, if, contains, unevaluatedItems, $dynamicRef), in several
// dialects.
var valueSchemas = []string{
	`{"uniqueItems":true}`,
	`{"uniqueItems":false}`,
	`{"type":"array","uniqueItems":true,"items":{"type":"array","uniqueItems":true}}`,
	`{"items":{"uniqueItems":true}}`,
	`{"not":{"uniqueItems":true}}`,
	`{"anyOf":[{"uniqueItems":true},{"type":"array","minItems":3}]}`,
	`{"oneOf":[{"uniqueItems":true},{"maxItems":1}]}`,
	`{"if":{"uniqueItems":true},"then":{"minItems":2},"else":{"maxItems":3}}`,
	`{"contains":{"uniqueItems":true},"minContains":2}`,
	`{"prefixItems":[{"uniqueItems":true}],"unevaluatedItems":{"const":1}}`,
	`{"enum":[1,"1",true,null,[1,2],{"a":1,"b":[1.0]},{}]}`,
	`{"enum":[1e2,-0,0.5,[[]],{"a":{"b":null}}]}`,
	`{"not":{"enum":[1,[1]]}}`,
	`{"anyOf":[{"const":[1,2,3]},{"type":"string"}]}`,
	`{"const":{"k":[1,{"x":"y"}]}}`,
	`{"const":null}`,
	`{"const":0}`,
	`{"items":{"enum":["a","b",["a"],{"":""}]}}`,
	`{"enum":[1e999999999999, 1, 1e1000001, 0e99999999999999999999]}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","uniqueItems":true,"items":{"enum":[1,2,[3]]}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"d":{"type":"array"}},"$ref":"#/definitions/d","const":[1,2]}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"d":{"uniqueItems":true}},"$ref":"#/definitions/d","uniqueItems":false}`,
	`{"$schema":"http://json-schema.org/draft-04/schema#","enum":[[1,2],{"a":1}],"uniqueItems":true}`,
	`{"$schema":"https://json-schema.org/draft/2019-09/schema","$ref":"#/$defs/d","$defs":{"d":{"uniqueItems":true}},"const":[1,1]}`,
	// A $dynamicAnchor that only the dynamic scope reaches.
	`{"$id":"mcpwire:///a","properties":{"t":{"$ref":"mcpwire:///b"}},"$defs":{"n":{"$dynamicAnchor":"n","uniqueItems":true},` +
		`"b":{"$id":"mcpwire:///b","$dynamicAnchor":"n","items":{"$dynamicRef":"#n"}}}}`,
}

// valueInstances are arrays and values that exercise equality: numbers
// equal in different forms, objects in different member orders, strings
// that run together when their lengths are lost, nested arrays.
var valueInstances = []string{
	`[]`, `[1]`, `[1,1]`, `[1,1.0]`, `[1,1e0]`, `[1,10e-1]`, `[100,1e2]`, `[0,-0]`, `[0,-0.0e5]`, `[0.5,5e-1]`, `[1,"1"]`, `[true,1]`, `[null,false]`,
	`[[1,2],[1,2]]`, `[[1,2],[2,1]]`, `[[1,2],[1,2.0]]`, `[{"a":1,"b":2},{"b":2,"a":1}]`, `[{"a":1},{"a":1,"b":null}]`, `[{"a":[1]},{"a":[1.00]}]`,
	`[["x\u0004x"],["x","x"]]`, `["ab","a"]`, `[["ab"],["a","b"]]`, `[{"ab":""},{"a":"b"}]`, `[{"a":"bc"},{"ab":"c"}]`, `[[[]],[[]]]`, `[[[]],[[],[]]]`,
	`[1,2,3]`, `[1,2,[3]]`, `[[1,2],[1,2],[3]]`, `[{},{}]`, `[[],{}]`, `["",""]`, `["é","e\u0301"]`,
	`1`, `1.0`, `100`, `"1"`, `true`, `null`, `{}`, `{"a":1,"b":[1.0]}`, `{"b":[1],"a":1e0}`, `{"a":{"b":null}}`, `[1,2,3]`, `[1.0,2,3e0]`, `{"k":[1,{"x":"y"}]}`, `{"k":[1.0,{"x":"y"}]}`,
	`["a"]`, `["a","b"]`, `[{"":""}]`, `[["a"]]`, `1e999999999999`, `0`, `-0`, `[[1,1],[1,1]]`, `{"t":[1,1]}`, `{"t":[[1],[1]]}`, `{"t":[[1,1]]}`,
	`[1,2,1e1,1e1,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,1e1]`,
	`[[0],[1],[2],[3],[4],[5],[6],[7],[8],[9],[10],[11],[12],[13],[14],[15],[16],[17],[18],[19],[20],[21],[10.0]]`,
}

// The tamed schema reaches the validator's verdict on every instance, and
// reports a uniqueItems failure as the validator does.
func TestValueChecksAgree(t *testing.T) {
	for _, sc := range valueSchemas {
		plain := plainSchema(t, sc)
		tamed, err := compileSchema([]byte(sc))
		if err != nil {
			t.Fatalf("%s: %v", sc, err)
		}
		for _, in := range valueInstances {
			v, err := ParseValue(context.Background(), []byte(in), Limits{MaxDigits: MaxNumberLimit, MaxExponent: 1 << 50})
			if err != nil {
				v, err = sjs.UnmarshalJSON(strings.NewReader(in)) // over the limits: the validator's own parse
				if err != nil {
					t.Fatal(err)
				}
			}
			want, got := plain.Validate(v), tamed.Validate(v)
			if (want == nil) != (got == nil) {
				t.Errorf("schema %s, instance %s: the validator says %v, the runtime %v", sc, in, want, got)
			}
		}
	}
	// A schema only the dynamic scope reaches is tamed too.
	dyn := valueSchemas[len(valueSchemas)-1]
	v, _ := ParseValue(context.Background(), []byte(`{"t":[[1,1]]}`), DefaultLimits())
	if plainSchema(t, dyn).Validate(v) == nil {
		t.Fatalf("the $dynamicRef does not reach the dynamic anchor")
	}
	_, extra, err := compile([]byte(dyn), defaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	tamed := 0
	for _, sch := range extra {
		for _, ext := range sch.Extensions {
			if c, ok := ext.(*valueCheck); ok && c.unique && !sch.UniqueItems {
				tamed++
			}
		}
	}
	if tamed != 1 {
		t.Errorf("%d schemas reached only through $dynamicRef are tamed, want 1", tamed)
	}
	// The message names the path and both indexes, as the validator's.
	sch, _ := compileSchema([]byte(`{"properties":{"a":{"uniqueItems":true}}}`))
	v, _ = ParseValue(context.Background(), []byte(`{"a":[0,1,[2],1.0,[2]]}`), DefaultLimits())
	if got := ErrorText(sch.Validate(v)); got != "at /a: items at 1 and 3 are equal" {
		t.Errorf("message %q", got)
	}
}

// FuzzValueChecks: the canonical encoding equates exactly the values the
// validator finds equal (const), and uniqueItems agrees on pairs.
func FuzzValueChecks(f *testing.F) {
	for _, in := range valueInstances {
		f.Add([]byte(in), []byte(`1`))
	}
	f.Add([]byte(`{"a":[1,"x"]}`), []byte(`{"a":[1.0,"x"]}`))
	f.Add([]byte(`["x\u0004x"]`), []byte(`["x","x"]`))
	f.Add([]byte(`-0.0`), []byte(`0e7`))
	f.Add([]byte(`1.5e3`), []byte(`1500`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if !json.Valid(a) || !json.Valid(b) || !utf8.Valid(a) || !utf8.Valid(b) || len(a) > 4096 || len(b) > 4096 {
			return // arguments are valid UTF-8 (the protocol decoder refuses others)
		}
		lim := DefaultLimits()
		va, err1 := ParseValue(context.Background(), a, lim)
		vb, err2 := ParseValue(context.Background(), b, lim)
		if err1 != nil || err2 != nil {
			return
		}
		var plainEq bool
		{
			c := sjs.NewCompiler()
			doc, err := sjs.UnmarshalJSON(bytes.NewReader([]byte(`{"const":` + string(a) + `}`)))
			if err != nil {
				return
			}
			_ = c.AddResource("mem:///c.json", doc)
			sch, err := c.Compile("mem:///c.json")
			if err != nil {
				return
			}
			plainEq = sch.Validate(vb) == nil
		}
		ea, oka := appendCanonical(nil, va, nil)
		eb, okb := appendCanonical(nil, vb, nil)
		if oka && okb && bytes.Equal(ea, eb) != plainEq {
			t.Fatalf("%s and %s: the validator says equal=%v, the canonical encodings %q and %q", a, b, plainEq, ea, eb)
		}
		if i, j := duplicate([]any{va, vb}); (i >= 0) != plainEq || (i >= 0 && (i != 0 || j != 1)) {
			t.Fatalf("[%s, %s]: duplicate %d %d, the validator says equal=%v", a, b, i, j, plainEq)
		}
	})
}

// compiledSchemas follows every field of a compiled schema that holds
// subschemas: a field added by a new version of the validator fails this
// test until tameSchema (and argIndex) know it.
func TestCompiledSchemasCoverEveryField(t *testing.T) {
	followed := map[string]bool{
		"Ref": true, "RecursiveRef": true, "DynamicRef": true, "Not": true, "AllOf": true, "AnyOf": true, "OneOf": true,
		"If": true, "Then": true, "Else": true, "PropertyNames": true, "Properties": true, "PatternProperties": true,
		"AdditionalProperties": true, "Dependencies": true, "DependentSchemas": true, "UnevaluatedProperties": true,
		"Contains": true, "Items": true, "AdditionalItems": true, "PrefixItems": true, "Items2020": true,
		"UnevaluatedItems": true, "ContentSchema": true,
	}
	values := map[string]bool{"Const": true, "Default": true, "Examples": true} // values, not schemas
	schemaType := reflect.TypeFor[sjs.Schema]()
	var holds func(reflect.Type) bool
	holds = func(ty reflect.Type) bool {
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			return ty.Elem() == schemaType || holds(ty.Elem())
		case reflect.Map:
			return holds(ty.Elem())
		case reflect.Interface:
			return ty.NumMethod() == 0 // any: may hold a *Schema
		case reflect.Struct:
			for i := range ty.NumField() {
				if ty.Field(i).Type == reflect.PointerTo(schemaType) {
					return true
				}
			}
		}
		return false
	}
	for i := range schemaType.NumField() {
		f := schemaType.Field(i)
		if !f.IsExported() || values[f.Name] || !holds(f.Type) {
			continue
		}
		if !followed[f.Name] {
			t.Errorf("sjs.Schema.%s (%s) may hold subschemas: compiledSchemas does not follow it", f.Name, f.Type)
		}
	}
}
