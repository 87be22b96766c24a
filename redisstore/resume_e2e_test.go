package redisstore

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
)

// Resumability across instances (docs/dual-era.md §4.8, §7.2, §7.5): the
// request runs on A, its client lost A's stream (SSE polling here) and
// resumes on B with Last-Event-ID; B reads A's log from the shared
// EventStore and follows it to the response. A stream whose owner stopped
// renewing its lease is answered by the resumer with -32603.

// sseEvent is one event of a stream: id, data, retry.
type sseEvent struct{ id, data, retry string }

func sseEvents(body string) []sseEvent {
	var out []sseEvent
	for _, block := range strings.Split(body, "\n\n") {
		var ev sseEvent
		seen := false
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "id: "):
				ev.id, seen = strings.TrimPrefix(line, "id: "), true
			case strings.HasPrefix(line, "data: "):
				ev.data, seen = strings.TrimPrefix(line, "data: "), true
			case strings.HasPrefix(line, "retry: "):
				ev.retry, seen = strings.TrimPrefix(line, "retry: "), true
			}
		}
		if seen {
			out = append(out, ev)
		}
	}
	return out
}

// resumeStream sends a request to in and reads its whole answer.
func (c *legacyClient) resumeStream(in *instance, verb, body string, hdr ...string) (int, []sseEvent, string) {
	c.t.Helper()
	req, err := http.NewRequest(verb, in.srv.URL, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-User", c.user)
	req.Header.Set(legacy.HeaderSessionID, c.sid)
	req.Header.Set(server.HeaderProtocolVersion, legacyRev)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, b := c.roundTrip(in, req)
	return resp.StatusCode, sseEvents(string(b)), string(b)
}

func TestResumeAcrossInstances(t *testing.T) {
	opt := testRedis(t)
	p, ch := uniquePrefix(t), uniqueChannel(t)
	es := newEventStore(t, newClient(t, opt), WithPrefix(p))
	// An hour between polls: B's resumer is woken by A's append events.
	l := legacy.Config{EventStore: es, PollInterval: time.Hour}
	a, _ := sessionInstance(t, "A", opt, p, ch, l)
	b, _ := sessionInstance(t, "B", opt, p, ch, l)
	gate := make(chan struct{})
	var schema protocol.ToolInputSchema
	_ = protocol.Unmarshal([]byte(`{"type":"object"}`), &schema)
	if err := a.s.AddTool(protocol.Tool{Name: "test_reconnection", InputSchema: schema}, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if !r.DisconnectForPolling(0) {
			return nil, &server.Error{Code: -32603, Message: "not disconnected"}
		}
		r.Progress(ctx, 1, 2, "on A")
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return server.TextResult("Reconnection test completed on A"), nil
	}, server.AllowPolling()); err != nil {
		t.Fatal(err)
	}
	c := (&legacyClient{t: t, user: "alice"}).open(a)
	wantStatus(t, "notifications/initialized", c.send(a, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`), http.StatusAccepted)

	status, evs, raw := c.resumeStream(a, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_reconnection","arguments":{},"_meta":{"progressToken":"p"}}}`)
	if status != 200 || len(evs) != 2 || evs[0].data != "" || !strings.HasSuffix(evs[0].id, ".0") || evs[1].retry != "1000" {
		t.Fatalf("the POST on A: %d %q", status, raw)
	}
	go func() { time.Sleep(100 * time.Millisecond); close(gate) }()
	status, got, raw := c.resumeStream(b, http.MethodGet, "", "Last-Event-ID", evs[0].id)
	stream := strings.TrimSuffix(evs[0].id, ".0")
	if status != 200 || len(got) != 2 || got[0].id != stream+".1" || !strings.Contains(got[0].data, "on A") ||
		got[1].id != stream+".2" || !strings.Contains(got[1].data, `"id":1`) || !strings.Contains(got[1].data, "Reconnection test completed on A") {
		t.Fatalf("the resume on B: %d %q", status, raw)
	}
	// Another principal cannot resume alice's stream (404: the session is not found).
	mallory := &legacyClient{t: t, user: "mallory", sid: c.sid}
	if status, _, _ := mallory.resumeStream(b, http.MethodGet, "", "Last-Event-ID", evs[0].id); status != 404 {
		t.Errorf("mallory's resume: %d, want 404", status)
	}

	// An owner that stopped: A runs the request, but its lease is made to
	// pass (as if A had died 45 s ago); the resumer on B answers for it.
	gate2 := make(chan struct{})
	defer close(gate2)
	if err := a.s.AddTool(protocol.Tool{Name: "stuck", InputSchema: schema}, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		r.DisconnectForPolling(0)
		select {
		case <-gate2:
		case <-ctx.Done():
		}
		return server.TextResult("too late"), nil
	}, server.AllowPolling()); err != nil {
		t.Fatal(err)
	}
	_, evs, raw = c.resumeStream(a, http.MethodPost, `{"jsonrpc":"2.0","id":"r9","method":"tools/call","params":{"name":"stuck","arguments":{}}}`)
	if len(evs) != 2 {
		t.Fatalf("the POST of stuck: %q", raw)
	}
	stuck := strings.TrimSuffix(evs[0].id, ".0")
	rdb := newClient(t, opt)
	meta := p + "sess:" + principalTag("alice") + ":" + c.key() + ":st:" + stuck
	if err := rdb.HSet(ctx5(t), meta, "lease", time.Now().Add(-time.Second).UnixMilli(), "owner", "gone").Err(); err != nil {
		t.Fatal(err)
	}
	status, got, raw = c.resumeStream(b, http.MethodGet, "", "Last-Event-ID", evs[0].id)
	if status != 200 || len(got) != 1 || got[0].id != stuck+".1" || !strings.Contains(got[0].data, `"id":"r9"`) || !strings.Contains(got[0].data, "-32603") {
		t.Fatalf("the resume of a stopped owner's stream: %d %q", status, raw)
	}
}

// streamLines reads an open event stream line by line.
func (c *legacyClient) streamLines(in *instance, hdr ...string) <-chan string {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, in.srv.URL, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("X-User", c.user)
	req.Header.Set(legacy.HeaderSessionID, c.sid)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := in.srv.Client().Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		c.t.Fatalf("GET on %s: %d", in.name, resp.StatusCode)
	}
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		br := bufio.NewReader(resp.Body)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if l = strings.TrimRight(l, "\n"); l != "" && !strings.HasPrefix(l, ":") && !strings.HasPrefix(l, "event: ") {
				ch <- l
			}
		}
	}()
	return ch
}

func nextLine(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case l, ok := <-ch:
		if !ok {
			return "EOF"
		}
		return l
	case <-time.After(5 * time.Second):
		t.Fatal("nothing on the stream within 5 s")
		return ""
	}
}

// The standalone stream held on A is resumed on B with Last-Event-ID: B
// replays what A logged, takes the stream over (A ends it with retry,
// although the resumed stream keeps its id) and continues its seqs.
func TestResumeStandaloneAcrossInstances(t *testing.T) {
	opt := testRedis(t)
	p, ch := uniquePrefix(t), uniqueChannel(t)
	es := newEventStore(t, newClient(t, opt), WithPrefix(p))
	l := legacy.Config{EventStore: es}
	a, _ := sessionInstance(t, "A", opt, p, ch, l)
	b, _ := sessionInstance(t, "B", opt, p, ch, l)
	c := (&legacyClient{t: t, user: "alice"}).open(a)
	wantStatus(t, "notifications/initialized", c.send(a, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`), http.StatusAccepted)

	onA := c.streamLines(a)
	prime := nextLine(t, onA)
	if !strings.HasPrefix(prime, "id: ") || !strings.HasSuffix(prime, ".0") || nextLine(t, onA) != "data: " {
		t.Fatalf("A's stream starts with %q", prime)
	}
	stream := strings.TrimSuffix(strings.TrimPrefix(prime, "id: "), ".0")
	if err := a.s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	if id := nextLine(t, onA); id != "id: "+stream+".1" {
		t.Fatalf("A's first event: %q", id)
	}
	nextLine(t, onA) // its data

	onB := c.streamLines(b, "Last-Event-ID", stream+".0")
	if id, data := nextLine(t, onB), nextLine(t, onB); id != "id: "+stream+".1" || !strings.Contains(data, "tools/list_changed") {
		t.Fatalf("B replayed %q %q", id, data)
	}
	if l := nextLine(t, onA); l != "retry: 1000" {
		t.Fatalf("A's stream after the take-over: %q", l)
	}
	if l := nextLine(t, onA); l != "EOF" {
		t.Fatalf("A's stream did not end: %q", l)
	}
	if err := a.s.NotifyResourcesChanged(); err != nil {
		t.Fatal(err)
	}
	if id, data := nextLine(t, onB), nextLine(t, onB); id != "id: "+stream+".2" || !strings.Contains(data, "resources/list_changed") {
		t.Fatalf("B live %q %q", id, data)
	}
}
