package validate

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// The estimate of the validation work is an upper bound on what the
// validator does, for the shapes a second hostile review found uncharged
// (R-SCHEMA-08: the cost of composition keywords is bounded). Each check
// here is of the estimate or of the runtime's own code, not of time: the
// time per unit of these shapes is BenchmarkValidationWorkRatio's.

// membersObject is an object of n members named k000000…, in an order
// that is not sorted.
func membersObject(n int) string {
	return objectOf(n, func(i int) string { return fmt.Sprintf(`"k%06d":0`, (i*7919)%1000000) })
}

// longNamesObject is a JSON object of n members named by 400 bytes each.
func longNamesObject(n int) string {
	return objectOf(n, func(i int) string { return fmt.Sprintf(`"%s%07d":1`, strings.Repeat("a", 393), i) })
}

// objectOf is the JSON object of the n members member(0) … member(n-1)
// writes.
func objectOf(n int, member func(i int) string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(member(i))
	}
	b.WriteByte('}')
	return b.String()
}

// costShapes are the shapes whose members or elements the estimate left
// uncharged: each applied schema walks every member of an object
// (objValidate's loop), a true schema is applied to every element or
// member it is reached by, and unevaluated* keep a set of the members
// (items) not yet evaluated through every schema applied in place.
// Before the fix the first took 54.7 s for 119 KB of valid arguments
// under the bound (6.9M units of 10M).
func costShapes() []benchShape {
	gen := func(name, schema string, g func(n int) []byte) benchShape {
		return benchShape{validationShape: validationShape{name: name, schema: schema}, gen: g}
	}
	obj := func(prefix, suffix string) func(n int) []byte {
		return func(n int) []byte { return []byte(prefix + membersObject(n) + suffix) }
	}
	nums := func(n int) []byte { return []byte(`{"a":[` + jsonList("0", n) + `]}`) }
	const depth = 16
	return []benchShape{
		gen("recursive allOf of 2/object at depth 16", `{"$defs":{"n":{"type":["array","object"],"allOf":[{"items":{"$ref":"#/$defs/n"}},{"items":{"$ref":"#/$defs/n"}}]}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`,
			obj(`{"a":`+strings.Repeat("[", depth), strings.Repeat("]", depth)+`}`)),
		gen("allOf of 200 type object/object of n", `{"type":"object","properties":{"v":{"allOf":[`+jsonList(`{"type":"object"}`, 200)+`]}}}`, obj(`{"v":`, `}`)),
		gen("allOf of 200 additionalProperties false/object of n", `{"type":"object","properties":{"v":{"allOf":[`+jsonList(`{"additionalProperties":false}`, 200)+`]}}}`, obj(`{"v":`, `}`)),
		gen("allOf of 200 propertyNames true/object of n", `{"type":"object","properties":{"v":{"allOf":[`+jsonList(`{"propertyNames":true}`, 200)+`]}}}`, obj(`{"v":`, `}`)),
		gen("allOf of 200 items true/array of n", `{"type":"object","properties":{"a":{"allOf":[`+jsonList(`{"items":true}`, 200)+`]}}}`, nums),
		gen("allOf of 200 contains true/array of n", `{"type":"object","properties":{"a":{"allOf":[`+jsonList(`{"contains":true}`, 200)+`]}}}`, nums),
		gen("unevaluatedProperties + allOf of 20 $ref/object of n", `{"$defs":{"b":{"properties":{"k":{}}}},"type":"object","properties":{"v":{"type":"object","unevaluatedProperties":true,"allOf":[`+jsonList(`{"$ref":"#/$defs/b"}`, 20)+`]}}}`, obj(`{"v":`, `}`)),
		gen("unevaluatedItems + allOf of 20 prefixItems/array of n", `{"type":"object","properties":{"a":{"type":"array","unevaluatedItems":true,"allOf":[`+jsonList(`{"prefixItems":[{}]}`, 20)+`]}}}`, nums),
	}
}

// Every member of an object costs something for every schema applied to
// the object, and every element of an array for every true schema and
// every set of unevaluated items: the estimate grows with the members
// (elements) times the schemas, so that the shapes that the validator
// takes seconds over are refused at their sizes of the review (the
// review's reproduction, end to end, is package server's
// TestObjectMembersCharged).
func TestObjectMembersCharged(t *testing.T) {
	for _, sh := range costShapes() {
		t.Run(sh.name, func(t *testing.T) {
			idx := indexFor(t, sh.schema)
			w1, w2 := workOf(t, idx, string(sh.args(1000))), workOf(t, idx, string(sh.args(2000)))
			if per := (w2 - w1) / 1000; per < 20 {
				t.Errorf("a member or element costs %d units (1000: %d, 2000: %d); want at least 20, one for each of the schemas applied", per, w1, w2)
			}
		})
	}
	// A schema that looks at no member still costs nothing for values no
	// subschema applies to, but the members of the object it walks.
	items := indexFor(t, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`)
	if w := workOf(t, items, `{"b":[`+jsonList("1", 1000)+`]}`); w > 100 {
		t.Errorf("1000 values nothing applies to cost %d units", w)
	}
}

// An enum or const lookup (valueSet.has) stops before it sorts the names
// of an object that cannot be a member (more members than the set's
// largest object, or than values in its largest value, or more bytes of
// names than its longest encoding): it costs at most what argIndex
// charges, the set's largest value. Before, an object of 9,900 members
// met by an enum [1,"x"] 2^10 times took 3.4 s (its names sorted each
// time). Allocations count what it does: the names' slice, the encoding.
func TestEnumLookupStopsBeforeSort(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxValues = 0
	parse := func(s string) any {
		t.Helper()
		v, err := ParseValue(context.Background(), []byte(s), lim)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	big := parse(membersObject(9900))
	longNames := parse(`{"` + strings.Repeat("a", 300) + `":0,"` + strings.Repeat("b", 300) + `":0}`)
	for _, c := range []struct {
		what, values string
		v            any
	}{
		{"numbers and strings/an object of 9,900", `[1,"x"]`, big},
		{"an object of 3/an object of 9,900", `[{"k000000":0,"k007919":0,"k015838":0}]`, big},
		{"an array of 100/an object of 9,900", `[[` + jsonList("0", 100) + `]]`, big},
		{"a nested object of 3/a nested object of 9,900", `[[{"a":1,"b":2,"c":3}]]`, parse(`[` + membersObject(9900) + `]`)},
		{"short names/names longer than the set's encoding", `[{"a":0,"b":0}]`, longNames},
	} {
		set := newValueSet(parse(c.values).([]any))
		var in bool
		if a := testing.AllocsPerRun(20, func() { in = set.has(c.v) }); a != 0 || in {
			t.Errorf("enum of %s: member %v, %v allocations; want none", c.what, in, a)
		}
	}
	// The bound misses no member: objects in any order, at any depth.
	set := newValueSet(parse(`[{"b":[1,{"y":2,"x":1.0}],"a":"s"},{"a":1},[{"c":null}]]`).([]any))
	for v, want := range map[string]bool{
		`{"a":"s","b":[1,{"x":1,"y":2e0}]}`:      true,
		`{"a":"s","b":[1,{"x":1,"y":2,"z":3}]}`:  false,
		`{"a":"s","b":[1,{"x":1,"y":2}],"c":1}`:  false,
		`{"a":10e-1}`:                            true,
		`[{"c":null}]`:                           true,
		`[{"c":null,"d":null}]`:                  false,
		`{"a":"s","b":[1,{"x":1,"y":[2]}]}`:      false,
		`{"b":[1,{"x":1.00,"y":0.2e1}],"a":"s"}`: true,
	} {
		if got := set.has(parse(v)); got != want {
			t.Errorf("%s: member %v, want %v", v, got, want)
		}
	}
}

// BenchmarkValidationWorkRatio reports, in one run, the time per unit of
// the estimate of the shapes of costShapes and of an object met by an
// enum, each sized to the work bound (or the largest body), against the
// baseline of small integers with a minimum: ratio is their ns/unit over
// the baseline's.
//
//	go test -run '^$' -bench BenchmarkValidationWorkRatio -benchtime 3x ./server/internal/validate/
func BenchmarkValidationWorkRatio(b *testing.B) {
	base := benchShape{validationShape: validationShape{"baseline: integers/minimum", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer","minimum":0}}}}`, `{"a":[`, `123456`, `]}`}}
	enum := func(name, values string) benchShape {
		return benchShape{validationShape: validationShape{name: name,
			schema: `{"$defs":{"n":{"anyOf":[{"enum":` + values + `},{"type":"array","allOf":[{"items":{"$ref":"#/$defs/n"}},{"items":{"$ref":"#/$defs/n"}}]}]}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`},
			gen: func(n int) []byte {
				return []byte(`{"a":` + strings.Repeat("[", 6) + membersObject(n) + strings.Repeat("]", 6) + `}`)
			}}
	}
	strs := func(name, pattern, s string) benchShape {
		return benchShape{validationShape: validationShape{name, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","pattern":` + pattern + `}}}}`, `{"a":[`, `"` + s + `"`, `]}`}}
	}
	names := func(n int) []byte { return []byte(longNamesObject(n)) }
	var patterns []string
	for i := range 20 {
		patterns = append(patterns, fmt.Sprintf(`"[a-z]{1,50}%d":{}`, i))
	}
	shapes := append([]benchShape{base}, costShapes()...)
	shapes = append(shapes,
		enum("enum [1,x] at depth 6/object of n", `[1,"x"]`),
		enum("enum of an object of 9,000/object of n", `[`+membersObject(9000)+`]`),
		// The costliest patterns of the review, per unit.
		strs("pattern [a-z]{1,300}@/strings of 4 KiB", `"[a-z]{1,300}@"`, strings.Repeat("a", 4096)),
		strs("pattern [\\p{L}\\p{N}_]{1,300}@/strings of 4 KiB", `"[\\p{L}\\p{N}_]{1,300}@"`, strings.Repeat("a", 4096)),
		strs("pattern (?i)[a-zа-яα-ω]{1,300}@/strings of 4 KiB", `"(?i)[a-zа-яα-ω]{1,300}@"`, strings.Repeat("a", 4096)),
		benchShape{validationShape: validationShape{name: "propertyNames + 20 patternProperties/names of 400 bytes",
			schema: `{"type":"object","propertyNames":{"pattern":"[a-z]{1,100}@"},"patternProperties":{` + strings.Join(patterns, ",") + `}}`}, gen: names},
	)
	var baseline float64
	for _, shape := range shapes {
		b.Run(shape.name, func(b *testing.B) {
			tl := inputFor(b, shape.schema, shape.opts...)
			lim := DefaultLimits()
			lim.MaxWork = math.MaxInt64
			estimate := func(n int) int64 {
				v, err := ParseValue(context.Background(), shape.args(n), lim)
				if err != nil || !fewMembers(v, decodeMaxMembers) {
					return math.MaxInt64 // over the decode limits
				}
				w, _, _ := tl.index.scan(context.Background(), v, DefaultMaxWork)
				return w
			}
			// The largest n the server accepts: under the bound, in a
			// body, within the decode limits.
			lo, hi := 1, 200_000
			for lo < hi {
				mid := (lo + hi + 1) / 2
				if len(shape.args(mid)) <= maxBodyBytes-512 && estimate(mid) <= DefaultMaxWork {
					lo = mid
				} else {
					hi = mid - 1
				}
			}
			args := shape.args(lo)
			units := estimate(lo)
			b.ResetTimer()
			for b.Loop() {
				if _, err := checkArgs(context.Background(), tl, args, lim); err != nil {
					b.Fatal(err)
				}
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(units)
			if shape.name == base.name {
				baseline = ns // this run's, with -count
			}
			b.ReportMetric(float64(lo), "n")
			b.ReportMetric(float64(units), "units/op")
			b.ReportMetric(ns, "ns/unit")
			b.ReportMetric(ns/baseline, "ratio")
		})
	}
}

// fewMembers reports whether every object of v has at most max members
// (the decode limit: a request with more is refused before validation).
func fewMembers(v any, max int) bool {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if !fewMembers(e, max) {
				return false
			}
		}
	case map[string]any:
		if len(x) > max {
			return false
		}
		for _, e := range x {
			if !fewMembers(e, max) {
				return false
			}
		}
	}
	return true
}

// The walk of the estimate matches an undeclared member name against the
// patterns of patternProperties itself, to know what applies to the
// member, before the validator matches it again: the estimate counts
// both. (The review's 20 patterns on names of 400 bytes cost twice the
// ns per unit of the same pattern on strings.)
func TestNameMatchingCounted(t *testing.T) {
	idx := indexFor(t, `{"type":"object","patternProperties":{"[a-z]{1,50}0":{"type":"integer"}}}`)
	weight := idx.root[0].s.patterns[0].weight
	per := (workOf(t, idx, longNamesObject(20)) - workOf(t, idx, longNamesObject(10))) / 10
	if once := weight * (workName + 400*workPattern/64); per < 2*once {
		t.Errorf("a name of 400 bytes against a pattern of weight %d costs %d units; want at least %d (matched twice)", weight, per, 2*once)
	}
}

// A class of many ranges (matched by a binary search) weighs more than
// one of a few: [\p{L}\p{N}_]{1,300}@ cost 1.65 times [a-z]{1,300}@ a
// byte of "aaa…", both of 602 instructions, which weighed the same.
func TestLargeClassWeighs(t *testing.T) {
	weight := func(p string) int64 {
		t.Helper()
		return indexFor(t, `{"type":"object","properties":{"s":{"type":"string","pattern":`+strconv.Quote(p)+`}}}`).root[0].s.agg.names["s"][0].s.str / workPattern
	}
	if small, large := weight(`[a-z]{1,300}@`), weight(`[\p{L}\p{N}_]{1,300}@`); 2*large < 3*small {
		t.Errorf("[a-z]{1,300}@ weighs %d, [\\p{L}\\p{N}_]{1,300}@ %d: want 1.5 times at least", small, large)
	}
}
