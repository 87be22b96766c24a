package server

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// The standalone GET stream of a legacy session (docs/dual-era.md §1.7
// rows G3–G6, §2.4, §4.4; L1125/basic/transports.mdx#listening-for-messages-from-the-server
// and #multiple-connections): list changes and resource updates, nothing
// tied to a request, take-over by a second GET, keep-alive and the
// periodic re-read of the record, lifetime, DELETE and Shutdown.

// legacyEvents reads a session's GET stream line by line.
type legacyEvents struct {
	t    *testing.T
	rev  string
	resp *http.Response
	ch   chan sseLine
	// lastID is the id of the last event read by next.
	lastID string
}

// sseLine is one meaningful line of the stream: kind is "data",
// "comment", "retry" or "eof".
type sseLine struct{ kind, value string }

// getServer serves h over a real connection until the test ends, after
// the streams it opened are closed (cleanups run last first).
func getServer(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// sendOnSession sends req over srv with the client's headers, its
// session id and hdr (name, value, name, value ...) added, and closes the
// answer's body when the test ends.
func sendOnSession(t *testing.T, srv *httptest.Server, c *legacyHTTP, req *http.Request, hdr ...string) *http.Response {
	t.Helper()
	all := append(append(append([]string{}, c.hdr...), HeaderSessionID, c.sid), hdr...)
	for i := 0; i+1 < len(all); i += 2 {
		req.Header.Add(all[i], all[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// openGET opens the session's stream over a real connection.
func openGET(t *testing.T, srv *httptest.Server, c *legacyHTTP, hdr ...string) *legacyEvents {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := sendOnSession(t, srv, c, req, hdr...)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" ||
		resp.Header.Get("Cache-Control") != "no-cache" || resp.Header.Get("X-Accel-Buffering") != "no" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET: %d %v %s", resp.StatusCode, resp.Header, b)
	}
	if sid := resp.Header.Get(HeaderSessionID); sid != "" {
		t.Errorf("the GET answer names the session: %q", sid)
	}
	return readLegacyEvents(t, c.rev, resp)
}

// readLegacyEvents reads the lines of an event stream.
func readLegacyEvents(t *testing.T, rev string, resp *http.Response) *legacyEvents {
	ev := &legacyEvents{t: t, rev: rev, resp: resp, ch: make(chan sseLine, 100)}
	go func() {
		br := bufio.NewReader(resp.Body)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				ev.ch <- sseLine{kind: "eof"}
				close(ev.ch)
				return
			}
			l = strings.TrimRight(l, "\r\n")
			switch {
			case strings.HasPrefix(l, "data: "):
				ev.ch <- sseLine{"data", strings.TrimPrefix(l, "data: ")}
			case strings.HasPrefix(l, ":"):
				ev.ch <- sseLine{"comment", l}
			case strings.HasPrefix(l, "retry: "):
				ev.ch <- sseLine{"retry", strings.TrimPrefix(l, "retry: ")}
			case strings.HasPrefix(l, "id: "):
				ev.ch <- sseLine{"id", strings.TrimPrefix(l, "id: ")}
			case l == "" || strings.HasPrefix(l, "event: "):
			default:
				ev.ch <- sseLine{"bad", l}
			}
		}
	}()
	return ev
}

// next returns the next line that is not a keep-alive comment, an id
// (kept in lastID) or the empty data of a priming event.
func (e *legacyEvents) next() sseLine {
	e.t.Helper()
	for {
		select {
		case l, ok := <-e.ch:
			if !ok {
				return sseLine{kind: "eof"}
			}
			if l.kind == "id" {
				e.lastID = l.value
				continue
			}
			if l.kind == "comment" || l.kind == "data" && l.value == "" {
				continue
			}
			if l.kind == "bad" {
				e.t.Fatalf("an unexpected SSE line %q", l.value)
			}
			return l
		case <-time.After(5 * time.Second):
			e.t.Fatal("nothing on the stream within 5 s")
		}
	}
}

// message returns the next message, validated for the session's revision.
func (e *legacyEvents) message() *wire {
	e.t.Helper()
	l := e.next()
	if l.kind != "data" {
		e.t.Fatalf("want a message, got %s %q", l.kind, l.value)
	}
	w := decodeWire(e.t, []byte(l.value))
	checkLegacyMessage(e.t, e.rev, w.raw, "")
	if w.hasID() {
		e.t.Errorf("a response or request on the standalone stream: %s", w.raw)
	}
	return w
}

// ended checks that the stream ends, after a retry field when retry is
// set, without one otherwise.
func (e *legacyEvents) ended(retry bool) {
	e.t.Helper()
	l := e.next()
	if retry {
		if l.kind != "retry" || l.value != "1000" {
			e.t.Fatalf("want retry: 1000 before the end, got %s %q", l.kind, l.value)
		}
		l = e.next()
	}
	if l.kind != "eof" {
		e.t.Fatalf("want the end of the stream, got %s %q", l.kind, l.value)
	}
}

// TestLegacyGETStream checks what the standalone stream carries (§2.4,
// §4.4): list_changed without params for what the session declared,
// resources/updated for its subscriptions only, never a notification of a
// request (progress, logs) and never a response; DELETE ends it without a
// retry field (the session is over).
func TestLegacyGETStream(t *testing.T) {
	for _, rev := range []string{"2025-11-25", "2025-03-26"} {
		t.Run(rev, func(t *testing.T) {
			f := newLegacyFixture(t, ErasBoth)
			srv := getServer(t, f.Handler(HTTPOptions{}))
			c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), rev)
			c.open("")
			ev := openGET(t, srv, c)
			_ = f.NotifyToolsChanged()
			if w := ev.message(); w.method() != "notifications/tools/list_changed" || w.hasParams() {
				t.Errorf("tools list change: %s", w.raw)
			}
			c.call(1, "resources/subscribe", `{"uri":"test://watched-resource"}`)
			_ = f.NotifyResourceUpdated("test://other")
			_ = f.NotifyResourceUpdated("test://watched-resource")
			if w := ev.message(); w.method() != "notifications/resources/updated" || w.params()["uri"] != "test://watched-resource" {
				t.Errorf("resource update: %s", w.raw)
			}
			// Request-scoped notifications go on the POST's stream only.
			c.call(2, "logging/setLevel", `{"level":"debug"}`)
			if _, notes, _ := c.call(3, "tools/call", `{"name":"progress","_meta":{"progressToken":1}}`); len(notes) != 3 {
				t.Errorf("progress on the POST stream: %d", len(notes))
			}
			c.call(4, "tools/call", `{"name":"logs"}`)
			c.call(5, "resources/unsubscribe", `{"uri":"test://watched-resource"}`)
			_ = f.NotifyResourceUpdated("test://watched-resource")
			_ = f.NotifyPromptsChanged()
			if w := ev.message(); w.method() != "notifications/prompts/list_changed" {
				t.Errorf("after unsubscribe, progress and logs, the next message: %s", w.raw)
			}
			if rec := c.send(http.MethodDelete, ""); rec.Code != 204 {
				t.Fatalf("DELETE: %d", rec.Code)
			}
			ev.ended(false)
		})
	}
}

// TestLegacyGETTakeover checks that a second GET of the session takes the
// stream over (§4.4, Choice): the first ends with retry, the record names
// the second, events reach the second only; another principal's GET takes
// nothing (404).
func TestLegacyGETTakeover(t *testing.T) {
	f := newLegacyFixture(t, ErasBoth)
	h := f.Handler(HTTPOptions{Authenticate: xUser})
	srv := getServer(t, h)
	c := newLegacyHTTP(t, h, "2025-11-25", "X-User", "alice")
	c.open("")
	first := openGET(t, srv, c)
	// Take-over happens once the first is registered: a list change it
	// receives proves it.
	_ = f.NotifyToolsChanged()
	first.message()
	second := openGET(t, srv, c)
	first.ended(true)
	rec, err := f.cfg.legacy.Store.Get(context.Background(), "alice", sessionKey(c.sid))
	if err != nil || !strings.HasPrefix(rec.Stream, f.instance+"/") {
		t.Fatalf("the record's stream: %+v %v", rec, err)
	}
	_ = f.NotifyResourcesChanged()
	if w := second.message(); w.method() != "notifications/resources/list_changed" {
		t.Errorf("the second stream: %s", w.raw)
	}
	// Bob cannot take alice's stream.
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set(HeaderSessionID, c.sid)
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
	if w := second.message(); w.method() != "notifications/tools/list_changed" {
		t.Errorf("the second stream after bob's GET: %s", w.raw)
	}
}

// TestLegacyGETRefresh checks the periodic re-read (§4.4): keep-alive
// comments arrive, an open stream touches its session, a record deleted
// behind the stream's back (another instance's DELETE whose event was
// lost) ends it, and a take-over recorded in the store ends it with retry.
func TestLegacyGETRefresh(t *testing.T) {
	clk := NewTestClock()
	f := newLegacyFixture(t, ErasBoth, WithKeepAlive(5*time.Millisecond), WithLegacy(LegacyConfig{IdleTimeout: time.Minute}))
	store := f.cfg.legacy.Store.(*MemorySessionStore)
	f.now, store.now = clk.Now, clk.Now
	srv := getServer(t, f.Handler(HTTPOptions{}))
	c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-06-18")
	c.open("")
	ev := openGET(t, srv, c)
	select {
	case l := <-ev.ch:
		if l.kind != "comment" || l.value != ": keep-alive" {
			t.Fatalf("want a keep-alive comment, got %s %q", l.kind, l.value)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no keep-alive")
	}
	// 30 s later (under ¾ of the minute left) the stream touches the session.
	clk.Advance(30 * time.Second)
	key := sessionKey(c.sid)
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
	if _, err := store.Update(context.Background(), "", key, func(r *SessionRecord) error { r.Stream = "elsewhere/abcdefghijkl"; return nil }); err != nil {
		t.Fatal(err)
	}
	ev.ended(true)
	// A deletion behind the stream's back.
	ev = openGET(t, srv, c)
	if err := store.Delete(context.Background(), "", key); err != nil {
		t.Fatal(err)
	}
	ev.ended(false)
}

// TestLegacyGETLifetime checks WithMaxStreamLifetime on the session's
// stream: it ends with retry, and the client may reopen it.
func TestLegacyGETLifetime(t *testing.T) {
	f := newLegacyFixture(t, ErasBoth, WithMaxStreamLifetime(50*time.Millisecond))
	srv := getServer(t, f.Handler(HTTPOptions{}))
	c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
	c.open("")
	openGET(t, srv, c).ended(true)
	openGET(t, srv, c).ended(true)
}

// TestLegacyGETShutdown checks that Shutdown ends the session streams
// with retry (so that clients move to another instance) and waits for
// them.
func TestLegacyGETShutdown(t *testing.T) {
	f := newLegacyFixture(t, ErasBoth)
	srv := getServer(t, f.Handler(HTTPOptions{}))
	var streams []*legacyEvents
	for range 2 {
		c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
		c.open("")
		streams = append(streams, openGET(t, srv, c))
	}
	_ = f.NotifyToolsChanged()
	for _, ev := range streams {
		ev.message() // both are registered
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	for _, ev := range streams {
		ev.ended(true)
	}
}

// TestLegacyGETCapabilities checks that a session gets only the list
// changes its initialize declared (L1125/server/prompts.mdx#list-changed-notification:
// servers that declared listChanged): a server with no prompt at
// initialize declares none, and its prompt changes are not sent.
func TestLegacyGETCapabilities(t *testing.T) {
	s, _ := eraFixture(t, ErasBoth)
	s.RemovePrompt("greet")
	s.RemovePrompt("grüße")
	srv := getServer(t, s.Handler(HTTPOptions{}))
	c := newLegacyHTTP(t, s.Handler(HTTPOptions{}), "2025-11-25")
	if w := c.initialize(""); hasMember(w, "prompts", "capabilities") {
		t.Fatalf("prompts declared without prompts: %s", w.raw)
	}
	c.send(http.MethodPost, eraNote("notifications/initialized", ""))
	ev := openGET(t, srv, c)
	addPrompt(t, s, protocol.Prompt{Name: "late"}, func(context.Context, *Request, map[string]string) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{}, nil
	})
	_ = s.NotifyToolsChanged()
	if w := ev.message(); w.method() != "notifications/tools/list_changed" {
		t.Errorf("an undeclared list change reached the stream: %s", w.raw)
	}
}

// TestLegacyGETRows checks the GET rows that need a live session: G4 (a
// header naming another version is 400), S5 for GET (no header is fine),
// and a GET under ErasLegacy.
func TestLegacyGETRows(t *testing.T) {
	for _, mode := range []Eras{ErasBoth, ErasLegacy} {
		t.Run(mode.String(), func(t *testing.T) {
			f := newLegacyFixture(t, mode)
			srv := getServer(t, f.Handler(HTTPOptions{}))
			c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
			c.open("")
			rec := eraRequest(t, f.Handler(HTTPOptions{}), http.MethodGet, "", HeaderSessionID, c.sid, HeaderProtocolVersion, "2025-06-18")
			if w := decodeWire(t, rec.Body.Bytes()); rec.Code != 400 || w.code() != protocol.CodeInvalidRequestError {
				t.Errorf("G4: %d %s", rec.Code, rec.Body.Bytes())
			}
			ev := openGET(t, srv, c) // S5: no header
			_ = f.NotifyToolsChanged()
			ev.message()
		})
	}
}
