package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// parseValue must agree with encoding/json (UseNumber) on valid JSON and
// refuse malformed text.
func TestParseValueAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `{"a":1,"b":[true,false,null,"x"],"c":{"d":-1.5e3}}`, `"\u00e9\ud83d\ude00\n\"\\/"`,
		` {"text" : "hello" } `, `12345678901234567890`, `[[[]]]`, `{"k":"a\tb"}`,
	} {
		got, err := parseValue([]byte(in), defaultValueLimits())
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
		if _, err := parseValue([]byte(bad), defaultValueLimits()); err == nil {
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
		if _, err := parseValue([]byte(in), defaultValueLimits()); err != errCaseVariant {
			t.Errorf("%s: %v", in, err)
		}
	}
	if _, err := parseValue([]byte(big+`"z":2}`), defaultValueLimits()); err != nil {
		t.Errorf("distinct names: %v", err)
	}
	// Small objects (compared pairwise) and large ones (compared by folded
	// key) refuse the same names: "ı" and "I" join only under full case
	// mapping.
	for _, in := range []string{`{"I":1,"ı":2}`, big + `"İ":1,"i":2}`} {
		if _, err := parseValue([]byte(in), defaultValueLimits()); err != errCaseVariant {
			t.Errorf("%s: %v", in, err)
		}
	}
}
