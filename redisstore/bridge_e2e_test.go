package redisstore

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
)

// The input bridge across instances (docs/dual-era.md §6.5, §7.3): a
// handler waiting for its client's input on one instance gets the answer
// POSTed to another, through the Redis SessionStore (PutAnswer, Pending)
// and the Redis broker (EventSession answer, cancel, closed), with a real
// redis-server.

// bridgeTools adds "ask" (elicits a name, answers "hello NAME from
// INSTANCE") and "block" (runs until its context ends, counted) to in.
func bridgeTools(t *testing.T, in *instance, cancelled *atomic.Int64) {
	t.Helper()
	schema := objectSchema(t)
	form := server.ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("")}, "name")
	if err := in.s.AddTool(protocol.Tool{Name: "ask", InputSchema: schema}, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if resp, ok := r.InputResponse("name"); ok {
			if er, ok := resp.Value.(*protocol.ElicitResult); ok && er.Action == protocol.ElicitResultActionAccept {
				return server.TextResult("hello " + er.Content["name"].Str() + " from " + in.name), nil
			}
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{"name": form}, []byte("asked"))
	}); err != nil {
		t.Fatal(err)
	}
	if err := in.s.AddTool(protocol.Tool{Name: "block", InputSchema: schema}, func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		<-ctx.Done()
		cancelled.Add(1)
		return nil, ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
}

// openWith initializes a session on in with the elicitation capability
// and makes it ready.
func (c *legacyClient) openWith(in *instance) *legacyClient {
	c.t.Helper()
	a := c.call(in, "initialize", `{"protocolVersion":"`+legacyRev+`","capabilities":{"elicitation":{}},"clientInfo":{"name":"legacy","version":"1"}}`)
	c.sid = a.header.Get(legacy.HeaderSessionID)
	if a.status != http.StatusOK || c.sid == "" {
		c.t.Fatalf("initialize on %s: %d %s", in.name, a.status, a.body)
	}
	wantStatus(c.t, "notifications/initialized", c.send(in, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`), http.StatusAccepted)
	return c
}

// e2eStream is the SSE answer of a POST, read as it comes.
type e2eStream struct {
	t    *testing.T
	msgs chan map[string]json.RawMessage
}

// stream POSTs a request with id 1 to in and reads its event stream.
func (c *legacyClient) stream(in *instance, method, params string) *e2eStream {
	c.t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	req, _ := http.NewRequest(http.MethodPost, in.srv.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-User", c.user)
	req.Header.Set(legacy.HeaderSessionID, c.sid)
	req.Header.Set(server.HeaderProtocolVersion, legacyRev)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	c.t.Cleanup(cancel)
	resp, err := in.srv.Client().Do(req.WithContext(ctx))
	if err != nil {
		c.t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		c.t.Fatalf("%s on %s: %d %q %s, want an event stream", method, in.name, resp.StatusCode, ct, b)
	}
	st := &e2eStream{t: c.t, msgs: make(chan map[string]json.RawMessage, 16)}
	go func() {
		defer close(st.msgs)
		defer resp.Body.Close()
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadString('\n')
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var m map[string]json.RawMessage
				if json.Unmarshal([]byte(data), &m) == nil {
					st.msgs <- m
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return st
}

// next returns the next message (nil at the end of the stream).
func (st *e2eStream) next() map[string]json.RawMessage {
	st.t.Helper()
	select {
	case m := <-st.msgs:
		return m
	case <-time.After(5 * time.Second):
		st.t.Fatal("no event within 5 s")
	}
	return nil
}

// bridgePair is two instances sharing a Redis store; sameChannel false
// gives them brokers that never hear each other (a lost event).
func bridgePair(t *testing.T, l legacy.Config, sameChannel bool) (a, b *instance, cancelled *atomic.Int64) {
	opt := testRedis(t)
	p, ch := uniquePrefix(t), uniqueChannel(t)
	chB := ch
	if !sameChannel {
		chB = ch + ":other"
	}
	a, _ = sessionInstance(t, "A", opt, p, ch, l)
	b, _ = sessionInstance(t, "B", opt, p, chB, l)
	cancelled = &atomic.Int64{}
	bridgeTools(t, a, cancelled)
	bridgeTools(t, b, cancelled)
	return a, b, cancelled
}

// initialize on A, tools/call on B whose handler elicits, the elicitation
// answered by a POST to A while the handler waits on B: the answer reaches
// B and the call completes (§7.3). With PollInterval an hour, only the
// broker's answer event can wake B; with brokers that never hear each
// other, only B's polling of the store.
func TestBridgeAcrossInstances(t *testing.T) {
	for _, tc := range []struct {
		name string
		poll time.Duration
		same bool
	}{
		{"woken by the broker", time.Hour, true},
		{"the event lost: polling", 50 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b, _ := bridgePair(t, legacy.Config{PollInterval: tc.poll}, tc.same)
			c := (&legacyClient{t: t, user: "alice"}).openWith(a)
			st := c.stream(b, "tools/call", `{"name":"ask","arguments":{}}`)
			req := st.next()
			if string(req["method"]) != `"elicitation/create"` || !strings.HasPrefix(string(req["id"]), `"mcpwire-`) {
				t.Fatalf("want elicitation/create from B: %v", req)
			}
			// A second principal cannot answer it: not its session (404).
			mallory := &legacyClient{t: t, user: "mallory", sid: c.sid}
			answer := `{"jsonrpc":"2.0","id":` + string(req["id"]) + `,"result":{"action":"accept","content":{"name":"Alice"}}}`
			wantStatus(t, "an answer by another principal", mallory.send(a, http.MethodPost, answer), http.StatusNotFound)
			wantStatus(t, "the answer, POSTed to A", c.send(a, http.MethodPost, answer), http.StatusAccepted)
			res := st.next()
			if res == nil || !strings.Contains(string(res["result"]), "hello Alice from B") {
				t.Fatalf("the call on B: %v", res)
			}
			wantStatus(t, "the answer repeated, on B", c.send(b, http.MethodPost, answer), http.StatusAccepted)
		})
	}
}

// A DELETE on B ends the session for A: a bridge call waiting on A ends
// with nothing more sent (§4.3, §7.3).
func TestBridgeDeleteAcrossInstances(t *testing.T) {
	a, b, _ := bridgePair(t, legacy.Config{PollInterval: time.Hour}, true)
	c := (&legacyClient{t: t, user: "alice"}).openWith(a)
	st := c.stream(a, "tools/call", `{"name":"ask","arguments":{}}`)
	if req := st.next(); string(req["method"]) != `"elicitation/create"` {
		t.Fatalf("want elicitation/create: %v", req)
	}
	wantStatus(t, "DELETE on B", c.send(b, http.MethodDelete, ""), http.StatusNoContent)
	if m := st.next(); m != nil {
		t.Errorf("after the DELETE on B, A sent %v", m)
	}
}

// notifications/cancelled posted to A cancels the request running on B:
// a bridge wait (B then cancels its own request, §2.6) and a handler that
// runs until its context ends.
func TestBridgeCancelAcrossInstances(t *testing.T) {
	a, b, cancelled := bridgePair(t, legacy.Config{PollInterval: time.Hour}, true)
	c := (&legacyClient{t: t, user: "alice"}).openWith(a)
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`

	st := c.stream(b, "tools/call", `{"name":"ask","arguments":{}}`)
	req := st.next()
	if string(req["method"]) != `"elicitation/create"` {
		t.Fatalf("want elicitation/create: %v", req)
	}
	wantStatus(t, "cancel on A", c.send(a, http.MethodPost, cancel), http.StatusAccepted)
	n := st.next()
	if n == nil || string(n["method"]) != `"notifications/cancelled"` || !strings.Contains(string(n["params"]), string(req["id"])) {
		t.Errorf("B cancels its request: %v", n)
	}
	if m := st.next(); m != nil {
		t.Errorf("a cancelled request sends nothing more: %v", m)
	}

	done := make(chan *legacyAnswer, 1)
	go func() { done <- c.call(b, "tools/call", `{"name":"block","arguments":{}}`) }()
	time.Sleep(200 * time.Millisecond) // the request reaches its handler on B
	wantStatus(t, "cancel on A", c.send(a, http.MethodPost, cancel), http.StatusAccepted)
	select {
	case ans := <-done:
		if len(strings.TrimSpace(string(ans.body))) != 0 {
			t.Errorf("a cancelled request sends nothing: %d %s", ans.status, ans.body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler on B was not cancelled")
	}
	if cancelled.Load() != 1 {
		t.Errorf("the handler on B was cancelled %d times, want 1", cancelled.Load())
	}
}
