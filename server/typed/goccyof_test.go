package typed

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	goccy "github.com/goccy/go-json"

	"github.com/mcpwire/mcpwire/server"
)

type ofInner struct {
	N int8     `json:"n"`
	F *float64 `json:"f,omitempty"`
}

type ofIn struct {
	Text  string            `json:"text"`
	Count int               `json:"count"`
	Tags  []string          `json:"tags"`
	In    ofInner           `json:"in"`
	P     *ofInner          `json:"p"`
	M     map[string]uint16 `json:"m"`
	Any   any               `json:"any"`
	Raw   json.RawMessage   `json:"raw"`
	B     []byte            `json:"b"`
}

type failing struct{}

func (failing) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

type badJSON struct{}

func (badJSON) MarshalJSON() ([]byte, error) { return []byte(`{`), nil }

// TestUnmarshalOfAsUnmarshal: typedArgs decodes with goccy.UnmarshalOf,
// into a value on the stack; it stores what goccy.Unmarshal stores and
// fails with the same error text (which a client reads in -32602), for
// valid arguments and for each kind of failure.
func TestUnmarshalOfAsUnmarshal(t *testing.T) {
	inputs := []string{
		`{}`, `{"text":"hi","count":3,"tags":["a","b"],"in":{"n":5,"f":1.5},"p":{"n":-1},"m":{"a":7},"any":[1,{"x":null}],"raw":{"k":[1]},"b":"aGk="}`,
		`{"text":"a\u00e9\ud83d\ude00\\n"}`, `{"count":"3"}`, `{"in":{"n":300}}`, `{"m":{"a":-1}}`, `{"tags":"x"}`, `{"count":1.5}`,
		`{"text":1,"count":"x"}`, `{"p":null,"tags":null}`, `{"text":"x"`, `{"text":"x"} x`, `[1]`, `null`, `{"b":"!!"}`,
		`{"unknown":1,"TEXT":"case"}`, `{"count":99999999999999999999}`, `{"in":{"n":1,"f":"x"}}`,
	}
	for _, in := range inputs {
		var a, b ofIn
		errA := goccy.Unmarshal([]byte(in), &a)
		errB := goccy.UnmarshalOf([]byte(in), &b)
		if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
			t.Errorf("%s: Unmarshal error %v, UnmarshalOf error %v", in, errA, errB)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: Unmarshal stores %+v, UnmarshalOf %+v", in, a, b)
		}
		_, err := typedArgs[ofIn]([]byte(in), !decodesItself(reflect.TypeFor[ofIn](), map[reflect.Type]bool{}))
		var e *server.Error
		if (err == nil) != (errA == nil) || err != nil && (!errors.As(err, &e) || e.Message != "arguments: "+errA.Error()) {
			t.Errorf("%s: typedArgs error %v, want arguments: %v", in, err, errA)
		}
	}
}

// TestMarshalOfAsMarshal: AddTool encodes a result that is not an
// interface with goccy.MarshalOf; it writes what goccy.Marshal writes
// and fails with the same error text (which the client reads in the
// tool error), for each kind of failure too.
func TestMarshalOfAsMarshal(t *testing.T) {
	f := 2.5
	same := func(name string, a, b []byte, errA, errB error) {
		t.Helper()
		if string(a) != string(b) || (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
			t.Errorf("%s: Marshal %s, %v; MarshalOf %s, %v", name, a, errA, b, errB)
		}
	}
	for _, v := range []ofIn{
		{},
		{Text: "a\xff\u2028<&>\"", Count: -3, Tags: []string{"x", ""}, In: ofInner{N: 1, F: &f}, P: &ofInner{}, M: map[string]uint16{"b": 1, "a": 2},
			Any: []any{1, "x", nil, map[string]any{"z": true}}, Raw: json.RawMessage(`{"k": [1]}`), B: []byte("hi")},
		{Any: math.NaN()}, {Any: math.Inf(-1)}, {Any: make(chan int)}, {Any: func() {}}, {Any: failing{}}, {Any: badJSON{}},
		{Raw: json.RawMessage(`{bad`)}, {Any: json.Number("1x")},
	} {
		a, errA := goccy.Marshal(any(v))
		b, errB := goccy.MarshalOf(v)
		same("ofIn", a, b, errA, errB)
	}
	type nanOut struct{ F float64 }
	a, errA := goccy.Marshal(any(nanOut{F: math.NaN()}))
	b, errB := goccy.MarshalOf(nanOut{F: math.NaN()})
	same("NaN field", a, b, errA, errB)
	a, errA = goccy.Marshal(any(struct{ Text string }{"hello"}))
	b, errB = goccy.MarshalOf(struct{ Text string }{"hello"})
	same("echo", a, b, errA, errB)
	a, errA = goccy.Marshal(any([]int(nil)))
	b, errB = goccy.MarshalOf([]int(nil))
	same("nil slice", a, b, errA, errB)
	a, errA = goccy.Marshal(any(map[string]int(nil)))
	b, errB = goccy.MarshalOf(map[string]int(nil))
	same("nil map", a, b, errA, errB)
	a, errA = goccy.Marshal(any((*ofInner)(nil)))
	b, errB = goccy.MarshalOf((*ofInner)(nil))
	same("nil pointer", a, b, errA, errB)
}

type plainRec struct {
	Next *plainRec `json:"next"`
	V    []int8    `json:"v"`
}

type textKey string

func (k *textKey) UnmarshalText(b []byte) error { *k = textKey(b); return nil }

// TestDecodesItself: typedArgs decodes by copy only an In without a type
// that decodes itself, however deep; and by copy it decodes as goccy.Unmarshal does.
func TestDecodesItself(t *testing.T) {
	for _, c := range []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[struct{ Text string }](), false},
		{reflect.TypeFor[plainRec](), false},
		{reflect.TypeFor[*plainRec](), false},
		{reflect.TypeFor[map[string]any](), false},
		{reflect.TypeFor[ofIn](), true}, // json.RawMessage
		{reflect.TypeFor[struct{ T time.Time }](), true},
		{reflect.TypeFor[struct{ M map[textKey]int }](), true},
		{reflect.TypeFor[struct{ P *[]*textKey }](), true},
		{reflect.TypeFor[[2]json.Number](), false},
	} {
		if got := decodesItself(c.t, map[reflect.Type]bool{}); got != c.want {
			t.Errorf("decodesItself(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	for _, in := range []string{`{"next":{"v":[1,2]},"v":[3]}`, `{"v":[300]}`, `{"next":1}`, `{`} {
		var want plainRec
		errWant := goccy.Unmarshal([]byte(in), &want)
		got, err := typedArgs[plainRec]([]byte(in), true)
		var e *server.Error
		if (err == nil) != (errWant == nil) || err != nil && (!errors.As(err, &e) || e.Message != "arguments: "+errWant.Error()) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: typedArgs by copy %+v, %v; want %+v, %v", in, got, err, want, errWant)
		}
	}
}
