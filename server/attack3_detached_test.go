package server

import (
	"net/http"
	"runtime"
	"testing"
)

// TestAttack3DetachedRequestsUnbounded: a legacy request whose POST stream
// is let go (DisconnectForPolling, PollAfter, or a break after an event id
// reached the client) keeps running detached and leaves
// HTTPOptions.MaxConcurrent (docs/dual-era.md §4.8 "Running detached").
// Nothing else bounds how many detached requests a session, a principal
// or the server holds: each lives until the handler timeout (5 min by
// default) or, in a bridge wait, InputTimeout (5 min). A client can
// therefore keep any number of handlers running at once with
// MaxConcurrent 2: it POSTs, reads the retry event, and POSTs again. §9
// "resource use by disconnected clients" lists only per-request bounds;
// the ground rules want a default and an option for every limit.
//
// Here, with MaxConcurrent 2, 60 calls of "poll" (DisconnectForPolling,
// then waits) in one 2025-11-25 session are all running at once.
func TestAttack3DetachedRequestsUnbounded(t *testing.T) {
	attack3Gate(t)
	f := newResumeFixture(t)
	h := f.Handler(HTTPOptions{MaxConcurrent: 2})
	srv := getServer(t, h)
	c := newLegacyHTTP(t, h, "2025-11-25")
	c.open("")
	before := runtime.NumGoroutine()
	const n = 60
	running := 0
	for i := range n {
		resp, ev := openStream(t, srv, c, http.MethodPost, eraBody(i+1, "tools/call", `{"name":"poll","arguments":{}}`))
		if ev == nil {
			t.Logf("call %d refused: %d", i, resp.StatusCode)
			continue
		}
		ev.all() // the priming event and retry: the POST is let go
		if <-f.polled {
			running++
		}
		resp.Body.Close()
	}
	t.Logf("%d detached handlers running with MaxConcurrent 2; goroutines %d -> %d", running, before, runtime.NumGoroutine())
	close(f.gate)
	if running >= n {
		t.Errorf("%d of %d requests run detached at once with MaxConcurrent 2: nothing bounds detached requests (want a limit with a default and an option)", running, n)
	}
}
