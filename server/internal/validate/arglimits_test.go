package validate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Unit tests of the number limits, the validation work estimate and the
// case-variant index (R-TOOL-10, R-SCHEMA-08, R-HDR-07; the options that
// set the limits are package server's tests).

// ParseValue refuses a number over the limits with a *ValueError naming
// its path (escaped as a JSON Pointer), for callers that answer -32602.
func TestParseValueNumberError(t *testing.T) {
	_, err := ParseValue(context.Background(), []byte(`{"a/b":[0,{"c~d":1e401}],"e":1e999999}`), DefaultLimits())
	var ve *ValueError
	if !errors.As(err, &ve) {
		t.Fatalf("want a *ValueError, got %v", err)
	}
	if got := ve.Error(); got != "at /a~1b/1/c~0d: number's exponent is beyond the limit of ±400" && got != "at /e: number's exponent is beyond the limit of ±400" {
		t.Errorf("error %q", got)
	}
	if _, err := ParseValue(context.Background(), []byte(`1e999999`), DefaultLimits()); err == nil || err.Error() != "at /: number's exponent is beyond the limit of ±400" {
		t.Errorf("a number at the root: %v", err)
	}
	for _, ok := range []string{`0`, `-0`, `1.5e-3`, `1E+999999`, `123`, `-0.0`, `1e400`} {
		if !validNumber([]byte(ok)) {
			t.Errorf("%s is a JSON number", ok)
		}
	}
	for _, bad := range []string{``, `-`, `01`, `1.`, `.5`, `1e`, `1e+`, `--1`, `1.e5`, `+1`, `1-2`, `1e5.5`, `0x1`} {
		if validNumber([]byte(bad)) {
			t.Errorf("%q is not a JSON number", bad)
		}
	}
	if d, e, ed := numberSize("-12.340e-0007"); d != 5 || e != 7 || ed != 4 {
		t.Errorf("numberSize: %d digits, exponent %d written with %d digits", d, e, ed)
	}
	if _, e, _ := numberSize("1e" + strings.Repeat("9", 40)); e < 1e15 {
		t.Errorf("a huge exponent saturates, got %d", e)
	}
}

// indexFor compiles schema and indexes it.
func indexFor(t testing.TB, schema string) *argIndex {
	t.Helper()
	sch, err := compileSchema([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := newArgIndex(sch)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// workOf is the estimate for args.
func workOf(t testing.TB, idx *argIndex, args string) int64 {
	t.Helper()
	v, err := ParseValue(context.Background(), []byte(args), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	w, _, err := idx.scan(context.Background(), v, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The estimate follows what the validator does: linear in the values a
// subschema applies to, nothing for values no subschema applies to,
// doubled at each level by a recursion through two branches, more for
// larger numbers, per byte for patterns, and a subschema reached twice
// counts twice (R-SCHEMA-08).
func TestValidationWorkEstimate(t *testing.T) {
	items := indexFor(t, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer","minimum":0}}}}`)
	w1, w2 := workOf(t, items, `{"a":[`+jsonList("1", 1000)+`]}`), workOf(t, items, `{"a":[`+jsonList("1", 2000)+`]}`)
	if d := w2 - w1; d <= 0 || w2-2*w1 > d/100 {
		t.Errorf("1000 items %d, 2000 items %d: not linear", w1, w2)
	}
	if undeclared := workOf(t, items, `{"b":[`+jsonList("1", 1000)+`]}`); undeclared >= w1/100 {
		t.Errorf("values nothing applies to cost %d (declared: %d)", undeclared, w1)
	}
	if big := workOf(t, items, `{"a":[`+jsonList("1e400", 1000)+`]}`); big <= 2*w1 {
		t.Errorf("1e400 costs %d, 1 costs %d", big, w1)
	}
	double := indexFor(t, `{"$defs":{"n":{"allOf":[{"items":{"$ref":"#/$defs/n"}},{"items":{"$ref":"#/$defs/n"}}]}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`)
	d10, d11 := workOf(t, double, `{"a":`+strings.Repeat("[", 10)+strings.Repeat("]", 10)+`}`), workOf(t, double, `{"a":`+strings.Repeat("[", 11)+strings.Repeat("]", 11)+`}`)
	if d11 < 2*d10-d10/10 {
		t.Errorf("depth 10 costs %d, depth 11 %d: the doubling is not counted", d10, d11)
	}
	once := indexFor(t, `{"type":"object","$defs":{"x":{"minimum":0}},"properties":{"a":{"allOf":[{"$ref":"#/$defs/x"}]}}}`)
	twice := indexFor(t, `{"type":"object","$defs":{"x":{"minimum":0}},"properties":{"a":{"allOf":[{"$ref":"#/$defs/x"},{"$ref":"#/$defs/x"}]}}}`)
	if o, tw := workOf(t, once, `{"a":5}`), workOf(t, twice, `{"a":5}`); tw <= o {
		t.Errorf("a subschema reached twice costs %d, once %d", tw, o)
	}
	pattern := indexFor(t, `{"type":"object","properties":{"s":{"type":"string","pattern":"^a+$"}}}`)
	if short, long := workOf(t, pattern, `{"s":"aaaa"}`), workOf(t, pattern, `{"s":"`+strings.Repeat("a", 64000)+`"}`); long < 500*short/10 {
		t.Errorf("a pattern on 4 bytes costs %d, on 64,000 bytes %d", short, long)
	}
	// An enum is a lookup (valueCheck): its cost does not grow with its
	// values, nor with an instance value larger than its largest.
	enum10 := indexFor(t, `{"type":"object","properties":{"e":{"enum":[1,2,3,4,5,6,7,8,9,10]}}}`)
	enum1000 := indexFor(t, `{"type":"object","properties":{"e":{"enum":[`+jsonList("1", 999)+`,[1,2]]}}}`)
	if small, large := workOf(t, enum10, `{"e":10}`), workOf(t, enum1000, `{"e":10}`); small != large {
		t.Errorf("an enum of 10 numbers costs %d, of 1000 values %d", small, large)
	}
	if short, long := workOf(t, enum10, `{"e":[1]}`), workOf(t, enum10, `{"e":[`+jsonList("1", 1000)+`]}`); long > short*2 {
		t.Errorf("an enum of numbers costs %d for [1], %d for 1000 numbers", short, long)
	}
	// Saturation: no overflow, however deep the doubling.
	if w := workOf(t, double, `{"a":`+strings.Repeat("[", 60)+strings.Repeat("]", 60)+`}`); w <= 0 || w < 1<<50 {
		t.Errorf("depth 60: %d", w)
	}
}

// The walk stops once the work is over the limit, and when the context
// ends; so does the parser; checkArgs checks the context before the
// validator too, and answers with its error.
func TestArgumentsContext(t *testing.T) {
	tl := inputFor(t, recordsSchema)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	lim := DefaultLimits()
	args := []byte(recordsArgs(1000)) // 13,000 values
	if _, err := ParseValue(ctx, args, lim); !errors.Is(err, context.Canceled) {
		t.Errorf("parseValue with an ended context: %v", err)
	}
	v, err := ParseValue(context.Background(), args, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tl.index.scan(ctx, v, math.MaxInt64); !errors.Is(err, context.Canceled) {
		t.Errorf("scan with an ended context: %v", err)
	}
	for _, a := range [][]byte{args, []byte(recordsArgs(1))} {
		if res, err := checkArgs(ctx, tl, a, lim); res != "" || !errors.Is(err, context.Canceled) {
			t.Errorf("checkArgs with an ended context (%d bytes): %v %v", len(a), res, err)
		}
	}
	start := time.Now()
	if w, _, _ := tl.index.scan(context.Background(), v, 1000); w <= 1000 || time.Since(start) > time.Second {
		t.Errorf("scan over a limit of 1000: %d", w)
	}
}

// The index follows $dynamicRef to every schema with its anchor, and
// refuses schemas whose subschemas combine in too many ways.
func TestArgIndexReferences(t *testing.T) {
	dyn := indexFor(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","$dynamicAnchor":"node","type":"object",
		"properties":{"kids":{"type":"array","items":{"$dynamicRef":"#node"}},"label":{"type":"string"}}}`)
	v, _ := ParseValue(context.Background(), []byte(`{"kids":[{"kids":[{"LABEL":"x"}]}]}`), DefaultLimits())
	if _, variants, _ := dyn.scan(context.Background(), v, math.MaxInt64); len(variants) != 1 || variants[0].Error() != "at /kids/0/kids/0/LABEL: member name differs only in case from the declared property 'label'" {
		t.Errorf("through $dynamicRef: %v", variants)
	}
	many := make([]string, 12)
	for i := range many {
		many[i] = fmt.Sprintf(`{"$ref":"#/$defs/d%d"}`, i)
	}
	var defs []string
	for i := range many {
		defs = append(defs, fmt.Sprintf(`"d%d":{"properties":{"p%d":{"minimum":0}}}`, i, i))
	}
	idx := indexFor(t, `{"type":"object","$defs":{`+strings.Join(defs, ",")+`},"allOf":[`+strings.Join(many, ",")+`]}`)
	v, _ = ParseValue(context.Background(), []byte(`{"P3":1,"p4":2}`), DefaultLimits())
	if _, variants, _ := idx.scan(context.Background(), v, math.MaxInt64); len(variants) != 1 || !strings.Contains(variants.Error(), "'p3'") {
		t.Errorf("through allOf and $ref: %v", variants)
	}
}

// Case variants are listed in path order, at most maxReported of them.
func TestCaseVariantsReport(t *testing.T) {
	idx := indexFor(t, `{"type":"object","properties":{"xs":{"type":"array","items":{"type":"object","properties":{"a":{}}}}}}`)
	v, _ := ParseValue(context.Background(), []byte(`{"xs":[`+jsonList(`{"A":1}`, 20)+`]}`), DefaultLimits())
	_, variants, _ := idx.scan(context.Background(), v, math.MaxInt64)
	if len(variants) != 20 || !strings.HasPrefix(variants.Error(), "at /xs/0/A: ") || !strings.HasSuffix(variants.Error(), "; and 12 more") {
		t.Errorf("%d variants: %s", len(variants), variants.Error())
	}
}

// validationShape is one kind of arguments for BenchmarkValidationWork:
// item is repeated n times in arguments of the given shape.
type validationShape struct {
	name, schema, prefix, item, suffix string
}

// benchShape is a validationShape, or one whose gen makes arguments of n
// items, compiled with the Options opts set (inputFor).
type benchShape struct {
	validationShape
	gen  func(n int) []byte
	opts []func(*Options)
}

// reviewShapes are the shapes of the second hostile review (uniqueItems,
// enum and const of arrays, patterns by program size, formats), sized as
// the others.
func reviewShapes() []benchShape {
	list := func(n int, item func(i int) string) []byte {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(item(i))
		}
		return []byte(b.String())
	}
	wrap := func(prefix string, body []byte, suffix string) []byte {
		return append(append([]byte(prefix), body...), suffix...)
	}
	shape := func(name, schema, prefix, item, suffix string, opts ...func(*Options)) benchShape {
		return benchShape{validationShape: validationShape{name, schema, prefix, item, suffix}, opts: opts}
	}
	gen := func(name, schema string, g func(n int) []byte) benchShape {
		return benchShape{validationShape: validationShape{name: name, schema: schema}, gen: g}
	}
	arr := func(items string) string {
		return `{"type":"object","properties":{"a":{"type":"array","items":` + items + `}}}`
	}
	unique := `{"type":"object","properties":{"a":{"type":"array","uniqueItems":true}}}`
	var enum90 []string
	for i := range 90 {
		enum90 = append(enum90, "["+jsonList("1", 99)+fmt.Sprintf(",%d]", i+10))
	}
	enum2000 := make([]string, 2000)
	for i := range enum2000 {
		enum2000[i] = fmt.Sprint(i + 100)
	}
	regex7 := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"array","items":{"type":"string","format":"regex"}}}}`
	colliding := func(i int) string {
		var b strings.Builder
		b.WriteString(`["x`)
		for j := range 20 {
			if i>>j&1 == 1 {
				b.WriteString(`","x`)
			} else {
				b.WriteString(`\u0004x`)
			}
		}
		b.WriteString(`"]`)
		return b.String()
	}
	return []benchShape{
		gen("uniqueItems/distinct numbers", unique, func(n int) []byte {
			return wrap(`{"a":[`, list(n, strconv.Itoa), `]}`)
		}),
		gen("uniqueItems/distinct arrays of 10", unique, func(n int) []byte {
			return wrap(`{"a":[`, list(n, func(i int) string { return fmt.Sprintf("[%s,%d]", jsonList("1", 9), i) }), `]}`)
		}),
		gen("uniqueItems/strings of colliding hashes", `{"type":"object","properties":{"a":{"type":"array","uniqueItems":true,"items":{"type":"array","items":{"type":"string"}}}}}`, func(n int) []byte {
			return wrap(`{"a":[`, list(n, colliding), `]}`)
		}),
		gen("uniqueItems/20 arrays equal but the last", unique, func(n int) []byte {
			return wrap(`{"a":[`, list(20, func(i int) string { return fmt.Sprintf("[%s,%d]", jsonList("1", max(n/20, 1)), i+2) }), `]}`)
		}),
		shape("enum of 90 arrays/rows of 100", arr(`{"anyOf":[{"enum":[`+strings.Join(enum90, ",")+`]},{"type":"array"}]}`), `{"a":[`, "["+jsonList("1", 99)+",3]", `]}`),
		shape("const of 4000/rows of 4000", arr(`{"anyOf":[{"const":[`+jsonList("1", 4000)+`,2]},{"type":"array"}]}`), `{"a":[`, "["+jsonList("1", 4000)+",3]", `]}`),
		shape("enum of 2000 numbers/numbers", arr(`{"anyOf":[{"enum":[`+strings.Join(enum2000, ",")+`]},{"type":"number"}]}`), `{"a":[`, `1.5e-7`, `]}`),
		shape("draft-07 $ref beside a const of 1000/rows", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"d":{"type":"array"}},"properties":{"a":{"type":"array","items":{"$ref":"#/definitions/d","const":[`+jsonList("1", 1000)+`,2]}}}}`,
			`{"a":[`, "["+jsonList("1", 1000)+",3]", `]}`),
		shape("pattern of 639 instructions/strings of 4 KiB", arr(`{"type":"string","pattern":"[^@\\s]{1,64}@[^@\\s]{1,255}"}`), `{"a":[`, `"`+strings.Repeat("a", 4096)+`"`, `]}`),
		shape("pattern of 2002 instructions/strings of 1 KiB", arr(`{"type":"string","pattern":"[a-z]{1,1000}@"}`), `{"a":[`, `"`+strings.Repeat("a", 1024)+`"`, `]}`),
		shape("patternProperties of 2002 instructions/names of 1 KiB", arr(`{"type":"object","patternProperties":{"[a-z]{1,1000}@":{}}}`), `{"a":[`, `{"`+strings.Repeat("a", 1024)+`":1}`, `]}`),
		shape("propertyNames of 639 instructions/names of 1 KiB", arr(`{"type":"object","propertyNames":{"pattern":"[^@\\s]{1,64}@[^@\\s]{1,255}"}}`), `{"a":[`, `{"`+strings.Repeat("a", 1024)+`":1}`, `]}`),
		shape("draft-07 format regex/an annotation", regex7, `{"a":[`, `"`+strings.Repeat(`\\pL{1000}`, 7)+`"`, `]}`),
		shape("format regex asserted/repetitions", regex7, `{"a":[`, `"`+strings.Repeat(`\\pL{1000}`, 7)+`"`, `]}`, withFormatAssertion),
		shape("format regex asserted/folded classes", regex7, `{"a":[`, `"(?i)[A-\\x{1e900}]"`, `]}`, withFormatAssertion),
		shape("format uri-template asserted", arr(`{"type":"string","format":"uri-template"}`), `{"a":[`, `"http://x/`+strings.Repeat("%41a/", 800)+`"`, `]}`, withFormatAssertion),
		shape("format json-pointer asserted", arr(`{"type":"string","format":"json-pointer"}`), `{"a":[`, `"/`+strings.Repeat("a/", 2000)+`"`, `]}`, withFormatAssertion),
	}
}

func validationShapes() []validationShape {
	enum := make([]string, 1000)
	for i := range enum {
		enum[i] = fmt.Sprint(i * 7)
	}
	var patterns []string
	for i := range 10 {
		patterns = append(patterns, fmt.Sprintf(`"^p%d[a-z]*$":{"type":"string"}`, i))
	}
	arr := func(items string) string {
		return `{"type":"object","properties":{"a":{"type":"array","items":` + items + `}}}`
	}
	return []validationShape{
		{"records", recordsSchema, `{"items":[`, `{"id":12345,"name":"Widget number one","price":19.99,"qty":3,"tags":["a","b"],"active":true,"sku":"ABC-123","weight":1.5,"color":"red","note":"n"}`, `]}`},
		{"integers/minimum", arr(`{"type":"integer","minimum":0}`), `{"a":[`, `123456`, `]}`},
		{"integers/minimum failing", arr(`{"type":"integer","minimum":10}`), `{"a":[`, `1`, `]}`},
		{"1e400/minimum multipleOf", arr(`{"type":"number","minimum":0,"multipleOf":0.5}`), `{"a":[`, `1.234567e400`, `]}`},
		{"100 digits/multipleOf", arr(`{"type":"number","multipleOf":0.7}`), `{"a":[`, `1.` + strings.Repeat("3", 99), `]}`},
		{"integers/enum of 1000", arr(`{"enum":[` + strings.Join(enum, ",") + `]}`), `{"a":[`, `1`, `]}`},
		{"1e400/enum of 1000", arr(`{"enum":[` + strings.Join(enum, ",") + `]}`), `{"a":[`, `1e400`, `]}`},
		{"integers/const", arr(`{"const":12345}`), `{"a":[`, `12345`, `]}`},
		{"fractions/integer type", arr(`{"type":"integer"}`), `{"a":[`, `1.0e2`, `]}`},
		{"1e400/uniqueItems", `{"type":"object","properties":{"a":{"type":"array","uniqueItems":true}}}`, `{"a":[`, `1e400`, `]}`},
		{"strings/maxLength", arr(`{"type":"string","maxLength":100}`), `{"a":[`, `"hello world"`, `]}`},
		{"strings/pattern 4 KiB", arr(`{"type":"string","pattern":"^([a-z]+[0-9]?)+$"}`), `{"a":[`, `"` + strings.Repeat("ab1", 1365) + `"`, `]}`},
		{"objects/oneOf of 10 failing", arr(`{"oneOf":[` + jsonList(`{"type":"object","properties":{"k":{"const":"x"}},"required":["k"]}`, 10) + `]}`), `{"a":[`, `{"k":"y"}`, `]}`},
		{"objects/patternProperties 10", arr(`{"type":"object","patternProperties":{` + strings.Join(patterns, ",") + `}}`), `{"a":[`, `{"p1abcdefgh":"x","p2abc":"y","zzzzzzzzzz":"w"}`, `]}`},
		{"recursive anyOf failing", `{"$defs":{"n":{"anyOf":[{"type":"string","minLength":5},{"type":"integer","minimum":10},{"type":"array","items":{"$ref":"#/$defs/n"}},{"type":"object","additionalProperties":{"$ref":"#/$defs/n"}}]}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`, `{"a":[`, `[1,2,3,[4,5,[6]]]`, `]}`},
		{"recursive anyOf/JSON values", `{"$defs":{"j":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"},{"type":"array","items":{"$ref":"#/$defs/j"}},{"type":"object","additionalProperties":{"$ref":"#/$defs/j"}}]}},"type":"object","additionalProperties":{"$ref":"#/$defs/j"}}`, `{"a":[`, `{"x":"abc","y":[1,2,{"z":null}]}`, `]}`},
		{"recursive allOf of 50", `{"$defs":{"n":{"allOf":[` + jsonList(`{"type":["array","integer"],"minimum":0,"items":{"$ref":"#/$defs/n"}}`, 50) + `]}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`, `{"a":[`, `1`, `]}`},
		{"recursive allOf of 2/depth 12", `{"$defs":{"n":{"allOf":[{"items":{"$ref":"#/$defs/n"}},{"items":{"$ref":"#/$defs/n"}}]}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`, `{"a":[`, strings.Repeat("[", 12) + strings.Repeat("]", 12), `]}`},
	}
}

// args builds n items of the shape.
func (v validationShape) args(n int) []byte {
	return []byte(v.prefix + jsonList(v.item, n) + v.suffix)
}

// args builds n items of the shape.
func (v benchShape) args(n int) []byte {
	if v.gen != nil {
		return v.gen(n)
	}
	return v.validationShape.args(n)
}

// BenchmarkValidationWork validates arguments of each shape sized to the
// default work bound (DefaultMaxWork), the bound lifted, and at most a 4
// MiB body: what the worst case at the bound costs, and the nanoseconds
// per unit of the estimate (ns/unit) that server.DefaultMaxValidationWork's
// documentation states.
//
//	go test -run '^$' -bench BenchmarkValidationWork -benchtime 3x ./server/internal/validate/
func BenchmarkValidationWork(b *testing.B) {
	shapes := reviewShapes()
	for _, v := range validationShapes() {
		shapes = append(shapes, benchShape{validationShape: v})
	}
	for _, shape := range shapes {
		b.Run(shape.name, func(b *testing.B) {
			tl := inputFor(b, shape.schema, shape.opts...)
			lim := DefaultLimits()
			lim.MaxWork, lim.MaxValues = math.MaxInt64, 1<<30
			estimate := func(n int) int64 {
				v, err := ParseValue(context.Background(), shape.args(n), lim)
				if err != nil {
					b.Fatal(err)
				}
				w, _, _ := tl.index.scan(context.Background(), v, math.MaxInt64)
				return w
			}
			per := max((estimate(200)-estimate(100))/100, 1)
			n := max(int((DefaultMaxWork-estimate(0))/per), 1)
			if size := len(shape.args(n)); size > maxBodyBytes-512 {
				n = n * (maxBodyBytes - 512) / size // what one body can carry
			}
			args := shape.args(n)
			units := estimate(n)
			b.ResetTimer()
			for b.Loop() {
				if _, err := checkArgs(context.Background(), tl, args, lim); err != nil {
					b.Fatal(err)
				}
			}
			nsPerOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(float64(units), "units/op")
			b.ReportMetric(nsPerOp/float64(units), "ns/unit")
			b.ReportMetric(float64(len(args)), "bytes/op")
		})
	}
}
