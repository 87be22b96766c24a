package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// variantHints is every hint the tests give UnmarshalVariant: each method
// of the revision, hints no variant has, and extra (the string values of
// the union's seeds: its "type" values, say).
func variantHints(extra []string) []string {
	hints := []string{"", "nope", "Tools/call", "tools/call ", "2.0"}
	for _, m := range Methods() {
		hints = append(hints, m.Name)
	}
	return append(hints, extra...)
}

// checkVariantAgrees asserts that UnmarshalVariant with each hint gives
// what Unmarshal gives for the union name: the same error text, or a value
// equal to Unmarshal's.
func checkVariantAgrees(t *testing.T, name string, in []byte, hints []string) {
	t.Helper()
	want := NewValue(name)
	errWant := Unmarshal(in, want)
	for _, hint := range hints {
		got := NewValue(name)
		errGot := UnmarshalOptions{}.UnmarshalVariant(in, got, hint)
		switch {
		case (errWant == nil) != (errGot == nil):
			t.Fatalf("%s, hint %q: UnmarshalVariant says %v, Unmarshal %v, for %s", name, hint, errGot, errWant, in)
		case errWant != nil && errWant.Error() != errGot.Error():
			t.Fatalf("%s, hint %q: UnmarshalVariant says %v, Unmarshal %v, for %s", name, hint, errGot, errWant, in)
		case errWant == nil && !reflect.DeepEqual(want, got):
			t.Fatalf("%s, hint %q: UnmarshalVariant decoded %#v, Unmarshal %#v, from %s", name, hint, got, want, in)
		}
	}
}

// variantMutations returns in and texts near it that probe the cases
// where a variant's own decoder and the probing union decoder could part:
// a member name in another case (the probe refuses case variants of its
// keys), a repeated discriminator, an escaped one, another method, a
// wrong jsonrpc, members after the discriminator that are wrong, white
// space, and the end of the text.
func variantMutations(in []byte) [][]byte {
	s := string(bytes.TrimSpace(in))
	out := [][]byte{[]byte(s)}
	add := func(x string) { out = append(out, []byte(x)) }
	for _, r := range [][2]string{
		{`"method"`, `"Method"`},
		{`"method"`, `"METHOD"`},
		{`"jsonrpc"`, `"JSONRPC"`},
		{`"id"`, `"ID"`},
		{`"params"`, `"Params"`},
		{`"params"`, `"paramſ"`},
		{`"method":"`, `"method":"x","method":"`},
		{`"tools/call"`, `"tools\/call"`},
		{`"tools/call"`, `"tools/list"`},
		{`"tools/call"`, `"prompts/get"`},
		{`"2.0"`, `"1.0"`},
		{`"2.0"`, `2`},
		{`"method":"`, `"method" : "`},
		{`,`, `, `},
		{`{`, `{"params":null,`},
		{`{`, `{"extra":1,`},
		{`{`, `{"Method":"tools/call",`},
	} {
		if strings.Contains(s, r[0]) {
			add(strings.Replace(s, r[0], r[1], 1))
		}
	}
	if strings.HasSuffix(s, "}") {
		add(s[:len(s)-1])
		add(s[:len(s)-1] + `,"method":"tools/call"}`)
		add(s[:len(s)-1] + `,"Params":{}}`)
		add(s + " x")
	}
	return out
}

// TestUnmarshalVariantAgrees: for every union with a decodeAs, every seed
// of the union's fuzz corpus and of the JSON-RPC corpus, and their
// mutations (among them, each text with a case variant of each member
// name of the union's seeds put first), UnmarshalVariant gives
// Unmarshal's value or error under every hint.
func TestUnmarshalVariantAgrees(t *testing.T) {
	read := func(glob string) [][]byte {
		files, err := filepath.Glob(filepath.Join("..", "testdata", "fuzz", glob))
		if err != nil {
			t.Fatal(err)
		}
		var out [][]byte
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}
	jsonrpc := read("jsonrpc/*.json")
	if len(jsonrpc) == 0 {
		t.Fatal("no JSON-RPC seeds")
	}
	hinted, checked := 0, 0
	for _, name := range fuzzUnions {
		if _, ok := NewValue(name).(interface {
			decodeAs(*decoder, string) (bool, error)
		}); !ok {
			continue
		}
		hinted++
		seeds := append(read("unions/"+name+".*.json"), jsonrpc...)
		names := map[string]bool{}
		var values []string
		for _, b := range seeds {
			var m map[string]json.RawMessage
			if json.Unmarshal(b, &m) == nil {
				for n, v := range m {
					names[n] = true
					var str string
					if json.Unmarshal(v, &str) == nil && len(str) < 40 {
						values = append(values, str)
					}
				}
			}
		}
		slices.Sort(values)
		hints := variantHints(slices.Compact(values))
		for _, b := range seeds {
			texts := variantMutations(b)
			if s := bytes.TrimSpace(b); len(s) > 1 && s[0] == '{' {
				for n := range names {
					if n == "" {
						continue
					}
					flipped := strings.ToUpper(n[:1]) + n[1:]
					if flipped == n {
						flipped = strings.ToLower(n[:1]) + n[1:]
					}
					texts = append(texts, []byte(`{"`+flipped+`":1,`+string(s[1:])))
				}
			}
			for _, in := range texts {
				checkVariantAgrees(t, name, in, hints)
				checked++
			}
		}
	}
	if hinted == 0 {
		t.Fatal("no union has a decodeAs")
	}
	t.Logf("%d unions with a hint, %d texts", hinted, checked)
}

// TestUnmarshalVariantTakesHint shows that the hint is used: a request
// decodes through its variant's decoder alone (the probe would have read
// the method; here a wrong hint falls back and still decodes).
func TestUnmarshalVariantTakesHint(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo"}}`)
	d := UnmarshalOptions{}.decoder(body)
	var cr ClientRequest
	known, err := decodeAsStatic(&d, &cr, MethodToolsCall)
	if !known || err != nil {
		t.Fatalf("decodeAs: known %v, err %v", known, err)
	}
	if _, ok := cr.Value.(*CallToolRequest); !ok {
		t.Fatalf("decoded %T", cr.Value)
	}
	d = UnmarshalOptions{}.decoder(body)
	if known, err := decodeAsStatic(&d, &cr, MethodToolsList); !known || err == nil {
		t.Fatalf("a tools/call body as tools/list: known %v, err %v", known, err)
	}
	if known, _ := decodeAsStatic(&d, &cr, "nope"); known {
		t.Fatal("an unknown hint is known")
	}
	for _, hint := range []string{MethodToolsCall, MethodToolsList, ""} {
		var got ClientRequest
		if err := (UnmarshalOptions{}).UnmarshalVariant(body, &got, hint); err != nil {
			t.Fatalf("hint %q: %v", hint, err)
		}
		if c, ok := got.Value.(*CallToolRequest); !ok || c.Params.Name != "echo" {
			t.Fatalf("hint %q: decoded %#v", hint, got.Value)
		}
	}
}

// FuzzUnmarshalVariant: UnmarshalVariant agrees with Unmarshal on any
// text for ClientRequest, ServerNotification and InputRequest.
func FuzzUnmarshalVariant(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "fuzz", "unions", "*.json"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range variantMutations(b) {
			f.Add(m)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, name := range []string{"ClientRequest", "ServerNotification", "InputRequest"} {
			checkVariantAgrees(t, name, in, variantHints(nil))
		}
	})
}
