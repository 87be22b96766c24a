package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzUnions lists every union of the package by schema name, sorted: the
// anyOf types that hold a variant in Value, and the kind-keeping unions of
// JSON kinds (RequestId, ProgressToken, ElicitResultContentValue).
// FuzzDecodeUnion picks one by the first input byte, modulo the length;
// TestFuzzUnionsComplete keeps the list in step with the generator. Seeds
// name their union in the file name, so a longer list only renumbers them.
var fuzzUnions = []string{
	"CallToolResultResponseResult",
	"ClientRequest",
	"CompleteRequestParamsRef",
	"ContentBlock",
	"CreateMessageResultContent",
	"ElicitRequestParams",
	"ElicitResultContentValue",
	"EmbeddedResourceResource",
	"EnumSchema",
	"GetPromptResultResponseResult",
	"InputRequest",
	"InputResponse",
	"JSONRPCMessage",
	"JSONRPCResponse",
	"MultiSelectEnumSchema",
	"PrimitiveSchemaDefinition",
	"ProgressToken",
	"ReadResourceResultContentsElem",
	"ReadResourceResultResponseResult",
	"RequestId",
	"SamplingMessageContent",
	"SamplingMessageContentBlock",
	"ServerNotification",
	"ServerResult",
	"SingleSelectEnumSchema",
}

// isUnion reports whether a type of the package is a union: a struct whose
// only field is the interface Value, or a kind-keeping struct (unexported
// kind byte and no exported fields).
func isUnion(rt reflect.Type) bool {
	if rt.Kind() != reflect.Struct {
		return false
	}
	if f, ok := rt.FieldByName("Value"); ok && rt.NumField() == 1 && f.Type.Kind() == reflect.Interface {
		return true
	}
	if f, ok := rt.FieldByName("kind"); ok && f.Type.Kind() == reflect.Uint8 {
		for i := range rt.NumField() {
			if rt.Field(i).IsExported() {
				return false
			}
		}
		return true
	}
	return false
}

// registryNames returns every schema name that NewValue knows, read from
// the generated registry.
func registryNames(t testing.TB) []string {
	t.Helper()
	src, err := os.ReadFile("registry_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s*case "([A-Za-z0-9_]+)":`).FindAllStringSubmatch(string(src), -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatal("no names in registry_gen.go")
	}
	return names
}

// TestFuzzUnionsComplete checks that fuzzUnions is sorted and names
// exactly the unions NewValue can make.
func TestFuzzUnionsComplete(t *testing.T) {
	if !slices.IsSorted(fuzzUnions) {
		t.Error("fuzzUnions is not sorted")
	}
	var want []string
	for _, n := range registryNames(t) {
		v := NewValue(n)
		if v == nil {
			t.Fatalf("NewValue(%q) = nil", n)
		}
		if isUnion(reflect.TypeOf(v).Elem()) {
			want = append(want, n)
		}
	}
	slices.Sort(want)
	if !slices.Equal(fuzzUnions, want) {
		t.Errorf("fuzzUnions is out of date:\n got %v\nwant %v", fuzzUnions, want)
	}
}

// FuzzDecodeUnion decodes data[1:] as the union fuzzUnions[data[0] %
// len(fuzzUnions)]. Properties: no panic; a failure is a *DecodeError; the
// order of an object's members changes neither whether it decodes nor
// what to; what decodes encodes, to valid JSON, and decode → encode →
// decode → encode gives the same bytes; encoding/json (through UnmarshalJSON and
// MarshalJSON) accepts whatever the strict decoder accepts and agrees with
// it. Seeds are ../testdata/fuzz/unions/<Union>.<case>.json.
func FuzzDecodeUnion(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("..", "testdata", "fuzz", "unions", "*.json"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	seeded := map[string]bool{}
	for _, s := range seeds {
		name, _, _ := strings.Cut(filepath.Base(s), ".")
		i := slices.Index(fuzzUnions, name)
		if i < 0 {
			f.Fatalf("seed %s names no union", s)
		}
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		seeded[name] = true
		f.Add(append([]byte{byte(i)}, bytes.TrimSuffix(b, []byte("\n"))...))
	}
	for _, n := range fuzzUnions {
		if !seeded[n] {
			f.Errorf("no seed for union %s in testdata/fuzz/unions", n)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		name := fuzzUnions[int(data[0])%len(fuzzUnions)]
		in := data[1:]
		v := NewValue(name)
		err := Unmarshal(in, v)
		if err != nil {
			if _, ok := AsDecodeError(err); !ok {
				t.Fatalf("%s: error of type %T: %v", name, err, err)
			}
		}

		// Member order does not matter in JSON: the object with its
		// members reversed is accepted or refused alike, and decodes to
		// the same value.
		if rev, ok := reversedMembers(in); ok {
			vr := NewValue(name)
			errRev := Unmarshal(rev, vr)
			if (err == nil) != (errRev == nil) {
				t.Fatalf("%s: member order changes the verdict:\n%s\n  -> %v\n%s\n  -> %v", name, in, err, rev, errRev)
			}
			if err == nil {
				a, errA := Marshal(v)
				b, errB := Marshal(vr)
				if errA != nil || errB != nil || !bytes.Equal(jsonCanon(t, a), jsonCanon(t, b)) {
					t.Fatalf("%s: member order changes the value:\n%s -> %s (%v)\n%s -> %s (%v)", name, in, a, errA, rev, b, errB)
				}
			}
		}
		if err != nil {
			return
		}

		out, err := Marshal(v)
		if err != nil {
			t.Fatalf("%s: decoded %q but cannot encode it: %v", name, in, err)
		}
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("%s: encoding of %q is not valid JSON: %q", name, in, out)
		}
		v2 := NewValue(name)
		if err := Unmarshal(out, v2); err != nil {
			t.Fatalf("%s: re-decoding %s (from %q): %v", name, out, in, err)
		}
		out2, err := Marshal(v2)
		if err != nil {
			t.Fatalf("%s: re-encoding %s: %v", name, out, err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("%s: unstable:\n in: %q\n 1st: %s\n 2nd: %s", name, in, out, out2)
		}

		// encoding/json goes through UnmarshalJSON and MarshalJSON. It
		// escapes <, > and & in what MarshalJSON returns, and raw members
		// keep those escapes, so the two encodings compare as JSON values.
		v3 := NewValue(name)
		if err := json.Unmarshal(in, v3); err != nil {
			t.Fatalf("%s: strict Unmarshal accepts %q, encoding/json does not: %v", name, in, err)
		}
		js, err := json.Marshal(v3)
		if err != nil {
			t.Fatalf("%s: json.Marshal of %q: %v", name, in, err)
		}
		v4 := NewValue(name)
		if err := Unmarshal(js, v4); err != nil {
			t.Fatalf("%s: json.Marshal wrote %s, which does not decode: %v", name, js, err)
		}
		out4, err := Marshal(v4)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out4) && !bytes.Equal(jsonCanon(t, out), jsonCanon(t, out4)) {
			t.Fatalf("%s: encoding/json and Unmarshal/Marshal disagree on %q:\n%s\n%s", name, in, out, out4)
		}
	})
}

// jsonCanon re-encodes a JSON text with sorted keys, numbers as written and
// strings unescaped the same way, to compare two texts as values.
func jsonCanon(t *testing.T, b []byte) []byte {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("not JSON: %q: %v", b, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// reversedMembers returns the object in with its top-level members in
// reverse order, values byte for byte. It declines (false) what is not one
// JSON object of two or more members, and texts whose member names might
// not survive re-encoding (invalid UTF-8, \u escapes of surrogates).
func reversedMembers(in []byte) ([]byte, bool) {
	if !json.Valid(in) || !utf8.Valid(in) || bytes.Contains(in, []byte(`\ud`)) || bytes.Contains(in, []byte(`\uD`)) {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(in))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	type member struct {
		name  string
		value json.RawMessage
	}
	var ms []member
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		ms = append(ms, member{tok.(string), v})
	}
	if len(ms) < 2 {
		return nil, false
	}
	out := []byte{'{'}
	for i := len(ms) - 1; i >= 0; i-- {
		if i != len(ms)-1 {
			out = append(out, ',')
		}
		k, err := json.Marshal(ms[i].name)
		if err != nil {
			return nil, false
		}
		out = append(out, k...)
		out = append(out, ':')
		out = append(out, ms[i].value...)
	}
	return append(out, '}'), true
}
