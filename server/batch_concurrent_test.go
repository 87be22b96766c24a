package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
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
			f := newLegacyFixture(t, ErasBoth)
			var now, peak atomic.Int64
			entered := make(chan struct{}, DefaultMaxBatch)
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
				entered <- struct{}{}
				select {
				case <-gate:
				case <-ctx.Done():
				}
				return TextResult("held"), nil
			})
			h := f.Handler(HTTPOptions{MaxConcurrent: limit})
			c := newLegacyHTTP(t, h, "2025-03-26")
			c.open("")
			elems := make([]string, DefaultMaxBatch)
			for i := range elems {
				elems[i] = eraBody(i+1, "tools/call", `{"name":"hold","arguments":{}}`)
			}
			done := make(chan []byte, 1)
			go func() {
				rec := c.send(http.MethodPost, "["+strings.Join(elems, ",")+"]")
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
			if err := json.Unmarshal(body, &arr); err != nil || len(arr) != DefaultMaxBatch {
				t.Fatalf("want an array of %d responses: %v %.200s", DefaultMaxBatch, err, body)
			}
			ran, refused := 0, 0
			for i, raw := range arr {
				w := decodeWire(t, raw)
				if w.id() != strconv.Itoa(i+1) {
					t.Errorf("response %d has id %s", i, w.id())
				}
				switch {
				case w.Error == nil:
					ran++
				case w.code() == CodeRateLimited:
					refused++
				default:
					t.Errorf("response %d: %s", i, raw)
				}
			}
			if p := peak.Load(); p != int64(limit) || ran != limit || refused != DefaultMaxBatch-limit {
				t.Errorf("MaxConcurrent %d: %d handlers at once, %d ran, %d refused -32029; want %d, %d, %d", limit, p, ran, refused, limit, limit, DefaultMaxBatch-limit)
			}
		})
	}
}
