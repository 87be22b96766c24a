package typed

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	goccy "github.com/goccy/go-json"

	"github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

type deepOut struct{ A []deep1 }
type deep1 struct {
	B [][][][][][][][][][][][][][][][][][][][][][][][][][][][][][][][]int
}
type recursiveOut struct {
	Next *recursiveOut `json:"next,omitempty"`
	V    int
}
type oddNameOut struct {
	V int `json:"grö"`
}
type unicodeNameOut struct {
	Größe int
}
type fineOut struct {
	S  string    `json:"s"`
	P  *float64  `json:"p,omitempty"`
	L  []inner   `json:"l"`
	In inner     `json:"in"`
	Q  [][]*bool `json:"q"`
	_  int
	Y  int `json:"-"`
}
type inner struct{ N int64 }

// TestEncodesValidJSON: AddTool vouches for the encoding of a shallow,
// non-recursive conforming struct with plain names, and for nothing else
// (server.StructuredContentValid).
func TestEncodesValidJSON(t *testing.T) {
	for _, c := range []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[fineOut](), true},
		{reflect.TypeFor[struct{ Text string }](), true},
		{reflect.TypeFor[struct{}](), true},
		{reflect.TypeFor[*fineOut](), false},
		{reflect.TypeFor[map[string]int](), false},
		{reflect.TypeFor[struct{ M map[string]int }](), false},
		{reflect.TypeFor[struct{ A any }](), false},
		{reflect.TypeFor[struct{ R json.RawMessage }](), false},
		{reflect.TypeFor[recursiveOut](), false},
		{reflect.TypeFor[deepOut](), false},
		{reflect.TypeFor[oddNameOut](), false},
		{reflect.TypeFor[unicodeNameOut](), false},
		{reflect.TypeFor[[]int](), false},
	} {
		if got := encodesValidJSON(c.t); got != c.want {
			t.Errorf("encodesValidJSON(%v) = %v, want %v", c.t, got, c.want)
		}
	}
}

// TestTypedValidJSONResult: a typed tool whose Out AddTool vouches for
// answers exactly what encoding the same result with validation answers:
// its structuredContent is goccy's encoding of Out, strings of invalid
// UTF-8 included.
func TestTypedValidJSONResult(t *testing.T) {
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	f := 2.5
	out := fineOut{S: "a\xff\u2028\"<", P: &f, L: []inner{{1}, {2}}, Q: [][]*bool{{nil}}}
	if err := AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, struct{}) (fineOut, error) { return out, nil }); err != nil {
		t.Fatal(err)
	}
	w := testkit.Call(t, testkit.Handler(s, streamhttp.Options{}), 1, protocol.MethodToolsCall, testkit.Params(testkit.M{"name": "t"}))
	want, _ := goccy.Marshal(out)
	if w.Error != nil || !bytes.Contains(w.Raw, append([]byte(`"structuredContent":`), want...)) || !json.Valid(w.Raw) {
		t.Fatalf("the answer %s, want structuredContent %s", w.Raw, want)
	}
}
