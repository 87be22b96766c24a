package legacy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The memory the input bridge keeps per legacy session is bounded
// (docs/dual-era.md §9, session exhaustion: "memory bounded for answers,
// pending entries"; R-IDs of the bridge: §6.4, §6.6): the tombstones of
// answered and abandoned requests are capped at MaxOutstandingRequests,
// and the answers held until their round takes them at MaxAnswerBytes.

// pendingProbe is a SessionStore that remembers the largest Pending map
// it was asked to store or returned.
type pendingProbe struct {
	legacy.SessionStore
	mu  sync.Mutex
	max int
}

func (p *pendingProbe) see(rec *legacy.SessionRecord) {
	if rec == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.max = max(p.max, len(rec.Pending))
}

func (p *pendingProbe) Get(ctx context.Context, principal, key string) (*legacy.SessionRecord, error) {
	rec, err := p.SessionStore.Get(ctx, principal, key)
	p.see(rec)
	return rec, err
}

func (p *pendingProbe) Update(ctx context.Context, principal, key string, fn func(*legacy.SessionRecord) error) (*legacy.SessionRecord, error) {
	rec, err := p.SessionStore.Update(ctx, principal, key, fn)
	p.see(rec)
	return rec, err
}

// Hostile review 3, defect 1: a client that answers promptly grew its
// record by every round's ids for InputTimeout + 1 min (12 answered calls
// of 8 rounds left 96 entries with MaxOutstandingRequests 2). Now the
// record holds at most the outstanding requests plus
// MaxOutstandingRequests tombstones.
func TestHTTPBridgeTombstonesBounded(t *testing.T) {
	probe := &pendingProbe{SessionStore: legacy.NewMemorySessionStore()}
	const outstanding = 2
	f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{Store: probe, MaxOutstandingRequests: outstanding}))
	addBridgeTools(t, f.Server)
	c := newBridgeHTTP(t, f.Server, "2025-11-25")
	const calls = 12
	total := 0
	for i := range calls {
		w, asked := c.callAnswering(100+i, "tools/call", `{"name":"forever"}`, scriptedAnswer)
		if w.Code() != protocol.CodeInternalError || len(asked) != legacy.DefaultMaxInputRounds {
			t.Fatalf("call %d: %s after %d input requests", i, w.Raw, len(asked))
		}
		total += len(asked)
	}
	probe.mu.Lock()
	got := probe.max
	probe.mu.Unlock()
	if bound := 2*outstanding + 1; got > bound {
		t.Errorf("the session record held %d Pending entries after %d answered requests; want at most %d", got, total, bound)
	}
	// A repeated answer to a tombstone still known is dropped quietly; the
	// session still serves rounds.
	if w, _ := c.callAnswering(200, "tools/call", `{"name":"probe"}`, scriptedAnswer); w.Error != nil {
		t.Errorf("a round after the tombstones were pruned: %s", w.Raw)
	}
}

// answerProbe is a SessionStore that counts the answer bytes it holds
// (kept by PutAnswer, not yet taken by TakeAnswer).
type answerProbe struct {
	legacy.SessionStore
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

func (p *answerProbe) heldBytes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// addSixteen registers "sixteen": one round of DefaultMaxInputRequests
// roots/list, then a result.
func addSixteen(t testing.TB, s *server.Server) {
	AddTool(t, s, `{"name":"sixteen","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if r.State() != nil {
			return server.TextResult("sixteen done"), nil
		}
		reqs := map[string]protocol.InputRequest{}
		for i := range server.DefaultMaxInputRequests {
			reqs["k"+strconv.Itoa(i)] = server.ListRoots()
		}
		return nil, r.AskInput(reqs, []byte("x"))
	})
}

// rootsAnswer is a roots/list answer to id of about n bytes.
func rootsAnswer(id string, n int) string {
	root := `{"uri":"file:///` + strings.Repeat("a", 1000) + `"}`
	big := strings.TrimSuffix(strings.Repeat(root+",", max(n/len(root), 1)), ",")
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"roots":[` + big + `]}}`
}

// Hostile review 3, defect 2: 15 of a round's 16 requests answered with
// 4 MiB each (the 16th never) made the store hold 60 MiB for one request.
// Now a session's answers held are bounded by MaxAnswerBytes: over it an
// answer is refused 413 -32600, counted as bad, and its request stays
// pending, so a smaller answer still completes the round.
func TestHTTPBridgeAnswerBytes(t *testing.T) {
	run := func(t *testing.T, limit int64, size int) {
		probe := &answerProbe{SessionStore: legacy.NewMemorySessionStore(), sizes: map[string]int{}}
		f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{Store: probe, MaxAnswerBytes: limit}))
		addSixteen(t, f.Server)
		c := newBridgeHTTP(t, f.Server, "2025-11-25")
		st := c.stream(EraBody(1, "tools/call", `{"name":"sixteen"}`))
		var ids []string
		for len(ids) < server.DefaultMaxInputRequests {
			w := st.next()
			if w == nil || w.Method() != "roots/list" {
				t.Fatalf("want 16 roots/list, got %v after %d", w, len(ids))
			}
			ids = append(ids, w.Id())
		}
		if limit == 0 {
			limit = legacy.DefaultMaxAnswerBytes
		}
		one := int64(len(rootsAnswer(ids[0], size))) // every id has the same length
		fits := int(limit / one)
		accepted, refused := 0, 0
		for _, id := range ids[:len(ids)-1] {
			code, body := c.answer(rootsAnswer(id, size))
			switch {
			case code == http.StatusAccepted && body == nil:
				accepted++
			case code == http.StatusRequestEntityTooLarge && body != nil && body.Code() == protocol.CodeInvalidRequestError:
				refused++
			default:
				t.Fatalf("answer %s: %d %s", id, code, body.Raw)
			}
			if held := probe.heldBytes(); int64(held) > limit {
				t.Fatalf("the store holds %d answer bytes, over MaxAnswerBytes %d", held, limit)
			}
			if refused == 2 {
				break // enough shown; stay under MaxBadResponses
			}
		}
		if accepted != fits || refused != 2 {
			t.Errorf("%d answers accepted, %d refused; want %d and 2", accepted, refused, fits)
		}
		// The refused requests stay pending: small answers complete the
		// round, and the session's answers are released once taken.
		for _, id := range ids[accepted:] {
			if code, body := c.answer(`{"jsonrpc":"2.0","id":` + id + `,"result":{"roots":[]}}`); code != http.StatusAccepted {
				t.Fatalf("small answer %s: %d %v", id, code, body)
			}
		}
		for {
			w := st.next()
			if w == nil {
				t.Fatal("the stream ended without a response")
			}
			if w.Method() == "" {
				if ResultText(t, w) != "sixteen done" {
					t.Errorf("the round's result: %s", w.Raw)
				}
				break
			}
		}
		if held := probe.heldBytes(); held != 0 {
			t.Errorf("%d answer bytes still held after the round", held)
		}
	}
	t.Run("option", func(t *testing.T) { run(t, 40<<10, 10<<10) })
	t.Run("default", func(t *testing.T) { run(t, 0, 1500<<10) })
}

// Defect 2 on stdio: the answers a round holds until it takes them are
// bounded by MaxAnswerBytes too; an answer over it is dropped and counted
// as a bad response (T9, §6.4), and its request stays pending, so that a
// smaller answer still completes the round.
func TestStdioBridgeAnswerBytes(t *testing.T) {
	const limit, size = 40 << 10, 10 << 10
	// 16 answers of about 10 KiB against 40 KiB: 3 fit, 13 are refused.
	const refused = server.DefaultMaxInputRequests - 3
	f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{MaxAnswerBytes: limit, MaxBadResponses: refused}))
	addSixteen(t, f.Server)
	c := StartLegacyStdio(t, f.Server, "2025-11-25")
	c.Open(allClientCaps)
	c.Answer = func(w *Wire) string {
		if big := rootsAnswer(w.Id(), size); int64(len(big))*4 <= limit || int64(len(big))*3 > limit {
			t.Fatalf("an answer of %d bytes: want 3 to fit in %d", len(big), limit)
		}
		c.Ss.Send(rootsAnswer(w.Id(), size))
		// Refused: this one answers; accepted: a repeat, dropped quietly.
		return `{"jsonrpc":"2.0","id":` + w.Id() + `,"result":{"roots":[]}}`
	}
	if w, _ := c.Call(1, "tools/call", `{"name":"sixteen"}`); ResultText(t, w) != "sixteen done" {
		t.Fatalf("the round: %s", w.Raw)
	}
	// Exactly `refused` bad responses were counted: one more ends the
	// legacy session.
	c.Ss.Send(`{"jsonrpc":"2.0","id":"mcpwire-nope","result":{}}`)
	w, _ := c.Call(2, "tools/call", `{"name":"sixteen"}`)
	if w.Code() != protocol.CodeInvalidRequestError || !strings.Contains(w.Error.Message, "the legacy session has ended") {
		t.Errorf("want the legacy session ended after %d refused answers and one unknown id: %s", refused, w.Raw)
	}
}
