package mcpotel_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server/stdio"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// Over stdio the span has the client's trace context from _meta, the
// transport "pipe" and none of the HTTP attributes (R-STDIO-01: one
// message per line).
func TestStdioSpan(t *testing.T) {
	rg := newRig(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(context.Background(), rg.s, inR, outW, stdio.Options{}) }()
	line := `{"jsonrpc":"2.0","id":"s-1","method":"tools/call","params":{"name":"ok","arguments":{},"_meta":{` +
		requiredMeta + `,"traceparent":"` + traceparent + `"}}}` + "\n"
	if _, err := io.WriteString(inW, line); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(outR).ReadString('\n')
		got <- l
	}()
	select {
	case l := <-got:
		if !strings.Contains(l, `"id":"s-1"`) || !strings.Contains(l, `"result"`) {
			t.Fatalf("response %s", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no response on stdout")
	}
	_ = inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	_ = outW.Close()
	sp := rg.onlyServerSpan(t)
	if sp.SpanContext().TraceID().String() != clientTraceID || sp.Parent().SpanID().String() != clientSpanID {
		t.Errorf("trace %s parent %s", sp.SpanContext().TraceID(), sp.Parent().SpanID())
	}
	wantAttrs(t, attrs(sp), map[string]string{
		"network.transport":     "pipe",
		"network.protocol.name": "",
		"client.address":        "",
		"jsonrpc.request.id":    "s-1",
		"gen_ai.tool.name":      "ok",
	})
}

// A legacy session over HTTP (initialize, then requests with
// Mcp-Session-Id) gets mcp.session.id (a key of the session, never its
// id: TestSessionIDNotExported) and the negotiated version as
// mcp.protocol.version; its _meta.traceparent is the parent as in the
// modern era.
func TestLegacySessionSpan(t *testing.T) {
	rg := newRig(t)
	h := streamhttp.Handler(rg.s, streamhttp.Options{})
	post := func(body string, hdr ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	sid := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %q %s", w.Code, sid, w.Body)
	}
	hdr := []string{"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25"}
	if w := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr...); w.Code != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", w.Code, w.Body)
	}
	w = post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ok","arguments":{},"_meta":{"traceparent":"`+traceparent+`"}}}`, hdr...)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"result"`) {
		t.Fatalf("tools/call: %d %s", w.Code, w.Body)
	}
	sp := rg.onlyServerSpan(t) // initialize is the session layer's: no span
	if sp.SpanContext().TraceID().String() != clientTraceID {
		t.Errorf("trace %s", sp.SpanContext().TraceID())
	}
	if k := attrs(sp)["mcp.session.id"].AsString(); k == "" || strings.Contains(k, sid) {
		t.Errorf("mcp.session.id %q, want a key of the session %q", k, sid)
	}
	wantAttrs(t, attrs(sp), map[string]string{
		"mcp.protocol.version": "2025-11-25",
		"jsonrpc.request.id":   "2",
		"network.transport":    "tcp",
	})
}
