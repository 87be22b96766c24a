package typed

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/goccy/go-json/jsontext"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// toEncoder encodes itself by MarshalJSONTo, as an object with a repeated name.
type toEncoder string

func (toEncoder) MarshalJSONTo(e *jsontext.Encoder) error {
	for _, tok := range []jsontext.Token{jsontext.BeginObject, jsontext.String("a"), jsontext.Int(1), jsontext.String("a"), jsontext.Int(2), jsontext.EndObject} {
		if err := e.WriteToken(tok); err != nil {
			return err
		}
	}
	return nil
}

type toOut struct{ V []*toEncoder }

// TestSelfEncodingNotVouched: an Out with a type that goccy lets encode
// itself by a method other than json.Marshaler's or
// encoding.TextMarshaler's (MarshalJSONTo here; goccy's
// MarshalJSON(context.Context) is the same case, which go vet refuses to
// see declared) is neither conforming nor valid JSON by its type, and a result that repeats a member name is refused (-32603), as
// it is without the fast path, not written unvalidated.
func TestSelfEncodingNotVouched(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[toOut](), reflect.TypeFor[struct{ T struct{ V toEncoder } }]()} {
		if encodesConforming(typ) || encodesValidJSON(typ) {
			t.Errorf("%v: encodesConforming %v, encodesValidJSON %v; want false", typ, encodesConforming(typ), encodesValidJSON(typ))
		}
	}
	te := toEncoder("")
	for name, add := range map[string]func(*server.Server) error{
		"MarshalJSONTo": func(s *server.Server) error {
			return AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, struct{}) (toOut, error) {
				return toOut{V: []*toEncoder{&te}}, nil
			})
		},
	} {
		s, err := server.New(protocol.Implementation{Name: "t", Version: "1"})
		if err != nil {
			t.Fatal(err)
		}
		if err := add(s); err != nil {
			t.Fatal(err)
		}
		w := testkit.Call(t, testkit.Handler(s, streamhttp.Options{}), 1, protocol.MethodToolsCall, testkit.Params(testkit.M{"name": "t"}))
		if w.Error == nil || w.Error.Code != protocol.CodeInternalError {
			t.Errorf("%s: the answer %s, want a -32603 error (a structuredContent with a repeated member name)", name, w.Raw)
		}
		if !json.Valid(w.Raw) {
			t.Errorf("%s: invalid JSON %s", name, w.Raw)
		}
	}
}

type numberOut struct {
	N json.Number `json:"n"`
}

// TestNumberNotConforming: a json.Number is inferred as "type": "string"
// and encoded as a number, so an Out with one is validated: a call's
// structuredContent of a number (or of one over the number limits) is
// refused by its outputSchema, not written as it is.
func TestNumberNotConforming(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[numberOut](), reflect.TypeFor[struct{ P *[]json.Number }]()} {
		if encodesConforming(typ) || encodesValidJSON(typ) {
			t.Errorf("%v: encodesConforming %v, encodesValidJSON %v; want false", typ, encodesConforming(typ), encodesValidJSON(typ))
		}
	}
	for _, n := range []string{"1", "1e99999999999"} {
		s, err := server.New(protocol.Implementation{Name: "t", Version: "1"})
		if err != nil {
			t.Fatal(err)
		}
		if err := AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, struct{}) (numberOut, error) {
			return numberOut{N: json.Number(n)}, nil
		}); err != nil {
			t.Fatal(err)
		}
		rec := testkit.Post(t, testkit.Handler(s, streamhttp.Options{}), testkit.Rpc(1, protocol.MethodToolsCall, testkit.Params(testkit.M{"name": "t"})), nil)
		if body := rec.Body.String(); strings.Contains(body, `"structuredContent"`) {
			t.Errorf("json.Number %s: the answer %s carries a structuredContent its outputSchema refuses", n, body)
		}
	}
}

type caseOut struct {
	A int `json:"x"`
	B int `json:"X"`
}

// TestCaseVariantNamesNotConforming: an Out with two JSON names that
// differ only in case is not conforming, since the validation of a
// result refuses such names: its call answers what validating it
// answers, with no structuredContent, not {"x":0,"X":0}.
func TestCaseVariantNamesNotConforming(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[caseOut](), reflect.TypeFor[struct {
		A []struct {
			K int `json:"k"`
			L int `json:"K"`
		}
	}]()} {
		if encodesConforming(typ) || encodesValidJSON(typ) {
			t.Errorf("%v: encodesConforming %v, encodesValidJSON %v; want false", typ, encodesConforming(typ), encodesValidJSON(typ))
		}
	}
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, struct{}) (caseOut, error) { return caseOut{}, nil }); err != nil {
		t.Fatal(err)
	}
	rec := testkit.Post(t, testkit.Handler(s, streamhttp.Options{}), testkit.Rpc(1, protocol.MethodToolsCall, testkit.Params(testkit.M{"name": "t"})), nil)
	if body := rec.Body.String(); strings.Contains(body, `"structuredContent"`) {
		t.Errorf("the answer %s carries a structuredContent the validation refuses", body)
	}
}
