package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// The wire driver of the tasks tests: requests are built as JSON maps,
// posted to a streamhttp.Handler with the headers a conforming client
// sends, and the answers decoded into maps. (Package server's own test
// helpers are not reachable from here.)

const (
	keyVersion  = "io.modelcontextprotocol/protocolVersion"
	keyCaps     = "io.modelcontextprotocol/clientCapabilities"
	keyLogLevel = "io.modelcontextprotocol/logLevel"
	keyInfo     = "io.modelcontextprotocol/serverInfo"
)

// M is a JSON object under construction.
type M = map[string]any

// tasksCaps declares the tasks extension and nothing else.
var tasksCaps = M{"extensions": M{ExtensionID: M{}}}

// meta is a valid request _meta (no capabilities) with kv (key, value,
// ...) merged in.
func meta(kv ...any) M {
	out := M{keyVersion: protocol.Revision, keyCaps: M{}}
	for len(kv) >= 2 {
		out[kv[0].(string)], kv = kv[1], kv[2:]
	}
	return out
}

// withMeta is the params m with the _meta mt.
func withMeta(mt M, m M) M {
	out := make(M, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out["_meta"] = mt
	return out
}

// params is m with a _meta that declares nothing.
func params(m M) M { return withMeta(meta(), m) }

// tparams is m with a _meta that declares caps.
func tparams(caps M, m M) M { return withMeta(meta(keyCaps, caps), m) }

// jsonText encodes v (null when it cannot be).
func jsonText(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// jsonEq reports whether two JSON texts hold the same value.
func jsonEq(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		t.Fatalf("not JSON: %q or %q", a, b)
	}
	return reflect.DeepEqual(x, y)
}

var reqSeq atomic.Int64

// request is a POST of one JSON-RPC request with the headers that mirror
// its body (MCP-Protocol-Version, Mcp-Method, and Mcp-Name: the tool's
// name for tools/call, the taskId for tasks/*; R-HDR-01..04, R-TASK-16).
func request(id any, method string, p M) *http.Request {
	body := jsonText(M{"jsonrpc": "2.0", "id": id, "method": method, "params": p})
	r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
	r.Host = "localhost:8080"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set(server.HeaderMethod, method)
	if mt, ok := p["_meta"].(M); ok {
		if v, ok := mt[keyVersion].(string); ok {
			r.Header.Set(server.HeaderProtocolVersion, v)
		}
	}
	name, _ := p["name"].(string)
	if id, ok := p["taskId"].(string); ok && strings.HasPrefix(method, "tasks/") {
		name = id
	}
	if name != "" {
		r.Header.Set(server.HeaderName, name)
	}
	return r
}

// post serves one request on h; mod may change it first.
func post(h http.Handler, id any, method string, p M, mod func(*http.Request)) *httptest.ResponseRecorder {
	r, w := request(id, method, p), httptest.NewRecorder()
	if mod != nil {
		mod(r)
	}
	h.ServeHTTP(w, r)
	return w
}

// wire is one decoded JSON-RPC response: raw as written, and its result
// or its error object.
type wire struct {
	raw    []byte
	Result M
	Error  *rpcError
}

type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// single decodes the plain JSON response of rec.
func single(t testing.TB, rec *httptest.ResponseRecorder) *wire {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json (R-HTTP-07); body %q", ct, rec.Body.Bytes())
	}
	return decode(t, rec.Body.Bytes())
}

// decode decodes one JSON-RPC response.
func decode(t testing.TB, raw []byte) *wire {
	t.Helper()
	w := &wire{raw: raw}
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(w.raw, &env); err != nil || env.JSONRPC != "2.0" {
		t.Fatalf("R-BASE-02: not a JSON-RPC 2.0 message: %q", w.raw)
	}
	if env.Result != nil && json.Unmarshal(env.Result, &w.Result) != nil {
		t.Fatalf("result is not an object: %q", w.raw)
	}
	if env.Error != nil && json.Unmarshal(env.Error, &w.Error) != nil {
		t.Fatalf("error is not an error object: %q", w.raw)
	}
	return w
}

// tcall posts one request with the headers a conforming client sends and
// decodes the response.
func tcall(t testing.TB, h http.Handler, method string, p M, mod func(*http.Request)) *wire {
	t.Helper()
	return single(t, post(h, reqSeq.Add(1), method, p, mod))
}

// code is the error code, 0 for a result.
func (w *wire) code() (c int64) {
	if w.Error != nil {
		c = w.Error.Code
	}
	return c
}

// data decodes the error data.
func (w *wire) data(t testing.TB) M {
	t.Helper()
	var m M
	if w.Error == nil || json.Unmarshal(w.Error.Data, &m) != nil {
		t.Fatalf("no error data object in %s", w.raw)
	}
	return m
}

// text is the text of content block i of a tools/call result.
func (w *wire) text(t testing.TB, i int) string {
	t.Helper()
	if blocks, _ := w.Result["content"].([]any); i < len(blocks) {
		s, _ := blocks[i].(M)["text"].(string)
		return s
	}
	t.Fatalf("result has no content block %d: %s", i, w.raw)
	return ""
}

func (w *wire) isError() bool { return w.Result["isError"] == true }

// newServer is a Server that logs nowhere.
func newServer(t testing.TB, opts ...server.Option) *server.Server {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := server.New(protocol.Implementation{Name: "test", Version: "1.0.0"}, append([]server.Option{server.WithLogger(quiet)}, opts...)...)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	return s
}

// toolDef decodes a tool definition; addTool registers one.
func toolDef(t testing.TB, js string) (d protocol.Tool) {
	t.Helper()
	if err := protocol.Unmarshal([]byte(js), &d); err != nil {
		t.Fatalf("tool %s: %v", js, err)
	}
	return d
}

func addTool(t testing.TB, s *server.Server, js string, h server.ToolHandler, opts ...server.ToolOption) {
	t.Helper()
	if err := s.AddTool(toolDef(t, js), h, opts...); err != nil {
		t.Fatalf("AddTool %s: %v", js, err)
	}
}

func textTool(text string) server.ToolHandler {
	return func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult(text), nil
	}
}

// checkCode fails for a code the runtime must never emit: -32000..-32019
// (R-BASE-13) and any of -32099..-32020 the revision does not define
// (R-BASE-12, R-BASE-14).
func checkCode(t testing.TB, code int64) {
	t.Helper()
	switch code {
	case protocol.CodeHeaderMismatchError, protocol.CodeMissingRequiredClientCapabilityError, protocol.CodeUnsupportedProtocolVersionError:
		return
	}
	if code >= -32099 && code <= -32000 {
		t.Errorf("R-BASE-12/13: error code %d must not be emitted", code)
	}
}

// waitFor polls cond until it holds, for up to 5 s.
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
	}
}

// captureBroker is an in-process broker that records what is published.
type captureBroker struct {
	server.Broker
	mu     sync.Mutex
	events []server.Event
}

func newCaptureBroker() *captureBroker { return &captureBroker{Broker: server.NewLocalBroker()} }

func (b *captureBroker) Publish(ctx context.Context, ev server.Event) error {
	b.mu.Lock()
	b.events = append(b.events, ev)
	b.mu.Unlock()
	return b.Broker.Publish(ctx, ev)
}

// tasks returns the task events of id, decoded.
func (b *captureBroker) tasks(id string) []M {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []M
	for _, ev := range b.events {
		if ev.Kind == server.EventExtension && ev.Extension == ExtensionID && ev.Key == id {
			var m M
			_ = json.Unmarshal(ev.Data, &m)
			out = append(out, m)
		}
	}
	return out
}

func (b *captureBroker) sawStatus(id, status string) bool {
	for _, m := range b.tasks(id) {
		if m["status"] == status {
			return true
		}
	}
	return false
}

// taskFixture is a server with the tasks extension (its manager kept, to
// see what runs) and a capturing broker.
type taskFixture struct {
	s      *server.Server
	m      *taskManager
	h      http.Handler
	broker *captureBroker
}

// withManager is WithTasks(cfg) that also returns the manager.
func withManager(cfg TaskConfig) (server.Option, *taskManager) {
	m := newManager(cfg)
	return server.WithExtension(m.extension()), m
}

func newTaskFixture(t testing.TB, cfg TaskConfig, opts ...server.Option) *taskFixture {
	t.Helper()
	b := newCaptureBroker()
	ext, m := withManager(cfg)
	s := newServer(t, append([]server.Option{server.WithBroker(b), ext}, opts...)...)
	t.Cleanup(func() { waitIdle(t, m) })
	return &taskFixture{s: s, m: m, h: streamhttp.Handler(s, streamhttp.Options{}), broker: b}
}

// running is the number of tasks running on m.
func (m *taskManager) runningNow() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.running
}

// waitIdle waits until no task runs on m and its broker subscription and
// signal channels are released.
func waitIdle(t testing.TB, m *taskManager) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		m.mu.Lock()
		running, sub, signals := m.running, m.subStop != nil, len(m.signals)
		m.mu.Unlock()
		if running == 0 && !sub && signals == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tasks still running: running %d, subscribed %v, signals %d", running, sub, signals)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (f *taskFixture) tool(t testing.TB, name string, o TaskOptions, h server.ToolHandler) {
	t.Helper()
	if err := f.s.AddTool(toolDef(t, `{"name":`+string(jsonText(name))+`,"inputSchema":{"type":"object"}}`), h, AsTask(o)); err != nil {
		t.Fatal(err)
	}
}

// create calls a task tool as a client declaring caps and returns the
// CreateTaskResult.
func (f *taskFixture) create(t testing.TB, name string, caps M) M {
	t.Helper()
	w := tcall(t, f.h, "tools/call", tparams(caps, M{"name": name, "arguments": M{}}), nil)
	if w.Error != nil || w.Result["resultType"] != "task" {
		t.Fatalf("tools/call %s: want a CreateTaskResult, got %s", name, w.raw)
	}
	return w.Result
}

func (f *taskFixture) get(t testing.TB, id string) *wire {
	t.Helper()
	return tcall(t, f.h, "tasks/get", tparams(tasksCaps, M{"taskId": id}), nil)
}

// waitStatus polls tasks/get until the task has one of the statuses.
func waitStatus(t testing.TB, h http.Handler, id string, statuses ...string) M {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w := tcall(t, h, "tasks/get", tparams(tasksCaps, M{"taskId": id}), nil)
		if w.Error != nil {
			t.Fatalf("tasks/get %s: %s", id, w.raw)
		}
		for _, s := range statuses {
			if w.Result["status"] == s {
				return w.Result
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: status %v, want one of %v", id, w.Result["status"], statuses)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func isoMillis(t testing.TB, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("timestamp %v is not ISO 8601: %v", v, err)
	}
	return tm
}

func nameForm() protocol.InputRequest {
	return server.ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("")}, "name")
}

func accept(content M) M { return M{"action": "accept", "content": content} }
