package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// TestAttack3EventStoreCrossSessionEviction: the MemoryEventStore (the
// default EventStore, 64 MiB) drops whole streams, least recently
// written first, of any session when it is full (§4.8, §8), and one
// session may hold MaxReplayStreams (16) × MaxReplayBytes (4 MiB) = 64
// MiB — the whole store. A client whose requests put large messages on
// their streams (an elicitation message or a progress text derived from
// its arguments, a large tool result after a notification) therefore
// evicts the logs of every other session: their clients' resumes are
// then 400 -32600 "cannot resume" and the responses of their running
// requests are lost. §9 "session exhaustion" promises that "a leaking
// client hurts only itself". Expected: a per-session (or per-principal)
// share of the store smaller than the whole (e.g. MaxBytes/…), so that
// another session's logs are dropped only by that session's own writes.
//
// Here the store is 8 MiB (the proportions of the default: one session's
// bound exceeds it); a victim's request is waiting after
// DisconnectForPolling; an attacker session's 12 calls each log one
// 900 KiB progress message; the victim's resume is then refused.
func TestAttack3EventStoreCrossSessionEviction(t *testing.T) {
	attack3Gate(t)
	f := newResumeFixture(t, WithLegacy(LegacyConfig{EventStore: NewMemoryEventStore(8 << 20)}))
	addTool(t, f.Server, `{"name":"shout","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		var in struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(args, &in)
		r.Progress(ctx, 1, 1, in.Text)
		return TextResult("ok"), nil
	})
	h := f.Handler(HTTPOptions{Authenticate: xUser})
	srv := getServer(t, h)
	victim := newLegacyHTTP(t, h, "2025-11-25", "X-User", "victim")
	victim.open("")
	_, ev := openStream(t, srv, victim, http.MethodPost, eraBody(1, "tools/call", `{"name":"poll","arguments":{}}`))
	if ev == nil {
		t.Fatal("a JSON answer")
	}
	evs := ev.all()
	<-f.polled
	attacker := newLegacyHTTP(t, h, "2025-11-25", "X-User", "attacker")
	attacker.open("")
	text := strings.Repeat("x", 900<<10)
	for i := range 12 {
		resp, aev := openStream(t, srv, attacker, http.MethodPost, eraBody(10+i, "tools/call", `{"name":"shout","arguments":{"text":"`+text+`"},"_meta":{"progressToken":"p`+strconv.Itoa(i)+`"}}`))
		if aev == nil {
			t.Fatalf("attacker call %d: %d, not a stream", i, resp.StatusCode)
		}
		aev.all()
	}
	close(f.gate)
	resp, g := openStream(t, srv, victim, http.MethodGet, "", "Last-Event-ID", evs[0].id)
	t.Logf("the victim's resume after the attacker's writes: %d", resp.StatusCode)
	if g == nil {
		t.Errorf("another session's writes evicted the victim's log: resume %d; want the victim's response replayed", resp.StatusCode)
	}
}
