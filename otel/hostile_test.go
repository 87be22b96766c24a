package mcpotel_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/servertest"

	mcpotel "github.com/mcpwire/mcpwire/otel"
)

// maxAttr is the default bound of attribute values
// (mcpotel.DefaultMaxAttributeBytes, which TestAttributeBound checks).
const maxAttr = 256

// liveHeap is the live heap after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// longName is a distinct client-chosen name of n bytes.
func longName(i, n int) string {
	s := strconv.Itoa(i) + "-"
	return s + strings.Repeat("x", n-len(s))
}

// distinctValues counts the distinct values of key among the duration
// histogram's data points, and returns the number of points.
func distinctValues(points []metricdata.HistogramDataPoint[float64], key attribute.Key) (values, series int) {
	seen := map[string]bool{}
	for _, p := range points {
		if v, ok := p.Attributes.Value(key); ok {
			seen[v.AsString()] = true
		}
	}
	return len(seen), len(points)
}

// Calls naming tools and prompts that do not exist, with long names the
// client chose, leave nothing of those names behind: no entry in the
// span-name cache (with sampling off, as in production, where the cache
// kept up to 1,024 names a method, each twice) and no series of the
// duration histogram (one a name, up to the SDK's cardinality limit);
// they all count under one gen_ai.tool.name / gen_ai.prompt.name,
// "_OTHER". Measured as the live heap after GC across the calls, with
// the providers, their reader and the server still reachable.
func TestUnknownNamesRetainNothing(t *testing.T) {
	const (
		calls     = 300
		nameBytes = 64 << 10
	)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	defer func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	}()
	s, err := server.New(protocol.Implementation{Name: "mcpotel-test", Version: "1"},
		mcpotel.Options(mcpotel.WithTracerProvider(tp), mcpotel.WithMeterProvider(mp),
			mcpotel.WithPropagators(propagation.TraceContext{}))...)
	if err != nil {
		t.Fatal(err)
	}
	addTool(t, s, "ok", func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("ok"), nil
	})
	if err := s.AddPrompt(protocol.Prompt{Name: "greet"}, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	c := servertest.New(s)
	ctx := context.Background()
	// Warm up: the known names, one unknown of each, and a collection,
	// so that what the SDK and the server build once is in "before".
	if _, err := c.CallTool(ctx, "ok", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetPrompt(ctx, "greet", nil); err != nil {
		t.Fatal(err)
	}
	_, _ = c.CallTool(ctx, "warm-up", nil)
	_, _ = c.GetPrompt(ctx, "warm-up", nil)
	collect(t, reader)

	before := liveHeap()
	for i := range calls {
		if _, err := c.CallTool(ctx, longName(i, nameBytes), nil); err == nil {
			t.Fatal("an unknown tool was called")
		}
		if i%3 == 0 {
			if _, err := c.GetPrompt(ctx, longName(i, nameBytes), nil); err == nil {
				t.Fatal("an unknown prompt was got")
			}
		}
	}
	after := liveHeap()
	sent := uint64(calls+calls/3) * nameBytes
	grew := int64(after) - int64(before)
	t.Logf("%d calls, %.1f MiB of unknown names sent: live heap %+.1f MiB", calls+calls/3, float64(sent)/(1<<20), float64(grew)/(1<<20))
	if grew > int64(sent/8) {
		t.Errorf("the live heap grew by %.1f MiB after %.1f MiB of unknown names: they are kept", float64(grew)/(1<<20), float64(sent)/(1<<20))
	}

	var points []metricdata.HistogramDataPoint[float64]
	for _, sm := range collect(t, reader).ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "mcp.server.operation.duration" {
				points = m.Data.(metricdata.Histogram[float64]).DataPoints
			}
		}
	}
	tools, series := distinctValues(points, "gen_ai.tool.name")
	prompts, _ := distinctValues(points, "gen_ai.prompt.name")
	t.Logf("duration histogram: %d series, %d tool names, %d prompt names", series, tools, prompts)
	if tools > 2 || prompts > 2 { // "ok" or "greet", and "_OTHER"
		t.Errorf("%d tool names and %d prompt names among %d series, want at most 2 each", tools, prompts, series)
	}
	for _, p := range points {
		for _, kv := range p.Attributes.ToSlice() {
			if len(kv.Value.String()) > maxAttr {
				t.Errorf("metric attribute %s is %d bytes", kv.Key, len(kv.Value.String()))
			}
		}
	}
	runtime.KeepAlive(s)
	runtime.KeepAlive(c)
}

// An unknown tool, prompt or resource is "_OTHER" in the span's name and
// attributes; a known one keeps its name. No attribute value, nor the
// status's description (which quotes the unknown name), passes the
// default bound, however long what the client sent: the request id
// included.
func TestUnknownNamesSpans(t *testing.T) {
	rg := newRig(t)
	if err := rg.s.AddResource(protocol.Resource{URI: "file:///notes.txt", Name: "notes"},
		func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return []protocol.ReadResourceResultContentsElem{{Value: &protocol.TextResourceContents{URI: "file:///notes.txt", Text: "hi"}}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	c := servertest.New(rg.s)
	ctx := context.Background()
	long := longName(1, 4096)
	if _, err := c.CallTool(ctx, long, nil); err == nil {
		t.Fatal("an unknown tool was called")
	}
	if _, err := c.GetPrompt(ctx, long, nil); err == nil {
		t.Fatal("an unknown prompt was got")
	}
	if _, err := c.ReadResource(ctx, "file:///"+long); err == nil {
		t.Fatal("an unknown resource was read")
	}
	if _, err := c.CallTool(ctx, "ok", nil); err != nil {
		t.Fatal(err)
	}
	// A string id of 4 KiB.
	id := strings.Repeat("i", 4096)
	body := `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"ok","arguments":{},"_meta":{` + requiredMeta + `}}}`
	r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
	setCallHeaders(r.Header, "ok")
	w := httptest.NewRecorder()
	streamhttp.Handler(rg.s, streamhttp.Options{}).ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("long id: %d %s", w.Code, w.Body)
	}

	ss := rg.serverSpans()
	if len(ss) != 5 {
		t.Fatalf("%d server spans, want 5", len(ss))
	}
	wantNames := []string{"tools/call _OTHER", "prompts/get _OTHER", "resources/read", "tools/call ok", "tools/call ok"}
	for i, sp := range ss {
		if sp.Name() != wantNames[i] {
			t.Errorf("span %d: name %.80q, want %q", i, sp.Name(), wantNames[i])
		}
		for _, kv := range sp.Attributes() {
			if n := len(kv.Value.String()); n > maxAttr {
				t.Errorf("span %d: attribute %s is %d bytes, more than %d", i, kv.Key, n, maxAttr)
			}
		}
		if n := len(sp.Status().Description); n > maxAttr {
			t.Errorf("span %d: status description is %d bytes", i, n)
		}
	}
	wantAttrs(t, attrs(ss[0]), map[string]string{"gen_ai.tool.name": "_OTHER", "error.type": "-32602"})
	wantAttrs(t, attrs(ss[1]), map[string]string{"gen_ai.prompt.name": "_OTHER", "error.type": "-32602"})
	wantAttrs(t, attrs(ss[2]), map[string]string{"mcp.resource.uri": "_OTHER"})
	wantAttrs(t, attrs(ss[3]), map[string]string{"gen_ai.tool.name": "ok"})
	if got := attrs(ss[4])["jsonrpc.request.id"].AsString(); !strings.HasPrefix(id, got) || len(got) != maxAttr {
		t.Errorf("long request id exported as %d bytes, want its first %d", len(got), maxAttr)
	}
}

// legacySession opens a 2025-11-25 session on h and returns its id and
// a function posting a request in it.
func legacySession(t *testing.T, h http.Handler) (string, func(body string)) {
	t.Helper()
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
	return sid, func(body string) {
		t.Helper()
		if w := post(body, hdr...); w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", body, w.Code, w.Body)
		}
	}
}

// spanStrings are every string a span exports: its name, attribute
// values, status description, events' names and attributes, links'
// attributes.
func spanStrings(sp sdktrace.ReadOnlySpan) []string {
	out := []string{sp.Name(), sp.Status().Description}
	add := func(kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			out = append(out, string(kv.Key), kv.Value.String())
		}
	}
	add(sp.Attributes())
	for _, e := range sp.Events() {
		out = append(out, e.Name)
		add(e.Attributes)
	}
	for _, l := range sp.Links() {
		add(l.Attributes)
	}
	return out
}

// The Mcp-Session-Id of a legacy session is never exported: not in any
// span (name, attributes, status, events, links) nor in any metric's
// attributes. mcp.session.id holds a key of the session instead: the
// same for two requests of one session, different for two sessions.
func TestSessionIDNotExported(t *testing.T) {
	rg := newRig(t)
	h := streamhttp.Handler(rg.s, streamhttp.Options{})
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ok","arguments":{}}}`
	fail := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"boom","arguments":{}}}`
	sid1, post1 := legacySession(t, h)
	post1(call)
	post1(fail)
	sid2, post2 := legacySession(t, h)
	post2(call)
	ss := rg.serverSpans()
	if len(ss) != 3 {
		t.Fatalf("%d server spans, want 3", len(ss))
	}
	for i, sp := range ss {
		for _, s := range spanStrings(sp) {
			for _, sid := range []string{sid1, sid2} {
				if strings.Contains(s, sid) {
					t.Errorf("span %d (%s) exports the session id: %q", i, sp.Name(), s)
				}
			}
		}
	}
	for _, sm := range collect(t, rg.reader).ScopeMetrics {
		for _, m := range sm.Metrics {
			for _, set := range metricAttributeSets(m) {
				for _, kv := range set.ToSlice() {
					if v := kv.Value.String(); strings.Contains(v, sid1) || strings.Contains(v, sid2) {
						t.Errorf("metric %s exports the session id as %s", m.Name, kv.Key)
					}
				}
			}
		}
	}
	k1, k2, k3 := attrs(ss[0])["mcp.session.id"].AsString(), attrs(ss[1])["mcp.session.id"].AsString(), attrs(ss[2])["mcp.session.id"].AsString()
	if k1 == "" || k1 != k2 {
		t.Errorf("one session's requests: mcp.session.id %q and %q, want one non-empty key", k1, k2)
	}
	if k3 == "" || k3 == k1 {
		t.Errorf("two sessions: mcp.session.id %q and %q, want two keys", k1, k3)
	}
	// In a legacy session too, a registered tool keeps its name.
	wantAttrs(t, attrs(ss[0]), map[string]string{"gen_ai.tool.name": "ok"})
}

// metricAttributeSets are the attribute sets of m's data points.
func metricAttributeSets(m metricdata.Metrics) []attribute.Set {
	var out []attribute.Set
	switch d := m.Data.(type) {
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	}
	return out
}
