package legacy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// A session whose requests log large messages does not evict another
// principal's logs from the MemoryEventStore (docs/dual-era.md §4.8, §9
// "a leaking client hurts only itself"): with an 8 MiB store, an attacker
// session's 12 calls each log a 900 KiB progress message while a
// victim's request waits after DisconnectForPolling; the victim's resume
// then replays its stream. (Regression of the attack3 review, defect 10.)
func TestEventStoreNoCrossPrincipalEviction(t *testing.T) {
	f := newResumeFixture(t, Legacy(legacy.Config{EventStore: legacy.NewMemoryEventStore(8 << 20)}))
	AddTool(t, f.Server, `{"name":"shout","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		var in struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(args, &in)
		r.Progress(ctx, 1, 1, in.Text)
		return server.TextResult("ok"), nil
	})
	h := Handler(f.Server, streamhttp.Options{Authenticate: XUser})
	srv := GetServer(t, h)
	victim := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "victim")
	victim.Open("")
	_, ev := openStream(t, srv, victim, http.MethodPost, EraBody(1, "tools/call", `{"name":"poll","arguments":{}}`))
	if ev == nil {
		t.Fatal("a JSON answer")
	}
	evs := ev.All()
	<-f.polled
	attacker := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "attacker")
	attacker.Open("")
	text := strings.Repeat("x", 900<<10)
	for i := range 12 {
		resp, aev := openStream(t, srv, attacker, http.MethodPost, EraBody(10+i, "tools/call", `{"name":"shout","arguments":{"text":"`+text+`"},"_meta":{"progressToken":"p`+strconv.Itoa(i)+`"}}`))
		if aev == nil {
			t.Fatalf("attacker call %d: %d, not a stream", i, resp.StatusCode)
		}
		aev.All()
	}
	close(f.gate)
	resp, g := openStream(t, srv, victim, http.MethodGet, "", "Last-Event-ID", evs[0].Id)
	if g == nil {
		t.Fatalf("another principal's writes evicted the victim's log: resume %d; want the victim's response replayed", resp.StatusCode)
	}
	got := g.All()
	if len(got) == 0 || !strings.Contains(got[len(got)-1].Data, "polled=true") {
		t.Errorf("the victim's resume did not replay its response: %v", got)
	}
}
