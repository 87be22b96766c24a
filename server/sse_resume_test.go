package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/protocol"
)

// Resumability and SSE polling of legacy streams (docs/dual-era.md §4.8,
// §2.6; L1125/basic/transports.mdx#resumability-and-redelivery and
// #sending-messages-to-the-server item 6; R-HTTP-13 for the streams):
// event ids, the priming event of 2025-11-25, DisconnectForPolling and
// PollAfter, GET with Last-Event-ID on a request's stream and on the
// standalone stream, truncation, another session's ids, a stopped owner,
// and resumability off.

var eventIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{12}\.(0|[1-9][0-9]*)$`)

// resumeFixture is a legacy fixture with tools for polling: "poll"
// disconnects for polling, sends progress, waits for gate (when the test
// sets it) and answers; "slow" sends one progress, waits for gate, sends a
// second and answers.
type resumeFixture struct {
	*legacyFixture
	gate   chan struct{}
	polled chan bool
}

func newResumeFixture(t *testing.T, opts ...Option) *resumeFixture {
	f := &resumeFixture{legacyFixture: newLegacyFixture(t, ErasBoth, opts...), gate: make(chan struct{}), polled: make(chan bool, 10)}
	addTool(t, f.Server, `{"name":"poll","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		ok := r.DisconnectForPolling(0)
		f.polled <- ok
		r.Progress(ctx, 1, 2, "after the disconnect")
		if err := f.waitGate(ctx, "poll"); err != nil {
			return nil, err
		}
		r.Progress(ctx, 2, 2, "done")
		return TextResult("Reconnection test completed polled=" + boolText(ok)), nil
	}, AllowPolling())
	slow := func(ctx context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		r.Progress(ctx, 1, 2, "first")
		if err := f.waitGate(ctx, "slow"); err != nil {
			return nil, err
		}
		r.Progress(ctx, 2, 2, "second")
		return TextResult("slow done"), nil
	}
	// slow runs on its HTTP request's goroutine, slowpoll (the same
	// handler) on a worker of its own (AllowPolling).
	addTool(t, f.Server, `{"name":"slow","inputSchema":{"type":"object"}}`, slow)
	addTool(t, f.Server, `{"name":"slowpoll","inputSchema":{"type":"object"}}`, slow, AllowPolling())
	return f
}

// waitGate waits for the test to close f.gate; when ctx ends first it
// records "<tool> cancelled" and returns ctx's error.
func (f *resumeFixture) waitGate(ctx context.Context, tool string) error {
	select {
	case <-f.gate:
		return nil
	case <-ctx.Done():
		f.calls.add(tool + " cancelled")
		return ctx.Err()
	}
}

// newResumeSession returns a resume fixture built with opts, its handler
// served over a real connection, and a legacy client of revision rev of
// that handler with its session open.
func newResumeSession(t *testing.T, rev string, opts ...Option) (*resumeFixture, *httptest.Server, *legacyHTTP) {
	t.Helper()
	f := newResumeFixture(t, opts...)
	h := f.Handler(HTTPOptions{})
	srv := getServer(t, h)
	c := newLegacyHTTP(t, h, rev)
	c.open("")
	return f, srv, c
}

// stream sends a request over a real connection and reads its answer as
// an event stream.
func openStream(t *testing.T, srv *httptest.Server, c *legacyHTTP, verb, body string, hdr ...string) (*http.Response, *legacyEvents) {
	t.Helper()
	req, err := http.NewRequest(verb, srv.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.rev >= "2025-06-18" {
		hdr = append([]string{HeaderProtocolVersion, c.rev}, hdr...)
	}
	resp := sendOnSession(t, srv, c, req, hdr...)
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		return resp, nil
	}
	return resp, readLegacyEvents(t, c.rev, resp)
}

// event is one whole event of a stream: its id, data and retry.
type event struct{ id, data, retry string }

// all reads the events until the stream ends.
func (e *legacyEvents) all() []event {
	e.t.Helper()
	var out []event
	var cur event
	for {
		l, ok := e.line("the stream did not end within 5 s", out)
		if !ok {
			return out
		}
		switch l.kind {
		case "id":
			cur.id = l.value
		case "retry":
			out = append(out, event{retry: l.value})
		case "data":
			cur.data = l.value
			out = append(out, cur)
			cur = event{}
		case "bad":
			e.t.Fatalf("an unexpected SSE line %q", l.value)
		}
	}
}

// upTo reads events until one with data satisfying stop.
func (e *legacyEvents) upTo(stop func(event) bool) []event {
	e.t.Helper()
	var out []event
	var cur event
	for {
		l, ok := e.line("nothing within 5 s", out)
		if !ok {
			e.t.Fatalf("the stream ended early; so far %v", out)
		}
		switch l.kind {
		case "id":
			cur.id = l.value
		case "data":
			cur.data = l.value
			out = append(out, cur)
			if stop(cur) {
				return out
			}
			cur = event{}
		}
	}
}

// line returns the stream's next line, false at its end; after 5 s
// without one it fails the test with timeout and the events so far.
func (e *legacyEvents) line(timeout string, sofar []event) (sseLine, bool) {
	e.t.Helper()
	select {
	case l, ok := <-e.ch:
		return l, ok && l.kind != "eof"
	case <-time.After(5 * time.Second):
		e.t.Fatalf("%s; so far %v", timeout, sofar)
		return sseLine{}, false
	}
}

func isResponse(ev event) bool {
	return strings.Contains(ev.data, `"result"`) || strings.Contains(ev.data, `"error"`)
}

// answerStatus GETs with Last-Event-ID and returns the status and, for a
// JSON answer, the error code.
func resumeRefused(t *testing.T, srv *httptest.Server, c *legacyHTTP, leids ...string) (int, int64) {
	t.Helper()
	var hdr []string
	for _, l := range leids {
		hdr = append(hdr, "Last-Event-ID", l)
	}
	resp, ev := openStream(t, srv, c, http.MethodGet, "", hdr...)
	if ev != nil {
		t.Fatalf("Last-Event-ID %q: a stream, want a refusal", leids)
	}
	b, _ := io.ReadAll(resp.Body)
	w := decodeWire(t, b)
	return resp.StatusCode, w.code()
}

// TestLegacyEventIDs: every event of a POST stream has an id
// <stream>.<seq> of one stream, seqs increasing from 1; 2025-11-25 streams
// start with the priming event <stream>.0 and empty data, older revisions
// without it (§4.8, Choice); the standalone GET stream likewise.
func TestLegacyEventIDs(t *testing.T) {
	for _, rev := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
		t.Run(rev, func(t *testing.T) {
			f, srv, c := newResumeSession(t, rev)
			_, ev := openStream(t, srv, c, http.MethodPost, eraBody(1, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`))
			if ev == nil {
				t.Fatal("progress answered as JSON")
			}
			evs := ev.all()
			stream := ""
			want := int64(1)
			if rev == "2025-11-25" {
				if len(evs) == 0 || evs[0].data != "" || !strings.HasSuffix(evs[0].id, ".0") {
					t.Fatalf("the first event is not a priming event: %v", evs)
				}
				stream = strings.TrimSuffix(evs[0].id, ".0")
				evs = evs[1:]
			}
			if len(evs) != 4 {
				t.Fatalf("events %v, want 3 progress and the response", evs)
			}
			for _, e := range evs {
				if e.data == "" {
					t.Errorf("a priming event for %s, or one not first: %v", rev, evs)
				}
				if !eventIDRE.MatchString(e.id) {
					t.Fatalf("event id %q", e.id)
				}
				st, seq, _ := parseLastEventID(e.id)
				if stream == "" {
					stream = st
				}
				if st != stream || seq != want {
					t.Errorf("event id %q, want %s.%d", e.id, stream, want)
				}
				want++
			}
			if !isResponse(evs[3]) {
				t.Errorf("the last event is not the response: %v", evs[3])
			}
			// A JSON answer has no id and stores nothing.
			before := f.cfg.legacy.EventStore.(*MemoryEventStore).Streams()
			if _, _, rec := c.call(2, "tools/list", ""); rec.Header().Get("Content-Type") != "application/json" {
				t.Errorf("tools/list: %s", rec.Header().Get("Content-Type"))
			}
			if after := f.cfg.legacy.EventStore.(*MemoryEventStore).Streams(); after != before {
				t.Errorf("a JSON answer opened a log (%d → %d streams)", before, after)
			}
			g := openGET(t, srv, c)
			_ = f.NotifyToolsChanged()
			g.message()
			if !eventIDRE.MatchString(g.lastID) || strings.HasSuffix(g.lastID, ".0") {
				t.Errorf("standalone event id %q", g.lastID)
			}
			if sa, ok := checkStreamID(sessionKey(c.sid), g.lastID[:12]); !ok || !sa {
				t.Errorf("the standalone stream's id does not name it: %v %v", sa, ok)
			}
			if f.logs.len() != 1 {
				t.Errorf("%d logs open here, want the standalone stream's only", f.logs.len())
			}
		})
	}
}

// TestDisconnectForPolling is the server-sse-polling scenario (Appendix A;
// SEP-1699): the POST's stream gets the priming event first, then retry,
// then ends while the tool goes on; GET with the last id receives what
// followed, the response to id 1 last. Older revisions and modern requests
// do nothing (false).
func TestDisconnectForPolling(t *testing.T) {
	f, srv, c := newResumeSession(t, "2025-11-25")
	_, ev := openStream(t, srv, c, http.MethodPost, eraBody(1, "tools/call", `{"name":"poll","arguments":{},"_meta":{"progressToken":"p"}}`))
	if ev == nil {
		t.Fatal("a JSON answer")
	}
	evs := ev.all() // ends while the tool waits for the gate
	if len(evs) != 2 || evs[0].data != "" || !strings.HasSuffix(evs[0].id, ".0") || evs[1].retry != "1000" {
		t.Fatalf("the POST stream: %v, want the priming event then retry: 1000", evs)
	}
	if !<-f.polled {
		t.Fatal("DisconnectForPolling returned false")
	}
	close(f.gate)
	_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[0].id)
	if g == nil {
		t.Fatal("the resume is not a stream")
	}
	got := g.all()
	if len(got) != 3 {
		t.Fatalf("resumed: %v, want 2 progress and the response", got)
	}
	stream := strings.TrimSuffix(evs[0].id, ".0")
	for i, e := range got {
		if e.id != eventID(stream, int64(i+1)) {
			t.Errorf("resumed event %d has id %q", i, e.id)
		}
		checkLegacyMessage(t, "2025-11-25", []byte(e.data), "tools/call")
	}
	w := decodeWire(t, []byte(got[2].data))
	if w.id() != "1" || !strings.Contains(resultText(t, w), "Reconnection test completed polled=true") {
		t.Errorf("the response on the resumed stream: %s", got[2].data)
	}
	// The log stays for a later resume (from the middle here).
	_, g = openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", eventID(stream, 2))
	if got := g.all(); len(got) != 1 || !isResponse(got[0]) {
		t.Errorf("a second resume from .2: %v", got)
	}
	waitFor(t, func() bool { return f.logs.len() == 0 })

	for _, rev := range []string{"2025-06-18", "2025-03-26"} {
		c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), rev)
		c.open("")
		w, _, _ := c.call(1, "tools/call", `{"name":"poll"}`)
		if <-f.polled || !strings.Contains(resultText(t, w), "polled=false") {
			t.Errorf("%s: DisconnectForPolling did something: %s", rev, w.raw)
		}
	}
	// A stdio session of 2025-11-25: false (no stream to close).
	sc := startLegacyStdio(t, f.Server, "2025-11-25")
	sc.open("")
	if w, _ := sc.call(9, "tools/call", `{"name":"poll"}`); <-f.polled || !strings.Contains(resultText(t, w), "polled=false") {
		t.Errorf("stdio: DisconnectForPolling did something: %s", w.raw)
	}
	// A modern request: false.
	rec := eraRequest(t, f.Handler(HTTPOptions{}), http.MethodPost, eraBody(1, "tools/call", `{"_meta":`+modernMetaJSON+`,"name":"poll","arguments":{}}`), HeaderProtocolVersion, "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "poll")
	m := decodeWire(t, rec.Body.Bytes())
	select {
	case ok := <-f.polled:
		if ok || !strings.Contains(string(m.raw), "polled=false") {
			t.Errorf("modern: %s", m.raw)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("the modern call did not run the tool: %s", m.raw)
	}
}

// TestResumeAfterBreak: a connection that breaks after an event with an id
// does not cancel the request (§2.6): its later events and response go to
// the log, and GET + Last-Event-ID gets exactly those after the id.
func TestResumeAfterBreak(t *testing.T) {
	for _, tc := range []struct{ rev, tool string }{{"2025-11-25", "slow"}, {"2025-06-18", "slow"}, {"2025-11-25", "slowpoll"}} {
		rev := tc.rev
		t.Run(rev+"/"+tc.tool, func(t *testing.T) {
			f, srv, c := newResumeSession(t, rev)
			resp, ev := openStream(t, srv, c, http.MethodPost, eraBody(7, "tools/call", `{"name":"`+tc.tool+`","_meta":{"progressToken":"p"}}`))
			first := ev.upTo(func(e event) bool { return strings.Contains(e.data, "first") })
			last := first[len(first)-1].id
			resp.Body.Close() // the connection breaks
			time.Sleep(20 * time.Millisecond)
			close(f.gate)
			_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", last)
			got := g.all()
			if len(got) != 2 || !strings.Contains(got[0].data, "second") || !isResponse(got[1]) {
				t.Fatalf("resumed after %s: %v", last, got)
			}
			if w := decodeWire(t, []byte(got[1].data)); w.id() != "7" || resultText(t, w) != "slow done" {
				t.Errorf("the response: %s", got[1].data)
			}
			if f.calls.get("slow cancelled") != 0 {
				t.Error("the broken connection cancelled the request")
			}
		})
	}
}

// TestBreakWithoutIDCancels: a connection that breaks before any event
// with an id reached the client cancels the request, as a modern one
// (§2.6, Choice): nothing could deliver its answer.
func TestBreakWithoutIDCancels(t *testing.T) {
	for _, tc := range []struct{ rev, tool string }{{"2025-06-18", "wait"}, {"2025-11-25", "wait"}, {"2025-11-25", "waitpoll"}} {
		t.Run(tc.rev+"/"+tc.tool, func(t *testing.T) { testBreakWithoutIDCancels(t, tc.rev, tc.tool) })
	}
}

func testBreakWithoutIDCancels(t *testing.T, rev, tool string) {
	f, srv, c := newResumeSession(t, rev)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(eraBody(3, "tools/call", `{"name":"`+tool+`"}`)))
	req.Header.Set(HeaderSessionID, c.sid)
	req.Header.Set("Content-Type", "application/json")
	errc := make(chan error, 1)
	go func() {
		resp, err := srv.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-f.started
	cancel()
	<-errc
	waitFor(t, func() bool { return f.calls.get("wait cancelled") == 1 })
}

// TestResumeLive: a GET resuming a stream whose request still runs here
// replays what was logged, then continues live until the response.
func TestResumeLive(t *testing.T) {
	f, srv, c := newResumeSession(t, "2025-11-25")
	standalone := openGET(t, srv, c)
	_, ev := openStream(t, srv, c, http.MethodPost, eraBody(1, "tools/call", `{"name":"poll","_meta":{"progressToken":"p"}}`))
	evs := ev.all()
	<-f.polled
	_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[0].id)
	first := g.upTo(func(e event) bool { return strings.Contains(e.data, "after the disconnect") })
	if len(first) != 1 {
		t.Fatalf("replayed: %v", first)
	}
	close(f.gate)
	rest := g.all()
	if len(rest) != 2 || !isResponse(rest[1]) {
		t.Fatalf("live: %v", rest)
	}
	// A resumed POST stream did not take the standalone stream over, and
	// carried none of its notifications.
	_ = f.NotifyToolsChanged()
	if w := standalone.message(); w.method() != "notifications/tools/list_changed" {
		t.Errorf("the standalone stream after a POST stream's resume: %s", w.raw)
	}
}

// TestPollAfter: LegacyConfig.PollAfter closes a long request's stream
// with retry by itself; the client resumes and gets the response.
func TestPollAfter(t *testing.T) {
	f := newResumeFixture(t, WithLegacy(LegacyConfig{PollAfter: 30 * time.Millisecond}))
	srv := getServer(t, f.Handler(HTTPOptions{}))
	c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
	c.open("")
	_, ev := openStream(t, srv, c, http.MethodPost, eraBody(4, "tools/call", `{"name":"slow","_meta":{"progressToken":"p"}}`))
	evs := ev.all()
	if len(evs) != 3 || evs[0].data != "" || !strings.Contains(evs[1].data, "first") || evs[2].retry != "1000" {
		t.Fatalf("the POST stream: %v", evs)
	}
	close(f.gate)
	_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[1].id)
	if got := g.all(); len(got) != 2 || !isResponse(got[1]) {
		t.Fatalf("resumed: %v", got)
	}
}

// TestResumeRefusals: rows session/Last-Event-ID of another session and
// session/malformed Last-Event-ID (§10.4): 400 -32600, as are a repeated
// header, a request stream whose events are gone (never logged, or
// truncated by MaxReplayEvents: §4.8 case 1) and a seq past the stream's
// last event.
func TestResumeRefusals(t *testing.T) {
	f := newResumeFixture(t, WithLegacy(LegacyConfig{MaxReplayEvents: 2}))
	srv := getServer(t, f.Handler(HTTPOptions{}))
	c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
	c.open("")
	other := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
	other.open("")
	_, ev := openStream(t, srv, other, http.MethodPost, eraBody(1, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`))
	otherEvs := ev.all()
	_, ev = openStream(t, srv, c, http.MethodPost, eraBody(1, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`))
	evs := ev.all() // priming, 3 progress, the response: 2 kept
	stream := strings.TrimSuffix(evs[0].id, ".0")
	unlogged, _ := newSessionStreamID(sessionKey(c.sid), false)
	otherStandalone, _ := newSessionStreamID(sessionKey(other.sid), true) // would open a fresh stream if it verified
	for _, c2 := range []struct {
		name  string
		leids []string
	}{
		{"another session's", []string{otherEvs[1].id}},
		{"another session's standalone", []string{eventID(otherStandalone, 0)}},
		{"abc", []string{"abc"}},
		{"x.1", []string{"x.1"}},
		{"2 KiB", []string{strings.Repeat("A", 2048)}},
		{"a made-up stream", []string{"AAAAAAAAAAAA.1"}},
		{"leading zero", []string{stream + ".01"}},
		{"repeated", []string{evs[1].id, evs[1].id}},
		{"truncated", []string{stream + ".1"}},
		{"never logged", []string{eventID(unlogged, 0)}},
		{"past the last", []string{stream + ".9"}},
	} {
		if status, code := resumeRefused(t, srv, c, c2.leids...); status != 400 || code != protocol.CodeInvalidRequestError {
			t.Errorf("%s: %d %d, want 400 -32600", c2.name, status, code)
		}
	}
	// Within what is kept: the last two events (.3 and the response .4).
	_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", stream+".2")
	if got := g.all(); len(got) != 2 || got[0].id != stream+".3" || !isResponse(got[1]) {
		t.Errorf("resume from .2: %v", got)
	}
}

// TestResumeStandalone: a GET with the id of the standalone stream takes it
// over and continues it (§4.8 case 4): what was logged after the id is
// replayed, the stream keeps its id and its seqs go on; with its log gone,
// a fresh standalone stream opens instead (priming, a new id).
func TestResumeStandalone(t *testing.T) {
	f, srv, c := newResumeSession(t, "2025-11-25")
	first := openGET(t, srv, c)
	_ = f.NotifyToolsChanged()
	first.message()
	primed := strings.TrimSuffix(first.lastID, ".1") + ".0"
	_ = f.NotifyPromptsChanged()
	first.message()
	second := openGET(t, srv, c, "Last-Event-ID", primed)
	first.ended(true) // taken over
	if w := second.message(); w.method() != "notifications/tools/list_changed" || second.lastID != strings.TrimSuffix(primed, ".0")+".1" {
		t.Errorf("replayed %s with id %q", w.raw, second.lastID)
	}
	if w := second.message(); w.method() != "notifications/prompts/list_changed" {
		t.Errorf("replayed %s", w.raw)
	}
	_ = f.NotifyResourcesChanged()
	if w := second.message(); w.method() != "notifications/resources/list_changed" || second.lastID != strings.TrimSuffix(primed, ".0")+".3" {
		t.Errorf("live after the replay: %s with id %q", w.raw, second.lastID)
	}
	// A standalone id whose log is gone: a fresh stream.
	gone, _ := newSessionStreamID(sessionKey(c.sid), true)
	third := openGET(t, srv, c, "Last-Event-ID", eventID(gone, 5))
	second.ended(true)
	l := <-third.ch
	for l.kind == "comment" {
		l = <-third.ch
	}
	if l.kind != "id" || !strings.HasSuffix(l.value, ".0") || strings.HasPrefix(l.value, gone) {
		t.Errorf("a fresh stream starts with a new priming id, got %s %q", l.kind, l.value)
	}
}

// TestResumeStoppedOwner is §4.8 case 3 with the lease of §7.2: a request
// stream not done whose owner's lease has passed gets a -32603 response
// from the resumer, recorded so that the next resume gets it too; with the
// lease still valid the resumer waits for the owner instead.
func TestResumeStoppedOwner(t *testing.T) {
	clk := NewTestClock()
	f := newResumeFixture(t, WithLegacy(LegacyConfig{PollInterval: 10 * time.Millisecond}))
	f.now = clk.Now
	store := f.cfg.legacy.Store.(*MemorySessionStore)
	store.now = clk.Now
	f.cfg.legacy.EventStore.(*MemoryEventStore).now = clk.Now
	srv := getServer(t, f.Handler(HTTPOptions{}))
	c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
	c.open("")
	key := sessionKey(c.sid)
	es := f.cfg.legacy.EventStore
	id, _ := newSessionStreamID(key, false)
	ctx := context.Background()
	if err := es.Open(ctx, "", key, id, StreamMeta{RequestID: json.RawMessage(`5`), Owner: "another-instance", LeaseUntil: clk.Now().Add(streamLease)}, f.replayLimits()); err != nil {
		t.Fatal(err)
	}
	progress := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`
	if err := es.Append(ctx, "", key, id, StoredEvent{Seq: 1, Data: []byte(progress)}); err != nil {
		t.Fatal(err)
	}
	// The owner's lease is valid: the resumer replays and waits.
	_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", eventID(id, 0))
	if got := g.upTo(func(event) bool { return true }); got[0].id != eventID(id, 1) {
		t.Fatalf("replayed %v", got)
	}
	// The lease passes (45 s): the next poll answers for the stopped owner.
	clk.Advance(streamLease + time.Second)
	got := g.all()
	if len(got) != 1 || got[0].id != eventID(id, 2) {
		t.Fatalf("after the lease: %v", got)
	}
	w := decodeWire(t, []byte(got[0].data))
	checkLegacyMessage(t, "2025-11-25", w.raw, "tools/call")
	if w.id() != "5" || w.code() != protocol.CodeInternalError || !strings.Contains(string(w.raw), msgOwnerStopped) {
		t.Errorf("the answer for the stopped owner: %s", w.raw)
	}
	_, g = openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", eventID(id, 0))
	if got := g.all(); len(got) != 2 || !strings.Contains(got[1].data, msgOwnerStopped) {
		t.Errorf("the recorded answer: %v", got)
	}
}

// TestReplayOff: ReplayRetention < 0 turns resumability off: no ids, no
// priming event, DisconnectForPolling false, nothing stored.
func TestReplayOff(t *testing.T) {
	f := newResumeFixture(t, WithLegacy(LegacyConfig{ReplayRetention: -1}))
	c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
	c.open("")
	_, _, rec := c.call(1, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`)
	if b := rec.Body.String(); strings.Contains(b, "id: ") || strings.Contains(b, "data: \n") {
		t.Errorf("ids or priming with replay off: %q", b)
	}
	close(f.gate)
	w, _, _ := c.call(2, "tools/call", `{"name":"poll"}`)
	if <-f.polled || !strings.Contains(resultText(t, w), "polled=false") {
		t.Errorf("DisconnectForPolling with replay off: %s", w.raw)
	}
	if f.cfg.legacy.EventStore != nil {
		t.Error("an event store with replay off")
	}
}

// TestDeleteDropsLogs: DELETE deletes the session's event logs (§4.3).
func TestDeleteDropsLogs(t *testing.T) {
	f := newResumeFixture(t)
	c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
	c.open("")
	c.call(1, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`)
	es := f.cfg.legacy.EventStore.(*MemoryEventStore)
	if es.Streams() != 1 {
		t.Fatalf("%d streams logged, want 1", es.Streams())
	}
	if rec := c.send(http.MethodDelete, ""); rec.Code != 204 {
		t.Fatalf("DELETE: %d", rec.Code)
	}
	if es.Streams() != 0 || es.Bytes() != 0 {
		t.Errorf("after DELETE: %d streams, %d bytes", es.Streams(), es.Bytes())
	}
}

// TestSessionResync: a SessionResync event (what redisstore.Broker hands
// its subscribers after a reconnection, docs/dual-era.md §7.3) makes every
// standalone stream re-read its record at once: a session deleted while
// its events were lost ends its stream now, not at the next periodic
// re-read (four keep-alives, a minute by default).
func TestSessionResync(t *testing.T) {
	f, srv, c := newResumeSession(t, "2025-11-25")
	g := openGET(t, srv, c)
	_ = f.NotifyToolsChanged()
	g.message() // the stream is attached
	if err := f.cfg.legacy.Store.Delete(context.Background(), "", sessionKey(c.sid)); err != nil {
		t.Fatal(err) // deleted with no closed event, as if it was lost
	}
	if err := f.publish(Event{Kind: EventSession, Op: SessionResync}); err != nil {
		t.Fatal(err)
	}
	g.ended(false)
}

// TestResumeShutdown: Shutdown ends a resumed stream with retry (the
// client reconnects elsewhere) and waits for the detached request, whose
// response still goes to the log.
func TestResumeShutdown(t *testing.T) {
	f, srv, c := newResumeSession(t, "2025-11-25")
	_, ev := openStream(t, srv, c, http.MethodPost, eraBody(1, "tools/call", `{"name":"poll","_meta":{"progressToken":"p"}}`))
	evs := ev.all()
	<-f.polled
	_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[0].id)
	g.upTo(func(e event) bool { return strings.Contains(e.data, "after the disconnect") })
	done := make(chan error, 1)
	go func() { done <- f.Shutdown(context.Background()) }()
	if got := g.all(); len(got) != 1 || got[0].retry != "1000" {
		t.Fatalf("the resumed stream at Shutdown: %v", got)
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned (%v) while the request runs", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(f.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	evs2, meta, err := f.cfg.legacy.EventStore.Read(context.Background(), "", sessionKey(c.sid), strings.TrimSuffix(evs[0].id, ".0"), 0, 0)
	if err != nil || !meta.Done || len(evs2) != 3 || !strings.Contains(string(evs2[2].Data), "Reconnection test completed") {
		t.Errorf("the log after Shutdown: %v %+v %v", evs2, meta, err)
	}
}

// TestResumeStandaloneTruncated: resuming the standalone stream before its
// oldest kept event opens a fresh stream (§4.8 case 1, standalone: its
// messages are notifications only), with a new id and its priming event.
func TestResumeStandaloneTruncated(t *testing.T) {
	f := newResumeFixture(t, WithLegacy(LegacyConfig{MaxReplayEvents: 1}))
	srv := getServer(t, f.Handler(HTTPOptions{}))
	c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
	c.open("")
	first := openGET(t, srv, c)
	_ = f.NotifyToolsChanged()
	first.message()
	_ = f.NotifyPromptsChanged()
	first.message() // .1 is dropped: one event kept
	old := first.lastID[:12]
	second := openGET(t, srv, c, "Last-Event-ID", eventID(old, 0))
	first.ended(true)
	l := <-second.ch
	for l.kind == "comment" {
		l = <-second.ch
	}
	if l.kind != "id" || l.value == eventID(old, 0) || !strings.HasSuffix(l.value, ".0") {
		t.Fatalf("want a fresh stream's priming id, got %s %q", l.kind, l.value)
	}
	// From the kept event, it is a take-over that continues the stream.
	third := openGET(t, srv, c, "Last-Event-ID", eventID(old, 1))
	second.ended(true)
	if w := third.message(); w.method() != "notifications/prompts/list_changed" || third.lastID != eventID(old, 2) {
		t.Errorf("resume from .1: %s %q", w.raw, third.lastID)
	}
}

// TestResumeNoLeak: once a polled request has answered and been resumed,
// and a broken connection's request has ended, nothing of them is left:
// no goroutine (renewers, detached requests, resumers), no open log.
func TestResumeNoLeak(t *testing.T) {
	f := newResumeFixture(t, WithKeepAlive(time.Millisecond))
	srv := getServer(t, f.Handler(HTTPOptions{}))
	c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
	c.open("")
	resp, ev := openStream(t, srv, c, http.MethodPost, eraBody(1, "tools/call", `{"name":"slow","_meta":{"progressToken":"p"}}`))
	first := ev.upTo(func(e event) bool { return strings.Contains(e.data, "first") })
	resp.Body.Close()
	_, ev = openStream(t, srv, c, http.MethodPost, eraBody(2, "tools/call", `{"name":"poll"}`))
	polled := ev.all()
	<-f.polled
	time.Sleep(20 * time.Millisecond) // keep-alives and lease renewals run meanwhile
	close(f.gate)
	for _, leid := range []string{first[0].id, polled[0].id} {
		_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", leid)
		if got := g.all(); len(got) == 0 || !isResponse(got[len(got)-1]) {
			t.Fatalf("resume from %s: %v", leid, got)
		}
	}
	waitFor(t, func() bool { return f.logs.len() == 0 })
	srv.Close()
	goleak.VerifyNone(t,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
	)
}

// downEventStore is a MemoryEventStore whose calls fail while down.
type downEventStore struct {
	*MemoryEventStore
	down atomic.Bool
}

var errEventsDown = errors.New("event store down")

func (d *downEventStore) Open(ctx context.Context, p, s, id string, m StreamMeta, l ReplayLimits) error {
	if d.down.Load() {
		return errEventsDown
	}
	return d.MemoryEventStore.Open(ctx, p, s, id, m, l)
}

func (d *downEventStore) Append(ctx context.Context, p, s, id string, ev StoredEvent) error {
	if d.down.Load() {
		return errEventsDown
	}
	return d.MemoryEventStore.Append(ctx, p, s, id, ev)
}

func (d *downEventStore) Read(ctx context.Context, p, s, id string, after int64, max int) ([]StoredEvent, StreamMeta, error) {
	if d.down.Load() {
		return nil, StreamMeta{}, errEventsDown
	}
	return d.MemoryEventStore.Read(ctx, p, s, id, after, max)
}

// TestEventStoreOutage: an event store that fails never costs a connected
// client its answer (events go out live with their ids, only the log is
// lost), and a resume while it fails is 503 with Retry-After: 1 (the
// client tries again), not a 400 that would make it give up.
func TestEventStoreOutage(t *testing.T) {
	es := &downEventStore{MemoryEventStore: NewMemoryEventStore(0)}
	f := newResumeFixture(t, WithLegacy(LegacyConfig{EventStore: es}))
	srv := getServer(t, f.Handler(HTTPOptions{}))
	c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
	c.open("")
	es.down.Store(true)
	w, notes, _ := c.call(1, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`)
	if len(notes) != 3 || resultText(t, w) != "done" {
		t.Errorf("with the store down: %d notes, %s", len(notes), w.raw)
	}
	es.down.Store(false)
	_, ev := openStream(t, srv, c, http.MethodPost, eraBody(2, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`))
	evs := ev.all()
	es.down.Store(true)
	resp, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[1].id)
	if g != nil || resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("a resume with the store down: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	es.down.Store(false)
	_, g = openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[1].id)
	if got := g.all(); len(got) != 3 || !isResponse(got[2]) {
		t.Errorf("the resume once the store is back: %v", got)
	}
}

// TestDisconnectForPollingNeedsAllowPolling: a 2025-11-25 call of a tool
// registered without AllowPolling runs on its HTTP request's goroutine,
// so DisconnectForPolling cannot let the connection go: it returns false,
// and the answer is the POST's own (JSON), as in an older revision.
func TestDisconnectForPollingNeedsAllowPolling(t *testing.T) {
	f := newResumeFixture(t)
	addTool(t, f.Server, `{"name":"nopoll","inputSchema":{"type":"object"}}`, func(_ context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		return TextResult("polled=" + boolText(r.DisconnectForPolling(0))), nil
	})
	c := newLegacyHTTP(t, f.Handler(HTTPOptions{}), "2025-11-25")
	c.open("")
	w, _, rec := c.call(1, "tools/call", `{"name":"nopoll"}`)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" || !strings.Contains(resultText(t, w), "polled=false") {
		t.Fatalf("nopoll: %d %s %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes())
	}
}

// TestResumeTakesOverAttachedStream: a GET resuming the stream of a
// request whose POST is still connected takes the stream over: what
// follows, the response included, reaches the resumed stream only, and
// the POST's stream ends without it (a message goes on one stream,
// L1125/basic/transports.mdx, Multiple Connections). Found by the hostile
// review: the response reached both streams. For a call on its HTTP
// request's goroutine and for one on a worker (AllowPolling).
func TestResumeTakesOverAttachedStream(t *testing.T) {
	for _, tool := range []string{"slow", "slowpoll"} {
		t.Run(tool, func(t *testing.T) {
			f, srv, c := newResumeSession(t, "2025-11-25")
			_, ev := openStream(t, srv, c, http.MethodPost, eraBody(7, "tools/call", `{"name":"`+tool+`","_meta":{"progressToken":"p"}}`))
			first := ev.upTo(func(e event) bool { return strings.Contains(e.data, "first") })
			_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", first[len(first)-1].id)
			if g == nil {
				t.Fatal("the resume is not a stream")
			}
			close(f.gate)
			resumed := g.all()
			if len(resumed) != 2 || !strings.Contains(resumed[0].data, "second") || !isResponse(resumed[1]) {
				t.Fatalf("the resumed stream: %v", resumed)
			}
			for _, e := range ev.all() {
				if isResponse(e) || strings.Contains(e.data, "second") {
					t.Errorf("the POST's stream got %v after the resume took it over", e)
				}
			}
		})
	}
}

// TestRefusedResumeLeavesStreamAttached: a GET that cannot resume the
// stream of a request still attached to its POST (a seq past the last
// event) is refused and changes nothing: the POST's stream goes on and
// gets the response (second hostile review: the refused resume had taken
// the stream over all the same).
func TestRefusedResumeLeavesStreamAttached(t *testing.T) {
	for _, tool := range []string{"slow", "slowpoll"} {
		t.Run(tool, func(t *testing.T) {
			f, srv, c := newResumeSession(t, "2025-11-25")
			_, ev := openStream(t, srv, c, http.MethodPost, eraBody(7, "tools/call", `{"name":"`+tool+`","_meta":{"progressToken":"p"}}`))
			first := ev.upTo(func(e event) bool { return strings.Contains(e.data, "first") })
			id := first[len(first)-1].id
			resp, _ := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", id[:strings.IndexByte(id, '.')]+".999999")
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("the bogus resume: %d", resp.StatusCode)
			}
			close(f.gate)
			got := ev.all()
			if len(got) == 0 || !isResponse(got[len(got)-1]) {
				t.Errorf("the POST's stream after a refused resume: %v", got)
			}
		})
	}
}
