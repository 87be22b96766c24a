package legacy_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The input bridge on Streamable HTTP (docs/dual-era.md §6.4, §6.5, row
// S9 and the bridge rows of §10.4): the POST's answer switches to SSE and
// carries the server-to-client requests; each answer is a POST of its
// own, 202 for a pending, repeated or late id, 400 -32600 for an unknown
// one or a response that is not valid.

// bridgeHTTP is a legacy client of a real HTTP server (the bridge needs
// the POST's stream read while it is open).
type bridgeHTTP struct {
	t   testing.TB
	url string
	h   http.Handler
	rev string
	sid string
}

func newBridgeHTTP(t testing.TB, s *server.Server, rev string) *bridgeHTTP {
	h := Handler(s, streamhttp.Options{AllowedHosts: []string{"127.0.0.1"}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := &bridgeHTTP{t: t, url: srv.URL, h: h, rev: rev}
	rec := c.post(EraBody(0, "initialize", InitParams(rev, allClientCaps)))
	c.sid = rec.Header.Get(legacy.HeaderSessionID)
	rec.Body.Close()
	if rec.StatusCode != 200 || c.sid == "" {
		t.Fatalf("initialize: %d", rec.StatusCode)
	}
	if r := c.post(EraNote("notifications/initialized", "")); r.StatusCode != 202 {
		t.Fatalf("initialized: %d", r.StatusCode)
	}
	return c
}

// post sends one message in the session; the caller reads and closes the
// body.
func (c *bridgeHTTP) post(body string, hdr ...string) *http.Response {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid != "" {
		req.Header.Set(legacy.HeaderSessionID, c.sid)
		if c.rev >= "2025-06-18" {
			req.Header.Set(server.HeaderProtocolVersion, c.rev)
		}
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("POST: %v", err)
	}
	return resp
}

// answer posts a response and returns its status and body.
func (c *bridgeHTTP) answer(body string) (int, *Wire) {
	c.t.Helper()
	resp := c.post(body)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if len(b) == 0 {
		return resp.StatusCode, nil
	}
	return resp.StatusCode, DecodeWire(c.t, b)
}

// bridgeStream reads the events of a POST's answer as they come.
type bridgeStream struct {
	t    testing.TB
	resp *http.Response
	msgs chan *Wire
}

func (c *bridgeHTTP) stream(body string) *bridgeStream {
	c.t.Helper()
	resp := c.post(body)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		c.t.Fatalf("want an event stream, got %d %q: %s", resp.StatusCode, ct, b)
	}
	st := &bridgeStream{t: c.t, resp: resp, msgs: make(chan *Wire, 100)}
	go func() {
		defer close(st.msgs)
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadString('\n')
			// An empty data line is the priming event of a resumable
			// 2025-11-25 stream (§4.8), not a message.
			if data := strings.TrimSpace(strings.TrimPrefix(line, "data:")); strings.HasPrefix(line, "data:") && data != "" {
				st.msgs <- DecodeWire(c.t, []byte(data))
			}
			if err != nil {
				return
			}
		}
	}()
	c.t.Cleanup(func() { resp.Body.Close() })
	return st
}

// next returns the next message; nil when the stream ended.
func (st *bridgeStream) next() *Wire {
	st.t.Helper()
	select {
	case w := <-st.msgs:
		return w
	case <-time.After(5 * time.Second):
		st.t.Fatal("no event within 5 s")
	}
	return nil
}

// callAnswering runs a request whose server-to-client requests are
// answered by answer, each with its own POST (which must be 202); it
// returns the response and the requests asked.
func (c *bridgeHTTP) callAnswering(id any, method, params string, answer func(*Wire) string) (*Wire, []*Wire) {
	c.t.Helper()
	st := c.stream(EraBody(id, method, params))
	var asked []*Wire
	for {
		w := st.next()
		if w == nil {
			c.t.Fatalf("%s: the stream ended without a response", method)
		}
		CheckLegacyMessage(c.t, c.rev, w.Raw, method)
		if w.Method() != "" && w.HasID() {
			asked = append(asked, w)
			if code, body := c.answer(answer(w)); code != http.StatusAccepted || body != nil {
				c.t.Fatalf("answering %s: %d %v", w.Raw, code, body)
			}
			continue
		}
		if w.Method() == "" {
			return w, asked
		}
	}
}

// Every MRTR fixture of examples/everything over HTTP, in each revision
// that carries its input requests.
func TestHTTPBridgeFixtures(t *testing.T) {
	for _, rev := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
		t.Run(rev, func(t *testing.T) {
			f := newLegacyFixture(t, legacy.ErasBoth)
			addMRTRFixtures(t, f.Server)
			c := newBridgeHTTP(t, f.Server, rev)
			for i, tc := range []struct{ method, name, want string }{
				{"tools/call", "test_input_required_result_elicitation", "Hello, Alice!"},
				{"tools/call", "test_input_required_result_sampling", "The model test-model answered."},
				{"tools/call", "test_input_required_result_list_roots", "Roots: 2"},
				{"tools/call", "test_input_required_result_request_state", "state-ok: confirmed"},
				{"tools/call", "test_input_required_result_multiple_inputs", "Received all three responses."},
				{"tools/call", "test_input_required_result_multi_round", "Completed after 3 rounds."},
				{"tools/call", "test_input_required_result_tampered_state", "State verified."},
				{"tools/call", "test_input_required_result_capabilities", "Done."},
				{"prompts/get", "test_input_required_result_prompt", "Context: Alice"},
			} {
				if rev == "2025-03-26" && tc.name != "test_input_required_result_sampling" && tc.name != "test_input_required_result_list_roots" && tc.name != "test_input_required_result_capabilities" {
					continue // elicitation: -32021 (the stdio test covers it)
				}
				w, asked := c.callAnswering(100+i, tc.method, `{"name":"`+tc.name+`"}`, scriptedAnswer)
				got := string(w.Raw)
				if tc.method == "tools/call" {
					got = ResultText(t, w)
				}
				if !strings.Contains(got, tc.want) || len(asked) == 0 {
					t.Errorf("%s in %s: %s (asked %d), want %q", tc.name, rev, w.Raw, len(asked), tc.want)
				}
			}
		})
	}
}

// The bridge rows of §10.4 (S9): unknown id 400 -32600, repeated 202,
// late 202, result and error 400 -32600; none of them is answered with a
// JSON-RPC id.
func TestHTTPBridgeRows(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{InputTimeout: 200 * time.Millisecond}))
	addBridgeTools(t, f.Server)
	c := newBridgeHTTP(t, f.Server, "2025-11-25")
	check := func(what string, body string, status int) {
		t.Helper()
		code, w := c.answer(body)
		switch {
		case code != status:
			t.Errorf("%s: %d %v, want %d", what, code, w, status)
		case status == 400 && (w == nil || w.Code() != protocol.CodeInvalidRequestError || w.HasID() && w.Id() != "null"):
			t.Errorf("%s: want -32600 without id: %v", what, w)
		case status == 202 && w != nil:
			t.Errorf("%s: 202 with a body %s", what, w.Raw)
		}
	}
	check("bridge/unknown id", `{"jsonrpc":"2.0","id":"mcpwire-nope","result":{"roots":[]}}`, 400)
	check("bridge/unknown id, a number", `{"jsonrpc":"2.0","id":5,"result":{"roots":[]}}`, 400)

	var first *Wire
	w, _ := c.callAnswering(1, "tools/call", `{"name":"byhand"}`, func(req *Wire) string {
		first = req
		check("bridge/result and error", `{"jsonrpc":"2.0","id":`+req.Id()+`,"result":{"roots":[]},"error":{"code":1,"message":"x"}}`, 400)
		return scriptedAnswer(req)
	})
	if ResultText(t, w) != "by hand done" {
		t.Fatalf("by hand: %s", w.Raw)
	}
	check("bridge/repeated id", scriptedAnswer(first), 202)

	// Unanswered: the stream carries the request, its cancellation
	// (timed out), then -32603; an answer afterwards is late.
	st := c.stream(EraBody(2, "tools/call", `{"name":"byhand"}`))
	req := st.next()
	if n := st.next(); n.Method() != "notifications/cancelled" || n.Params()["reason"] != "timed out" {
		t.Errorf("timed out: %s", n.Raw)
	}
	if w := st.next(); w.Code() != protocol.CodeInternalError {
		t.Errorf("timed out: %s", w.Raw)
	}
	check("bridge/late", scriptedAnswer(req), 202)
}

// The client's notifications/cancelled for the original request, and a
// DELETE of the session, end a bridge wait; the first sends the server's
// own notifications/cancelled, the second nothing (§2.6, §6.3 item 5).
func TestHTTPBridgeCancel(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth)
	p := addBridgeTools(t, f.Server)
	c := newBridgeHTTP(t, f.Server, "2025-06-18")

	st := c.stream(EraBody(7, "tools/call", `{"name":"slowask"}`))
	req := st.next()
	if req.Method() != "roots/list" {
		t.Fatalf("want roots/list: %s", req.Raw)
	}
	if code, _ := c.answer(EraNote("notifications/cancelled", `{"requestId":7}`)); code != 202 {
		t.Errorf("cancel: %d", code)
	}
	n := st.next()
	if n == nil || n.Method() != "notifications/cancelled" || n.Params()["reason"] != "request cancelled" || `"`+n.Params()["requestId"].(string)+`"` != req.Id() {
		t.Errorf("the server cancels its request: %v", n)
	}
	if w := st.next(); w != nil {
		t.Errorf("a cancelled request sends nothing more: %s", w.Raw)
	}
	if code, _ := c.answer(scriptedAnswer(req)); code != 202 {
		t.Errorf("a late answer: %d", code)
	}

	st = c.stream(EraBody(8, "tools/call", `{"name":"slowask"}`))
	if req := st.next(); req.Method() != "roots/list" {
		t.Fatalf("want roots/list: %s", req.Raw)
	}
	del, _ := http.NewRequest(http.MethodDelete, c.url, nil)
	del.Header.Set(legacy.HeaderSessionID, c.sid)
	del.Header.Set(server.HeaderProtocolVersion, c.rev)
	resp, err := http.DefaultClient.Do(del)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	resp.Body.Close()
	if w := st.next(); w != nil {
		t.Errorf("after DELETE nothing more is sent: %s", w.Raw)
	}
	p.checkIdle(t)
}

// MaxBadResponses: past it the session ends, as by a DELETE (§6.4).
func TestHTTPBridgeBadResponses(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{MaxBadResponses: 2}))
	c := newBridgeHTTP(t, f.Server, "2025-11-25")
	for i := range 3 {
		if code, _ := c.answer(`{"jsonrpc":"2.0","id":"mcpwire-nope","result":{}}`); code != 400 {
			t.Errorf("bad response %d: %d", i, code)
		}
	}
	resp := c.post(EraBody(1, "tools/call", `{"name":"count"}`))
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("after the flood the session is gone: %d", resp.StatusCode)
	}
}

// MaxOutstandingRequests on HTTP: a round over it sends nothing.
func TestHTTPBridgeOutstanding(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{MaxOutstandingRequests: 1}))
	addBridgeTools(t, f.Server)
	c := newBridgeHTTP(t, f.Server, "2025-11-25")
	resp := c.post(EraBody(1, "tools/call", `{"name":"two"}`))
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "too many outstanding input requests in this session (at most 1)") {
		t.Errorf("over MaxOutstandingRequests: %s", b)
	}
	if w, _ := c.callAnswering(2, "tools/call", `{"name":"byhand"}`, scriptedAnswer); ResultText(t, w) != "by hand done" {
		t.Errorf("within the limit: %s", w.Raw)
	}
}

// A store failing when the round registers its requests: 503 with
// Retry-After: 1 and nothing sent (§7.1); keep-alive comments on the
// POST's stream while the bridge waits (§6.5).
func TestHTTPBridgeOutageAndKeepAlive(t *testing.T) {
	store := &updateFails{SessionStore: legacy.NewMemorySessionStore()}
	f := newLegacyFixture(t, legacy.ErasBoth, server.WithKeepAlive(10*time.Millisecond), Legacy(legacy.Config{Store: store, InputTimeout: 150 * time.Millisecond}))
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open(`{"elicitation":{}}`)
	store.fail.Store(true)
	rec := c.Send(http.MethodPost, EraBody(1, "tools/call", `{"name":"ask"}`))
	if w := DecodeWire(t, rec.Body.Bytes()); rec.Code != 503 || rec.Header().Get("Retry-After") != "1" || w.Error == nil || w.Error.Message != legacy.MsgStoreUnavailable {
		t.Errorf("registering with the store down: %d %s", rec.Code, rec.Body.Bytes())
	}
	store.fail.Store(false)
	rec = c.Send(http.MethodPost, EraBody(2, "tools/call", `{"name":"ask"}`))
	body := rec.Body.String()
	if rec.Header().Get("Content-Type") != "text/event-stream" || !strings.Contains(body, ": keep-alive\n\n") || !strings.Contains(body, "elicitation/create") || !strings.Contains(body, "timed out waiting") {
		t.Errorf("keep-alives while waiting: %q", body)
	}
}
