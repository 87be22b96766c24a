package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// parseValue must agree with encoding/json (UseNumber) on valid JSON and
// refuse malformed text.
func TestParseValueAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `{"a":1,"b":[true,false,null,"x"],"c":{"d":-1.5e3}}`, `"\u00e9\ud83d\ude00\n\"\\/"`,
		` {"text" : "hello" } `, `12345678901234567890`, `[[[]]]`, `{"k":"a\tb"}`,
	} {
		got, err := ParseValue(context.Background(), []byte(in), DefaultLimits())
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		d := json.NewDecoder(bytes.NewReader([]byte(in)))
		d.UseNumber()
		var want any
		if err := d.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, want %#v", in, got, want)
		}
	}
	for _, bad := range []string{``, `{`, `[1,]`, `{"a"}`, `"abc`, `tru`, `1 2`, `{"a":1,}`, `"\x"`, `-`, `"\ud800"`} {
		if _, err := ParseValue(context.Background(), []byte(bad), DefaultLimits()); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// Member names that differ only in case are refused, in small and large
// objects, with Unicode folding.
func TestParseValueCaseVariants(t *testing.T) {
	big := `{`
	for i := range 20 {
		big += `"k` + string(rune('a'+i)) + `":1,`
	}
	for _, in := range []string{`{"text":"a","TEXT":"b"}`, `{"s":1,"ſ":2}`, `{"k":1,"\u212a":2}`, big + `"KA":2}`} {
		if _, err := ParseValue(context.Background(), []byte(in), DefaultLimits()); err != errCaseVariant {
			t.Errorf("%s: %v", in, err)
		}
	}
	if _, err := ParseValue(context.Background(), []byte(big+`"z":2}`), DefaultLimits()); err != nil {
		t.Errorf("distinct names: %v", err)
	}
	// Small objects (compared pairwise) and large ones (compared by folded
	// key) refuse the same names: "ı" and "I" join only under full case
	// mapping.
	for _, in := range []string{`{"I":1,"ı":2}`, big + `"İ":1,"i":2}`} {
		if _, err := ParseValue(context.Background(), []byte(in), DefaultLimits()); err != errCaseVariant {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// FuzzParseValue: on valid JSON, ParseValue agrees with encoding/json
// (UseNumber), and countValues counts exactly the values of the tree.
// (That the sparse read of HeaderArgs gives the Mcp-Param-* headers the
// verdict the whole tree gives is package server's FuzzParseValue.)
func FuzzParseValue(f *testing.F) {
	for _, seed := range []string{`{}`, `[]`, `{"a":[1,{},[],[[]],"x\"]"],"b":{"c":null}}`, `{"region":"eu","loc":{"zone":"z"}}`,
		`{"region":["eu"],"loc":{"zone":{"a":1}},"count":7.0}`, `{"x":"\\\\","y":"\\\"",  "z" : [ 1 , 2 ] }`, `"s"`, `1e5`, `[{"region":"x"}]`,
		`{"loc":"z","count":"7","flag":true,"region":null}`, `{"r\u0065gion":"eu"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) || !utf8.Valid(in) {
			return
		}
		lim := DefaultLimits()
		lim.MaxValues = 1 << 30
		got, err := ParseValue(context.Background(), in, lim)
		if err != nil {
			return // over the number limits, case variants, lone surrogates
		}
		d := json.NewDecoder(bytes.NewReader(in))
		d.UseNumber()
		var want any
		if err := d.Decode(&want); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: got %#v, encoding/json %#v (%v)", in, got, want, err)
		}
		if n, all := countValues(in, 1<<30), treeValues(got); n != all {
			t.Fatalf("%s: countValues %d, the tree has %d", in, n, all)
		}
	})
}

// treeValues counts the values of a parsed tree.
func treeValues(v any) int {
	n := 1
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			n += treeValues(e)
		}
	case map[string]any:
		for _, e := range x {
			n += treeValues(e)
		}
	}
	return n
}
