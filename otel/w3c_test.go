package mcpotel

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The W3C propagators the fast path recognises, and what it makes of
// them.
var w3cCases = []struct {
	name string
	prop propagation.TextMapPropagator
	mode w3cMode
}{
	{"tracecontext", propagation.TraceContext{}, w3cTraceContext},
	{"composite-tracecontext", propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}), w3cTraceContext},
	{"composite", propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}), w3cTraceContextBaggage},
	{"composite-reversed", propagation.NewCompositeTextMapPropagator(propagation.Baggage{}, propagation.TraceContext{}), w3cTraceContextBaggage},
}

// otherPropagator is a propagator of its own: it reads traceparent the
// way it likes (here: not at all), which the fast path must not guess.
type otherPropagator struct{}

func (otherPropagator) Inject(context.Context, propagation.TextMapCarrier) {}
func (otherPropagator) Extract(ctx context.Context, _ propagation.TextMapCarrier) context.Context {
	return ctx
}
func (otherPropagator) Fields() []string { return []string{"traceparent"} }

// TestRecognizeW3C: TraceContext{} and the composites of it and Baggage{}
// (either order) take the fast path; anything else (a third propagator,
// a repeated one, Baggage alone, a nested composite, a pointer, a
// propagator of its own, none) takes the generic path, which calls the
// propagator's Extract.
func TestRecognizeW3C(t *testing.T) {
	tc, bg := propagation.TraceContext{}, propagation.Baggage{}
	comp := propagation.NewCompositeTextMapPropagator
	for _, c := range w3cCases {
		if got := recognizeW3C(c.prop); got != c.mode {
			t.Errorf("%s: mode %d, want %d", c.name, got, c.mode)
		}
	}
	for name, p := range map[string]propagation.TextMapPropagator{
		"third propagator":   comp(tc, bg, otherPropagator{}),
		"third w3c first":    comp(otherPropagator{}, tc),
		"repeated":           comp(tc, tc),
		"repeated baggage":   comp(tc, bg, bg),
		"baggage alone":      comp(bg),
		"bare baggage":       bg,
		"nested":             comp(comp(tc, bg)),
		"pointer":            &tc,
		"pointer in":         comp(&tc, bg),
		"nil in":             comp(tc, nil),
		"custom":             otherPropagator{},
		"empty":              comp(),
		"nil":                nil,
		"custom with fields": comp(otherPropagator{}),
	} {
		if got := recognizeW3C(p); got != w3cNone {
			t.Errorf("%s: mode %d, want the generic path", name, got)
		}
	}
}

// TestW3CFastPathTaken: with the W3C propagators a request's
// _meta.traceparent is read without the carrier's string copy (2
// allocations: the remote span and its context value), with a
// propagator that only wraps them through their Extract (3). So the
// fast path is the one taken, and it saves what it should.
func TestW3CFastPathTaken(t *testing.T) {
	r := &server.Request{Method: protocol.MethodToolsCall}
	r.Meta.Extra.Set("traceparent", json.RawMessage(`"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`))
	ctx := context.Background()
	allocs := func(p propagation.TextMapPropagator) float64 {
		tm := newTelemetry(newConfig([]Option{WithTracerProvider(tracenoop.NewTracerProvider()),
			WithMeterProvider(metricnoop.NewMeterProvider()), WithPropagators(p)}))
		if got, _ := tm.parent(ctx, r); !trace.SpanContextFromContext(got).IsValid() {
			t.Fatalf("%T: no span context extracted", p)
		}
		return testing.AllocsPerRun(100, func() { tm.parent(ctx, r) })
	}
	for _, c := range w3cCases {
		if got := allocs(c.prop); got != 2 {
			t.Errorf("%s: %v allocations, want 2 (the fast path)", c.name, got)
		}
	}
	if got := allocs(wrapped{propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}); got != 3 {
		t.Errorf("wrapped: %v allocations, want 3 (the generic path)", got)
	}
}

// wrapped hides a propagator from recognizeW3C.
type wrapped struct{ propagation.TextMapPropagator }

// members builds the _meta of the differential test: for each of the
// three members (present when its bit of present is set), the value v
// encoded by form: 0 json.Marshal, 1 every ASCII byte as a \u escape
// (the decoding path), 2 the raw bytes as they are (any JSON value or
// none: numbers, objects, broken strings), 3 json.Marshal with white
// space around. Bit 4 of form adds an unrelated member first, bit 5 a
// second traceparent member after the first (Get and the fast path
// read the first). Bits 6 and 7 put tp around a valid traceparent, so
// that the fuzzer reaches its edges: after it (what follows the flags),
// before its trace id (the version field and the first '-').
func members(present, form uint8, tp, ts, bg string) protocol.Members {
	if form&64 != 0 {
		tp = traceparentSeeds[0] + tp
	}
	if form&128 != 0 {
		tp += traceparentSeeds[0][2:]
	}
	enc := func(v string) json.RawMessage {
		switch form & 3 {
		case 1:
			var b strings.Builder
			b.WriteByte('"')
			for i := 0; i < len(v); i++ {
				if c := v[i]; c < 0x80 {
					fmt.Fprintf(&b, `\u%04x`, c)
				} else {
					b.WriteByte(c)
				}
			}
			b.WriteByte('"')
			return json.RawMessage(b.String())
		case 2:
			return json.RawMessage(v)
		}
		out, _ := json.Marshal(v)
		if form&3 == 3 {
			out = append(append([]byte(" \t\n"), out...), "\r\n "...)
		}
		return out
	}
	var m protocol.Members
	if form&16 != 0 {
		m = append(m, protocol.Member{Name: "io.modelcontextprotocol/protocolVersion", Value: json.RawMessage(`"2026-07-28"`)})
	}
	if present&1 != 0 {
		m = append(m, protocol.Member{Name: "traceparent", Value: enc(tp)})
	}
	if present&2 != 0 {
		m = append(m, protocol.Member{Name: "tracestate", Value: enc(ts)})
	}
	if present&4 != 0 {
		m = append(m, protocol.Member{Name: "baggage", Value: enc(bg)})
	}
	if form&32 != 0 {
		m = append(m, protocol.Member{Name: "traceparent", Value: json.RawMessage(`"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`)})
	}
	return m
}

// sameExtraction fails t when, for any recognised propagator, the fast
// path's context differs from the propagator's own Extract through the
// _meta carrier: the span context (trace and span ids, flags, trace
// state, remote), the baggage, and whether _meta was read at all (the
// generic path reads it when it has any of the propagator's fields).
// Both start from a context that already holds a span context and
// baggage, so that "nothing extracted" is compared too.
func sameExtraction(t *testing.T, m protocol.Members) {
	t.Helper()
	ambient := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled,
	})
	amb, _ := baggage.NewMember("ambient", "yes")
	bag, _ := baggage.New(amb)
	for _, start := range []context.Context{
		context.Background(),
		baggage.ContextWithBaggage(trace.ContextWithSpanContext(context.Background(), ambient), bag),
	} {
		for _, c := range w3cCases {
			mc := metaCarrier{m: &m}
			want, wantFound := start, mc.has(c.prop.Fields())
			if wantFound {
				want = c.prop.Extract(start, mc)
			}
			got, found := extractW3C(start, c.mode, &m)
			if found != wantFound {
				t.Fatalf("%s: found %v, the propagator's fields in _meta %v; _meta %s", c.name, found, wantFound, dump(m))
			}
			g, w := trace.SpanContextFromContext(got), trace.SpanContextFromContext(want)
			if g.TraceID() != w.TraceID() || g.SpanID() != w.SpanID() || g.TraceFlags() != w.TraceFlags() ||
				g.TraceState().String() != w.TraceState().String() || g.IsRemote() != w.IsRemote() || !g.Equal(w) {
				t.Fatalf("%s: span context %s %s %s %q remote %v, the propagator's %s %s %s %q remote %v; _meta %s", c.name,
					g.TraceID(), g.SpanID(), g.TraceFlags(), g.TraceState(), g.IsRemote(),
					w.TraceID(), w.SpanID(), w.TraceFlags(), w.TraceState(), w.IsRemote(), dump(m))
			}
			if gb, wb := bagString(got), bagString(want); gb != wb {
				t.Fatalf("%s: baggage %q, the propagator's %q; _meta %s", c.name, gb, wb, dump(m))
			}
		}
	}
}

// bagString is the baggage of ctx, its members sorted (Baggage.String
// lists them in map order).
func bagString(ctx context.Context) string {
	var ms []string
	for _, m := range baggage.FromContext(ctx).Members() {
		ms = append(ms, m.String())
	}
	slices.Sort(ms)
	return strings.Join(ms, ",")
}

// dump shows members for a failure message.
func dump(m protocol.Members) string {
	var b strings.Builder
	for _, x := range m {
		fmt.Fprintf(&b, "%q:%s ", x.Name, x.Value)
	}
	return b.String()
}

// Traceparent values of the W3C Trace Context specification's
// "traceparent" section and its test suite, valid and invalid, and
// OpenTelemetry's edges (R-META-08: _meta's traceparent follows W3C
// Trace Context).
var traceparentSeeds = []string{
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-02", // random
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03",
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-04", // reserved flag in version 00
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff",
	"00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", // upper case
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00F067aa0ba902b7-01",
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A",
	"0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	"00-00000000000000000000000000000000-00f067aa0ba902b7-01", // zero trace id
	"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", // zero span id
	"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // version ff
	"fe-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09", // later version: any flags
	"cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-will-be-like",
	"cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01.what-the-future-will-be-like",
	"cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 ",
	" 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01",
	"00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
	"00-4bf92f3577b34da6a3ce929d0e0e47366-00f067aa0ba902b7-01",
	"000-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	"0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	"00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
	"00-4bf92f3577b34da6a3ce929d0e0e4736--00f067aa0ba902b7-01",
	"00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
	"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0\u00e9",
	"",
	"-",
	"00",
	`"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`,
	"42",
}

// Tracestate values: valid, and the invalid ones OpenTelemetry drops
// while keeping the traceparent.
var tracestateSeeds = []string{
	"",
	"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
	"rojo=00f067aa0ba902b7 , congo=t61rcWkgMzE",
	"tenant@vendor=value",
	"a=1,a=2",
	"foo=bar=baz",
	"UPPER=x",
	",,,",
	"k=" + strings.Repeat("v", 257),
	strings.Repeat("k=v,", 33),
}

// Baggage values of the W3C Baggage specification, valid and not.
var baggageSeeds = []string{
	"",
	"userId=alice,serverNode=DF%2028,isProduction=false",
	"key1=value1;property1;property2, key2 = value2, key3=value3; propertyKey=propertyValue",
	"=bad",
	"no-equals",
	"k=%zz",
}

// FuzzTraceparentFastPath is the differential test of the W3C fast path
// (extractW3C): for any traceparent, tracestate and baggage members of
// _meta, encoded as JSON strings with or without escapes or as raw JSON
// of any kind, the fast path gives the context the recognised
// propagator's own Extract gives through the _meta carrier (R-META-08).
func FuzzTraceparentFastPath(f *testing.F) {
	for i, tp := range traceparentSeeds {
		ts := tracestateSeeds[i%len(tracestateSeeds)]
		bg := baggageSeeds[i%len(baggageSeeds)]
		f.Add(uint8(7), uint8(i%4|(i%3)<<4), tp, ts, bg)
		f.Add(uint8(1), uint8(0), tp, "", "")
	}
	for i, ts := range tracestateSeeds {
		f.Add(uint8(3), uint8(i%4), traceparentSeeds[0], ts, "")
		f.Add(uint8(2), uint8(0), "", ts, "")
	}
	for i, bg := range baggageSeeds {
		f.Add(uint8(5), uint8(i%4), traceparentSeeds[0], "", bg)
		f.Add(uint8(4), uint8(0), "", "", bg)
	}
	for _, edge := range []string{"", "-", "x", " ", "-what-the-future-will-be-like"} {
		f.Add(uint8(1), uint8(64), edge, "", "")
		f.Add(uint8(1), uint8(64|1), edge, "", "")
	}
	for _, v := range []string{"00", "01", "ff", "fe", "0", "000", "FF", "0a"} {
		f.Add(uint8(1), uint8(128), v, "", "")
	}
	f.Add(uint8(0), uint8(16), "", "", "")
	f.Add(uint8(1), uint8(32), traceparentSeeds[0], "", "")
	f.Add(uint8(1), uint8(32), traceparentSeeds[10], "", "")
	f.Add(uint8(7), uint8(2), `{"a":1}`, `[1]`, `null`)
	f.Add(uint8(1), uint8(2), `"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`, "", "")
	f.Add(uint8(1), uint8(2), `"\u0030\u0030-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`, "", "")
	f.Add(uint8(1), uint8(2), `"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"`, "", "")
	f.Fuzz(func(t *testing.T, present, form uint8, tp, ts, bg string) {
		sameExtraction(t, members(present, form, tp, ts, bg))
	})
}

// TestTraceparentEveryByte: a valid traceparent with any one byte
// replaced by any other, given as the raw bytes of a JSON string, reads
// as the propagator reads it: every lane of the eight-at-a-time decoding
// (hex8) and every fixed offset of the 55-byte shape, against
// TraceContext.Extract, for each byte value (R-META-08).
func TestTraceparentEveryByte(t *testing.T) {
	valid := traceparentSeeds[0]
	for i := range len(valid) {
		for c := range 256 {
			b := []byte(valid)
			b[i] = byte(c)
			sameExtraction(t, members(1, 2, `"`+string(b)+`"`, "", ""))
		}
	}
}
