package mcpotel_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/servertest"

	mcpotel "github.com/mcpwire/mcpwire/otel"
)

// A tools/call carrying _meta.traceparent and tracestate (SEP-414,
// R-META-08) gets a SERVER span named "tools/call {tool}" in the client's
// trace, child of the client's span, with the convention's attributes
// (the HTTP ones from the recorded request: servertest's RemoteAddr is
// 192.0.2.1:1234).
func TestMetaTraceContext(t *testing.T) {
	rg := newRig(t)
	c := servertest.New(rg.s)
	if _, err := c.CallTool(context.Background(), "ok", nil,
		servertest.WithMeta("traceparent", traceparent),
		servertest.WithMeta("tracestate", "rojo=00f067aa0ba902b7")); err != nil {
		t.Fatal(err)
	}
	sp := rg.onlyServerSpan(t)
	if sp.Name() != "tools/call ok" {
		t.Errorf("name %q, want %q", sp.Name(), "tools/call ok")
	}
	if got := sp.SpanContext().TraceID().String(); got != clientTraceID {
		t.Errorf("trace id %s, want the client's %s", got, clientTraceID)
	}
	if got := sp.Parent().SpanID().String(); got != clientSpanID || !sp.Parent().IsRemote() {
		t.Errorf("parent %s (remote %v), want the client's span %s", got, sp.Parent().IsRemote(), clientSpanID)
	}
	if got := sp.Parent().TraceState().String(); got != "rojo=00f067aa0ba902b7" {
		t.Errorf("tracestate %q", got)
	}
	if sp.Status().Code != codes.Unset {
		t.Errorf("status %v, want unset", sp.Status())
	}
	wantAttrs(t, attrs(sp), map[string]string{
		"mcp.method.name":          "tools/call",
		"gen_ai.tool.name":         "ok",
		"gen_ai.operation.name":    "execute_tool",
		"jsonrpc.request.id":       "1",
		"mcp.protocol.version":     protocol.Revision,
		"network.transport":        "tcp",
		"network.protocol.name":    "http",
		"client.address":           "192.0.2.1",
		"client.port":              "1234",
		"error.type":               "",
		"rpc.response.status_code": "",
		"mcp.session.id":           "",
		"gen_ai.prompt.name":       "",
	})
}

// Without trace context in _meta, the W3C traceparent header of the HTTP
// request is the parent; with both, _meta wins (the convention's
// propagation is per message, the header only per HTTP request).
func TestHeaderTraceContext(t *testing.T) {
	rg := newRig(t)
	c := servertest.New(rg.s)
	ctx := context.Background()
	if _, err := c.CallTool(ctx, "ok", nil, servertest.WithHeader("traceparent", headerParent)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "ok", nil, servertest.WithHeader("traceparent", headerParent),
		servertest.WithMeta("traceparent", traceparent)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "ok", nil); err != nil {
		t.Fatal(err)
	}
	ss := rg.serverSpans()
	if len(ss) != 3 {
		t.Fatalf("%d server spans, want 3", len(ss))
	}
	if got := ss[0].SpanContext().TraceID().String(); got != headerTraceID || ss[0].Parent().SpanID().String() != headerSpanID {
		t.Errorf("header only: trace %s parent %s, want %s %s", got, ss[0].Parent().SpanID(), headerTraceID, headerSpanID)
	}
	if got := ss[1].SpanContext().TraceID().String(); got != clientTraceID || ss[1].Parent().SpanID().String() != clientSpanID {
		t.Errorf("both: trace %s parent %s, want _meta's %s %s", got, ss[1].Parent().SpanID(), clientTraceID, clientSpanID)
	}
	if ss[2].Parent().IsValid() {
		t.Errorf("no trace context: parent %v, want a root span", ss[2].Parent())
	}
}

// A tool result with isError is a failed operation: error.type
// "tool_error" and status Error, with no JSON-RPC code (the call
// succeeded at the protocol level).
func TestToolErrorSpan(t *testing.T) {
	rg := newRig(t)
	res, err := servertest.New(rg.s).CallTool(context.Background(), "fails", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError == nil || !*res.IsError {
		t.Fatal("the tool's result is not an isError result")
	}
	sp := rg.onlyServerSpan(t)
	if sp.Status().Code != codes.Error {
		t.Errorf("status %v, want Error", sp.Status())
	}
	wantAttrs(t, attrs(sp), map[string]string{
		"error.type":               "tool_error",
		"rpc.response.status_code": "",
		"gen_ai.tool.name":         "fails",
	})
}

// A protocol error (an unknown tool, R-TOOL errors: -32602; a handler's
// InvalidParams) sets error.type and rpc.response.status_code to the code
// and the status to Error with the JSON-RPC message. The unknown tool is
// "_OTHER" (TestUnknownNamesSpans).
func TestProtocolErrorSpan(t *testing.T) {
	rg := newRig(t)
	c := servertest.New(rg.s)
	for tool, exported := range map[string]string{"nope": "_OTHER", "boom": "boom"} {
		_, err := c.CallTool(context.Background(), tool, nil)
		var se *servertest.Error
		if !errors.As(err, &se) || se.Code != protocol.CodeInvalidParamsError {
			t.Fatalf("%s: %v, want -32602", tool, err)
		}
		ss := rg.serverSpans()
		sp := ss[len(ss)-1]
		if sp.Status().Code != codes.Error || sp.Status().Description != se.Message {
			t.Errorf("%s: status %v, want Error %q", tool, sp.Status(), se.Message)
		}
		wantAttrs(t, attrs(sp), map[string]string{
			"error.type":               "-32602",
			"rpc.response.status_code": "-32602",
			"gen_ai.tool.name":         exported,
		})
	}
}

// A plain error, here from a middleware inside mcpotel's, is the -32603
// the client gets; the span's description keeps the error's text for
// the operator.
func TestPlainErrorSpan(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	refuse := func(server.Handler) server.Handler {
		return func(context.Context, *server.Request) (server.Result, error) {
			return nil, errors.New("quota store down")
		}
	}
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"},
		server.WithMiddleware(mcpotel.Middleware(mcpotel.WithTracerProvider(tp)), refuse))
	if err != nil {
		t.Fatal(err)
	}
	_, err = servertest.New(s).ListTools(context.Background())
	var se *servertest.Error
	if !errors.As(err, &se) || se.Code != protocol.CodeInternalError {
		t.Fatalf("%v, want -32603", err)
	}
	ended := sr.Ended()
	if len(ended) != 1 {
		t.Fatalf("%d spans", len(ended))
	}
	sp := ended[0]
	if sp.Name() != "tools/list" || sp.Status().Code != codes.Error || sp.Status().Description != "quota store down" {
		t.Errorf("span %q status %v", sp.Name(), sp.Status())
	}
	wantAttrs(t, attrs(sp), map[string]string{"error.type": "-32603", "rpc.response.status_code": "-32603", "gen_ai.tool.name": ""})
}

// A handler's span nests under the server span, and the notifications
// the request sends carry in _meta the traceparent (and the baggage) of
// the context they were sent with, here the handler's own span.
func TestNestingAndNotifications(t *testing.T) {
	rg := newRig(t)
	var notes []servertest.Notification
	c := servertest.New(rg.s, servertest.OnNotification(func(n servertest.Notification) { notes = append(notes, n) }))
	if _, err := c.CallTool(context.Background(), "nest", nil,
		servertest.WithMeta("traceparent", traceparent),
		servertest.WithMeta("baggage", "tenant=acme"),
		servertest.WithMeta("progressToken", "p1"),
		servertest.WithMeta("io.modelcontextprotocol/logLevel", "debug")); err != nil {
		t.Fatal(err)
	}
	srv := rg.onlyServerSpan(t)
	var inner sdktrace.ReadOnlySpan
	for _, s := range rg.spans.Ended() {
		if s.Name() == "inner" {
			inner = s
		}
	}
	if inner == nil {
		t.Fatal("no handler span")
	}
	if inner.Parent().SpanID() != srv.SpanContext().SpanID() || inner.SpanContext().TraceID().String() != clientTraceID {
		t.Errorf("handler span's parent %s, want the server span %s", inner.Parent().SpanID(), srv.SpanContext().SpanID())
	}
	if len(notes) != 2 {
		t.Fatalf("%d notifications, want 2", len(notes))
	}
	want := map[string]string{
		"notifications/progress": "00-" + clientTraceID + "-" + inner.SpanContext().SpanID().String() + "-01",
		"notifications/message":  "00-" + clientTraceID + "-" + inner.SpanContext().SpanID().String() + "-01",
	}
	for _, n := range notes {
		var p struct {
			Meta map[string]string `json:"_meta"`
		}
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Fatalf("%s: %v", n.Params, err)
		}
		if p.Meta["traceparent"] != want[n.Method] {
			t.Errorf("%s: traceparent %q, want %q", n.Method, p.Meta["traceparent"], want[n.Method])
		}
		if p.Meta["baggage"] != "tenant=acme" {
			t.Errorf("%s: baggage %q", n.Method, p.Meta["baggage"])
		}
	}
}

// The notification hook alone writes the server span's context: a
// handler that sends with the context it got names the server span.
func TestNotificationMetaServerSpan(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	prop := propagation.TraceContext{}
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"},
		mcpotel.Options(mcpotel.WithTracerProvider(tp), mcpotel.WithPropagators(prop))...)
	if err != nil {
		t.Fatal(err)
	}
	addTool(t, s, "p", func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		r.Progress(ctx, 1, 0, "")
		return server.TextResult("x"), nil
	})
	var got string
	c := servertest.New(s, servertest.OnNotification(func(n servertest.Notification) { got = string(n.Params) }))
	if _, err := c.CallTool(context.Background(), "p", nil, servertest.WithMeta("progressToken", 1)); err != nil {
		t.Fatal(err)
	}
	sp := sr.Ended()[0]
	want := `"traceparent":"00-` + sp.SpanContext().TraceID().String() + "-" + sp.SpanContext().SpanID().String() + `-01"`
	if !strings.Contains(got, want) {
		t.Errorf("progress %s, want %s", got, want)
	}
}

// The duration histogram records exactly one point per request, with the
// convention's unit, boundaries and attributes, error.type and the code
// on failures; the active-requests counter is back at zero.
func TestDurationHistogram(t *testing.T) {
	rg := newRig(t)
	c := servertest.New(rg.s)
	ctx := context.Background()
	_, _ = c.CallTool(ctx, "ok", nil)
	_, _ = c.CallTool(ctx, "ok", nil)
	_, _ = c.CallTool(ctx, "fails", nil)
	_, _ = c.CallTool(ctx, "nope", nil)
	if _, err := c.GetPrompt(ctx, "greet", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	pts := rg.durationPoints(t)
	type key struct{ method, name, errType, code string }
	counts := map[key]uint64{}
	var total uint64
	for _, p := range pts {
		get := func(k string) string { v, _ := p.Attributes.Value(attribute.Key(k)); return v.String() }
		if want := []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}; !slices.Equal(p.Bounds, want) {
			t.Errorf("bounds %v, want %v", p.Bounds, want)
		}
		if get("network.transport") != "tcp" || get("mcp.protocol.version") != protocol.Revision {
			t.Errorf("point attributes %v", p.Attributes.ToSlice())
		}
		if p.Attributes.HasValue("jsonrpc.request.id") || p.Attributes.HasValue("client.port") {
			t.Errorf("per-request attribute on a metric: %v", p.Attributes.ToSlice())
		}
		name := get("gen_ai.tool.name") + get("gen_ai.prompt.name")
		counts[key{get("mcp.method.name"), name, get("error.type"), get("rpc.response.status_code")}] += p.Count
		total += p.Count
	}
	want := map[key]uint64{
		{"tools/call", "ok", "", ""}:                 2,
		{"tools/call", "fails", "tool_error", ""}:    1,
		{"tools/call", "_OTHER", "-32602", "-32602"}: 1, // the unknown "nope"
		{"prompts/get", "greet", "", ""}:             1,
		{"tools/list", "", "", ""}:                   1,
	}
	if total != 6 {
		t.Errorf("%d points in all, want 6 (one per request)", total)
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%+v: %d points, want %d (all: %v)", k, counts[k], n, counts)
		}
	}
	rm := collect(t, rg.reader)
	found := false
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "mcp.server.active_requests" {
				found = true
				if m.Unit != "{request}" {
					t.Errorf("active requests unit %q", m.Unit)
				}
				for _, p := range sumPoints(t, m) {
					if p.Value != 0 {
						t.Errorf("active %v = %d after the requests, want 0", p.Attributes.ToSlice(), p.Value)
					}
				}
			}
		}
	}
	if !found {
		t.Error("no mcp.server.active_requests")
	}
}

// With no SDK at all (the global no-op providers), the middleware is
// transparent: a call succeeds and nothing is recorded anywhere.
func TestNoopProviders(t *testing.T) {
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"}, mcpotel.Options()...)
	if err != nil {
		t.Fatal(err)
	}
	addTool(t, s, "ok", func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if trace.SpanFromContext(ctx).IsRecording() {
			t.Error("a recording span with the no-op provider")
		}
		return server.TextResult("ok"), nil
	})
	if _, err := servertest.New(s).CallTool(context.Background(), "ok", nil, servertest.WithMeta("traceparent", traceparent)); err != nil {
		t.Fatal(err)
	}
}

// Under the no-op tracer provider no span is started, but the client's
// trace context still reaches the handler and the request's
// notifications, as a no-op span would carry it; with the no-op meter
// provider too (nothing recorded at all)
// and with the global one.
func TestNoopTracerPropagates(t *testing.T) {
	withNoopTracer(t, testNoopTracerPropagates)
}

// withNoopTracer runs test in a subtest per meter provider, the no-op one
// and the global one, with the options of the no-op tracer provider and
// that meter provider.
func withNoopTracer(t *testing.T, test func(t *testing.T, opts []mcpotel.Option)) {
	for name, mp := range map[string]metric.MeterProvider{"noop meter": metricnoop.NewMeterProvider(), "global meter": nil} {
		t.Run(name, func(t *testing.T) {
			opts := []mcpotel.Option{mcpotel.WithTracerProvider(tracenoop.NewTracerProvider())}
			if mp != nil {
				opts = append(opts, mcpotel.WithMeterProvider(mp))
			}
			test(t, opts)
		})
	}
}

func testNoopTracerPropagates(t *testing.T, opts []mcpotel.Option) {
	opts = append(opts, mcpotel.WithPropagators(propagation.TraceContext{}))
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"}, mcpotel.Options(opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	var seen trace.SpanContext
	addTool(t, s, "ok", func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		seen = trace.SpanContextFromContext(ctx)
		r.Progress(ctx, 1, 0, "")
		return server.TextResult("ok"), nil
	})
	var notified string
	c := servertest.New(s, servertest.OnNotification(func(n servertest.Notification) {
		var p struct {
			Meta map[string]string `json:"_meta"`
		}
		_ = json.Unmarshal(n.Params, &p)
		notified = p.Meta["traceparent"]
	}))
	if _, err := c.CallTool(context.Background(), "ok", nil, servertest.WithMeta("traceparent", traceparent), servertest.WithMeta("progressToken", "p")); err != nil {
		t.Fatal(err)
	}
	if seen.TraceID().String() != clientTraceID || seen.SpanID().String() != clientSpanID || !seen.IsRemote() {
		t.Errorf("handler's span context %v, want the client's", seen)
	}
	if notified != traceparent {
		t.Errorf("notification traceparent %q, want the client's %q", notified, traceparent)
	}
}

// Under the no-op tracer provider mcpotel never ends or annotates a span
// it did not start, such as an HTTP instrumentation's in the request's
// context (the second review's ATK-OTEL-1), with the no-op meter
// provider or the global one.
func TestNoopTracerLeavesAmbientSpan(t *testing.T) {
	withNoopTracer(t, testNoopTracerLeavesAmbientSpan)
}

func testNoopTracerLeavesAmbientSpan(t *testing.T, opts []mcpotel.Option) {
	rec := tracetest.NewSpanRecorder()
	sdk := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"}, mcpotel.Options(opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	addTool(t, s, "ok", func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, errors.New("fails") // an error would set the span's status
	})
	mcp := streamhttp.Handler(s, streamhttp.Options{})
	endedEarly := false
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, span := sdk.Tracer("http").Start(r.Context(), "POST /mcp")
		mcp.ServeHTTP(w, r.WithContext(ctx))
		endedEarly = len(rec.Ended()) > 0
		span.End()
	})
	h.ServeHTTP(httptest.NewRecorder(), okCallRequest(""))
	ended := rec.Ended()
	if endedEarly || len(ended) != 1 {
		t.Fatalf("the ambient span ended inside its handler: %v; %d ended", endedEarly, len(ended))
	}
	for _, kv := range ended[0].Attributes() {
		if strings.HasPrefix(string(kv.Key), "mcp.") || strings.HasPrefix(string(kv.Key), "gen_ai.") || kv.Key == "error.type" {
			t.Errorf("the ambient span got mcpotel's attribute %s", kv.Key)
		}
	}
	if ended[0].Status().Code != 0 {
		t.Errorf("the ambient span's status was set: %v", ended[0].Status())
	}
}
