package bench

// In-process HTTP benchmarks: mcpwire's Streamable HTTP handler against the
// official Go SDK's StreamableHTTPHandler in stateless mode, both serving
// the same typed "echo" tool with the same inputSchema; against a bare
// net/http handler that writes a fixed 200-byte JSON response (request
// plumbing, recorder and one Write); and against the "floor": the strict
// decode of the request and the encode of the result through protocol/,
// with nothing else (floorHandler).
//
// Every handler gets the same protocol revision 2026-07-28 request (same
// headers, same body). Each iteration builds a fresh *http.Request over a
// prebuilt body and a fresh httptest.ResponseRecorder, so the harness cost
// is the same for all of them and is visible in the "bare" row.
//
// The Go SDK handler runs with JSONResponse: true, so that, like mcpwire
// (which only upgrades to text/event-stream when a handler sends a
// notification), it answers a single call with application/json. Without
// it the SDK answers with an event stream, which is slower still.
//
// TestSameAnswers (server_check_test.go) checks that every handler
// really answers these requests, and each benchmark checks its handler's
// answer once before the timed loop, so an error path is never measured.
//
// Run from this folder:
//
//	go test -run '^$' -bench 'ToolsCall|ToolsList' -benchmem -count 5

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/server/typed"
)

const (
	revision   = "2026-07-28"
	echoText   = "hello"
	toolDesc   = "Echoes its text argument."
	listTools  = 100
	schemaJSON = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`
)

// The request _meta that 2026-07-28 requires on every request.
const reqMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`

var (
	callBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + reqMeta +
		`,"name":"echo","arguments":{"text":"` + echoText + `"}}}`)
	listBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + reqMeta + `}}`)
)

// bareResponse is the bare handler's answer: a JSON-RPC tools/call result,
// padded to exactly 200 bytes (checked in TestSameAnswers).
var bareResponse = func() []byte {
	head := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + echoText +
		`"}],"resultType":"complete","_meta":{"pad":"`
	tail := `"}}}`
	return []byte(head + strings.Repeat(".", 200-len(head)-len(tail)) + tail)
}()

// --- handlers -------------------------------------------------------------

type echoArgs struct {
	Text string `json:"text"`
}

// mcpwireHandler serves the echo tool, or n tools named tool000… when
// n > 1 (the tools/list benchmark). The tool is typed, as the Go SDK's
// is: AddTypedTool infers the inputSchema from echoArgs (schemaJSON is
// the same schema, given to the SDK), and the handler builds its result.
func mcpwireHandler(tb testing.TB, n int, opts ...server.Option) http.Handler {
	tb.Helper()
	return streamhttp.Handler(mcpwireServer(tb, n, opts...), streamhttp.Options{})
}

// mcpwireServer is mcpwireHandler's server: n typed echo tools (one is
// named echo), built with opts.
func mcpwireServer(tb testing.TB, n int, opts ...server.Option) *server.Server {
	tb.Helper()
	s, err := server.New(protocol.Implementation{Name: "bench", Version: "1"}, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	handler := func(ctx context.Context, r *server.Request, in echoArgs) (*protocol.CallToolResult, error) {
		return server.TextResult(in.Text), nil
	}
	for _, name := range toolNames(n) {
		desc := toolDesc
		if err := typed.AddTool(s, protocol.Tool{Name: name, Description: &desc}, handler); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// gosdkHandler is the same server on the official Go SDK: a stateless
// Streamable HTTP handler, typed tool (the SDK validates the arguments
// against the given inputSchema and decodes them, as mcpwire does).
func gosdkHandler(tb testing.TB, n int) http.Handler {
	tb.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	handler := func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	}
	for _, name := range toolNames(n) {
		mcp.AddTool(s, &mcp.Tool{
			Name:        name,
			Description: toolDesc,
			InputSchema: json.RawMessage(schemaJSON),
		}, handler)
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

// bareHandler drains the body and writes the fixed 200-byte answer.
func bareHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(bareResponse)
	})
}

// floorHandler is the codec's share of an MCP handler built on the
// generated types, and nothing else: it reads the body as mcpwire does
// (one buffer of the declared length), decodes it strictly into
// protocol.ClientRequest and encodes the CallToolResult. It checks no
// header, validates no argument, runs no tool and puts no envelope on the
// result, so it is not a server: it is a lower bound for any server that
// decodes and encodes through protocol/, mcpwire included.
func floorHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req protocol.ClientRequest
		if err := protocol.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		call, ok := req.Value.(*protocol.CallToolRequest)
		if !ok {
			http.Error(w, "not a tools/call", http.StatusBadRequest)
			return
		}
		res := protocol.CallToolResult{Content: []protocol.ContentBlock{{Value: &protocol.TextContent{Text: echoText}}}, ResultType: "complete"}
		out := make([]byte, 0, 256)
		out = append(out, `{"jsonrpc":"2.0","id":`...)
		out = strconv.AppendInt(out, call.ID.Int(), 10)
		out = append(out, `,"result":`...)
		out, err := protocol.AppendMarshal(out, &res)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		out = append(out, '}')
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(out)
	})
}

func toolNames(n int) []string {
	if n <= 1 {
		return []string{"echo"}
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("tool%03d", i)
	}
	return names
}

// --- requests -------------------------------------------------------------

// requestTemplate returns a POST with the 2026-07-28 headers for method
// (and Mcp-Name when name is not empty); newRequest copies it over a fresh
// body reader each time.
func requestTemplate(method, name string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", nil)
	r.Host = "localhost"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", revision)
	r.Header.Set("Mcp-Method", method)
	if name != "" {
		r.Header.Set("Mcp-Name", name)
	}
	return r
}

func newRequest(tmpl *http.Request, body []byte) *http.Request {
	r := new(http.Request)
	*r = *tmpl
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return r
}

func serve(h http.Handler, tmpl *http.Request, body []byte) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, newRequest(tmpl, body))
	return rec
}

// --- answers --------------------------------------------------------------

// rpcResponse is the part of a JSON-RPC response the checks look at.
type rpcResponse struct {
	Result *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool              `json:"isError"`
		Tools   []json.RawMessage `json:"tools"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// answer decodes the one JSON-RPC response in rec, from application/json
// or from the last "data:" line of a text/event-stream.
func answer(rec *httptest.ResponseRecorder) (rpcResponse, error) {
	var out rpcResponse
	if rec.Code != http.StatusOK {
		return out, fmt.Errorf("status %d, body %q", rec.Code, rec.Body.String())
	}
	data := rec.Body.Bytes()
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
		var last []byte
		for line := range bytes.Lines(data) {
			if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok && len(bytes.TrimSpace(rest)) > 0 {
				last = bytes.TrimSpace(rest)
			}
		}
		data = last
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return out, fmt.Errorf("decoding %q: %v", rec.Body.String(), err)
	}
	if out.Error != nil {
		return out, fmt.Errorf("JSON-RPC error %d %q", out.Error.Code, out.Error.Message)
	}
	if out.Result == nil {
		return out, fmt.Errorf("no result in %q", rec.Body.String())
	}
	return out, nil
}

// checkCall fails unless rec is a successful echo of echoText.
func checkCall(tb testing.TB, rec *httptest.ResponseRecorder) {
	tb.Helper()
	res, err := answer(rec)
	if err != nil {
		tb.Fatal(err)
	}
	if res.Result.IsError || len(res.Result.Content) != 1 ||
		res.Result.Content[0].Type != "text" || res.Result.Content[0].Text != echoText {
		tb.Fatalf("not an echo of %q: %s", echoText, rec.Body.String())
	}
}

// checkList fails unless rec lists n tools.
func checkList(tb testing.TB, rec *httptest.ResponseRecorder, n int) {
	tb.Helper()
	res, err := answer(rec)
	if err != nil {
		tb.Fatal(err)
	}
	if len(res.Result.Tools) != n {
		tb.Fatalf("tools/list gave %d tools, want %d", len(res.Result.Tools), n)
	}
}

// --- benchmarks -----------------------------------------------------------

func benchServe(b *testing.B, h http.Handler, tmpl *http.Request, body []byte, check func(testing.TB, *httptest.ResponseRecorder)) {
	check(b, serve(h, tmpl, body))
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newRequest(tmpl, body))
	}
}

func BenchmarkToolsCall(b *testing.B) {
	tmpl := requestTemplate("tools/call", "echo")
	b.Run("mcpwire", func(b *testing.B) {
		benchServe(b, mcpwireHandler(b, 1), tmpl, callBody, checkCall)
	})
	b.Run("gosdk", func(b *testing.B) {
		benchServe(b, gosdkHandler(b, 1), tmpl, callBody, checkCall)
	})
	b.Run("floor", func(b *testing.B) {
		benchServe(b, floorHandler(), tmpl, callBody, checkCall)
	})
	b.Run("bare", func(b *testing.B) {
		benchServe(b, bareHandler(), tmpl, callBody, checkCall)
	})
}

func BenchmarkToolsList100(b *testing.B) {
	tmpl := requestTemplate("tools/list", "")
	check := func(tb testing.TB, rec *httptest.ResponseRecorder) { checkList(tb, rec, listTools) }
	b.Run("mcpwire", func(b *testing.B) {
		benchServe(b, mcpwireHandler(b, listTools), tmpl, listBody, check)
	})
	b.Run("gosdk", func(b *testing.B) {
		benchServe(b, gosdkHandler(b, listTools), tmpl, listBody, check)
	})
}

// --- legacy (dual era) ----------------------------------------------------

// legacyRevision is the version of the legacy session in
// BenchmarkToolsCallLegacy.
const legacyRevision = "2025-11-25"

var legacyCallBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + echoText + `"}}}`)

// mcpwireBothHandler is mcpwireHandler serving both eras (the default): the
// same typed echo tool, serving 2026-07-28 requests and legacy sessions
// (memory session store) on one endpoint.
func mcpwireBothHandler(tb testing.TB) http.Handler {
	tb.Helper()
	return mcpwireHandler(tb, 1)
}

// openLegacySession runs initialize and notifications/initialized at
// legacyRevision through h and returns the request template of a call in
// that session: Mcp-Session-Id and MCP-Protocol-Version, no Mcp-Method or
// Mcp-Name (a legacy client sends neither).
func openLegacySession(tb testing.TB, h http.Handler) *http.Request {
	tb.Helper()
	base := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", nil)
	base.Host = "localhost"
	base.Header.Set("Content-Type", "application/json")
	base.Header.Set("Accept", "application/json, text/event-stream")
	init := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + legacyRevision +
		`","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	rec := serve(h, base, init)
	sid := rec.Header().Get("Mcp-Session-Id")
	if rec.Code != http.StatusOK || sid == "" || !strings.Contains(rec.Body.String(), `"protocolVersion":"`+legacyRevision+`"`) {
		tb.Fatalf("initialize: %d, session %q: %s", rec.Code, sid, rec.Body.String())
	}
	tmpl := base.Clone(context.Background())
	tmpl.Header.Set("Mcp-Session-Id", sid)
	tmpl.Header.Set("MCP-Protocol-Version", legacyRevision)
	if rec := serve(h, tmpl, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); rec.Code != http.StatusAccepted {
		tb.Fatalf("notifications/initialized: %d %s", rec.Code, rec.Body.String())
	}
	return tmpl
}

// checkLegacyCall is checkCall for a legacy answer: the echo, as JSON,
// without the 2026-07-28 resultType.
func checkLegacyCall(tb testing.TB, rec *httptest.ResponseRecorder) {
	tb.Helper()
	checkCall(tb, rec)
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		tb.Fatalf("Content-Type %q, want application/json", ct)
	}
	if strings.Contains(rec.Body.String(), "resultType") {
		tb.Fatalf("a 2025-11-25 answer carries resultType: %s", rec.Body.String())
	}
}

// BenchmarkToolsCallLegacy is BenchmarkToolsCall's mcpwire row for a
// legacy client (docs/dual-era.md §10.7): one initialize and
// notifications/initialized in setup, then per iteration a 2025-11-25
// tools/call in that session, through ServeHTTP, same tool, JSON answer.
// The "modern" row is the 2026-07-28 call on the same ErasBoth server.
// TestLegacyCallRatio gates legacy ns/op against BenchmarkToolsCall's
// mcpwire row.
func BenchmarkToolsCallLegacy(b *testing.B) {
	b.Run("mcpwire", func(b *testing.B) {
		h := mcpwireBothHandler(b)
		benchServe(b, h, openLegacySession(b, h), legacyCallBody, checkLegacyCall)
	})
	b.Run("mcpwire-modern-ErasBoth", func(b *testing.B) {
		benchServe(b, mcpwireBothHandler(b), requestTemplate("tools/call", "echo"), callBody, checkCall)
	})
}
