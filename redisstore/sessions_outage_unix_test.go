//go:build unix

package redisstore

import (
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/redis/go-redis/v9"
)

// Redis hung (redis-server stopped with SIGSTOP) under a live legacy
// session: every request of the session, its DELETE and a new initialize
// get 503 with Retry-After: 1 once the store's timeout passes, never 404
// (the client keeps its session); resumed (SIGCONT), the same session is
// served again, on either instance.
func TestLegacySessionRedisPaused(t *testing.T) {
	r := startPausableRedis(t)
	opt := &redis.Options{Addr: r.addr()}
	p, ch := uniquePrefix(t), uniqueChannel(t)
	a, _ := sessionInstance(t, "A", opt, p, ch, legacy.Config{}, WithTimeout(300*time.Millisecond))
	b, _ := sessionInstance(t, "B", opt, p, ch, legacy.Config{}, WithTimeout(300*time.Millisecond))
	c := (&legacyClient{t: t, user: "alice"}).open(a)
	wantStatus(t, "notifications/initialized", c.send(b, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`), http.StatusAccepted)

	r.signal(syscall.SIGSTOP)
	unavailable := func(what string, got *legacyAnswer) {
		t.Helper()
		if got.status != http.StatusServiceUnavailable || got.header.Get("Retry-After") != "1" {
			t.Errorf("%s with Redis stopped: %d Retry-After %q %s, want 503 with Retry-After: 1", what, got.status, got.header.Get("Retry-After"), got.body)
		}
	}
	unavailable("tools/list on A", c.call(a, "tools/list", ""))
	unavailable("ping on B", c.call(b, "ping", ""))
	unavailable("DELETE on B", c.send(b, http.MethodDelete, ""))
	unavailable("initialize", (&legacyClient{t: t, user: "bob"}).call(a, "initialize", initializeParams))
	r.signal(syscall.SIGCONT)

	// Just after the resume a request may still meet a connection that
	// timed out; the client retries, as it would after a 503.
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := c.call(b, "tools/list", "")
		if got.status == http.StatusOK {
			break
		}
		if got.status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("tools/list after the resume: %d %s", got.status, got.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	wantStatus(t, "ping on A after the resume", c.call(a, "ping", ""), http.StatusOK)
	wantStatus(t, "DELETE on A after the resume", c.send(a, http.MethodDelete, ""), http.StatusNoContent)
}
