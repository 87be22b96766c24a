package legacy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// Hostile review 3, defect 8: a 2025-03-26 batch (docs/dual-era.md §2.8)
// took one HTTPOptions.MaxConcurrent slot for the whole POST, so that with
// MaxConcurrent 1 one POST ran 64 tools/call at once, while stdio charges
// each element a WithMaxConcurrent slot. Now each request of a batch takes
// a slot (the first the POST's own) and, over the limit, is answered in
// the array with -32029 CodeRateLimited and its id, as on stdio.
func TestHTTPBatchMaxConcurrent(t *testing.T) {
	for _, limit := range []int{1, 4} {
		t.Run("MaxConcurrent="+strconv.Itoa(limit), func(t *testing.T) {
			f := newLegacyFixture(t, legacy.ErasBoth)
			var now, peak atomic.Int64
			entered := make(chan struct{}, legacy.DefaultMaxBatch)
			gate := make(chan struct{})
			AddTool(t, f.Server, `{"name":"hold","inputSchema":{"type":"object"}}`, func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
				n := now.Add(1)
				defer now.Add(-1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				entered <- struct{}{}
				select {
				case <-gate:
				case <-ctx.Done():
				}
				return server.TextResult("held"), nil
			})
			h := Handler(f.Server, streamhttp.Options{MaxConcurrent: limit})
			c := NewLegacyHTTP(t, h, "2025-03-26")
			c.Open("")
			elems := make([]string, legacy.DefaultMaxBatch)
			for i := range elems {
				elems[i] = EraBody(i+1, "tools/call", `{"name":"hold","arguments":{}}`)
			}
			done := make(chan []byte, 1)
			go func() {
				rec := c.Send(http.MethodPost, "["+strings.Join(elems, ",")+"]")
				done <- rec.Body.Bytes()
			}()
			// The admitted requests all start before any ends (the gate),
			// and the slots are all taken before any starts: the counts are exact.
			for range limit {
				<-entered
			}
			close(gate)
			body := <-done
			var arr []json.RawMessage
			if err := json.Unmarshal(body, &arr); err != nil || len(arr) != legacy.DefaultMaxBatch {
				t.Fatalf("want an array of %d responses: %v %.200s", legacy.DefaultMaxBatch, err, body)
			}
			ran, refused := 0, 0
			for i, raw := range arr {
				w := DecodeWire(t, raw)
				if w.Id() != strconv.Itoa(i+1) {
					t.Errorf("response %d has id %s", i, w.Id())
				}
				switch {
				case w.Error == nil:
					ran++
				case w.Code() == server.CodeRateLimited:
					refused++
				default:
					t.Errorf("response %d: %s", i, raw)
				}
			}
			if p := peak.Load(); p != int64(limit) || ran != limit || refused != legacy.DefaultMaxBatch-limit {
				t.Errorf("MaxConcurrent %d: %d handlers at once, %d ran, %d refused -32029; want %d, %d, %d", limit, p, ran, refused, limit, limit, legacy.DefaultMaxBatch-limit)
			}
		})
	}
}
