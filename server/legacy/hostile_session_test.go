package legacy_test

import (
	"net/http"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
)

// The session placeholders of the hostile corpus (docs/dual-era.md §10.4):
// real legacy sessions, made over the fixture's Handler for each case that
// names one, so that a case may end or spoil its sessions without touching
// the next case. A server that serves no sessions (ErasModern) gets ids
// that are well formed and never issued.

// TestHostileSessionHarness checks the harness's own session checks: an
// answer naming a session fails a case unless it is an initialize result
// whose session the harness can end, and the placeholders are live (or
// not) as they say.
func TestHostileSessionHarness(t *testing.T) {
	f := NewHostileFixture(t, Eras(legacy.ErasBoth))
	c := &HostileCase{Name: "x", Http: true}
	list := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	initBody := []byte(EraBody(1, "initialize", InitParams("2025-11-25", "")))
	result := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	for _, tc := range []struct {
		what   string
		body   []byte
		status int
		sid    string
		fails  bool
	}{
		{"a session id on a tools/list answer", list, 200, f.OpenSession(t, "2025-11-25", "", true), true},
		{"a session id on an initialize error", initBody, 400, f.OpenSession(t, "2025-11-25", "", true), true},
		{"an initialize result naming a session that is not one", initBody, 200, UnissuedSessionID(t), true},
		{"an initialize result naming a live session", initBody, 200, f.OpenSession(t, "2025-11-25", "", true), false},
	} {
		k := &HostileCheck{}
		f.CheckMintedSession(t, k, c, tc.body, tc.status, result, tc.sid)
		if (len(k.Fails) > 0) != tc.fails {
			t.Errorf("%s: failures %q, want failing %v", tc.what, k.Fails, tc.fails)
		}
	}
	ping := func(sid string) int {
		return f.SessionRequest(t, http.MethodPost, EraBody(1, "ping", ""), sid, "", "").Code
	}
	for p, want := range map[string]int{"${SID}": 200, "${SID_UNINIT}": 200, "${SID_0326}": 200, "${SID_EXPIRED}": 404, "${SID_DELETED}": 404, "${SID_EVICTED}": 404, "${SID_GUESS}": 404, "${SID_ALICE}": 404} {
		if got := ping(f.MakeSession(t, p)); got != want {
			t.Errorf("%s: ping answered %d, want %d", p, got, want)
		}
	}
	if rec := f.SessionRequest(t, http.MethodPost, EraBody(1, "tools/list", ""), f.MakeSession(t, "${SID_UNINIT}"), "", ""); rec.Code != http.StatusBadRequest {
		t.Errorf("${SID_UNINIT} served tools/list: %d", rec.Code)
	}
	if rec := f.SessionRequest(t, http.MethodPost, EraBody(1, "ping", ""), f.MakeSession(t, "${SID_ALICE}"), "", "alice"); rec.Code != http.StatusOK {
		t.Errorf("${SID_ALICE} as alice: %d", rec.Code)
	}
}
