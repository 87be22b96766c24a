package typed

import (
	"context"
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"
	"time"

	goccy "github.com/goccy/go-json"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpwire/mcpwire/server/internal/validate"
)

type (
	cfInner struct {
		A int     `json:"a"`
		B *string `json:"b,omitempty"`
		C []bool  `json:"c"`
	}
	cfAll struct {
		S     string    `json:"s"`
		I     int64     `json:"i"`
		I8    int8      `json:"i8"`
		U8    uint8     `json:"u8"`
		U     uint64    `json:"u"`
		F     float64   `json:"f"`
		F32   float32   `json:"f32"`
		Bo    bool      `json:"bo"`
		P     *int      `json:"p"`
		Sl    []string  `json:"sl"`
		In    cfInner   `json:"in"`
		IP    *cfInner  `json:"ip"`
		IS    []cfInner `json:"is"`
		O     string    `json:"o,omitempty"`
		NoTag int
		Dash  int `json:"-"`
	}
	cfMap struct {
		M map[string]int `json:"m"`
	}
	cfBytes struct {
		B []byte `json:"b"`
	}
	cfString struct {
		N int `json:"n,string"`
	}
	cfTime struct {
		T time.Time `json:"t"`
	}
	cfSelf  struct{ X selfEnc }
	selfEnc int
	cfAny   struct{ V any }
	cfRaw   struct{ R json.RawMessage }
	cfArray struct{ A [2]int }
	cfEmbed struct{ cfInner }
	cfDup   struct {
		A int `json:"X"`
		X int
	}
)

func (selfEnc) MarshalJSON() ([]byte, error) { return []byte(`"self"`), nil }

// conformsTo validates goccy's encoding of v, as AddTool encodes a
// result, against the schema inferred for its type, as the server does.
func conformsTo(t *testing.T, v any) error {
	t.Helper()
	sch, err := jsonschema.ForType(reflect.TypeOf(v), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(sch)
	if err != nil {
		t.Fatal(err)
	}
	c, err := validate.Compile(raw, validate.Options{MaxDepth: validate.DefaultMaxSchemaDepth})
	if err != nil {
		t.Fatal(err)
	}
	b, err := goccy.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	val, err := validate.ParseValue(context.Background(), b, validate.Limits{MaxDigits: 25, MaxExponent: 324})
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if err := c.Validate(val); err != nil {
		return err
	}
	return nil
}

// TestEncodesConforming: for the types encodesConforming vouches for,
// random values' encodings all conform to the inferred schema (so
// skipping their validation changes no answer); for each kind of type it
// refuses, a value whose encoding does not conform (so the refusal is
// needed), or a type whose encoding is its own.
func TestEncodesConforming(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	for _, typ := range []reflect.Type{reflect.TypeFor[cfAll](), reflect.TypeFor[cfInner]()} {
		if !encodesConforming(typ) {
			t.Fatalf("%s: not vouched for", typ)
		}
		for range 300 {
			v, ok := quick.Value(typ, rnd)
			if !ok {
				t.Fatalf("%s: no random value", typ)
			}
			if err := conformsTo(t, v.Interface()); err != nil {
				t.Fatalf("%s: %#v does not conform: %v", typ, v.Interface(), err)
			}
		}
		// The zero value: nil pointers and slices, empty strings.
		if err := conformsTo(t, reflect.Zero(typ).Interface()); err != nil {
			t.Fatalf("%s: the zero value does not conform: %v", typ, err)
		}
	}
	// The longest numbers a Go number encodes to are within the bounds
	// of OutputConforms (conformsTo parses under them).
	for _, f := range []float64{1e20, 9.999999999999999e20, 1e21, 1.2345678901234567e-6, 1.2345678901234567e-7,
		math.SmallestNonzeroFloat64, -math.MaxFloat64, 1.7976931348623157e-300} {
		if err := conformsTo(t, cfAll{F: f, F32: math.SmallestNonzeroFloat32, U: math.MaxUint64, I: math.MinInt64}); err != nil {
			t.Errorf("%v: %v", f, err)
		}
	}
	// A NaN or an infinity is not encoded at all (an error, before any
	// validation).
	for _, f := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := goccy.Marshal(cfAll{F: f}); err == nil {
			t.Errorf("%v encoded", f)
		}
	}
	for _, c := range []struct {
		v       any
		nonconf bool // its encoding does not conform to the inferred schema
	}{
		{cfMap{}, true},                  // null for "type": "object"
		{cfBytes{B: []byte("ab")}, true}, // a base64 string for an array
		{cfString{N: 1}, true},           // "1" for an integer
		{cfTime{}, false},                // its own encoding
		{cfSelf{}, false},
		{cfAny{V: 1}, false},
		{cfRaw{}, false},
		{cfArray{}, false},
		{cfEmbed{}, false},
		{0, false},
	} {
		typ := reflect.TypeOf(c.v)
		if encodesConforming(typ) {
			t.Errorf("%s: vouched for", typ)
		}
		if c.nonconf {
			if err := conformsTo(t, c.v); err == nil {
				t.Errorf("%s: %#v conforms: the test shows nothing", typ, c.v)
			}
		}
	}
	if encodesConforming(reflect.TypeFor[cfDup]()) {
		t.Error("cfDup: vouched for")
	}
}
