package server

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The session placeholders of the hostile corpus (docs/dual-era.md §10.4):
// real legacy sessions, made over the fixture's Handler for each case that
// names one, so that a case may end or spoil its sessions without touching
// the next case. A server that serves no sessions (ErasModern) gets ids
// that are well formed and never issued.

// hostileClock is the clock of the fixture's legacy sessions: the real
// time, moved by an offset while an expired or evicted session is made.
type hostileClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *hostileClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// at runs fn with the clock moved by d.
func (c *hostileClock) at(d time.Duration, fn func()) {
	c.mu.Lock()
	c.offset = d
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.offset = 0
		c.mu.Unlock()
	}()
	fn()
}

// hostileSessionRE matches a session placeholder.
var hostileSessionRE = regexp.MustCompile(`\$\{SID(_[A-Z0-9]+)?\}`)

// hostileSessionPlaceholders are the session placeholders the harness
// prepares, and what each is (testdata/hostile/README.md).
var hostileSessionPlaceholders = map[string]bool{
	"${SID}": true, "${SID_0618}": true, "${SID_0326}": true, "${SID_1105}": true,
	"${SID_UNINIT}": true, "${SID_ALICE}": true, "${SID_EXPIRED}": true,
	"${SID_DELETED}": true, "${SID_EVICTED}": true, "${SID_GUESS}": true,
	"${SID_10K}": true,
}

// forCase returns the fixture with the session placeholders the case names
// bound to sessions made for it (the fixture itself when it names none).
func (f *hostileFixture) forCase(t testing.TB, c *hostileCase) *hostileFixture {
	t.Helper()
	if !c.usesSession() {
		return f
	}
	text := string(c.body) + c.raw
	for _, h := range c.headers {
		text += "\n" + h.value
	}
	var args []string
	seen := map[string]bool{}
	for _, p := range hostileSessionRE.FindAllString(text, -1) {
		if seen[p] {
			continue
		}
		seen[p] = true
		if !hostileSessionPlaceholders[p] {
			t.Fatalf("%s: unknown session placeholder %s", c.label(), p)
		}
		args = append(args, p, f.makeSession(t, p))
	}
	g := *f
	g.vars = strings.NewReplacer(append(args, f.varArgs...)...)
	return &g
}

// unissuedSessionID is a session id of the right form that no server
// issued.
func unissuedSessionID(t testing.TB) string {
	b := make([]byte, sessionIDBytes)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// makeSession makes what a session placeholder names.
func (f *hostileFixture) makeSession(t testing.TB, p string) string {
	t.Helper()
	switch p {
	case "${SID_GUESS}":
		return unissuedSessionID(t)
	case "${SID_10K}":
		return strings.Repeat("A", 10<<10)
	}
	if f.cfg.eras == ErasModern {
		return unissuedSessionID(t) // no sessions: the id is ignored (R-HTTP-17)
	}
	l := f.cfg.legacy
	switch p {
	case "${SID}":
		return f.openSession(t, "2025-11-25", "", true)
	case "${SID_0618}":
		return f.openSession(t, "2025-06-18", "", true)
	case "${SID_0326}":
		return f.openSession(t, "2025-03-26", "", true)
	case "${SID_1105}":
		return f.openSession(t, "2024-11-05", "", true)
	case "${SID_UNINIT}":
		return f.openSession(t, "2025-11-25", "", false)
	case "${SID_ALICE}":
		return f.openSession(t, "2025-11-25", "alice", true)
	case "${SID_EXPIRED}":
		// Made IdleTimeout and a minute ago: idle since.
		var sid string
		f.clock.at(-l.IdleTimeout-time.Minute, func() { sid = f.openSession(t, "2025-11-25", "", true) })
		return sid
	case "${SID_DELETED}":
		sid := f.openSession(t, "2025-11-25", "", true)
		if rec := f.sessionRequest(t, http.MethodDelete, "", sid, "", ""); rec.Code != http.StatusNoContent {
			t.Fatalf("DELETE of %s: %d %s", p, rec.Code, rec.Body.Bytes())
		}
		return sid
	case "${SID_EVICTED}":
		// The anonymous client's least recently used session once
		// MaxSessionsPerPrincipal more are made (used ten minutes ago).
		var sid string
		f.clock.at(-10*time.Minute, func() { sid = f.openSession(t, "2025-11-25", "", true) })
		for range l.MaxSessionsPerPrincipal {
			f.openSession(t, "2025-11-25", "", false)
		}
		if rec := f.sessionRequest(t, http.MethodPost, eraBody("evicted?", "ping", ""), sid, "", ""); rec.Code != http.StatusNotFound {
			t.Fatalf("%s is not evicted by %d more sessions: %d %s", p, l.MaxSessionsPerPrincipal, rec.Code, rec.Body.Bytes())
		}
		return sid
	}
	t.Fatalf("no session for %s", p)
	return ""
}

// openSession sends initialize (and notifications/initialized when ready)
// as user ("" for none) over the fixture's Handler and returns the id.
func (f *hostileFixture) openSession(t testing.TB, rev, user string, ready bool) string {
	t.Helper()
	rec := f.sessionRequest(t, http.MethodPost, eraBody("init", "initialize", initParams(rev, "")), "", "", user)
	sid := rec.Header().Get(HeaderSessionID)
	if rec.Code != http.StatusOK || !sessionIDRE.MatchString(sid) {
		t.Fatalf("initialize %s: %d, Mcp-Session-Id %q: %s", rev, rec.Code, sid, rec.Body.Bytes())
	}
	if ready {
		hv := ""
		if rev >= "2025-06-18" {
			hv = rev
		}
		if rec := f.sessionRequest(t, http.MethodPost, eraNote("notifications/initialized", ""), sid, hv, user); rec.Code != http.StatusAccepted {
			t.Fatalf("notifications/initialized %s: %d %s", rev, rec.Code, rec.Body.Bytes())
		}
	}
	return sid
}

// sessionRequest sends one request as a legacy client: the session id,
// MCP-Protocol-Version and X-User when not empty.
func (f *hostileFixture) sessionRequest(t testing.TB, verb, body, sid, hv, user string) *httptest.ResponseRecorder {
	t.Helper()
	var hdr []string
	if sid != "" {
		hdr = append(hdr, HeaderSessionID, sid)
	}
	if hv != "" {
		hdr = append(hdr, HeaderProtocolVersion, hv)
	}
	if user != "" {
		hdr = append(hdr, "X-User", user)
	}
	return eraRequest(t, f.h, verb, body, hdr...)
}

// checkMintedSession checks an answer that names a session: only the
// result of an initialize may (L1125/basic/transports.mdx#session-management;
// R-HTTP-17 for every modern request), with an id of 256 random bits;
// the session is then ended, as the case's client.
func (f *hostileFixture) checkMintedSession(t testing.TB, k *hostileCheck, c *hostileCase, body []byte, status int, answer []byte, sid string) {
	t.Helper()
	var req struct {
		Method string `json:"method"`
	}
	var res struct {
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(body, &req)
	_ = json.Unmarshal(answer, &res)
	if req.Method != "initialize" || status != http.StatusOK || res.Result == nil {
		k.errorf("R-HTTP-17: Mcp-Session-Id %q on an answer that is not an initialize result", hostileShort([]byte(sid)))
		return
	}
	if !sessionIDRE.MatchString(sid) {
		k.errorf("minted session id %q is not 43 characters of base64url", sid)
	}
	user := ""
	for _, h := range c.headers {
		if !h.del && http.CanonicalHeaderKey(h.name) == "X-User" {
			user = f.vars.Replace(h.value)
		}
	}
	if rec := f.sessionRequest(t, http.MethodDelete, "", sid, "", user); rec.Code != http.StatusNoContent {
		k.errorf("DELETE of the session the case made: %d %s", rec.Code, rec.Body.Bytes())
	}
}

// probe is the normal request sent after every case: a modern tools/list,
// or a ping under ErasLegacy (which serves nothing modern).
func (f *hostileFixture) probe(id string) []byte {
	if f.cfg.eras == ErasLegacy {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"ping"}`, id))
	}
	return hostileProbe(id)
}

// TestHostileSessionHarness checks the harness's own session checks: an
// answer naming a session fails a case unless it is an initialize result
// whose session the harness can end, and the placeholders are live (or
// not) as they say.
func TestHostileSessionHarness(t *testing.T) {
	f := newHostileFixture(t, WithEras(ErasBoth))
	c := &hostileCase{name: "x", http: true}
	list := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	initBody := []byte(eraBody(1, "initialize", initParams("2025-11-25", "")))
	result := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	for _, tc := range []struct {
		what   string
		body   []byte
		status int
		sid    string
		fails  bool
	}{
		{"a session id on a tools/list answer", list, 200, f.openSession(t, "2025-11-25", "", true), true},
		{"a session id on an initialize error", initBody, 400, f.openSession(t, "2025-11-25", "", true), true},
		{"an initialize result naming a session that is not one", initBody, 200, unissuedSessionID(t), true},
		{"an initialize result naming a live session", initBody, 200, f.openSession(t, "2025-11-25", "", true), false},
	} {
		k := &hostileCheck{}
		f.checkMintedSession(t, k, c, tc.body, tc.status, result, tc.sid)
		if (len(k.fails) > 0) != tc.fails {
			t.Errorf("%s: failures %q, want failing %v", tc.what, k.fails, tc.fails)
		}
	}
	ping := func(sid string) int {
		return f.sessionRequest(t, http.MethodPost, eraBody(1, "ping", ""), sid, "", "").Code
	}
	for p, want := range map[string]int{"${SID}": 200, "${SID_UNINIT}": 200, "${SID_0326}": 200, "${SID_EXPIRED}": 404, "${SID_DELETED}": 404, "${SID_EVICTED}": 404, "${SID_GUESS}": 404, "${SID_ALICE}": 404} {
		if got := ping(f.makeSession(t, p)); got != want {
			t.Errorf("%s: ping answered %d, want %d", p, got, want)
		}
	}
	if rec := f.sessionRequest(t, http.MethodPost, eraBody(1, "tools/list", ""), f.makeSession(t, "${SID_UNINIT}"), "", ""); rec.Code != http.StatusBadRequest {
		t.Errorf("${SID_UNINIT} served tools/list: %d", rec.Code)
	}
	if rec := f.sessionRequest(t, http.MethodPost, eraBody(1, "ping", ""), f.makeSession(t, "${SID_ALICE}"), "", "alice"); rec.Code != http.StatusOK {
		t.Errorf("${SID_ALICE} as alice: %d", rec.Code)
	}
}
