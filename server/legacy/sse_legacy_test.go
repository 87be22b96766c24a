package legacy_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The standalone GET stream of a legacy session (docs/dual-era.md §1.7
// rows G3–G6, §2.4, §4.4; L1125/basic/transports.mdx#listening-for-messages-from-the-server
// and #multiple-connections): list changes and resource updates, nothing
// tied to a request, take-over by a second GET, keep-alive and the
// periodic re-read of the record, lifetime, DELETE and Shutdown.

// TestLegacyGETStream checks what the standalone stream carries (§2.4,
// §4.4): list_changed without params for what the session declared,
// resources/updated for its subscriptions only, never a notification of a
// request (progress, logs) and never a response; DELETE ends it without a
// retry field (the session is over).
func TestLegacyGETStream(t *testing.T) {
	for _, rev := range []string{"2025-11-25", "2025-03-26"} {
		t.Run(rev, func(t *testing.T) {
			f := newLegacyFixture(t, legacy.ErasBoth)
			srv := GetServer(t, Handler(f.Server, streamhttp.Options{}))
			c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), rev)
			c.Open("")
			ev := OpenGET(t, srv, c)
			_ = f.NotifyToolsChanged()
			if w := ev.Message(); w.Method() != "notifications/tools/list_changed" || w.HasParams() {
				t.Errorf("tools list change: %s", w.Raw)
			}
			c.Call(1, "resources/subscribe", `{"uri":"test://watched-resource"}`)
			_ = f.NotifyResourceUpdated("test://other")
			_ = f.NotifyResourceUpdated("test://watched-resource")
			if w := ev.Message(); w.Method() != "notifications/resources/updated" || w.Params()["uri"] != "test://watched-resource" {
				t.Errorf("resource update: %s", w.Raw)
			}
			// Request-scoped notifications go on the POST's stream only.
			c.Call(2, "logging/setLevel", `{"level":"debug"}`)
			if _, notes, _ := c.Call(3, "tools/call", `{"name":"progress","_meta":{"progressToken":1}}`); len(notes) != 3 {
				t.Errorf("progress on the POST stream: %d", len(notes))
			}
			c.Call(4, "tools/call", `{"name":"logs"}`)
			c.Call(5, "resources/unsubscribe", `{"uri":"test://watched-resource"}`)
			_ = f.NotifyResourceUpdated("test://watched-resource")
			_ = f.NotifyPromptsChanged()
			if w := ev.Message(); w.Method() != "notifications/prompts/list_changed" {
				t.Errorf("after unsubscribe, progress and logs, the next message: %s", w.Raw)
			}
			if rec := c.Send(http.MethodDelete, ""); rec.Code != 204 {
				t.Fatalf("DELETE: %d", rec.Code)
			}
			ev.Ended(false)
		})
	}
}

// TestLegacyGETTakeover checks that a second GET of the session takes the
// stream over (§4.4, Choice): the first ends with retry, the record names
// the second, events reach the second only; another principal's GET takes
// nothing (404).
func TestLegacyGETTakeover(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth)
	h := Handler(f.Server, streamhttp.Options{Authenticate: XUser})
	srv := GetServer(t, h)
	c := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "alice")
	c.Open("")
	first := OpenGET(t, srv, c)
	// Take-over happens once the first is registered: a list change it
	// receives proves it.
	_ = f.NotifyToolsChanged()
	first.Message()
	second := OpenGET(t, srv, c)
	first.Ended(true)
	rec, err := f.era().Cfg().Store.Get(context.Background(), "alice", legacy.SessionKey(c.Sid))
	if err != nil || !strings.HasPrefix(rec.Stream, f.era().Instance()+"/") {
		t.Fatalf("the record's stream: %+v %v", rec, err)
	}
	_ = f.NotifyResourcesChanged()
	if w := second.Message(); w.Method() != "notifications/resources/list_changed" {
		t.Errorf("the second stream: %s", w.Raw)
	}
	// Bob cannot take alice's stream.
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set(legacy.HeaderSessionID, c.Sid)
	req.Header.Set("X-User", "bob")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("another principal's GET: %d, want 404", resp.StatusCode)
	}
	_ = f.NotifyToolsChanged()
	if w := second.Message(); w.Method() != "notifications/tools/list_changed" {
		t.Errorf("the second stream after bob's GET: %s", w.Raw)
	}
}

// TestLegacyGETRefresh checks the periodic re-read (§4.4): keep-alive
// comments arrive, an open stream touches its session, a record deleted
// behind the stream's back (another instance's DELETE whose event was
// lost) ends it, and a take-over recorded in the store ends it with retry.
func TestLegacyGETRefresh(t *testing.T) {
	clk := NewTestClock()
	f := newLegacyFixture(t, legacy.ErasBoth, server.WithKeepAlive(5*time.Millisecond), Legacy(legacy.Config{IdleTimeout: time.Minute}))
	store := f.era().Cfg().Store.(*legacy.MemorySessionStore)
	f.era().SetNow(clk.Now)
	legacy.SetMemorySessionStoreClock(store, clk.Now)
	srv := GetServer(t, Handler(f.Server, streamhttp.Options{}))
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-06-18")
	c.Open("")
	ev := OpenGET(t, srv, c)
	select {
	case l := <-ev.Ch:
		if l.Kind != "comment" || l.Value != ": keep-alive" {
			t.Fatalf("want a keep-alive comment, got %s %q", l.Kind, l.Value)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no keep-alive")
	}
	// 30 s later (under ¾ of the minute left) the stream touches the session.
	clk.Advance(30 * time.Second)
	key := legacy.SessionKey(c.Sid)
	deadline := time.Now().Add(5 * time.Second)
	for {
		rec, err := store.Get(context.Background(), "", key)
		if err != nil {
			t.Fatal(err)
		}
		if rec.IdleUntil.Equal(clk.Now().Add(time.Minute)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the open stream did not touch its session: IdleUntil %v", rec.IdleUntil)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// A take-over recorded by another instance.
	if _, err := store.Update(context.Background(), "", key, func(r *legacy.SessionRecord) error { r.Stream = "elsewhere/abcdefghijkl"; return nil }); err != nil {
		t.Fatal(err)
	}
	ev.Ended(true)
	// A deletion behind the stream's back.
	ev = OpenGET(t, srv, c)
	if err := store.Delete(context.Background(), "", key); err != nil {
		t.Fatal(err)
	}
	ev.Ended(false)
}

// TestLegacyGETLifetime checks WithMaxStreamLifetime on the session's
// stream: it ends with retry, and the client may reopen it.
func TestLegacyGETLifetime(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth, server.WithMaxStreamLifetime(50*time.Millisecond))
	srv := GetServer(t, Handler(f.Server, streamhttp.Options{}))
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	OpenGET(t, srv, c).Ended(true)
	OpenGET(t, srv, c).Ended(true)
}

// TestLegacyGETShutdown checks that Shutdown ends the session streams
// with retry (so that clients move to another instance) and waits for
// them.
func TestLegacyGETShutdown(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth)
	srv := GetServer(t, Handler(f.Server, streamhttp.Options{}))
	var streams []*LegacyEvents
	for range 2 {
		c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
		c.Open("")
		streams = append(streams, OpenGET(t, srv, c))
	}
	_ = f.NotifyToolsChanged()
	for _, ev := range streams {
		ev.Message() // both are registered
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	for _, ev := range streams {
		ev.Ended(true)
	}
}

// TestLegacyGETCapabilities checks that a session gets only the list
// changes its initialize declared (L1125/server/prompts.mdx#list-changed-notification:
// servers that declared listChanged): a server with no prompt at
// initialize declares none, and its prompt changes are not sent.
func TestLegacyGETCapabilities(t *testing.T) {
	s, _ := eraFixture(t, legacy.ErasBoth)
	s.RemovePrompt("greet")
	s.RemovePrompt("grüße")
	srv := GetServer(t, Handler(s, streamhttp.Options{}))
	c := NewLegacyHTTP(t, Handler(s, streamhttp.Options{}), "2025-11-25")
	if w := c.Initialize(""); hasMember(w, "prompts", "capabilities") {
		t.Fatalf("prompts declared without prompts: %s", w.Raw)
	}
	c.Send(http.MethodPost, EraNote("notifications/initialized", ""))
	ev := OpenGET(t, srv, c)
	AddPrompt(t, s, protocol.Prompt{Name: "late"}, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{}, nil
	})
	_ = s.NotifyToolsChanged()
	if w := ev.Message(); w.Method() != "notifications/tools/list_changed" {
		t.Errorf("an undeclared list change reached the stream: %s", w.Raw)
	}
}

// TestLegacyGETRows checks the GET rows that need a live session: G4 (a
// header naming another version is 400), S5 for GET (no header is fine),
// and a GET under ErasLegacy.
func TestLegacyGETRows(t *testing.T) {
	for _, mode := range []legacy.Eras{legacy.ErasBoth, legacy.ErasLegacy} {
		t.Run(mode.String(), func(t *testing.T) {
			f := newLegacyFixture(t, mode)
			srv := GetServer(t, Handler(f.Server, streamhttp.Options{}))
			c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
			c.Open("")
			rec := EraRequest(t, Handler(f.Server, streamhttp.Options{}), http.MethodGet, "", legacy.HeaderSessionID, c.Sid, server.HeaderProtocolVersion, "2025-06-18")
			if w := DecodeWire(t, rec.Body.Bytes()); rec.Code != 400 || w.Code() != protocol.CodeInvalidRequestError {
				t.Errorf("G4: %d %s", rec.Code, rec.Body.Bytes())
			}
			ev := OpenGET(t, srv, c) // S5: no header
			_ = f.NotifyToolsChanged()
			ev.Message()
		})
	}
}
