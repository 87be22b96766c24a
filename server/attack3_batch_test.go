package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// TestAttack3BatchEscapesMaxConcurrent: a 2025-03-26 batch runs its
// requests concurrently (docs/dual-era.md §2.8) but takes one
// HTTPOptions.MaxConcurrent slot for the whole POST, so every slot is
// worth MaxBatch (64) handlers: with MaxConcurrent 1 a single POST runs
// 64 tools/call at once. On stdio the batch's requests each take a
// WithMaxConcurrent slot (legacy_batch.go), so the two transports
// disagree; §9's cost rows and the MaxConcurrent doc ("bounds the POSTs
// that this Handler reads and serves at once") do not foresee the
// multiplier. Expected: the elements of a batch count against
// MaxConcurrent (over it: the element's -32029 CodeRateLimited refusal in
// the array, as stdio answers it and as §6.6 already does for the rate
// limit), or run one at a time beyond a small per-batch parallelism.
func TestAttack3BatchEscapesMaxConcurrent(t *testing.T) {
	attack3Gate(t)
	f := newLegacyFixture(t, ErasBoth)
	var now, peak atomic.Int64
	gate := make(chan struct{})
	addTool(t, f.Server, `{"name":"hold","inputSchema":{"type":"object"}}`, func(ctx context.Context, _ *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		n := now.Add(1)
		defer now.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		select {
		case <-gate:
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
		return TextResult("held"), nil
	})
	h := f.Handler(HTTPOptions{MaxConcurrent: 1})
	c := newLegacyHTTP(t, h, "2025-03-26")
	c.open("")
	elems := make([]string, DefaultMaxBatch)
	for i := range elems {
		elems[i] = eraBody(i+1, "tools/call", `{"name":"hold","arguments":{}}`)
	}
	done := make(chan int, 1)
	go func() { done <- c.send(http.MethodPost, "["+strings.Join(elems, ",")+"]").Code }()
	deadline := time.Now().Add(3 * time.Second)
	for peak.Load() < DefaultMaxBatch && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	close(gate)
	code := <-done
	t.Logf("one POST (status %d) ran %d handlers at once with MaxConcurrent 1", code, peak.Load())
	if p := peak.Load(); p > 1 {
		t.Errorf("a batch ran %s tools/call at once with HTTPOptions.MaxConcurrent 1", strconv.FormatInt(p, 10))
	}
}
