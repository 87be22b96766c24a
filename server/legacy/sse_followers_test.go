package legacy_test

import (
	"net/http"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
)

// §4.8 cases 1–3: a GET with Last-Event-ID follows a running request's
// POST stream. A new resume of the stream takes it over: the previous
// follower ends with the retry field, so that a client cannot hold any
// number of followers of one stream (§9 resource use by disconnected
// clients). (Regression of the attack3 review, defect 6.)
func TestResumeTakesOverFollower(t *testing.T) {
	f, srv, c := newResumeSession(t, "2025-11-25")
	_, ev := openStream(t, srv, c, http.MethodPost, EraBody(1, "tools/call", `{"name":"poll","arguments":{}}`))
	if ev == nil {
		t.Fatal("a JSON answer")
	}
	if !<-f.polled {
		t.Fatal("DisconnectForPolling returned false")
	}
	evs := ev.All()
	const n = 5
	var prev *LegacyEvents
	for i := range n {
		resp, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[0].Id)
		if g == nil {
			t.Fatalf("resume %d: %d, not a stream", i, resp.StatusCode)
		}
		if prev != nil {
			got := prev.All() // ends (all fails the test after 5 s otherwise)
			if len(got) == 0 || got[len(got)-1].Retry != "1000" {
				t.Errorf("resume %d: the previous follower ended without retry: %v", i, got)
			}
		}
		prev = g
	}
	if got := f.era().FollowersLen(); got != 1 {
		t.Errorf("%d followers of the stream after %d resumes; want 1", got, n)
	}
	close(f.gate)
	got := prev.All()
	if len(got) == 0 || !strings.Contains(got[len(got)-1].Data, "polled=true") {
		t.Errorf("the last follower did not get the response: %v", got)
	}
	WaitFor(t, func() bool { return f.era().FollowersLen() == 0 })
}
