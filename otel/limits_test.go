package mcpotel_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

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

// recordingServer is a server with the tool "a-rather-long-tool-name"
// instrumented with opts and a tracer provider recording every span.
func recordingServer(t *testing.T, opts ...mcpotel.Option) (*server.Server, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	opts = append([]mcpotel.Option{mcpotel.WithTracerProvider(tp), mcpotel.WithPropagators(propagation.TraceContext{})}, opts...)
	s, err := server.New(protocol.Implementation{Name: "mcpotel-test", Version: "1"}, mcpotel.Options(opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	addTool(t, s, "a-rather-long-tool-name", func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("ok"), nil
	})
	return s, rec
}

// The default bound is the one the hostile tests assume; with
// WithMaxAttributeBytes, a registered tool's name is cut to the bound in
// the attribute and the span name alike, at a UTF-8 boundary.
func TestAttributeBound(t *testing.T) {
	if mcpotel.DefaultMaxAttributeBytes != maxAttr {
		t.Fatalf("DefaultMaxAttributeBytes %d, the tests assume %d", mcpotel.DefaultMaxAttributeBytes, maxAttr)
	}
	s, rec := recordingServer(t, mcpotel.WithMaxAttributeBytes(8))
	if _, err := servertest.New(s).CallTool(context.Background(), "a-rather-long-tool-name", nil); err != nil {
		t.Fatal(err)
	}
	sp := rec.Ended()[0]
	if sp.Name() != "tools/call a-rather" {
		t.Errorf("name %q, want %q", sp.Name(), "tools/call a-rather")
	}
	wantAttrs(t, attrs(sp), map[string]string{"gen_ai.tool.name": "a-rather"})
}

// WithSessionKey: mcp.session.id is the first 16 bytes, in hex, of the
// HMAC-SHA256 of the session id under the key, so that instances
// sharing the key agree on it (TestDefaultSessionKeys: without it, each
// middleware has a random key of its own).
func TestSessionKey(t *testing.T) {
	key := []byte("a key the operator configured")
	s, rec := recordingServer(t, mcpotel.WithSessionKey(key))
	sid, post := legacySession(t, streamhttp.Handler(s, streamhttp.Options{}))
	post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a-rather-long-tool-name","arguments":{}}}`)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(sid))
	want := hex.EncodeToString(m.Sum(nil)[:16])
	sp := serverSpansOf(rec)[0]
	wantAttrs(t, attrs(sp), map[string]string{"mcp.session.id": want})

}

// serverSpansOf are the ended server spans of rec.
func serverSpansOf(rec *tracetest.SpanRecorder) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.SpanKind() == trace.SpanKindServer {
			out = append(out, s)
		}
	}
	return out
}
