package redisstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// Two (or three) mcpwire servers, as separate instances behind one load
// balancer would be: each its own Redis client, broker and HTTP listener.

const (
	keyVersion = "io.modelcontextprotocol/protocolVersion"
	keyCaps    = "io.modelcontextprotocol/clientCapabilities"
	keySubID   = "io.modelcontextprotocol/subscriptionId"
)

type M = map[string]any

type instance struct {
	name  string
	s     *server.Server
	b     *Broker
	srv   *httptest.Server
	calls atomic.Int64 // calls that reached the "ask" tool
}

func testKey(fill byte) server.StateKey {
	return server.StateKey{ID: 1, Secret: bytes.Repeat([]byte{fill}, 32)}
}

// newTestServer returns a server named redisstore-test, logging
// nowhere, with opts.
func newTestServer(t *testing.T, opts ...server.Option) *server.Server {
	t.Helper()
	s, err := server.New(protocol.Implementation{Name: "redisstore-test", Version: "1.0.0"},
		append([]server.Option{server.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// objectSchema is the input schema {"type":"object"}.
func objectSchema(t *testing.T) protocol.ToolInputSchema {
	t.Helper()
	var schema protocol.ToolInputSchema
	if err := protocol.Unmarshal([]byte(`{"type":"object"}`), &schema); err != nil {
		t.Fatal(err)
	}
	return schema
}

// newInstance starts a server named name with a Redis broker on channel
// and the state key; it stops when the test ends.
func newInstance(t *testing.T, name string, opt *redis.Options, channel string, key server.StateKey) *instance {
	t.Helper()
	in := &instance{name: name}
	in.b = newBroker(t, newClient(t, opt), WithChannel(channel))
	s := newTestServer(t,
		server.WithBroker(in.b),
		server.WithStateKeys(key),
	)
	in.s = s
	schema := objectSchema(t)
	// "ask" asks for a name through elicitation, carrying state that names
	// the instance that asked; the retry answers with both.
	err := s.AddTool(protocol.Tool{Name: "ask", InputSchema: schema}, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		in.calls.Add(1)
		if resp, ok := r.InputResponse("name"); ok && r.State() != nil {
			if er, ok := resp.Value.(*protocol.ElicitResult); ok && er.Action == protocol.ElicitResultActionAccept {
				return server.TextResult("hello " + er.Content["name"].Str() + "; " + string(r.State()) + ", answered on " + name), nil
			}
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{
			"name": server.ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("")}, "name"),
		}, []byte("asked on "+name))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddResource(protocol.Resource{URI: "test://doc", Name: "doc"}, func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return server.TextContents(uri, "text/plain", "doc"), nil
	}); err != nil {
		t.Fatal(err)
	}
	in.srv = httptest.NewServer(streamhttp.Handler(s, streamhttp.Options{}))
	t.Cleanup(in.srv.Close)
	return in
}

// request builds one POST of a JSON-RPC request with the standard headers.
func (in *instance) request(t *testing.T, id any, method string, params M) *http.Request {
	t.Helper()
	body, err := json.Marshal(M{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, in.srv.URL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(server.HeaderProtocolVersion, protocol.Revision)
	req.Header.Set(server.HeaderMethod, method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set(server.HeaderName, name)
	}
	if id, ok := params["taskId"].(string); ok && strings.HasPrefix(method, "tasks/") {
		req.Header.Set(server.HeaderName, id)
	}
	return req
}

type response struct {
	Result M `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw []byte
}

// call sends one request and decodes its JSON response.
func (in *instance) call(t *testing.T, id any, method string, params M) *response {
	t.Helper()
	return in.do(t, in.request(t, id, method, params))
}

// do sends one request and decodes its JSON response.
func (in *instance) do(t *testing.T, req *http.Request) *response {
	t.Helper()
	method := req.Header.Get(server.HeaderMethod)
	resp, err := in.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s on %s: %d %s: %s", method, in.name, resp.StatusCode, ct, b)
	}
	r := &response{raw: b}
	if err := json.Unmarshal(b, r); err != nil {
		t.Fatalf("%s on %s: %v: %s", method, in.name, err, b)
	}
	return r
}

func meta(caps M) M {
	return M{keyVersion: protocol.Revision, keyCaps: caps}
}

// The first round of a multi round-trip request on A, its retry on B:
// B opens the requestState A sealed (same keys) and completes the call. An
// instance with other keys rejects the state.
func TestMRTRAcrossInstances(t *testing.T) {
	opt := testRedis(t)
	ch := uniqueChannel(t)
	a := newInstance(t, "A", opt, ch, testKey(0xA5))
	b := newInstance(t, "B", opt, ch, testKey(0xA5))
	other := newInstance(t, "C", opt, ch, testKey(0x5A)) // different keys
	if a.srv.URL == b.srv.URL {
		t.Fatal("A and B share a listener")
	}
	caps := M{"elicitation": M{}}

	first := a.call(t, 1, "tools/call", M{"_meta": meta(caps), "name": "ask", "arguments": M{}})
	if first.Error != nil || first.Result["resultType"] != "input_required" {
		t.Fatalf("first round on A: %s", first.raw)
	}
	reqs, _ := first.Result["inputRequests"].(M)
	if in, _ := reqs["name"].(M); in["method"] != "elicitation/create" {
		t.Fatalf("first round on A asks %v", reqs)
	}
	state, _ := first.Result["requestState"].(string)
	if state == "" {
		t.Fatalf("no requestState: %s", first.raw)
	}

	retry := M{
		"_meta":          meta(caps),
		"name":           "ask",
		"arguments":      M{},
		"inputResponses": M{"name": M{"action": "accept", "content": M{"name": "Ann"}}},
		"requestState":   state,
	}
	done := b.call(t, 2, "tools/call", retry)
	if done.Error != nil || done.Result["resultType"] != "complete" {
		t.Fatalf("retry on B: %s", done.raw)
	}
	content, _ := done.Result["content"].([]any)
	if len(content) != 1 || content[0].(M)["text"] != "hello Ann; asked on A, answered on B" {
		t.Fatalf("retry on B answered %s", done.raw)
	}
	if a.calls.Load() != 1 || b.calls.Load() != 1 {
		t.Errorf("handler calls: A %d, B %d; want 1 and 1", a.calls.Load(), b.calls.Load())
	}

	// The same retry on an instance with other keys: -32602, handler not run.
	bad := other.call(t, 3, "tools/call", retry)
	if bad.Error == nil || bad.Error.Code != -32602 || !strings.Contains(bad.Error.Message, "requestState") {
		t.Errorf("retry on C (other keys): %s", bad.raw)
	}
	if other.calls.Load() != 0 {
		t.Error("C ran the handler with a state it cannot open")
	}
}

// listenStream is one open subscriptions/listen response.
type listenStream struct {
	t    *testing.T
	msgs chan M
}

func (in *instance) listen(t *testing.T, id any, filter M) *listenStream {
	t.Helper()
	return in.listenWith(t, id, M{}, filter)
}

func (in *instance) listenWith(t *testing.T, id any, caps M, filter M) *listenStream {
	t.Helper()
	return in.stream(t, in.request(t, id, "subscriptions/listen", M{"_meta": meta(caps), "notifications": filter}))
}

// stream sends a subscriptions/listen request and reads its stream.
func (in *instance) stream(t *testing.T, req *http.Request) *listenStream {
	t.Helper()
	resp, err := in.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() }) // before the server closes: ends the stream
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("listen on %s: %d %s: %s", in.name, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	ls := &listenStream{t: t, msgs: make(chan M, 16)}
	go func() {
		defer close(ls.msgs)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue // event names, keep-alive comments, blank lines
			}
			var m M
			if json.Unmarshal([]byte(data), &m) == nil {
				ls.msgs <- m
			}
		}
	}()
	return ls
}

// next returns the next message of the stream.
func (ls *listenStream) next(d time.Duration) M {
	ls.t.Helper()
	select {
	case m, ok := <-ls.msgs:
		if !ok {
			ls.t.Fatal("listen stream ended")
		}
		return m
	case <-time.After(d):
		ls.t.Fatalf("nothing on the listen stream within %v", d)
	}
	return nil
}

// expect returns the next message, which must be method tagged with the
// subscription id sub (as JSON).
func (ls *listenStream) expect(method, sub string) M {
	ls.t.Helper()
	m := ls.next(5 * time.Second)
	params, _ := m["params"].(M)
	md, _ := params["_meta"].(M)
	got, _ := json.Marshal(md[keySubID])
	if m["method"] != method || string(got) != sub {
		ls.t.Fatalf("got %v, want %s tagged %s", m, method, sub)
	}
	return params
}

// A list change made on A reaches the listen streams of B (and A), each
// tagged with its own subscription id; so does a resource update.
func TestListenAcrossInstances(t *testing.T) {
	opt := testRedis(t)
	ch := uniqueChannel(t)
	a := newInstance(t, "A", opt, ch, testKey(1))
	b := newInstance(t, "B", opt, ch, testKey(1))

	onB := b.listen(t, "listen-on-B", M{"toolsListChanged": true, "resourceSubscriptions": []string{"test://doc"}})
	onB.expect("notifications/subscriptions/acknowledged", `"listen-on-B"`)
	onA := a.listen(t, 7, M{"toolsListChanged": true})
	onA.expect("notifications/subscriptions/acknowledged", `7`)

	start := time.Now()
	if err := a.s.NotifyToolsChanged(); err != nil {
		t.Fatalf("NotifyToolsChanged on A: %v", err)
	}
	onB.expect("notifications/tools/list_changed", `"listen-on-B"`)
	t.Logf("tools list_changed from A to B's listen stream in %v", time.Since(start))
	onA.expect("notifications/tools/list_changed", `7`)

	if err := a.s.NotifyResourceUpdated("test://doc"); err != nil {
		t.Fatal(err)
	}
	if p := onB.expect("notifications/resources/updated", `"listen-on-B"`); p["uri"] != "test://doc" {
		t.Errorf("resources/updated for %v", p["uri"])
	}

	// A change B makes reaches A's stream the same way.
	if err := b.s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	onA.expect("notifications/tools/list_changed", `7`)
	onB.expect("notifications/tools/list_changed", `"listen-on-B"`)
}
