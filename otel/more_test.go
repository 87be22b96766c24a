package mcpotel_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/servertest"

	mcpotel "github.com/mcpwire/mcpwire/otel"
)

// prompts/get and resources/read: the span is named after the prompt
// but not after the resource (the convention keeps URIs out of names),
// and carries gen_ai.prompt.name or mcp.resource.uri.
func TestPromptAndResourceSpans(t *testing.T) {
	rg := newRig(t)
	if err := rg.s.AddResource(protocol.Resource{URI: "file:///notes.txt", Name: "notes"},
		func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return []protocol.ReadResourceResultContentsElem{{Value: &protocol.TextResourceContents{URI: "file:///notes.txt", Text: "hi"}}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	c := servertest.New(rg.s)
	if _, err := c.GetPrompt(context.Background(), "greet", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadResource(context.Background(), "file:///notes.txt"); err != nil {
		t.Fatal(err)
	}
	ss := rg.serverSpans()
	if len(ss) != 2 {
		t.Fatalf("%d spans", len(ss))
	}
	if ss[0].Name() != "prompts/get greet" || ss[1].Name() != "resources/read" {
		t.Errorf("names %q, %q", ss[0].Name(), ss[1].Name())
	}
	wantAttrs(t, attrs(ss[0]), map[string]string{"gen_ai.prompt.name": "greet", "gen_ai.tool.name": "", "gen_ai.operation.name": "", "mcp.resource.uri": ""})
	wantAttrs(t, attrs(ss[1]), map[string]string{"mcp.resource.uri": "file:///notes.txt", "gen_ai.prompt.name": "", "mcp.method.name": "resources/read"})
}

// A span already in the request's context (an HTTP server
// instrumentation around the handler) becomes a link of the server span
// when _meta carries the client's context, which stays the parent, as
// the convention advises; without trace context in the request, that
// span is the parent.
func TestAmbientSpanLink(t *testing.T) {
	rg := newRig(t)
	httpTracer := rg.tp.Tracer("http")
	mcp := streamhttp.Handler(rg.s, streamhttp.Options{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, span := httpTracer.Start(r.Context(), "POST /mcp", trace.WithSpanKind(trace.SpanKindServer))
		defer span.End()
		mcp.ServeHTTP(w, r.WithContext(ctx))
	})
	for _, meta := range []string{`,"traceparent":"` + traceparent + `"`, ""} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, okCallRequest(meta))
		if w.Code != http.StatusOK {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
	}
	var mcpSpans, httpSpans []sdktrace.ReadOnlySpan
	for _, s := range rg.spans.Ended() {
		if s.InstrumentationScope().Name == mcpotel.ScopeName {
			mcpSpans = append(mcpSpans, s)
		} else {
			httpSpans = append(httpSpans, s)
		}
	}
	if len(mcpSpans) != 2 || len(httpSpans) != 2 {
		t.Fatalf("%d mcp spans, %d http spans", len(mcpSpans), len(httpSpans))
	}
	withMeta, without := mcpSpans[0], mcpSpans[1]
	if withMeta.Parent().SpanID().String() != clientSpanID {
		t.Errorf("parent %s, want the client's %s", withMeta.Parent().SpanID(), clientSpanID)
	}
	if l := withMeta.Links(); len(l) != 1 || l[0].SpanContext.SpanID() != httpSpans[0].SpanContext().SpanID() {
		t.Errorf("links %v, want the HTTP span %s", l, httpSpans[0].SpanContext().SpanID())
	}
	if without.Parent().SpanID() != httpSpans[1].SpanContext().SpanID() || len(without.Links()) != 0 {
		t.Errorf("without trace context: parent %s links %v, want the HTTP span as parent", without.Parent().SpanID(), without.Links())
	}
}

// A handler that panics (the server answers -32603) still ends the span,
// with the error, and records the histogram's point.
func TestPanicEndsSpan(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"}, append(
		mcpotel.Options(mcpotel.WithTracerProvider(tp), mcpotel.WithPropagators(propagation.TraceContext{})),
		server.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))...)
	if err != nil {
		t.Fatal(err)
	}
	addTool(t, s, "crash", func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		panic("boom")
	})
	_, err = servertest.New(s).CallTool(context.Background(), "crash", nil)
	var se *servertest.Error
	if !errors.As(err, &se) || se.Code != protocol.CodeInternalError {
		t.Fatalf("%v, want -32603", err)
	}
	ended := sr.Ended()
	if len(ended) != 1 || ended[0].Status().Code != codes.Error {
		t.Fatalf("spans %d, want one ended with status Error", len(ended))
	}
	wantAttrs(t, attrs(ended[0]), map[string]string{"error.type": "-32603", "rpc.response.status_code": "-32603"})
}
