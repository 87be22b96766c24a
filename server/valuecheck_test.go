package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpwire/mcpwire/protocol"
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
	s := newServer(t)
	for _, sc := range valueSchemas {
		plain := plainSchema(t, sc)
		tamed, err := s.compileSchema([]byte(sc))
		if err != nil {
			t.Fatalf("%s: %v", sc, err)
		}
		for _, in := range valueInstances {
			v, err := parseValue([]byte(in), valueLimits{maxDigits: maxNumberLimit, maxExponent: 1 << 50})
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
	v, _ := parseValue([]byte(`{"t":[[1,1]]}`), defaultValueLimits())
	if plainSchema(t, dyn).Validate(v) == nil {
		t.Fatalf("the $dynamicRef does not reach the dynamic anchor")
	}
	_, extra, err := s.compileSchemaAll([]byte(dyn))
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
	sch, _ := s.compileSchema([]byte(`{"properties":{"a":{"uniqueItems":true}}}`))
	v, _ = parseValue([]byte(`{"a":[0,1,[2],1.0,[2]]}`), defaultValueLimits())
	if got := validationText(sch.Validate(v)); got != "at /a: items at 1 and 3 are equal" {
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
		lim := defaultValueLimits()
		va, err1 := parseValue(a, lim)
		vb, err2 := parseValue(b, lim)
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

// bestCheck is the shortest of three runs of checkArgs on args; it fails
// unless the validator ran (no refusal for the work).
func bestCheck(t *testing.T, s *Server, tool, args string) time.Duration {
	t.Helper()
	tl := s.lookupTool(tool)
	best := time.Duration(1 << 62)
	for range 3 {
		start := time.Now()
		res, err := s.checkArgs(context.Background(), tl, []byte(args), s.valueLimits(context.Background()), &exchange{})
		best = min(best, time.Since(start))
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := res.(*protocol.CallToolResult); ok && strings.Contains(fmt.Sprint(r.Content), "too large to validate") {
			t.Fatalf("%s: refused for the work", tool)
		}
	}
	return best
}

// uniqueItems costs time linear in the array: 16,384 arrays of strings
// built to collide in the validator's hash (its strings have no length,
// so ["x\u0004x"] and ["x","x"] hash alike: 8 s for 2.9 MB), and twenty
// arrays equal but for their last number (compared pairwise, each number
// through two big.Rat: 13 s for 3.2 MB), cost about what checking the
// same arguments without uniqueItems does. A ratio within one run, not a
// timing. The declared inputSchema keeps its uniqueItems.
func TestUniqueItemsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("times the validator")
	}
	s := newServer(t)
	countingTool(t, s, "unique", `{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true,"items":{"type":"array","items":{"type":"string"}}}}}`)
	countingTool(t, s, "plain", `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"array","items":{"type":"string"}}}}}`)
	countingTool(t, s, "unique20", `{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true}}}`)
	countingTool(t, s, "plain20", `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"array"}}}}`)
	colliding := `{"tags":` + collidingItems(15, 1<<14) + `}`
	var twenty strings.Builder
	twenty.WriteString(`{"tags":[`)
	for i := range 20 {
		if i > 0 {
			twenty.WriteByte(',')
		}
		fmt.Fprintf(&twenty, "[%s,%d]", jsonList("1", 5000), i+2)
	}
	twenty.WriteString(`]}`)
	for _, c := range []struct{ unique, plain, args string }{
		{"unique", "plain", colliding},
		{"unique20", "plain20", twenty.String()},
	} {
		u, p := bestCheck(t, s, c.unique, c.args), bestCheck(t, s, c.plain, c.args)
		t.Logf("%s: %d bytes, uniqueItems %v, without %v: ratio %.1f", c.unique, len(c.args), u, p, float64(u)/float64(p))
		if u > 5*p {
			t.Errorf("%s: uniqueItems took %v, the same arguments without it %v: more than 5 times", c.unique, u, p)
		}
	}
	// A duplicate is still found, named as the validator names it.
	h := s.Handler(HTTPOptions{})
	w := single(t, post(t, h, callBody(1, "unique", `{"tags":[["a"],["b"],["a"]]}`), nil))
	if !w.isError() || w.text(t, 0) != "Invalid arguments: at /tags: items at 0 and 2 are equal" {
		t.Errorf("a duplicate: %s", w.raw)
	}
	w = call(t, h, 2, protocol.MethodToolsList, params(nil))
	if !strings.Contains(string(w.raw), `"uniqueItems":true`) {
		t.Errorf("tools/list lost the declared uniqueItems: %.300s", w.raw)
	}
}

// collidingItems returns n distinct arrays of strings whose hash in the
// validator's uniqueItems is the same: k segments "x", split into strings
// at some of the k-1 boundaries and joined by U+0004 at the others.
func collidingItems(k, n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`["x`)
		for j := range k - 1 {
			if i>>j&1 == 1 {
				b.WriteString(`","x`)
			} else {
				b.WriteString(`\u0004x`)
			}
		}
		b.WriteString(`"]`)
	}
	b.WriteByte(']')
	return b.String()
}

// enum and const of arrays cost time linear in the instance: an enum of
// 90 arrays of 100 numbers against rows of 100 numbers (each row compared
// with all 90, number by number: 10 s for 202 KB), and a const of 4,000
// numbers against rows of as many (1.8 s for 3.2 MB), cost about what
// checking the same rows against {"type":"array"} does. A ratio within
// one run, not a timing.
func TestEnumConstLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("times the validator")
	}
	var enum []string
	for i := range 90 {
		enum = append(enum, "["+jsonList("1", 99)+fmt.Sprintf(",%d]", i+10))
	}
	s := newServer(t)
	countingTool(t, s, "enum", `{"type":"object","properties":{"rows":{"type":"array","items":{"anyOf":[{"enum":[`+strings.Join(enum, ",")+`]},{"type":"array"}]}}}}`)
	countingTool(t, s, "const", `{"type":"object","properties":{"rows":{"type":"array","items":{"anyOf":[{"const":[`+jsonList("1", 4000)+`,2]},{"type":"array"}]}}}}`)
	countingTool(t, s, "plain", `{"type":"object","properties":{"rows":{"type":"array","items":{"anyOf":[{"type":"array"}]}}}}`)
	for _, c := range []struct{ tool, args string }{
		{"enum", `{"rows":[` + jsonList("["+jsonList("1", 99)+",3]", 100) + `]}`},
		{"const", `{"rows":[` + jsonList("["+jsonList("1", 4000)+",3]", 10) + `]}`},
	} {
		v, p := bestCheck(t, s, c.tool, c.args), bestCheck(t, s, "plain", c.args)
		t.Logf("%s: %d bytes, %v, against {type: array} %v: ratio %.1f", c.tool, len(c.args), v, p, float64(v)/float64(p))
		if v > 5*p {
			t.Errorf("%s: took %v, the same rows against {\"type\":\"array\"} %v: more than 5 times", c.tool, v, p)
		}
	}
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
