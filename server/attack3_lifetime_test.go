package server

import (
	"net/http"
	"testing"
	"time"
)

// TestAttack3DetachedOutlivesSession: §8 says of MaxLifetime "404;
// running requests are cancelled, streams closed", and §9 that "detached
// legacy requests still end at the handler timeout, InputTimeout,
// MaxInputRounds and the session's end". A detached request (here after
// DisconnectForPolling; the same after a break) runs on
// context.WithoutCancel and is cancelled only by notifications/cancelled,
// DELETE, eviction (sessionEnded) and Shutdown: a session that ends by
// MaxLifetime or IdleTimeout — nothing calls sessionEnded then — leaves
// its detached requests running until the handler timeout (5 min by
// default), writing to an event log that nobody can read (the session is
// 404). With TestAttack3DetachedRequestsUnbounded this lets a client keep
// handlers running past every session bound.
//
// Here MaxLifetime is 400 ms; 1.5 s later the session is 404 and the
// "poll" handler has not been cancelled.
func TestAttack3DetachedOutlivesSession(t *testing.T) {
	attack3Gate(t)
	f := newResumeFixture(t, WithLegacy(LegacyConfig{MaxLifetime: 400 * time.Millisecond}))
	h := f.Handler(HTTPOptions{})
	srv := getServer(t, h)
	c := newLegacyHTTP(t, h, "2025-11-25")
	c.open("")
	_, ev := openStream(t, srv, c, http.MethodPost, eraBody(1, "tools/call", `{"name":"poll","arguments":{}}`))
	if ev == nil {
		t.Fatal("a JSON answer")
	}
	ev.all()
	if !<-f.polled {
		t.Fatal("DisconnectForPolling returned false")
	}
	time.Sleep(1500 * time.Millisecond)
	_, _, rec := c.call(2, "ping", "")
	cancelled := f.calls.get("poll cancelled")
	t.Logf("session after MaxLifetime: %d; detached handler cancelled: %d", rec.Code, cancelled)
	close(f.gate)
	if rec.Code != http.StatusNotFound {
		t.Fatalf("the session did not end: %d", rec.Code)
	}
	if cancelled == 0 {
		t.Errorf("the session ended (404) but its detached request still runs; want it cancelled at the session's end (§8 MaxLifetime, §9)")
	}
}
