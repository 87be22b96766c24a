package mcpotel_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"

	mcpotel "github.com/mcpwire/mcpwire/otel"
)

// The trace context a client sends in the tests.
const (
	clientTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID  = "00f067aa0ba902b7"
	traceparent   = "00-" + clientTraceID + "-" + clientSpanID + "-01"
	headerTraceID = "0af7651916cd43dd8448eb211c80319c"
	headerSpanID  = "b7ad6b7169203331"
	headerParent  = "00-" + headerTraceID + "-" + headerSpanID + "-01"
)

// requiredMeta are the _meta members a 2026-07-28 request must carry,
// without the braces around them.
const requiredMeta = `"io.modelcontextprotocol/protocolVersion":"` + protocol.Revision + `","io.modelcontextprotocol/clientCapabilities":{}`

// okCallRequest is a modern tools/call of the tool "ok" over HTTP, with
// its headers; meta is added after the _meta members the revision
// requires ("" or a leading comma and more members).
func okCallRequest(meta string) *http.Request {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ok","arguments":{},"_meta":{` + requiredMeta + meta + `}}}`
	r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
	setCallHeaders(r.Header, "ok")
	return r
}

// setCallHeaders sets the headers of a 2026-07-28 tools/call POST of the
// tool name.
func setCallHeaders(h http.Header, name string) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", protocol.Revision)
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", name)
}

// rig is a server instrumented with an SDK tracer provider recording
// every span and an SDK meter provider read by hand.
type rig struct {
	s      *server.Server
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
}

// newRig builds the server with the tools the tests call:
//   - ok: returns "ok";
//   - fails: a tool result with isError;
//   - nest: starts a child span of its own and sends a progress and a
//     log notification in it;
//   - boom: returns a protocol error (-32602, InvalidParams);
//
// and the prompt "greet".
func newRig(t *testing.T) *rig {
	t.Helper()
	rg := &rig{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	rg.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rg.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(rg.reader))
	t.Cleanup(func() {
		_ = rg.tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	s, err := server.New(protocol.Implementation{Name: "mcpotel-test", Version: "1"},
		mcpotel.Options(mcpotel.WithTracerProvider(rg.tp), mcpotel.WithMeterProvider(mp), mcpotel.WithPropagators(prop))...)
	if err != nil {
		t.Fatal(err)
	}
	tracer := rg.tp.Tracer("handler")
	addTool(t, s, "ok", func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("ok"), nil
	})
	addTool(t, s, "fails", func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.ErrorResult("it failed"), nil
	})
	addTool(t, s, "boom", func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, server.InvalidParams("bad argument", nil)
	})
	addTool(t, s, "plain", func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, errors.New("disk on fire")
	})
	addTool(t, s, "nest", func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		ctx, span := tracer.Start(ctx, "inner")
		defer span.End()
		r.Progress(ctx, 1, 2, "half")
		r.Log(ctx, protocol.LoggingLevelInfo, "nest", json.RawMessage(`"working"`))
		return server.TextResult("nested"), nil
	})
	def := protocol.Prompt{Name: "greet"}
	if err := s.AddPrompt(def, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	rg.s = s
	return rg
}

func addTool(t *testing.T, s *server.Server, name string, h server.ToolHandler) {
	t.Helper()
	var def protocol.Tool
	if err := protocol.Unmarshal([]byte(`{"name":"`+name+`","inputSchema":{"type":"object"}}`), &def); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(def, h); err != nil {
		t.Fatal(err)
	}
}

// serverSpans are the ended spans of kind SERVER.
func (rg *rig) serverSpans() []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range rg.spans.Ended() {
		if s.SpanKind() == trace.SpanKindServer {
			out = append(out, s)
		}
	}
	return out
}

// onlyServerSpan is the one server span, failing the test if there is
// not exactly one.
func (rg *rig) onlyServerSpan(t *testing.T) sdktrace.ReadOnlySpan {
	t.Helper()
	ss := rg.serverSpans()
	if len(ss) != 1 {
		t.Fatalf("%d server spans, want 1", len(ss))
	}
	return ss[0]
}

// attrs maps a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

// wantAttrs checks the string (or, for client.port, int) attributes of
// got; a value of "" means the attribute must be absent.
func wantAttrs(t *testing.T, got map[string]attribute.Value, want map[string]string) {
	t.Helper()
	for k, w := range want {
		v, ok := got[k]
		switch {
		case w == "" && ok:
			t.Errorf("attribute %s = %s, want none", k, v.String())
		case w != "" && !ok:
			t.Errorf("attribute %s missing, want %q", k, w)
		case w != "" && v.String() != w:
			t.Errorf("attribute %s = %q, want %q", k, v.String(), w)
		}
	}
}

// durationPoints returns the data points of mcp.server.operation.duration.
func (rg *rig) durationPoints(t *testing.T) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	rm := collect(t, rg.reader)
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "mcp.server.operation.duration" {
				continue
			}
			if m.Unit != "s" {
				t.Errorf("unit %q, want s", m.Unit)
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("%s is a %T, want a histogram", m.Name, m.Data)
			}
			return h.DataPoints
		}
	}
	return nil
}

// collect reads the meter provider's metrics.
func collect(t *testing.T, r *sdkmetric.ManualReader) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// sumPoints are the data points of an int64 sum.
func sumPoints(t *testing.T, m metricdata.Metrics) []metricdata.DataPoint[int64] {
	t.Helper()
	s, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s is a %T, want an int64 sum", m.Name, m.Data)
	}
	return s.DataPoints
}
