package mcpotel_test

import (
	"context"
	"encoding/json"
	"testing"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"

	mcpotel "github.com/mcpwire/mcpwire/otel"
)

// discard is a span exporter that drops what it gets.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// BenchmarkToolsCall is one tools/call carrying _meta.traceparent through
// the server's HTTP handler (servertest): none, without the module;
// noop, with mcpotel on the no-op tracer and meter providers; sdk, with
// the SDK's tracer provider (always sampled, a batch span processor to
// a discarding exporter) and meter provider (a manual reader). The cost
// targets are ratios of one run (docs/performance.md).
func BenchmarkToolsCall(b *testing.B) {
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	variants := []struct {
		name string
		opts func(b *testing.B) []server.Option
	}{
		{"none", func(*testing.B) []server.Option { return nil }},
		{"noop", func(*testing.B) []server.Option {
			return mcpotel.Options(mcpotel.WithTracerProvider(tracenoop.NewTracerProvider()),
				mcpotel.WithMeterProvider(metricnoop.NewMeterProvider()), mcpotel.WithPropagators(prop))
		}},
		{"sdk", func(b *testing.B) []server.Option {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard{}))
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			b.Cleanup(func() {
				_ = tp.Shutdown(context.Background())
				_ = mp.Shutdown(context.Background())
			})
			return mcpotel.Options(mcpotel.WithTracerProvider(tp), mcpotel.WithMeterProvider(mp), mcpotel.WithPropagators(prop))
		}},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			s, err := server.New(protocol.Implementation{Name: "bench", Version: "1"}, v.opts(b)...)
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
			c := servertest.New(s, servertest.WithMeta("traceparent", traceparent))
			ctx := context.Background()
			args := map[string]any{"text": "hello"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.CallTool(ctx, "echo", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
