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
		got, err := parseValue([]byte(in))
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
		if _, err := parseValue([]byte(bad)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
