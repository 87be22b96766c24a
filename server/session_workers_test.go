package server

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestSessionWorkersReused: sequential resumable requests of a 2025-11-25
// session (docs/dual-era.md §4.8) run on the worker that served the first
// one, each answered as JSON; the same request id is free again as soon
// as its answer is out (L2, R-ID uniqueness is per running request); and
// at Shutdown the idle worker ends at once.
func TestSessionWorkersReused(t *testing.T) {
	before := goleak.IgnoreCurrent()
	f := newResumeFixture(t)
	f.workerIdle = time.Hour
	c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
	c.open("")
	for i := range 20 {
		resp, _, rec := c.call(1, "tools/call", `{"name":"count"}`)
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" || resp.Error != nil {
			t.Fatalf("call %d: %d %s", i, rec.Code, rec.Body.Bytes())
		}
	}
	// Sequential calls wait for the handler, which returns after the
	// worker parked or is about to: at most a second worker when the
	// handler's return outran the first worker's wait.
	if n := f.workers.Load(); n < 1 || n > 2 {
		t.Fatalf("%d workers started for 20 sequential requests, want 1 or 2", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	// The worker ends at Shutdown, not after its idle wait (an hour
	// here): goleak's retries last well under a second.
	goleak.VerifyNone(t, before)
}
