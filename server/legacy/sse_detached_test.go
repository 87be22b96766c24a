package legacy_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// A legacy request whose POST stream is let go runs detached from its
// connection and leaves HTTPOptions.MaxConcurrent (docs/dual-era.md §4.8
// "Running detached"); LegacyConfig.MaxDetachedPerSession bounds them per
// session (§9 resource use by disconnected clients): over it the request
// stays attached — DisconnectForPolling returns false and its answer comes
// on the same stream. (Regression of the attack3 review, defect 4.)
func TestDetachedRequestsBoundedPerSession(t *testing.T) {
	f, srv, c := newResumeSession(t, "2025-11-25", Legacy(legacy.Config{MaxDetachedPerSession: 3}))
	const n = 5
	var attached []*LegacyEvents
	polled := 0
	for i := range n {
		// A progress token: an attached call's progress starts its stream.
		_, ev := openStream(t, srv, c, http.MethodPost, EraBody(i+1, "tools/call", `{"name":"poll","arguments":{},"_meta":{"progressToken":"p"}}`))
		if ev == nil {
			t.Fatalf("call %d: a JSON answer", i)
		}
		if <-f.polled {
			polled++
			ev.All() // the priming event and retry: the POST is let go
			continue
		}
		attached = append(attached, ev)
	}
	if polled != 3 || len(attached) != n-3 {
		t.Fatalf("%d requests detached, %d stayed attached; want 3 and %d (MaxDetachedPerSession 3)", polled, len(attached), n-3)
	}
	if got := f.era().DetachedLen(); got != 3 {
		t.Errorf("%d detached requests counted; want 3", got)
	}
	close(f.gate)
	for i, ev := range attached {
		evs := ev.All()
		if len(evs) == 0 || !strings.Contains(evs[len(evs)-1].Data, "polled=false") {
			t.Errorf("attached call %d: its answer did not come on its stream: %v", i, evs)
		}
	}
	WaitFor(t, func() bool { return f.era().DetachedLen() == 0 })
}

// LegacyConfig.MaxDetached bounds the detached requests of the instance,
// whatever the sessions.
func TestDetachedRequestsBoundedInAll(t *testing.T) {
	f := newResumeFixture(t, Legacy(legacy.Config{MaxDetached: 2}))
	h := Handler(f.Server, streamhttp.Options{})
	srv := GetServer(t, h)
	polled := 0
	for i := range 3 {
		c := NewLegacyHTTP(t, h, "2025-11-25")
		c.Open("")
		_, ev := openStream(t, srv, c, http.MethodPost, EraBody(i+1, "tools/call", `{"name":"poll","arguments":{},"_meta":{"progressToken":"p"}}`))
		if ev == nil {
			t.Fatalf("call %d: a JSON answer", i)
		}
		if <-f.polled {
			polled++
			ev.All()
		}
	}
	close(f.gate)
	if polled != 2 {
		t.Errorf("%d requests of 3 sessions detached; want 2 (MaxDetached 2)", polled)
	}
}

// §8 MaxLifetime: "running requests are cancelled"; §9: detached legacy
// requests end at the session's end. A request detached by
// DisconnectForPolling is cancelled when its session reaches MaxLifetime.
// (Regression of the attack3 review, defect 5.)
func TestDetachedRequestEndsWithSession(t *testing.T) {
	f, srv, c := newResumeSession(t, "2025-11-25", Legacy(legacy.Config{MaxLifetime: 300 * time.Millisecond}))
	_, ev := openStream(t, srv, c, http.MethodPost, EraBody(1, "tools/call", `{"name":"poll","arguments":{}}`))
	if ev == nil {
		t.Fatal("a JSON answer")
	}
	if !<-f.polled {
		t.Fatal("DisconnectForPolling returned false")
	}
	ev.All()
	defer close(f.gate)
	WaitFor(t, func() bool { return f.calls.get("poll cancelled") == 1 })
	if _, _, rec := c.Call(2, "ping", ""); rec.Code != http.StatusNotFound {
		t.Errorf("the session after MaxLifetime: %d; want 404", rec.Code)
	}
}
