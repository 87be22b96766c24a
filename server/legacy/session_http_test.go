package legacy_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The legacy sessions of Streamable HTTP (docs/dual-era.md §1.4 rows A1,
// S1–S11, §1.7 D*, §4, §7.1, §8): httptest transcripts per revision, every
// session row with a live session, lifetimes, limits, principal binding,
// and the store outage. Legacy behaviour is cited by the 2025-11-25 spec
// pages (L1125/basic/transports.mdx#session-management and the others) as
// the design does.

// want checks the status and error code of an answer (0: a result).
func want(t testing.TB, what string, rec *httptest.ResponseRecorder, w *Wire, status int, code int64) {
	t.Helper()
	if rec.Code != status || w.Code() != code {
		t.Errorf("%s: %d %s, want %d and code %d", what, rec.Code, w.Raw, status, code)
	}
}

// TestHTTPLegacyTranscript runs one session per legacy revision over
// Streamable HTTP (L1125/basic/transports.mdx: Session Management, Sending
// Messages, Protocol Version Header): initialize mints the id, the
// lifecycle, method errors with 200 (§1.6, Choice), notifications on the
// POST's stream, and DELETE.
func TestHTTPLegacyTranscript(t *testing.T) {
	for _, rev := range legacyRevs {
		t.Run(rev, func(t *testing.T) {
			f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{InputTimeout: 50 * time.Millisecond}))
			c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), rev)
			w := c.Initialize(`{"elicitation":{},"sampling":{}}`)
			if w.Result["protocolVersion"] != rev {
				t.Fatalf("negotiated %s", w.Raw)
			}
			// L1: before notifications/initialized only ping (§2.2).
			w, _, rec := c.Call(1, "tools/list", "")
			want(t, "a request before initialized", rec, w, 400, protocol.CodeInvalidRequestError)
			w, _, rec = c.Call(2, "ping", "")
			if rec.Code != 200 || string(w.Members["result"]) != "{}" {
				t.Errorf("ping: %d %s", rec.Code, w.Raw)
			}
			for range 2 { // the second changes nothing
				if rec := c.Send(http.MethodPost, EraNote("notifications/initialized", "")); rec.Code != 202 || rec.Body.Len() != 0 {
					t.Fatalf("notifications/initialized: %d %q", rec.Code, rec.Body.Bytes())
				}
			}
			w, _, rec = c.Call(3, "tools/list", "")
			if rec.Code != 200 || !strings.Contains(string(w.Raw), `"name":"echo"`) || strings.Contains(string(w.Raw), "tasky") {
				t.Errorf("tools/list: %d %s", rec.Code, w.Raw)
			}
			if w, _, _ := c.Call(4, "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`); ResultText(t, w) != "hi" {
				t.Errorf("echo: %s", w.Raw)
			}
			// Method errors are sent with 200 (§1.6, Choice).
			w, _, rec = c.Call(5, "nope/nope", "")
			want(t, "an unknown method", rec, w, 200, protocol.CodeMethodNotFoundError)
			w, _, rec = c.Call(6, "tools/call", `{"name":"nope"}`)
			want(t, "an unknown tool", rec, w, 200, protocol.CodeInvalidParamsError)
			w, _, rec = c.Call(7, "resources/read", `{"uri":"users://nobody/profile"}`)
			want(t, "a missing resource (H6)", rec, w, 200, -32002)
			w, _, rec = c.Call(8, "tools/call", `{"name":"count","requestState":"x"}`)
			want(t, "L7 requestState", rec, w, 200, protocol.CodeInvalidParamsError)
			w, _, rec = c.Call(9, "tools/call", `{"name":"ask"}`)
			if old := rev < "2025-06-18"; old {
				want(t, "AskInput without elicitation", rec, w, 200, protocol.CodeMissingRequiredClientCapabilityError)
			} else {
				// The bridge: the answer switches to SSE with the
				// elicitation; unanswered, it is cancelled after
				// InputTimeout and the call is -32603.
				notes := SseMessages(t, rec.Body.Bytes())
				want(t, "AskInput unanswered", rec, w, 200, protocol.CodeInternalError)
				if len(notes) != 3 || notes[0].Method() != "elicitation/create" || notes[1].Method() != "notifications/cancelled" ||
					notes[1].Params()["reason"] != "timed out" || !strings.Contains(w.Error.Message, "timed out waiting for the client's input") {
					t.Errorf("AskInput through the bridge, unanswered: %s", rec.Body.Bytes())
				}
			}
			// logging/setLevel, then a log on the POST's SSE stream.
			if w, _, rec := c.Call(10, "logging/setLevel", `{"level":"info"}`); rec.Code != 200 || string(w.Members["result"]) != "{}" {
				t.Errorf("setLevel: %d %s", rec.Code, w.Raw)
			}
			w, notes, rec := c.Call(11, "tools/call", `{"name":"logs"}`)
			if rec.Header().Get("Content-Type") != "text/event-stream" || len(notes) != 1 || notes[0].Method() != "notifications/message" || !strings.HasPrefix(ResultText(t, w), "level=info version="+rev) {
				t.Errorf("a log in the session: %s", rec.Body.Bytes())
			}
			_, notes, _ = c.Call(12, "tools/call", `{"name":"progress","_meta":{"progressToken":7}}`)
			if len(notes) != 3 {
				t.Errorf("progress notifications: %d", len(notes))
			}
			if w, _, rec := c.Call(13, "resources/subscribe", `{"uri":"test://watched-resource"}`); rec.Code != 200 || string(w.Members["result"]) != "{}" {
				t.Errorf("subscribe: %d %s", rec.Code, w.Raw)
			}
			if w, _, _ := c.Call(14, "resources/unsubscribe", `{"uri":"test://watched-resource"}`); string(w.Members["result"]) != "{}" {
				t.Errorf("unsubscribe: %s", w.Raw)
			}
			// D4: DELETE ends the session; it is 404 afterwards (§4.2, §4.3).
			if rec := c.Send(http.MethodDelete, ""); rec.Code != 204 || rec.Body.Len() != 0 {
				t.Fatalf("DELETE: %d %q", rec.Code, rec.Body.Bytes())
			}
			w, _, rec = c.Call(15, "tools/list", "")
			want(t, "a request after DELETE", rec, w, 404, protocol.CodeInvalidRequestError)
			if w.Id() != "15" {
				t.Errorf("S2 echoes the id: %s", w.Raw)
			}
		})
	}
}

// TestServerSessionLifecycle is the suite's server-session-lifecycle
// scenario (not scored, 2025-11-25; docs/dual-era.md §4.2): initialize
// without MCP-Protocol-Version → notifications/initialized (2xx) → DELETE
// (2xx) → tools/list with the id must be 404.
func TestServerSessionLifecycle(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth)
	h := Handler(f.Server, streamhttp.Options{})
	rec := EraRequest(t, h, http.MethodPost, EraBody(0, "initialize", InitParams("2025-11-25", "")))
	sid := rec.Header().Get(legacy.HeaderSessionID)
	if rec.Code != 200 || !SessionIDRE.MatchString(sid) {
		t.Fatalf("initialize: %d %q", rec.Code, sid)
	}
	if rec := EraRequest(t, h, http.MethodPost, EraNote("notifications/initialized", ""), legacy.HeaderSessionID, sid); rec.Code/100 != 2 {
		t.Fatalf("initialized: %d", rec.Code)
	}
	if rec := EraRequest(t, h, http.MethodDelete, "", legacy.HeaderSessionID, sid); rec.Code/100 != 2 {
		t.Fatalf("DELETE: %d", rec.Code)
	}
	if rec := EraRequest(t, h, http.MethodPost, EraBody(1, "tools/list", ""), legacy.HeaderSessionID, sid); rec.Code != 404 {
		t.Fatalf("tools/list after DELETE: %d, want 404", rec.Code)
	}
}

// TestSessionRows checks the rows of §1.4 that need a live session, with
// an exact status and code each, and that no refused request ran the
// counting tool.
func TestSessionRows(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth)
	AddTool(t, f.Server, `{"name":"safe_tool","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		f.calls.add("safe_tool")
		return server.TextResult("safe"), nil
	})
	h := Handler(f.Server, streamhttp.Options{Authenticate: XUser})
	c := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "alice")
	c.Open("")
	uninit := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "alice")
	uninit.Initialize("")
	old := NewLegacyHTTP(t, h, "2025-03-26", "X-User", "alice")
	old.Open("")
	list := EraBody(1, "tools/list", "")
	rows := []struct {
		name   string
		c      *LegacyHTTP
		body   string
		hdr    []string
		raw    bool // send without the client's session headers
		status int
		code   int64 // 0: a result; -1: 202 without body
		id     string
		calls  int
	}{
		{name: "S1 initialize in a session", c: c, body: EraBody(2, "initialize", InitParams("2025-11-25", "")), status: 400, code: protocol.CodeInvalidRequestError, id: "2"},
		{name: "S2 another principal's session is unknown", c: c, body: list, raw: true, hdr: []string{"X-User", "bob", legacy.HeaderSessionID, c.Sid}, status: 404, code: protocol.CodeInvalidRequestError, id: "1"},
		{name: "S2 no principal is another principal", c: c, body: list, raw: true, hdr: []string{legacy.HeaderSessionID, c.Sid}, status: 404, code: protocol.CodeInvalidRequestError, id: "1"},
		{name: "S2 a guessed id", c: c, body: list, raw: true, hdr: []string{"X-User", "alice", legacy.HeaderSessionID, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, status: 404, code: protocol.CodeInvalidRequestError, id: "1"},
		{name: "S2 an id with spaces", c: c, body: list, raw: true, hdr: []string{"X-User", "alice", legacy.HeaderSessionID, "a b"}, status: 404, code: protocol.CodeInvalidRequestError, id: "1"},
		{name: "S3 a repeated session id, even a valid one", c: c, body: list, hdr: []string{legacy.HeaderSessionID, c.Sid}, status: 400, code: protocol.CodeInvalidRequestError, id: "1"},
		{name: "S4 a header naming another version", c: c, body: list, raw: true, hdr: []string{"X-User", "alice", legacy.HeaderSessionID, c.Sid, server.HeaderProtocolVersion, "2025-06-18"}, status: 400, code: protocol.CodeInvalidRequestError, id: "1"},
		{name: "S4 a header in a 2025-03-26 session must name it", c: old, body: list, hdr: []string{server.HeaderProtocolVersion, "2025-11-25"}, status: 400, code: protocol.CodeInvalidRequestError, id: "1"},
		{name: "S4 the right header in a 2025-03-26 session", c: old, body: list, hdr: []string{server.HeaderProtocolVersion, "2025-03-26"}, status: 200, id: "1"},
		{name: "S5 no header in a session", c: c, body: list, raw: true, hdr: []string{"X-User", "alice", legacy.HeaderSessionID, c.Sid}, status: 200, id: "1"},
		{name: "M1 a modern header on a live session is -32020, not served", c: c, body: modernCall, raw: true, hdr: []string{"X-User", "alice", legacy.HeaderSessionID, c.Sid, server.HeaderProtocolVersion, "2026-07-28", server.HeaderMethod, "tools/call", server.HeaderName, "count"}, status: 400, code: protocol.CodeHeaderMismatchError, id: "1"},
		{name: "M2 modern _meta on a live session", c: c, body: modernCall, status: 400, code: protocol.CodeHeaderMismatchError, id: "1"},
		{name: "S6 Mcp-Method that does not match", c: c, body: EraBody(3, "tools/call", `{"name":"count"}`), hdr: []string{server.HeaderMethod, "tools/list"}, status: 400, code: protocol.CodeInvalidRequestError, id: "3"},
		{name: "S6 Mcp-Name that does not match", c: c, body: EraBody(4, "tools/call", `{"name":"count"}`), hdr: []string{server.HeaderName, "other"}, status: 400, code: protocol.CodeInvalidRequestError, id: "4"},
		{name: "S6 Mcp-Name matching after sentinel decoding", c: c, body: EraBody(5, "tools/call", `{"name":"count"}`), hdr: []string{server.HeaderMethod, "tools/call", server.HeaderName, Sentinel("count")}, status: 200, id: "5", calls: 1},
		{name: "S6 Mcp-Name of a resource", c: c, body: EraBody(6, "resources/read", `{"uri":"file:///a.txt"}`), hdr: []string{server.HeaderName, "file:///b.txt"}, status: 400, code: protocol.CodeInvalidRequestError, id: "6"},
		{name: "S7 Mcp-Param present and wrong", c: c, body: EraBody(7, "tools/call", `{"name":"safe_tool","arguments":{"region":"a"}}`), hdr: []string{"Mcp-Param-Region", "b"}, status: 400, code: protocol.CodeInvalidRequestError, id: "7"},
		{name: "S7 Mcp-Param present for an absent argument", c: c, body: EraBody(8, "tools/call", `{"name":"safe_tool","arguments":{}}`), hdr: []string{"Mcp-Param-Region", "b"}, status: 400, code: protocol.CodeInvalidRequestError, id: "8"},
		{name: "S7 Mcp-Param absent is not required", c: c, body: EraBody(9, "tools/call", `{"name":"safe_tool","arguments":{"region":"a"}}`), status: 200, id: "9"},
		{name: "S7 Mcp-Param present and right", c: c, body: EraBody(10, "tools/call", `{"name":"safe_tool","arguments":{"region":"a"}}`), hdr: []string{"Mcp-Param-Region", "a"}, status: 200, id: "10"},
		{name: "S8 an unknown notification", c: c, body: EraNote("notifications/whatever", ""), status: 202, code: -1},
		{name: "S8 progress and roots notifications", c: c, body: EraNote("notifications/roots/list_changed", ""), status: 202, code: -1},
		{name: "S8 notifications/cancelled of nothing", c: c, body: EraNote("notifications/cancelled", `{"requestId":"gone"}`), status: 202, code: -1},
		{name: "S8 notifications/initialized with params that are not notification params", c: uninit, body: EraNote("notifications/initialized", `{"_meta":5}`), status: 400, code: protocol.CodeInvalidRequestError},
		{name: "S9 a response answering nothing", c: c, body: `{"jsonrpc":"2.0","id":"mcpwire-nope","result":{}}`, status: 400, code: protocol.CodeInvalidRequestError},
		{name: "S9 a response with result and error", c: c, body: `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, status: 400, code: protocol.CodeInvalidRequestError},
		{name: "S10 a batch outside 2025-03-26", c: c, body: `[` + list + `]`, status: 400, code: protocol.CodeInvalidRequestError},
		{name: "L1 before initialized", c: uninit, body: list, status: 400, code: protocol.CodeInvalidRequestError, id: "1"},
		{name: "L1 ping before initialized", c: uninit, body: EraBody(11, "ping", ""), status: 200, id: "11"},
		{name: "L3 a modern-only method", c: c, body: EraBody(12, "server/discover", ""), status: 200, code: protocol.CodeMethodNotFoundError, id: "12"},
		{name: "L3 a 2025-11-25 tasks method", c: c, body: EraBody(13, "tasks/list", ""), status: 200, code: protocol.CodeMethodNotFoundError, id: "13"},
		{name: "L5 params of the wrong shape", c: c, body: EraBody(14, "logging/setLevel", `{"level":"loud"}`), status: 200, code: protocol.CodeInvalidParamsError, id: "14"},
		{name: "L7 inputResponses", c: c, body: EraBody(15, "tools/call", `{"name":"count","inputResponses":{"a":{}}}`), status: 200, code: protocol.CodeInvalidParamsError, id: "15"},
		{name: "§1.2 a case variant of a modern key in a session", c: c, body: EraBody(16, "tools/list", `{"_meta":{"io.modelcontextprotocol/ProtocolVersion":"2026-07-28"}}`), status: 400, code: protocol.CodeInvalidRequestError, id: "16"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			before := f.calls.get("safe_tool")
			var rec *httptest.ResponseRecorder
			if r.raw {
				rec = EraRequest(t, h, http.MethodPost, r.body, r.hdr...)
			} else {
				rec = r.c.Send(http.MethodPost, r.body, r.hdr...)
			}
			if rec.Code != r.status {
				t.Errorf("status %d, want %d: %s", rec.Code, r.status, rec.Body.Bytes())
			}
			if sid := rec.Header().Get(legacy.HeaderSessionID); sid != "" {
				t.Errorf("the answer names a session: %q", sid)
			}
			if r.code == -1 {
				if rec.Body.Len() != 0 {
					t.Errorf("body %q, want none", rec.Body.Bytes())
				}
				return
			}
			w := DecodeWire(t, rec.Body.Bytes())
			if w.Code() != r.code || w.Id() != r.id {
				t.Errorf("got %s, want code %d id %q", w.Raw, r.code, r.id)
			}
			if got := f.calls.get("safe_tool") - before; r.code != 0 && got != 0 {
				t.Errorf("a refused request ran a tool")
			}
		})
	}
	if f.calls.get("safe_tool") != 2 {
		t.Errorf("safe_tool ran %d times, want 2 (the accepted S7 rows)", f.calls.get("safe_tool"))
	}
}

// TestSessionPrincipal checks that a session is bound to its principal
// (§4.1, L1125 security best practices, Session Hijacking): another
// principal's POST, GET and DELETE get 404, exactly like an unknown id.
func TestSessionPrincipal(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth)
	h := Handler(f.Server, streamhttp.Options{Authenticate: XUser})
	alice := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "alice")
	alice.Open("")
	for _, verb := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		body := ""
		if verb == http.MethodPost {
			body = EraBody(1, "tools/list", "")
		}
		bob := EraRequest(t, h, verb, body, "X-User", "bob", legacy.HeaderSessionID, alice.Sid)
		guess := EraRequest(t, h, verb, body, "X-User", "bob", legacy.HeaderSessionID, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
		if bob.Code != 404 || guess.Code != 404 || bob.Body.String() != guess.Body.String() {
			t.Errorf("%s as bob: %d %s; a guessed id: %d %s (want the same 404)", verb, bob.Code, bob.Body.Bytes(), guess.Code, guess.Body.Bytes())
		}
	}
	if w, _, rec := alice.Call(2, "tools/list", ""); rec.Code != 200 || w.Error != nil {
		t.Errorf("alice's session after bob's attempts: %d %s", rec.Code, w.Raw)
	}
}

// TestSessionIDs checks the ids (§4.1): 43 characters of base64url (256
// random bits), all distinct, stored only as their SHA-256.
func TestSessionIDs(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{MaxSessionsPerPrincipal: 1000}))
	h := Handler(f.Server, streamhttp.Options{})
	store := f.era().Cfg().Store.(*legacy.MemorySessionStore)
	seen := map[string]bool{}
	for i := 0; i < 50; i++ {
		c := NewLegacyHTTP(t, h, "2025-11-25")
		c.Initialize("")
		if seen[c.Sid] {
			t.Fatalf("session id %s minted twice", c.Sid)
		}
		seen[c.Sid] = true
		if _, err := store.Get(context.Background(), "", c.Sid); !errors.Is(err, legacy.ErrSessionNotFound) {
			t.Errorf("the store holds the id itself: %v", err)
		}
		rec, err := store.Get(context.Background(), "", legacy.SessionKey(c.Sid))
		if err != nil || rec.Key != legacy.SessionKey(c.Sid) || strings.Contains(rec.Key, c.Sid) {
			t.Errorf("the store does not hold the id's hash: %v %+v", err, rec)
		}
	}
	if store.Len() != 50 {
		t.Errorf("store holds %d sessions, want 50", store.Len())
	}
}

// TestSessionLifetimes checks the idle and absolute lifetimes (§7.1, §8)
// with a fake clock: a session unused for IdleTimeout is 404, each use
// within it extends it (touching the store only when less than ¾ is
// left), and MaxLifetime ends even a busy session.
func TestSessionLifetimes(t *testing.T) {
	clk := NewTestClock()
	f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{IdleTimeout: 40 * time.Minute, MaxLifetime: 2 * time.Hour}))
	f.era().SetNow(clk.Now)
	store := f.era().Cfg().Store.(*legacy.MemorySessionStore)
	legacy.SetMemorySessionStoreClock(store, clk.Now)
	h := Handler(f.Server, streamhttp.Options{})
	busy := NewLegacyHTTP(t, h, "2025-11-25")
	busy.Open("")
	idle := NewLegacyHTTP(t, h, "2025-11-25")
	idle.Open("")
	idleUntil := func() time.Time {
		rec, err := store.Get(context.Background(), "", legacy.SessionKey(busy.Sid))
		if err != nil {
			t.Fatal(err)
		}
		return rec.IdleUntil
	}
	start := idleUntil()
	clk.Advance(5 * time.Minute)
	busy.Call(1, "ping", "")
	if !idleUntil().Equal(start) {
		t.Error("a use with more than ¾ of IdleTimeout left touched the store")
	}
	clk.Advance(10 * time.Minute) // 25 of 40 minutes left: under ¾
	busy.Call(2, "ping", "")
	if got := idleUntil(); !got.Equal(clk.Now().Add(40 * time.Minute)) {
		t.Errorf("IdleUntil %v after a use with less than ¾ left, want %v", got, clk.Now().Add(40*time.Minute))
	}
	clk.Advance(30 * time.Minute) // 45 minutes since idle's last use
	if w, _, rec := idle.Call(3, "ping", ""); rec.Code != 404 {
		t.Errorf("an idle session: %d %s, want 404", rec.Code, w.Raw)
	}
	for i := 0; i < 5; i++ { // busy every 15 minutes, 12:45 to 13:45: never idle
		if w, _, rec := busy.Call(10+i, "ping", ""); rec.Code != 200 {
			t.Fatalf("a busy session at %v: %d %s", clk.Now(), rec.Code, w.Raw)
		}
		clk.Advance(15 * time.Minute)
	}
	// 14:00, 2 hours after initialize: MaxLifetime is over, however busy.
	if w, _, rec := busy.Call(20, "ping", ""); rec.Code != 404 {
		t.Errorf("past MaxLifetime: %d %s, want 404", rec.Code, w.Raw)
	}
}

// TestSessionLimits checks admission (§8): past MaxSessionsPerPrincipal
// the principal's least recently used session is evicted (404 next), past
// MaxSessions initialize gets 503 with Retry-After: 30 and no session.
func TestSessionLimits(t *testing.T) {
	clk := NewTestClock()
	f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{MaxSessionsPerPrincipal: 2, MaxSessions: 3, IdleTimeout: time.Hour}))
	f.era().SetNow(clk.Now)
	legacy.SetMemorySessionStoreClock(f.era().Cfg().Store.(*legacy.MemorySessionStore), clk.Now)
	h := Handler(f.Server, streamhttp.Options{Authenticate: XUser})
	a1 := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "alice")
	a1.Open("")
	clk.Advance(time.Minute)
	a2 := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "alice")
	a2.Open("")
	clk.Advance(20 * time.Minute)
	a1.Call(1, "ping", "") // a1 is touched (under ¾ left): a2 is now the least recently used
	a3 := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "alice")
	a3.Open("")
	if _, _, rec := a2.Call(2, "ping", ""); rec.Code != 404 {
		t.Errorf("the evicted session: %d, want 404", rec.Code)
	}
	for _, c := range []*LegacyHTTP{a1, a3} {
		if _, _, rec := c.Call(3, "ping", ""); rec.Code != 200 {
			t.Errorf("a session kept: %d", rec.Code)
		}
	}
	b1 := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "bob")
	b1.Open("")
	// The store is full (a1, a3, b1): carol gets 503, and no session.
	rec := EraRequest(t, h, http.MethodPost, EraBody(0, "initialize", InitParams("2025-11-25", "")), "X-User", "carol")
	w := DecodeWire(t, rec.Body.Bytes())
	if rec.Code != 503 || rec.Header().Get("Retry-After") != "30" || w.Code() != protocol.CodeInternalError || rec.Header().Get(legacy.HeaderSessionID) != "" {
		t.Errorf("initialize over MaxSessions: %d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body.Bytes())
	}
	// alice, at her own limit, still replaces her LRU session.
	a4 := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "alice")
	a4.Open("")
}

// downSessionStore is a SessionStore that fails every call while down.
type downSessionStore struct {
	legacy.SessionStore
	down  atomic.Bool
	calls atomic.Int64
}

var errDown = errors.New("dial tcp: connection refused")

func (f *downSessionStore) fail() bool { f.calls.Add(1); return f.down.Load() }

func (f *downSessionStore) Create(ctx context.Context, rec *legacy.SessionRecord, lim legacy.SessionLimits) ([]string, error) {
	if f.fail() {
		return nil, errDown
	}
	return f.SessionStore.Create(ctx, rec, lim)
}

func (f *downSessionStore) Get(ctx context.Context, p, k string) (*legacy.SessionRecord, error) {
	if f.fail() {
		return nil, errDown
	}
	return f.SessionStore.Get(ctx, p, k)
}

func (f *downSessionStore) Update(ctx context.Context, p, k string, fn func(*legacy.SessionRecord) error) (*legacy.SessionRecord, error) {
	if f.fail() {
		return nil, errDown
	}
	return f.SessionStore.Update(ctx, p, k, fn)
}

func (f *downSessionStore) Delete(ctx context.Context, p, k string) error {
	if f.fail() {
		return errDown
	}
	return f.SessionStore.Delete(ctx, p, k)
}

// TestSessionStoreOutage checks that an unreachable store is 503 with
// Retry-After and -32603 "Session store unavailable", never 404 (§1.4), on
// every path; that modern requests carrying a session id are refused
// without a lookup (M1/M2: no oracle, no store load); and that the
// sessions are served again once the store is back.
func TestSessionStoreOutage(t *testing.T) {
	store := &downSessionStore{SessionStore: legacy.NewMemorySessionStore()}
	f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{Store: store}))
	h := Handler(f.Server, streamhttp.Options{})
	c := NewLegacyHTTP(t, h, "2025-06-18")
	c.Open("")
	store.down.Store(true)
	check := func(what string, rec *httptest.ResponseRecorder, id string) {
		t.Helper()
		w := DecodeWire(t, rec.Body.Bytes())
		if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" || w.Code() != protocol.CodeInternalError || w.Error.Message != legacy.MsgStoreUnavailable || w.Id() != id {
			t.Errorf("%s with the store down: %d Retry-After %q %s", what, rec.Code, rec.Header().Get("Retry-After"), rec.Body.Bytes())
		}
	}
	check("initialize", EraRequest(t, h, http.MethodPost, EraBody(0, "initialize", InitParams("2025-11-25", ""))), "0")
	check("a request", c.Send(http.MethodPost, EraBody(1, "tools/list", "")), "1")
	check("a notification", c.Send(http.MethodPost, EraNote("notifications/cancelled", `{"requestId":1}`)), "")
	check("DELETE", c.Send(http.MethodDelete, ""), "")
	check("GET", c.Send(http.MethodGet, ""), "")
	calls := store.calls.Load()
	rec := EraRequest(t, h, http.MethodPost, modernCall, legacy.HeaderSessionID, c.Sid, server.HeaderProtocolVersion, "2026-07-28", server.HeaderMethod, "tools/call", server.HeaderName, "count")
	if w := DecodeWire(t, rec.Body.Bytes()); rec.Code != 400 || w.Code() != protocol.CodeHeaderMismatchError {
		t.Errorf("M1 with the store down: %d %s", rec.Code, rec.Body.Bytes())
	}
	rec = EraRequest(t, h, http.MethodPost, modernCall, legacy.HeaderSessionID, c.Sid)
	if w := DecodeWire(t, rec.Body.Bytes()); rec.Code != 400 || w.Code() != protocol.CodeHeaderMismatchError {
		t.Errorf("M2 with the store down: %d %s", rec.Code, rec.Body.Bytes())
	}
	if store.calls.Load() != calls {
		t.Error("a modern request with a session id reached the store")
	}
	store.down.Store(false)
	if w, _, rec := c.Call(2, "tools/list", ""); rec.Code != 200 || w.Error != nil {
		t.Errorf("the session after the outage: %d %s", rec.Code, w.Raw)
	}
}

// TestSessionStateOutage checks a store failing between the lookup and a
// change of the session's state (logging/setLevel, subscribe): 503, not a
// method error.
func TestSessionStateOutage(t *testing.T) {
	store := &updateFails{SessionStore: legacy.NewMemorySessionStore()}
	f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{Store: store}))
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	store.fail.Store(true)
	for i, m := range []string{`{"level":"debug"}`, ""} {
		method, params := "logging/setLevel", m
		if m == "" {
			method, params = "resources/subscribe", `{"uri":"test://watched-resource"}`
		}
		w, _, rec := c.Call(i+1, method, params)
		if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" || w.Error == nil || w.Error.Message != legacy.MsgStoreUnavailable {
			t.Errorf("%s with Update failing: %d %s", method, rec.Code, w.Raw)
		}
	}
}

// updateFails fails Update only, while fail is set.
type updateFails struct {
	legacy.SessionStore
	fail atomic.Bool
}

func (u *updateFails) Update(ctx context.Context, p, k string, fn func(*legacy.SessionRecord) error) (*legacy.SessionRecord, error) {
	if u.fail.Load() {
		return nil, errDown
	}
	return u.SessionStore.Update(ctx, p, k, fn)
}

// TestSessionCancel checks client cancellation in a session (§2.6,
// L1125/basic/utilities/cancellation.mdx): notifications/cancelled ends the
// running request, which then sends nothing (the POST is answered with no
// body), and a request id still running is refused (L2, 200 -32600).
func TestSessionCancel(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth)
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- c.Send(http.MethodPost, EraBody("w", "tools/call", `{"name":"wait"}`)) }()
	if id := recvWithin(t, f.started); id != "w" {
		t.Fatalf("started %s", id)
	}
	w, _, rec := c.Call("w", "ping", "")
	want(t, "L2 a running id", rec, w, 200, protocol.CodeInvalidRequestError)
	if rec := c.Send(http.MethodPost, EraNote("notifications/cancelled", `{"requestId":"w","reason":"user"}`)); rec.Code != 202 {
		t.Fatalf("notifications/cancelled: %d", rec.Code)
	}
	select {
	case rec := <-done:
		if rec.Body.Len() != 0 {
			t.Errorf("a cancelled request answered: %q", rec.Body.Bytes())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled request did not end")
	}
	if f.calls.get("wait cancelled") != 1 {
		t.Error("the handler's context did not end")
	}
	// DELETE cancels what runs too.
	go func() { done <- c.Send(http.MethodPost, EraBody("w2", "tools/call", `{"name":"wait"}`)) }()
	recvWithin(t, f.started)
	if rec := c.Send(http.MethodDelete, ""); rec.Code != 204 {
		t.Fatalf("DELETE: %d", rec.Code)
	}
	select {
	case rec := <-done:
		if rec.Body.Len() != 0 {
			t.Errorf("a request of a deleted session answered: %q", rec.Body.Bytes())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("DELETE did not end the running request")
	}
}

// TestSessionRateLimit checks that the rate limit keeps 429 and
// Retry-After in a session (§1.6: a throttle is a transport signal).
func TestSessionRateLimit(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth, server.WithRateLimit(rate.Every(time.Hour), 1))
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	if w, _, rec := c.Call(1, "tools/call", `{"name":"count"}`); rec.Code != 200 || w.Error != nil {
		t.Fatalf("the first call: %d %s", rec.Code, w.Raw)
	}
	w, _, rec := c.Call(2, "tools/call", `{"name":"count"}`)
	want(t, "over the rate limit", rec, w, 429, server.CodeRateLimited)
	if rec.Header().Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
}

// TestHTTPInitialize checks initialize over Streamable HTTP (row A1,
// §1.5, §1.10, §2.1): the answer names the session only on success;
// refusals are method errors (200) and mint nothing; a LEGACY header is
// not compared with params.protocolVersion (A1, Choice).
func TestHTTPInitialize(t *testing.T) {
	cases := []struct {
		name    string
		mode    legacy.Eras
		params  string
		hdr     []string
		version string // negotiated; "" for a refusal
		code    int64
	}{
		{name: "§1.5 2026-07-28 inside initialize", mode: legacy.ErasBoth, params: InitParams("2026-07-28", ""), code: protocol.CodeInvalidParamsError},
		{name: "§1.9 2026-07-28 under ErasLegacy is negotiated down", mode: legacy.ErasLegacy, params: InitParams("2026-07-28", ""), version: "2025-11-25"},
		{name: "A1 a header of the previous session's version", mode: legacy.ErasBoth, params: InitParams("2025-11-25", ""), hdr: []string{server.HeaderProtocolVersion, "2025-06-18"}, version: "2025-11-25"},
		{name: "§1.10 a 2024-11-05 initialize over Streamable HTTP", mode: legacy.ErasBoth, params: InitParams("2024-11-05", ""), version: "2024-11-05"},
		{name: "§2.1 capabilities are required", mode: legacy.ErasBoth, params: `{"protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":"1"}}`, code: protocol.CodeInvalidParamsError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newLegacyFixture(t, c.mode)
			rec := EraRequest(t, Handler(f.Server, streamhttp.Options{}), http.MethodPost, EraBody(1, "initialize", c.params), c.hdr...)
			w := Single(t, rec)
			sid := rec.Header().Get(legacy.HeaderSessionID)
			if c.version == "" {
				if rec.Code != 200 || w.Code() != c.code || sid != "" {
					t.Fatalf("%d %s, Mcp-Session-Id %q; want 200, code %d and no session", rec.Code, w.Raw, sid, c.code)
				}
				if f.era().Cfg().Store.(*legacy.MemorySessionStore).Len() != 0 {
					t.Error("a refused initialize stored a session")
				}
				return
			}
			if rec.Code != 200 || w.Result["protocolVersion"] != c.version || !SessionIDRE.MatchString(sid) {
				t.Fatalf("%d %s, Mcp-Session-Id %q; want %s", rec.Code, w.Raw, sid, c.version)
			}
			CheckLegacyMessage(t, c.version, w.Raw, "initialize")
		})
	}
}
