package redisstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// Legacy sessions of Streamable HTTP across instances (docs/dual-era.md
// §7.3, the scenarios a shared SessionStore carries by itself): two
// dual-era servers, each with its own Redis client, store and broker, as
// separate processes behind one load balancer would be.

// legacyRev is the legacy revision of these tests' clients.
const legacyRev = "2025-11-25"

// xUser authenticates by the X-User header, for principal binding.
func xUser(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }

// sessionInstance is a dual-era server named name whose legacy sessions
// live in a Redis SessionStore (prefix) and whose events go through a
// Redis broker (channel). Tool "where" answers the instance's name;
// resource test://doc can be subscribed to.
func sessionInstance(t *testing.T, name string, opt *redis.Options, prefix, channel string, l legacy.Config, opts ...Option) (*instance, *SessionStore) {
	t.Helper()
	rdb := newClient(t, opt)
	st := newSessionStore(t, rdb, append([]Option{WithPrefix(prefix)}, opts...)...)
	l.Store = st
	in := &instance{name: name, b: newBroker(t, rdb, WithChannel(channel))}
	s := newTestServer(t,
		server.WithBroker(in.b),
	)
	in.s = s
	schema := objectSchema(t)
	if err := s.AddTool(protocol.Tool{Name: "where", InputSchema: schema}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult(name), nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResource(protocol.Resource{URI: "test://doc", Name: "doc"}, func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return server.TextContents(uri, "text/plain", "doc"), nil
	}); err != nil {
		t.Fatal(err)
	}
	era, err := legacy.New(s, l)
	if err != nil {
		t.Fatal(err)
	}
	in.srv = httptest.NewServer(streamhttp.Handler(s, streamhttp.Options{Authenticate: xUser, Legacy: era}))
	t.Cleanup(in.srv.Close)
	return in, st
}

// legacyAnswer is one answer of a legacy exchange.
type legacyAnswer struct {
	status int
	header http.Header
	msg    struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	body []byte
}

// legacyClient is a 2025-11-25 client of Streamable HTTP authenticated as
// user (X-User), which keeps its session id. It may send each request to
// another instance, as a load balancer would.
type legacyClient struct {
	t    *testing.T
	user string
	sid  string
}

// send sends one request (verb, body) to in, in the client's session if
// it has one, as such a client does (no Mcp-Method, no _meta).
func (c *legacyClient) send(in *instance, verb, body string) *legacyAnswer {
	c.t.Helper()
	req, err := http.NewRequest(verb, in.srv.URL, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if verb == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-User", c.user)
	if c.sid != "" {
		req.Header.Set(legacy.HeaderSessionID, c.sid)
		req.Header.Set(server.HeaderProtocolVersion, legacyRev)
	}
	resp, b := c.roundTrip(in, req)
	a := &legacyAnswer{status: resp.StatusCode, header: resp.Header, body: b}
	if len(bytes.TrimSpace(a.body)) > 0 {
		if err := json.Unmarshal(a.body, &a.msg); err != nil {
			c.t.Fatalf("%s on %s: %d %s: %v", verb, in.name, a.status, a.body, err)
		}
	}
	return a
}

// roundTrip sends req to in within 10 s and reads the whole answer.
func (c *legacyClient) roundTrip(in *instance, req *http.Request) (*http.Response, []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := in.srv.Client().Do(req.WithContext(ctx))
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp, b
}

// call sends a request with id 1.
func (c *legacyClient) call(in *instance, method, params string) *legacyAnswer {
	c.t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `"`
	if params != "" {
		body += `,"params":` + params
	}
	return c.send(in, http.MethodPost, body+"}")
}

const initializeParams = `{"protocolVersion":"` + legacyRev + `","capabilities":{},"clientInfo":{"name":"legacy","version":"1"}}`

// open initializes a session on in and keeps its id.
func (c *legacyClient) open(in *instance) *legacyClient {
	c.t.Helper()
	a := c.call(in, "initialize", initializeParams)
	sid := a.header.Get(legacy.HeaderSessionID)
	if a.status != http.StatusOK || len(sid) != 43 || a.msg.Error != nil {
		c.t.Fatalf("initialize on %s: %d, Mcp-Session-Id %q: %s", in.name, a.status, sid, a.body)
	}
	c.sid = sid
	return c
}

// key is the store key of the client's session.
func (c *legacyClient) key() string {
	sum := sha256.Sum256([]byte(c.sid))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// wantStatus checks an answer's status (and, for 200, that it is a
// result).
func wantStatus(t *testing.T, what string, a *legacyAnswer, status int) {
	t.Helper()
	if a.status != status || status == http.StatusOK && a.msg.Error != nil {
		t.Errorf("%s: %d %s, want %d", what, a.status, a.body, status)
	}
}

// A session opened on A is served on B; its state changed through either
// is seen by both; a DELETE on B ends it for A (404, as Session
// Management item 3 of the spec requires).
func TestLegacySessionAcrossInstances(t *testing.T) {
	opt := testRedis(t)
	p, ch := uniquePrefix(t), uniqueChannel(t)
	a, sa := sessionInstance(t, "A", opt, p, ch, legacy.Config{})
	b, _ := sessionInstance(t, "B", opt, p, ch, legacy.Config{})
	ctx := ctx5(t)

	c := (&legacyClient{t: t, user: "alice"}).open(a)
	wantStatus(t, "notifications/initialized on B", c.send(b, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`), http.StatusAccepted)
	call := c.call(b, "tools/call", `{"name":"where","arguments":{}}`)
	wantStatus(t, "tools/call on B", call, http.StatusOK)
	if !strings.Contains(string(call.msg.Result), `"text":"B"`) {
		t.Errorf("tools/call on B answered %s", call.body)
	}
	wantStatus(t, "logging/setLevel on A", c.call(a, "logging/setLevel", `{"level":"debug"}`), http.StatusOK)
	wantStatus(t, "resources/subscribe on B", c.call(b, "resources/subscribe", `{"uri":"test://doc"}`), http.StatusOK)

	// The one record holds what each instance changed; another user's
	// requests do not find it.
	rec, err := sa.Get(ctx, "alice", c.key())
	if err != nil || !rec.Initialized || rec.LogLevel != "debug" || len(rec.Subscriptions) != 1 || rec.ProtocolVersion != legacyRev {
		t.Fatalf("the stored session: %+v %v", rec, err)
	}
	mallory := &legacyClient{t: t, user: "mallory", sid: c.sid}
	wantStatus(t, "the session used by another principal", mallory.call(b, "ping", ""), http.StatusNotFound)

	wantStatus(t, "DELETE on B", c.send(b, http.MethodDelete, ""), http.StatusNoContent)
	wantStatus(t, "tools/list on A after the DELETE on B", c.call(a, "tools/list", ""), http.StatusNotFound)
	wantStatus(t, "DELETE again, on A", c.send(a, http.MethodDelete, ""), http.StatusNotFound)
	if _, err := sa.Get(ctx, "alice", c.key()); err == nil {
		t.Error("the record outlived the DELETE")
	}
}

// The session limits hold across instances: a principal at
// MaxSessionsPerPrincipal that opens a session on B evicts its least
// recently used one, made on A (404 on both); MaxSessions counts every
// instance's sessions (503 with Retry-After: 30), but a principal at its
// own limit still replaces its own.
func TestLegacySessionLimitsAcrossInstances(t *testing.T) {
	opt := testRedis(t)
	p, ch := uniquePrefix(t), uniqueChannel(t)
	lim := legacy.Config{MaxSessionsPerPrincipal: 2, MaxSessions: 3}
	a, _ := sessionInstance(t, "A", opt, p, ch, lim)
	b, _ := sessionInstance(t, "B", opt, p, ch, lim)

	first := (&legacyClient{t: t, user: "alice"}).open(a)
	second := (&legacyClient{t: t, user: "alice"}).open(b)
	third := (&legacyClient{t: t, user: "alice"}).open(b) // alice is at her limit: first goes
	wantStatus(t, "the evicted session, on A", first.call(a, "ping", ""), http.StatusNotFound)
	wantStatus(t, "the evicted session, on B", first.call(b, "ping", ""), http.StatusNotFound)
	for _, c := range []*legacyClient{second, third} {
		wantStatus(t, "a session kept", c.call(a, "ping", ""), http.StatusOK)
	}

	(&legacyClient{t: t, user: "bob"}).open(a) // the store is full: alice 2, bob 1
	full := (&legacyClient{t: t, user: "carol"}).call(b, "initialize", initializeParams)
	if full.status != http.StatusServiceUnavailable || full.header.Get("Retry-After") != "30" || full.header.Get(legacy.HeaderSessionID) != "" {
		t.Errorf("initialize in a full store: %d Retry-After %q %s", full.status, full.header.Get("Retry-After"), full.body)
	}
	fourth := (&legacyClient{t: t, user: "alice"}).open(a)
	wantStatus(t, "alice's new session", fourth.call(b, "ping", ""), http.StatusOK)
	wantStatus(t, "alice's least recently used session", second.call(b, "ping", ""), http.StatusNotFound)
}

// The session's GET stream, held on A, receives the list_changed that a
// registration on B causes, through the broker; a DELETE on B then ends
// A's stream (issue 10, "two instances": docs/dual-era.md §7.3).
func TestLegacyGETStreamAcrossInstances(t *testing.T) {
	opt := testRedis(t)
	p, ch := uniquePrefix(t), uniqueChannel(t)
	a, _ := sessionInstance(t, "A", opt, p, ch, legacy.Config{})
	b, _ := sessionInstance(t, "B", opt, p, ch, legacy.Config{})
	c := (&legacyClient{t: t, user: "alice"}).open(a)
	wantStatus(t, "notifications/initialized on B", c.send(b, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`), http.StatusAccepted)

	onA := c.streamLines(a)
	if prime := nextLine(t, onA); !strings.HasPrefix(prime, "id: ") {
		t.Fatalf("A's stream starts with %q, want the priming event", prime)
	}
	nextLine(t, onA) // the priming event's empty data
	err := b.s.AddTool(protocol.Tool{Name: "added_on_b", InputSchema: protocol.ToolInputSchema{}}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("b"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if id, data := nextLine(t, onA), nextLine(t, onA); !strings.HasPrefix(id, "id: ") || !strings.Contains(data, "notifications/tools/list_changed") {
		t.Fatalf("A's stream after a tool was added on B: %q %q", id, data)
	}
	wantStatus(t, "DELETE on B", c.send(b, http.MethodDelete, ""), http.StatusNoContent)
	for {
		if l := nextLine(t, onA); l == "EOF" {
			break
		} else if strings.HasPrefix(l, "data: ") {
			t.Fatalf("A's stream sent %q after the DELETE on B", l)
		}
	}
}
