package mcpotel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	mcpotel "github.com/mcpwire/mcpwire/otel"
)

// BenchmarkToolsCall is one tools/call through the server's HTTP handler
// (ServeHTTP with a recorder, no socket), carrying the client's trace
// context in _meta (traceparent) or not (plain): none,
// without the module; noop, with mcpotel on the no-op tracer and meter
// providers; sdk, with the SDK's tracer provider (always sampled, a batch
// span processor to a discarding exporter) and meter provider (a manual
// reader); passthrough, a middleware that only calls next, for the cost
// of the server's middleware chain itself; noop-nopropagation, noop with
// no propagator (the global default until otel.SetTextMapPropagator),
// for the cost of reading the trace context. noop and sdk use the W3C
// Trace Context and Baggage propagators. The cost targets are ratios
// of one run (docs/performance.md).
func BenchmarkToolsCall(b *testing.B) {
	for _, withTrace := range []bool{true, false} {
		call := newBenchCall(withTrace)
		b.Run(call.name, func(b *testing.B) {
			for _, v := range benchVariants() {
				b.Run(v.name, func(b *testing.B) {
					h := call.handler(b, v.opts(b))
					b.ReportAllocs()
					for b.Loop() {
						call.serve(h)
					}
				})
			}
		})
	}
}

// BenchmarkToolsCallRatio calls the handlers of BenchmarkToolsCall in
// turn, one call each per iteration (each variant first in turn), and
// reports the time of each over that of none (passthrough/none, a
// middleware that only calls next; noop/none; sdk/none): interleaved,
// the ratios hold on a machine whose speed drifts during the run, which
// separate sub-benchmarks do not. traceparent sends the client's trace
// context in _meta, plain sends none.
func BenchmarkToolsCallRatio(b *testing.B) {
	for _, withTrace := range []bool{true, false} {
		call := newBenchCall(withTrace)
		b.Run(call.name, func(b *testing.B) {
			vs := benchVariants()
			hs := make([]http.Handler, len(vs))
			for i, v := range vs {
				hs[i] = call.handler(b, v.opts(b))
			}
			spent := make([]time.Duration, len(vs))
			first := 0
			for b.Loop() {
				for k := range hs {
					i := (first + k) % len(hs)
					start := time.Now()
					call.serve(hs[i])
					spent[i] += time.Since(start)
				}
				first = (first + 1) % len(hs)
			}
			for i := 1; i < len(vs); i++ {
				b.ReportMetric(float64(spent[i])/float64(spent[0]), vs[i].name+"/none")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// benchVariant is a way to build the server: its options.
type benchVariant struct {
	name string
	opts func(b *testing.B) []server.Option
}

func benchVariants() []benchVariant {
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	return []benchVariant{
		{"none", func(*testing.B) []server.Option { return nil }},
		{"passthrough", func(*testing.B) []server.Option {
			return []server.Option{server.WithMiddleware(func(next server.Handler) server.Handler {
				return func(ctx context.Context, r *server.Request) (server.Result, error) { return next(ctx, r) }
			})}
		}},
		{"noop", func(*testing.B) []server.Option {
			return mcpotel.Options(mcpotel.WithTracerProvider(tracenoop.NewTracerProvider()),
				mcpotel.WithMeterProvider(metricnoop.NewMeterProvider()), mcpotel.WithPropagators(prop))
		}},
		{"noop-nopropagation", func(*testing.B) []server.Option {
			return mcpotel.Options(mcpotel.WithTracerProvider(tracenoop.NewTracerProvider()),
				mcpotel.WithMeterProvider(metricnoop.NewMeterProvider()), mcpotel.WithPropagators(propagation.NewCompositeTextMapPropagator()))
		}},
		{"sdk", func(b *testing.B) []server.Option {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			b.Cleanup(func() {
				_ = tp.Shutdown(context.Background())
				_ = mp.Shutdown(context.Background())
			})
			return mcpotel.Options(mcpotel.WithTracerProvider(tp), mcpotel.WithMeterProvider(mp), mcpotel.WithPropagators(prop))
		}},
	}
}

// benchCall is the benchmarked tools/call of the tool echo: a 2026-07-28
// POST, with the client's trace context in _meta or without it.
type benchCall struct {
	name string        // traceparent or plain
	tmpl *http.Request // the POST without its body; serve copies it
	body []byte
}

func newBenchCall(withTrace bool) benchCall {
	meta := requiredMeta
	name := "plain"
	if withTrace {
		meta += `,"traceparent":"` + traceparent + `"`
		name = "traceparent"
	}
	r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", nil)
	setCallHeaders(r.Header, "echo")
	return benchCall{name: name, tmpl: r, body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{` + meta + `}}}`)}
}

// handler is the HTTP handler of a server with opts and the tool echo,
// checked to answer the call.
func (c benchCall) handler(b *testing.B, opts []server.Option) http.Handler {
	s, err := server.New(protocol.Implementation{Name: "bench", Version: "1"}, opts...)
	if err != nil {
		b.Fatal(err)
	}
	var def protocol.Tool
	if err := protocol.Unmarshal([]byte(`{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}`), &def); err != nil {
		b.Fatal(err)
	}
	if err := s.AddTool(def, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult(string(args)), nil
	}); err != nil {
		b.Fatal(err)
	}
	h := streamhttp.Handler(s, streamhttp.Options{})
	if rec := c.serve(h); rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`hello`)) {
		b.Fatalf("answer %d %s", rec.Code, rec.Body)
	}
	return h
}

// serve sends the call to h (the handler only reads the headers the
// copies share).
func (c benchCall) serve(h http.Handler) *httptest.ResponseRecorder {
	r := new(http.Request)
	*r = *c.tmpl
	r.Body = io.NopCloser(bytes.NewReader(c.body))
	r.ContentLength = int64(len(c.body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// BenchmarkMiddleware is mcpotel's middleware alone, on the no-op
// providers, around a handler that returns at once, for a request
// carrying _meta.traceparent: with the W3C propagators (w3c) and with
// none (nopropagation), which shows what reading the trace context costs.
func BenchmarkMiddleware(b *testing.B) {
	for _, v := range []struct {
		name string
		prop propagation.TextMapPropagator
	}{
		{"w3c", propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})},
		{"nopropagation", propagation.NewCompositeTextMapPropagator()},
	} {
		b.Run(v.name, func(b *testing.B) {
			mw := mcpotel.Middleware(mcpotel.WithTracerProvider(tracenoop.NewTracerProvider()),
				mcpotel.WithMeterProvider(metricnoop.NewMeterProvider()), mcpotel.WithPropagators(v.prop))
			res := &protocol.CallToolResult{}
			h := mw(func(context.Context, *server.Request) (server.Result, error) { return res, nil })
			r := &server.Request{Method: protocol.MethodToolsCall}
			r.Meta.ProtocolVersion = protocol.Revision
			r.Meta.Extra.Set("traceparent", json.RawMessage(`"`+traceparent+`"`))
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
