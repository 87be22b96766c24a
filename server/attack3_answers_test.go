package server

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// answerProbe is a SessionStore that counts the answer bytes it holds
// (kept by PutAnswer, not yet taken by TakeAnswer).
type answerProbe struct {
	SessionStore
	mu        sync.Mutex
	held, max int
	sizes     map[string]int
}

func (p *answerProbe) PutAnswer(ctx context.Context, principal, key, reqID string, payload []byte, ttl time.Duration) error {
	err := p.SessionStore.PutAnswer(ctx, principal, key, reqID, payload, ttl)
	if err == nil {
		p.mu.Lock()
		p.sizes[reqID] = len(payload)
		p.held += len(payload)
		p.max = max(p.max, p.held)
		p.mu.Unlock()
	}
	return err
}

func (p *answerProbe) TakeAnswer(ctx context.Context, principal, key, reqID string) ([]byte, error) {
	b, err := p.SessionStore.TakeAnswer(ctx, principal, key, reqID)
	if err == nil {
		p.mu.Lock()
		p.held -= p.sizes[reqID]
		delete(p.sizes, reqID)
		p.mu.Unlock()
	}
	return b, err
}

// TestAttack3AnswersHeldUnbounded: an answer to a pending server-to-client
// request is kept whole (SessionStore.PutAnswer, up to the 4 MiB body
// limit each) before anything decodes it, and the waiting round takes the
// answers only once every id of the round is answered (§6.3 item 6). A
// client that answers 15 of a round's 16 requests with 4 MiB each and
// never the 16th makes the store hold 60 MiB for that one request until
// InputTimeout + 1 min (6 min by default); with MaxOutstandingRequests 32
// per session and MaxSessionsPerPrincipal 100, one principal (one client
// address without Authenticate) can park 12.8 GB in the store — process
// memory with the default MemorySessionStore, Redis memory otherwise.
// §9 promises "memory bounded for answers"; nothing bounds their bytes.
// Expected: a bound on the answer bytes a session (or a store) holds,
// with a default and an option (e.g. answers decoded and checked on
// receipt and kept only up to MaxAnswerBytes per session), over it the
// answer refused (413 or 400 -32600, counted as bad).
func TestAttack3AnswersHeldUnbounded(t *testing.T) {
	attack3Gate(t)
	probe := &answerProbe{SessionStore: NewMemorySessionStore(), sizes: map[string]int{}}
	f := newLegacyFixture(t, ErasBoth, WithLegacy(LegacyConfig{Store: probe}))
	addTool(t, f.Server, `{"name":"sixteen","inputSchema":{"type":"object"}}`, func(_ context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if r.State() != nil {
			return TextResult("sixteen done"), nil
		}
		reqs := map[string]protocol.InputRequest{}
		for i := range DefaultMaxInputRequests {
			reqs["k"+strconv.Itoa(i)] = ListRoots()
		}
		return nil, r.AskInput(reqs, []byte("x"))
	})
	c := newBridgeHTTP(t, f.Server, "2025-11-25")
	st := c.stream(eraBody(1, "tools/call", `{"name":"sixteen"}`))
	var ids []string
	for len(ids) < DefaultMaxInputRequests {
		w := st.next()
		if w == nil || w.method() != "roots/list" {
			t.Fatalf("want 16 roots/list, got %v after %d", w, len(ids))
		}
		ids = append(ids, w.id())
	}
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	// Just under the 4 MiB body limit, within the decode limits (no
	// string over 1 MiB): 3,900 roots of 1 KiB.
	root := `{"uri":"file:///` + strings.Repeat("a", 1000) + `"}`
	big := strings.TrimSuffix(strings.Repeat(root+",", 3900), ",")
	for _, id := range ids[:len(ids)-1] {
		code, body := c.answer(`{"jsonrpc":"2.0","id":` + id + `,"result":{"roots":[` + big + `]}}`)
		if code != http.StatusAccepted {
			t.Fatalf("answer %s: %d %v", id, code, body)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	probe.mu.Lock()
	held := probe.held
	probe.mu.Unlock()
	t.Logf("answer bytes held for one request of one session: %d (heap in use %d -> %d MiB)", held, ms0.HeapInuse>>20, ms1.HeapInuse>>20)
	if held > 8<<20 {
		t.Errorf("the store holds %d MiB of answers for one request while its round waits; want a bound (at most 8 MiB here)", held>>20)
	}
}
