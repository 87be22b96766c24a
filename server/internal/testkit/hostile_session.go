package testkit

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

	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
)

// hostileClock is the clock of the fixture's legacy sessions: the real
// time, moved by an offset while an expired or evicted session is made.
type HostileClock struct {
	Mu     sync.Mutex
	Offset time.Duration
}

func (c *HostileClock) Now() time.Time {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	return time.Now().Add(c.Offset)
}

// at runs fn with the clock moved by d.
func (c *HostileClock) At(d time.Duration, fn func()) {
	c.Mu.Lock()
	c.Offset = d
	c.Mu.Unlock()
	defer func() {
		c.Mu.Lock()
		c.Offset = 0
		c.Mu.Unlock()
	}()
	fn()
}

// hostileSessionRE matches a session placeholder.
var HostileSessionRE = regexp.MustCompile(`\$\{SID(_[A-Z0-9]+)?\}`)

// hostileSessionPlaceholders are the session placeholders the harness
// prepares, and what each is (testdata/hostile/README.md).
var HostileSessionPlaceholders = map[string]bool{
	"${SID}": true, "${SID_0618}": true, "${SID_0326}": true, "${SID_1105}": true,
	"${SID_UNINIT}": true, "${SID_ALICE}": true, "${SID_EXPIRED}": true,
	"${SID_DELETED}": true, "${SID_EVICTED}": true, "${SID_GUESS}": true,
	"${SID_10K}": true,
}

// forCase returns the fixture with the session placeholders the case names
// bound to sessions made for it (the fixture itself when it names none).
func (f *HostileFixture) ForCase(t testing.TB, c *HostileCase) *HostileFixture {
	t.Helper()
	if !c.UsesSession() {
		return f
	}
	text := string(c.Body) + c.Raw
	for _, h := range c.Headers {
		text += "\n" + h.Value
	}
	var args []string
	seen := map[string]bool{}
	for _, p := range HostileSessionRE.FindAllString(text, -1) {
		if seen[p] {
			continue
		}
		seen[p] = true
		if !HostileSessionPlaceholders[p] {
			t.Fatalf("%s: unknown session placeholder %s", c.Label(), p)
		}
		args = append(args, p, f.MakeSession(t, p))
	}
	g := *f
	g.Vars = strings.NewReplacer(append(args, f.VarArgs...)...)
	return &g
}

// unissuedSessionID is a session id of the right form that no server
// issued.
func UnissuedSessionID(t testing.TB) string {
	b := make([]byte, 32) // the entropy of a minted session id
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// makeSession makes what a session placeholder names.
func (f *HostileFixture) MakeSession(t testing.TB, p string) string {
	t.Helper()
	switch p {
	case "${SID_GUESS}":
		return UnissuedSessionID(t)
	case "${SID_10K}":
		return strings.Repeat("A", 10<<10)
	}
	if f.Eras() == legacy.ErasModern {
		return UnissuedSessionID(t) // no sessions: the id is ignored (R-HTTP-17)
	}
	l := EraOf(f.Server).Config()
	switch p {
	case "${SID}":
		return f.OpenSession(t, "2025-11-25", "", true)
	case "${SID_0618}":
		return f.OpenSession(t, "2025-06-18", "", true)
	case "${SID_0326}":
		return f.OpenSession(t, "2025-03-26", "", true)
	case "${SID_1105}":
		return f.OpenSession(t, "2024-11-05", "", true)
	case "${SID_UNINIT}":
		return f.OpenSession(t, "2025-11-25", "", false)
	case "${SID_ALICE}":
		return f.OpenSession(t, "2025-11-25", "alice", true)
	case "${SID_EXPIRED}":
		// Made IdleTimeout and a minute ago: idle since.
		var sid string
		f.Clock.At(-l.IdleTimeout-time.Minute, func() { sid = f.OpenSession(t, "2025-11-25", "", true) })
		return sid
	case "${SID_DELETED}":
		sid := f.OpenSession(t, "2025-11-25", "", true)
		if rec := f.SessionRequest(t, http.MethodDelete, "", sid, "", ""); rec.Code != http.StatusNoContent {
			t.Fatalf("DELETE of %s: %d %s", p, rec.Code, rec.Body.Bytes())
		}
		return sid
	case "${SID_EVICTED}":
		// The anonymous client's least recently used session once
		// MaxSessionsPerPrincipal more are made (used ten minutes ago).
		var sid string
		f.Clock.At(-10*time.Minute, func() { sid = f.OpenSession(t, "2025-11-25", "", true) })
		for range l.MaxSessionsPerPrincipal {
			f.OpenSession(t, "2025-11-25", "", false)
		}
		if rec := f.SessionRequest(t, http.MethodPost, EraBody("evicted?", "ping", ""), sid, "", ""); rec.Code != http.StatusNotFound {
			t.Fatalf("%s is not evicted by %d more sessions: %d %s", p, l.MaxSessionsPerPrincipal, rec.Code, rec.Body.Bytes())
		}
		return sid
	}
	t.Fatalf("no session for %s", p)
	return ""
}

// openSession sends initialize (and notifications/initialized when ready)
// as user ("" for none) over the fixture's Handler and returns the id.
func (f *HostileFixture) OpenSession(t testing.TB, rev, user string, ready bool) string {
	t.Helper()
	rec := f.SessionRequest(t, http.MethodPost, EraBody("init", "initialize", InitParams(rev, "")), "", "", user)
	sid := rec.Header().Get(legacy.HeaderSessionID)
	if rec.Code != http.StatusOK || !SessionIDRE.MatchString(sid) {
		t.Fatalf("initialize %s: %d, Mcp-Session-Id %q: %s", rev, rec.Code, sid, rec.Body.Bytes())
	}
	if ready {
		hv := ""
		if rev >= "2025-06-18" {
			hv = rev
		}
		if rec := f.SessionRequest(t, http.MethodPost, EraNote("notifications/initialized", ""), sid, hv, user); rec.Code != http.StatusAccepted {
			t.Fatalf("notifications/initialized %s: %d %s", rev, rec.Code, rec.Body.Bytes())
		}
	}
	return sid
}

// sessionRequest sends one request as a legacy client: the session id,
// MCP-Protocol-Version and X-User when not empty.
func (f *HostileFixture) SessionRequest(t testing.TB, verb, body, sid, hv, user string) *httptest.ResponseRecorder {
	t.Helper()
	var hdr []string
	if sid != "" {
		hdr = append(hdr, legacy.HeaderSessionID, sid)
	}
	if hv != "" {
		hdr = append(hdr, server.HeaderProtocolVersion, hv)
	}
	if user != "" {
		hdr = append(hdr, "X-User", user)
	}
	return EraRequest(t, f.H, verb, body, hdr...)
}

// checkMintedSession checks an answer that names a session: only the
// result of an initialize may (L1125/basic/transports.mdx#session-management;
// R-HTTP-17 for every modern request), with an id of 256 random bits;
// the session is then ended, as the case's client.
func (f *HostileFixture) CheckMintedSession(t testing.TB, k *HostileCheck, c *HostileCase, body []byte, status int, answer []byte, sid string) {
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
		k.Errorf("R-HTTP-17: Mcp-Session-Id %q on an answer that is not an initialize result", HostileShort([]byte(sid)))
		return
	}
	if !SessionIDRE.MatchString(sid) {
		k.Errorf("minted session id %q is not 43 characters of base64url", sid)
	}
	user := ""
	for _, h := range c.Headers {
		if !h.Del && http.CanonicalHeaderKey(h.Name) == "X-User" {
			user = f.Vars.Replace(h.Value)
		}
	}
	if rec := f.SessionRequest(t, http.MethodDelete, "", sid, "", user); rec.Code != http.StatusNoContent {
		k.Errorf("DELETE of the session the case made: %d %s", rec.Code, rec.Body.Bytes())
	}
}

// probe is the normal request sent after every case: a modern tools/list,
// or a ping under ErasLegacy (which serves nothing modern).
func (f *HostileFixture) Probe(id string) []byte {
	if f.Eras() == legacy.ErasLegacy {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"ping"}`, id))
	}
	return HostileProbe(id)
}
