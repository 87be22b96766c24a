package legacy_test

import (
	"context"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/server"
	"go.uber.org/goleak"
)

// TestSessionWorkersReused: sequential resumable requests of a 2025-11-25
// session (docs/dual-era.md §4.8) to a tool registered with AllowPolling
// run on the worker that served the first one, each answered as JSON;
// the same request id is free again as soon as its answer is out (L2,
// R-ID uniqueness is per running request); and at Shutdown the idle
// worker ends at once. Calls of a tool without AllowPolling start no
// worker: they run on their HTTP request's goroutine.
func TestSessionWorkersReused(t *testing.T) {
	before := goleak.IgnoreCurrent()
	f := newResumeFixture(t)
	f.era().SetWorkerIdle(time.Hour)
	AddTool(t, f.Server, `{"name":"pcount","inputSchema":{"type":"object"}}`, TextTool("counted"), server.AllowPolling())
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	call := func(name string) {
		t.Helper()
		for i := range 20 {
			resp, _, rec := c.Call(1, "tools/call", `{"name":"`+name+`"}`)
			if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" || resp.Error != nil {
				t.Fatalf("%s call %d: %d %s", name, i, rec.Code, rec.Body.Bytes())
			}
		}
	}
	call("count")
	if n := f.era().Workers(); n != 0 {
		t.Fatalf("%d workers started for the calls of a tool without AllowPolling, want 0", n)
	}
	call("pcount")
	// Sequential calls wait for the handler, which returns after the
	// worker parked or is about to: at most a second worker when the
	// handler's return outran the first worker's wait.
	if n := f.era().Workers(); n < 1 || n > 2 {
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
