package testkit

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

const (
	Rev         = protocol.Revision
	KeyVersion  = "io.modelcontextprotocol/protocolVersion"
	KeyCaps     = "io.modelcontextprotocol/clientCapabilities"
	KeyLogLevel = "io.modelcontextprotocol/logLevel"
	KeyInfo     = "io.modelcontextprotocol/serverInfo"
	Loopback    = "localhost:8080"
)

// M is a JSON object under construction.
type M = map[string]any

// meta returns a valid request _meta (revision rev, no capabilities) with
// kv merged in (key, value, key, value ...).
func Meta(kv ...any) M {
	m := M{KeyVersion: Rev, KeyCaps: M{}}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// params returns request params with a valid _meta and the members of m.
func Params(m M) M {
	p := M{"_meta": Meta()}
	for k, v := range m {
		p[k] = v
	}
	return p
}

// withMeta returns request params whose _meta is mt.
func WithMeta(mt M, m M) M {
	p := M{"_meta": mt}
	for k, v := range m {
		p[k] = v
	}
	return p
}

// rpc encodes a JSON-RPC request; params nil leaves params out.
func Rpc(id any, method string, p any) []byte {
	m := M{"jsonrpc": "2.0", "id": id, "method": method}
	if p != nil {
		m["params"] = p
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// mirror returns the standard headers that mirror a request body
// (R-HDR-01..04): MCP-Protocol-Version, Mcp-Method and, where required,
// Mcp-Name. Values are taken from the body as sent; a body that does not
// parse gives only what could be read.
func Mirror(body []byte) http.Header {
	h := http.Header{}
	var probe struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]any `json:"_meta"`
			Name any            `json:"name"`
			URI  any            `json:"uri"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &probe)
	if v, ok := probe.Params.Meta[KeyVersion].(string); ok {
		h.Set(server.HeaderProtocolVersion, v)
	}
	if probe.Method != "" {
		h.Set(server.HeaderMethod, probe.Method)
	}
	var name any
	switch probe.Method {
	case protocol.MethodToolsCall, protocol.MethodPromptsGet:
		name = probe.Params.Name
	case protocol.MethodResourcesRead:
		name = probe.Params.URI
	}
	if s, ok := name.(string); ok {
		h.Set(server.HeaderName, HeaderText(s))
	}
	return h
}

// headerText encodes a header value like a conforming client: plain when
// it is visible ASCII, the base64 sentinel otherwise (R-HDR-05).
func HeaderText(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return Sentinel(s)
		}
	}
	if strings.HasPrefix(s, "=?base64?") || strings.TrimSpace(s) != s {
		return Sentinel(s)
	}
	return s
}

func B64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func Sentinel(s string) string {
	return "=?base64?" + B64(s) + "?="
}

// post is one HTTP exchange. mod may change the request before it is
// served (headers, Host, method).
func Post(t testing.TB, h http.Handler, body []byte, mod func(r *http.Request)) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
	r.Host = Loopback
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range Mirror(body) {
		r.Header[k] = v
	}
	if mod != nil {
		mod(r)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// wire is one decoded JSON-RPC message as the server wrote it.
type Wire struct {
	Raw     []byte
	Members map[string]json.RawMessage
	Result  M
	Error   *WireError
}

type WireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func DecodeWire(t testing.TB, b []byte) *Wire {
	t.Helper()
	w := &Wire{Raw: b}
	if err := json.Unmarshal(b, &w.Members); err != nil {
		t.Fatalf("server wrote a message that is not a JSON object: %v: %q", err, b)
	}
	if r, ok := w.Members["result"]; ok {
		if err := json.Unmarshal(r, &w.Result); err != nil {
			t.Fatalf("result is not an object: %q", b)
		}
	}
	if e, ok := w.Members["error"]; ok {
		w.Error = &WireError{}
		if err := json.Unmarshal(e, w.Error); err != nil {
			t.Fatalf("error is not an error object: %q", b)
		}
	}
	if string(w.Members["jsonrpc"]) != `"2.0"` {
		t.Fatalf("R-BASE-02: message without jsonrpc 2.0: %q", b)
	}
	return w
}

// id is the raw id member, "" when absent.
func (w *Wire) Id() string { return string(w.Members["id"]) }

func (w *Wire) HasID() bool { _, ok := w.Members["id"]; return ok }

func (w *Wire) Method() string {
	var m string
	_ = json.Unmarshal(w.Members["method"], &m)
	return m
}

func (w *Wire) Params() M {
	var m M
	_ = json.Unmarshal(w.Members["params"], &m)
	return m
}

// code is the error code, 0 for a result.
func (w *Wire) Code() int64 {
	if w.Error == nil {
		return 0
	}
	return w.Error.Code
}

// data decodes the error data.
func (w *Wire) Data(t testing.TB) M {
	t.Helper()
	if w.Error == nil || w.Error.Data == nil {
		t.Fatalf("no error data in %s", w.Raw)
	}
	var m M
	if err := json.Unmarshal(w.Error.Data, &m); err != nil {
		t.Fatalf("error data is not an object: %s", w.Raw)
	}
	return m
}

// text returns the text of content block i of a tools/call result.
func (w *Wire) Text(t testing.TB, i int) string {
	t.Helper()
	c, _ := w.Result["content"].([]any)
	if i >= len(c) {
		t.Fatalf("result has %d content blocks, want > %d: %s", len(c), i, w.Raw)
	}
	b, _ := c[i].(M)
	s, _ := b["text"].(string)
	return s
}

func (w *Wire) IsError() bool {
	b, _ := w.Result["isError"].(bool)
	return b
}

// single decodes a plain JSON response.
func Single(t testing.TB, rec *httptest.ResponseRecorder) *Wire {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json (R-HTTP-07); body %q", ct, rec.Body.Bytes())
	}
	return DecodeWire(t, rec.Body.Bytes())
}

// sseMessages splits an event stream into its JSON-RPC messages.
func SseMessages(t testing.TB, body []byte) []*Wire {
	t.Helper()
	var out []*Wire
	for _, ev := range strings.Split(string(body), "\n\n") {
		if strings.TrimSpace(ev) == "" {
			continue
		}
		var data []string
		for _, line := range strings.Split(ev, "\n") {
			switch {
			case strings.HasPrefix(line, "data: "):
				data = append(data, strings.TrimPrefix(line, "data: "))
			case strings.HasPrefix(line, "event: "), strings.HasPrefix(line, ":"), strings.HasPrefix(line, "id: "):
			default:
				t.Fatalf("unexpected SSE line %q", line)
			}
		}
		if len(data) == 1 && data[0] == "" {
			continue // the priming event of a legacy stream (docs/dual-era.md §4.8)
		}
		out = append(out, DecodeWire(t, []byte(strings.Join(data, "\n"))))
	}
	return out
}

// call posts a request with correct headers to h and decodes the JSON
// response, failing unless the status is want.
func Call(t testing.TB, h http.Handler, id any, method string, p any) *Wire {
	t.Helper()
	rec := Post(t, h, Rpc(id, method, p), nil)
	return Single(t, rec)
}

// discard is a logger that drops everything.
func Discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newServer returns a Server named "test" that logs nowhere.
func NewServer(t testing.TB, opts ...any) *server.Server {
	t.Helper()
	s, err := NewWithEras(protocol.Implementation{Name: "test", Version: "1.0.0"}, append([]any{server.WithLogger(Discard())}, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// toolDef decodes a Tool from JSON.
func ToolDef(t testing.TB, js string) protocol.Tool {
	t.Helper()
	var d protocol.Tool
	if err := protocol.Unmarshal([]byte(js), &d); err != nil {
		t.Fatalf("tool %s: %v", js, err)
	}
	return d
}

// addTool registers a tool from its JSON definition.
func AddTool(t testing.TB, s *server.Server, js string, h server.ToolHandler, opts ...server.ToolOption) {
	t.Helper()
	if err := s.AddTool(ToolDef(t, js), h, opts...); err != nil {
		t.Fatalf("AddTool %s: %v", js, err)
	}
}

// addPrompt registers a prompt and fails the test if it cannot.
func AddPrompt(t testing.TB, s *server.Server, p protocol.Prompt, h server.PromptHandler, opts ...server.PromptOption) {
	t.Helper()
	if err := s.AddPrompt(p, h, opts...); err != nil {
		t.Fatal(err)
	}
}

// addResource registers a resource and fails the test if it cannot.
func AddResource(t testing.TB, s *server.Server, r protocol.Resource, h server.ResourceHandler, opts ...server.ResourceOption) {
	t.Helper()
	if err := s.AddResource(r, h, opts...); err != nil {
		t.Fatal(err)
	}
}

func TextTool(text string) server.ToolHandler {
	return func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult(text), nil
	}
}

// fixture is a server with one of everything, for the tests that only
// need a well-behaved server.
func Fixture(t testing.TB, opts ...any) *server.Server {
	t.Helper()
	s := NewServer(t, opts...)
	AddTool(t, s, `{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`,
		func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			var a struct{ Text string }
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return server.TextResult(a.Text), nil
		})
	AddTool(t, s, `{"name":"hdr","inputSchema":{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"count":{"type":"integer","x-mcp-header":"Count"},
		"flag":{"type":"boolean","x-mcp-header":"Flag"},
		"loc":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}}}}}`, TextTool("ok"))
	AddTool(t, s, `{"name":"whoami","inputSchema":{"type":"object"}}`,
		func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			return server.TextResult("principal=" + r.Principal), nil
		})
	AddTool(t, s, `{"name":"fail","inputSchema":{"type":"object"}}`,
		func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return nil, errors.New("disk on fire")
		})
	AddTool(t, s, `{"name":"ask","inputSchema":{"type":"object"}}`,
		func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if resp, ok := r.InputResponse("name"); ok && string(r.State()) == "asked" {
				if er, ok := resp.Value.(*protocol.ElicitResult); ok && er.Action == protocol.ElicitResultActionAccept {
					return server.TextResult("hello"), nil
				}
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{"name": server.ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("")}, "name")}, []byte("asked"))
		})
	AddPrompt(t, s, protocol.Prompt{Name: "greet", Arguments: []protocol.PromptArgument{{Name: "who", Required: TPtr(true)}}},
		func(_ context.Context, _ *server.Request, args map[string]string) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: protocol.RoleUser, Content: server.Text("Hello " + args["who"])}}}, nil
		})
	AddPrompt(t, s, protocol.Prompt{Name: "grüße"},
		func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: protocol.RoleUser, Content: server.Text("Grüße")}}}, nil
		})
	AddResource(t, s, protocol.Resource{URI: "file:///a.txt", Name: "a"},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.TextContents(uri, "text/plain", "A"), nil
		})
	if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "users://{id}/profile", Name: "profile"},
		func(_ context.Context, _ *server.Request, uri string, vars map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			if vars["id"] == "nobody" {
				return nil, server.ErrNotFound
			}
			return server.TextContents(uri, "", "user "+vars["id"]), nil
		}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TPtr[T any](v T) *T { return &v }

// checkCode fails for a code the runtime must never emit: -32000..-32019
// (R-BASE-13), -32002 and -32042 (R-BASE-14), and any code of
// -32099..-32020 that the revision does not define (R-BASE-12).
func CheckCode(t testing.TB, code int64) {
	t.Helper()
	switch {
	case code >= -32019 && code <= -32000:
		t.Errorf("R-BASE-13: error code %d in -32000..-32019", code)
	case code >= -32099 && code <= -32020 && code != protocol.CodeHeaderMismatchError &&
		code != protocol.CodeMissingRequiredClientCapabilityError && code != protocol.CodeUnsupportedProtocolVersionError:
		t.Errorf("R-BASE-12: undefined error code %d", code)
	}
}
