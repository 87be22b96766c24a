package legacy_test

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

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
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

func newResumeFixture(t *testing.T, opts ...any) *resumeFixture {
	f := &resumeFixture{legacyFixture: newLegacyFixture(t, legacy.ErasBoth, opts...), gate: make(chan struct{}), polled: make(chan bool, 10)}
	AddTool(t, f.Server, `{"name":"poll","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		ok := r.DisconnectForPolling(0)
		f.polled <- ok
		r.Progress(ctx, 1, 2, "after the disconnect")
		if err := f.waitGate(ctx, "poll"); err != nil {
			return nil, err
		}
		r.Progress(ctx, 2, 2, "done")
		return server.TextResult("Reconnection test completed polled=" + boolText(ok)), nil
	}, server.AllowPolling())
	slow := func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		r.Progress(ctx, 1, 2, "first")
		if err := f.waitGate(ctx, "slow"); err != nil {
			return nil, err
		}
		r.Progress(ctx, 2, 2, "second")
		return server.TextResult("slow done"), nil
	}
	// slow runs on its HTTP request's goroutine, slowpoll (the same
	// handler) on a worker of its own (AllowPolling).
	AddTool(t, f.Server, `{"name":"slow","inputSchema":{"type":"object"}}`, slow)
	AddTool(t, f.Server, `{"name":"slowpoll","inputSchema":{"type":"object"}}`, slow, server.AllowPolling())
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
func newResumeSession(t *testing.T, rev string, opts ...any) (*resumeFixture, *httptest.Server, *LegacyHTTP) {
	t.Helper()
	f := newResumeFixture(t, opts...)
	h := Handler(f.Server, streamhttp.Options{})
	srv := GetServer(t, h)
	c := NewLegacyHTTP(t, h, rev)
	c.Open("")
	return f, srv, c
}

// stream sends a request over a real connection and reads its answer as
// an event stream.
func openStream(t *testing.T, srv *httptest.Server, c *LegacyHTTP, verb, body string, hdr ...string) (*http.Response, *LegacyEvents) {
	t.Helper()
	req, err := http.NewRequest(verb, srv.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.Rev >= "2025-06-18" {
		hdr = append([]string{server.HeaderProtocolVersion, c.Rev}, hdr...)
	}
	resp := SendOnSession(t, srv, c, req, hdr...)
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		return resp, nil
	}
	return resp, ReadLegacyEvents(t, c.Rev, resp)
}

func isResponse(ev TEvent) bool {
	return strings.Contains(ev.Data, `"result"`) || strings.Contains(ev.Data, `"error"`)
}

// answerStatus GETs with Last-Event-ID and returns the status and, for a
// JSON answer, the error code.
func resumeRefused(t *testing.T, srv *httptest.Server, c *LegacyHTTP, leids ...string) (int, int64) {
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
	w := DecodeWire(t, b)
	return resp.StatusCode, w.Code()
}

// TestLegacyEventIDs: every event of a POST stream has an id
// <stream>.<seq> of one stream, seqs increasing from 1; 2025-11-25 streams
// start with the priming event <stream>.0 and empty data, older revisions
// without it (§4.8, Choice); the standalone GET stream likewise.
func TestLegacyEventIDs(t *testing.T) {
	for _, rev := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
		t.Run(rev, func(t *testing.T) {
			f, srv, c := newResumeSession(t, rev)
			_, ev := openStream(t, srv, c, http.MethodPost, EraBody(1, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`))
			if ev == nil {
				t.Fatal("progress answered as JSON")
			}
			evs := ev.All()
			stream := ""
			want := int64(1)
			if rev == "2025-11-25" {
				if len(evs) == 0 || evs[0].Data != "" || !strings.HasSuffix(evs[0].Id, ".0") {
					t.Fatalf("the first event is not a priming event: %v", evs)
				}
				stream = strings.TrimSuffix(evs[0].Id, ".0")
				evs = evs[1:]
			}
			if len(evs) != 4 {
				t.Fatalf("events %v, want 3 progress and the response", evs)
			}
			for _, e := range evs {
				if e.Data == "" {
					t.Errorf("a priming event for %s, or one not first: %v", rev, evs)
				}
				if !eventIDRE.MatchString(e.Id) {
					t.Fatalf("event id %q", e.Id)
				}
				st, seq, _ := legacy.ParseLastEventID(e.Id)
				if stream == "" {
					stream = st
				}
				if st != stream || seq != want {
					t.Errorf("event id %q, want %s.%d", e.Id, stream, want)
				}
				want++
			}
			if !isResponse(evs[3]) {
				t.Errorf("the last event is not the response: %v", evs[3])
			}
			// A JSON answer has no id and stores nothing.
			before := f.era().Cfg().EventStore.(*legacy.MemoryEventStore).Streams()
			if _, _, rec := c.Call(2, "tools/list", ""); rec.Header().Get("Content-Type") != "application/json" {
				t.Errorf("tools/list: %s", rec.Header().Get("Content-Type"))
			}
			if after := f.era().Cfg().EventStore.(*legacy.MemoryEventStore).Streams(); after != before {
				t.Errorf("a JSON answer opened a log (%d → %d streams)", before, after)
			}
			g := OpenGET(t, srv, c)
			_ = f.NotifyToolsChanged()
			g.Message()
			if !eventIDRE.MatchString(g.LastID) || strings.HasSuffix(g.LastID, ".0") {
				t.Errorf("standalone event id %q", g.LastID)
			}
			if sa, ok := legacy.CheckStreamID(legacy.SessionKey(c.Sid), g.LastID[:12]); !ok || !sa {
				t.Errorf("the standalone stream's id does not name it: %v %v", sa, ok)
			}
			if f.era().LogsLen() != 1 {
				t.Errorf("%d logs open here, want the standalone stream's only", f.era().LogsLen())
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
	_, ev := openStream(t, srv, c, http.MethodPost, EraBody(1, "tools/call", `{"name":"poll","arguments":{},"_meta":{"progressToken":"p"}}`))
	if ev == nil {
		t.Fatal("a JSON answer")
	}
	evs := ev.All() // ends while the tool waits for the gate
	if len(evs) != 2 || evs[0].Data != "" || !strings.HasSuffix(evs[0].Id, ".0") || evs[1].Retry != "1000" {
		t.Fatalf("the POST stream: %v, want the priming event then retry: 1000", evs)
	}
	if !<-f.polled {
		t.Fatal("DisconnectForPolling returned false")
	}
	close(f.gate)
	_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[0].Id)
	if g == nil {
		t.Fatal("the resume is not a stream")
	}
	got := g.All()
	if len(got) != 3 {
		t.Fatalf("resumed: %v, want 2 progress and the response", got)
	}
	stream := strings.TrimSuffix(evs[0].Id, ".0")
	for i, e := range got {
		if e.Id != legacy.EventID(stream, int64(i+1)) {
			t.Errorf("resumed event %d has id %q", i, e.Id)
		}
		CheckLegacyMessage(t, "2025-11-25", []byte(e.Data), "tools/call")
	}
	w := DecodeWire(t, []byte(got[2].Data))
	if w.Id() != "1" || !strings.Contains(ResultText(t, w), "Reconnection test completed polled=true") {
		t.Errorf("the response on the resumed stream: %s", got[2].Data)
	}
	// The log stays for a later resume (from the middle here).
	_, g = openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", legacy.EventID(stream, 2))
	if got := g.All(); len(got) != 1 || !isResponse(got[0]) {
		t.Errorf("a second resume from .2: %v", got)
	}
	WaitFor(t, func() bool { return f.era().LogsLen() == 0 })

	for _, rev := range []string{"2025-06-18", "2025-03-26"} {
		c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), rev)
		c.Open("")
		w, _, _ := c.Call(1, "tools/call", `{"name":"poll"}`)
		if <-f.polled || !strings.Contains(ResultText(t, w), "polled=false") {
			t.Errorf("%s: DisconnectForPolling did something: %s", rev, w.Raw)
		}
	}
	// A stdio session of 2025-11-25: false (no stream to close).
	sc := StartLegacyStdio(t, f.Server, "2025-11-25")
	sc.Open("")
	if w, _ := sc.Call(9, "tools/call", `{"name":"poll"}`); <-f.polled || !strings.Contains(ResultText(t, w), "polled=false") {
		t.Errorf("stdio: DisconnectForPolling did something: %s", w.Raw)
	}
	// A modern request: false.
	rec := EraRequest(t, Handler(f.Server, streamhttp.Options{}), http.MethodPost, EraBody(1, "tools/call", `{"_meta":`+modernMetaJSON+`,"name":"poll","arguments":{}}`), server.HeaderProtocolVersion, "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "poll")
	m := DecodeWire(t, rec.Body.Bytes())
	select {
	case ok := <-f.polled:
		if ok || !strings.Contains(string(m.Raw), "polled=false") {
			t.Errorf("modern: %s", m.Raw)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("the modern call did not run the tool: %s", m.Raw)
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
			resp, ev := openStream(t, srv, c, http.MethodPost, EraBody(7, "tools/call", `{"name":"`+tc.tool+`","_meta":{"progressToken":"p"}}`))
			first := ev.UpTo(func(e TEvent) bool { return strings.Contains(e.Data, "first") })
			last := first[len(first)-1].Id
			resp.Body.Close() // the connection breaks
			time.Sleep(20 * time.Millisecond)
			close(f.gate)
			_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", last)
			got := g.All()
			if len(got) != 2 || !strings.Contains(got[0].Data, "second") || !isResponse(got[1]) {
				t.Fatalf("resumed after %s: %v", last, got)
			}
			if w := DecodeWire(t, []byte(got[1].Data)); w.Id() != "7" || ResultText(t, w) != "slow done" {
				t.Errorf("the response: %s", got[1].Data)
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
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(EraBody(3, "tools/call", `{"name":"`+tool+`"}`)))
	req.Header.Set(legacy.HeaderSessionID, c.Sid)
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
	WaitFor(t, func() bool { return f.calls.get("wait cancelled") == 1 })
}

// TestResumeLive: a GET resuming a stream whose request still runs here
// replays what was logged, then continues live until the response.
func TestResumeLive(t *testing.T) {
	f, srv, c := newResumeSession(t, "2025-11-25")
	standalone := OpenGET(t, srv, c)
	_, ev := openStream(t, srv, c, http.MethodPost, EraBody(1, "tools/call", `{"name":"poll","_meta":{"progressToken":"p"}}`))
	evs := ev.All()
	<-f.polled
	_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[0].Id)
	first := g.UpTo(func(e TEvent) bool { return strings.Contains(e.Data, "after the disconnect") })
	if len(first) != 1 {
		t.Fatalf("replayed: %v", first)
	}
	close(f.gate)
	rest := g.All()
	if len(rest) != 2 || !isResponse(rest[1]) {
		t.Fatalf("live: %v", rest)
	}
	// A resumed POST stream did not take the standalone stream over, and
	// carried none of its notifications.
	_ = f.NotifyToolsChanged()
	if w := standalone.Message(); w.Method() != "notifications/tools/list_changed" {
		t.Errorf("the standalone stream after a POST stream's resume: %s", w.Raw)
	}
}

// TestPollAfter: LegacyConfig.PollAfter closes a long request's stream
// with retry by itself; the client resumes and gets the response.
func TestPollAfter(t *testing.T) {
	f := newResumeFixture(t, Legacy(legacy.Config{PollAfter: 30 * time.Millisecond}))
	srv := GetServer(t, Handler(f.Server, streamhttp.Options{}))
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	_, ev := openStream(t, srv, c, http.MethodPost, EraBody(4, "tools/call", `{"name":"slow","_meta":{"progressToken":"p"}}`))
	evs := ev.All()
	if len(evs) != 3 || evs[0].Data != "" || !strings.Contains(evs[1].Data, "first") || evs[2].Retry != "1000" {
		t.Fatalf("the POST stream: %v", evs)
	}
	close(f.gate)
	_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[1].Id)
	if got := g.All(); len(got) != 2 || !isResponse(got[1]) {
		t.Fatalf("resumed: %v", got)
	}
}

// TestResumeRefusals: rows session/Last-Event-ID of another session and
// session/malformed Last-Event-ID (§10.4): 400 -32600, as are a repeated
// header, a request stream whose events are gone (never logged, or
// truncated by MaxReplayEvents: §4.8 case 1) and a seq past the stream's
// last event.
func TestResumeRefusals(t *testing.T) {
	f := newResumeFixture(t, Legacy(legacy.Config{MaxReplayEvents: 2}))
	srv := GetServer(t, Handler(f.Server, streamhttp.Options{}))
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	other := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	other.Open("")
	_, ev := openStream(t, srv, other, http.MethodPost, EraBody(1, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`))
	otherEvs := ev.All()
	_, ev = openStream(t, srv, c, http.MethodPost, EraBody(1, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`))
	evs := ev.All() // priming, 3 progress, the response: 2 kept
	stream := strings.TrimSuffix(evs[0].Id, ".0")
	unlogged, _ := legacy.NewSessionStreamID(legacy.SessionKey(c.Sid), false)
	otherStandalone, _ := legacy.NewSessionStreamID(legacy.SessionKey(other.Sid), true) // would open a fresh stream if it verified
	for _, c2 := range []struct {
		name  string
		leids []string
	}{
		{"another session's", []string{otherEvs[1].Id}},
		{"another session's standalone", []string{legacy.EventID(otherStandalone, 0)}},
		{"abc", []string{"abc"}},
		{"x.1", []string{"x.1"}},
		{"2 KiB", []string{strings.Repeat("A", 2048)}},
		{"a made-up stream", []string{"AAAAAAAAAAAA.1"}},
		{"leading zero", []string{stream + ".01"}},
		{"repeated", []string{evs[1].Id, evs[1].Id}},
		{"truncated", []string{stream + ".1"}},
		{"never logged", []string{legacy.EventID(unlogged, 0)}},
		{"past the last", []string{stream + ".9"}},
	} {
		if status, code := resumeRefused(t, srv, c, c2.leids...); status != 400 || code != protocol.CodeInvalidRequestError {
			t.Errorf("%s: %d %d, want 400 -32600", c2.name, status, code)
		}
	}
	// Within what is kept: the last two events (.3 and the response .4).
	_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", stream+".2")
	if got := g.All(); len(got) != 2 || got[0].Id != stream+".3" || !isResponse(got[1]) {
		t.Errorf("resume from .2: %v", got)
	}
}

// TestResumeStandalone: a GET with the id of the standalone stream takes it
// over and continues it (§4.8 case 4): what was logged after the id is
// replayed, the stream keeps its id and its seqs go on; with its log gone,
// a fresh standalone stream opens instead (priming, a new id).
func TestResumeStandalone(t *testing.T) {
	f, srv, c := newResumeSession(t, "2025-11-25")
	first := OpenGET(t, srv, c)
	_ = f.NotifyToolsChanged()
	first.Message()
	primed := strings.TrimSuffix(first.LastID, ".1") + ".0"
	_ = f.NotifyPromptsChanged()
	first.Message()
	second := OpenGET(t, srv, c, "Last-Event-ID", primed)
	first.Ended(true) // taken over
	if w := second.Message(); w.Method() != "notifications/tools/list_changed" || second.LastID != strings.TrimSuffix(primed, ".0")+".1" {
		t.Errorf("replayed %s with id %q", w.Raw, second.LastID)
	}
	if w := second.Message(); w.Method() != "notifications/prompts/list_changed" {
		t.Errorf("replayed %s", w.Raw)
	}
	_ = f.NotifyResourcesChanged()
	if w := second.Message(); w.Method() != "notifications/resources/list_changed" || second.LastID != strings.TrimSuffix(primed, ".0")+".3" {
		t.Errorf("live after the replay: %s with id %q", w.Raw, second.LastID)
	}
	// A standalone id whose log is gone: a fresh stream.
	gone, _ := legacy.NewSessionStreamID(legacy.SessionKey(c.Sid), true)
	third := OpenGET(t, srv, c, "Last-Event-ID", legacy.EventID(gone, 5))
	second.Ended(true)
	l := <-third.Ch
	for l.Kind == "comment" {
		l = <-third.Ch
	}
	if l.Kind != "id" || !strings.HasSuffix(l.Value, ".0") || strings.HasPrefix(l.Value, gone) {
		t.Errorf("a fresh stream starts with a new priming id, got %s %q", l.Kind, l.Value)
	}
}

// TestResumeStoppedOwner is §4.8 case 3 with the lease of §7.2: a request
// stream not done whose owner's lease has passed gets a -32603 response
// from the resumer, recorded so that the next resume gets it too; with the
// lease still valid the resumer waits for the owner instead.
func TestResumeStoppedOwner(t *testing.T) {
	clk := NewTestClock()
	f := newResumeFixture(t, Legacy(legacy.Config{PollInterval: 10 * time.Millisecond}))
	f.era().SetNow(clk.Now)
	store := f.era().Cfg().Store.(*legacy.MemorySessionStore)
	legacy.SetMemorySessionStoreClock(store, clk.Now)
	legacy.SetMemoryEventStoreClock(f.era().Cfg().EventStore.(*legacy.MemoryEventStore), clk.Now)
	srv := GetServer(t, Handler(f.Server, streamhttp.Options{}))
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	key := legacy.SessionKey(c.Sid)
	es := f.era().Cfg().EventStore
	id, _ := legacy.NewSessionStreamID(key, false)
	ctx := context.Background()
	if err := es.Open(ctx, "", key, id, legacy.StreamMeta{RequestID: json.RawMessage(`5`), Owner: "another-instance", LeaseUntil: clk.Now().Add(legacy.StreamLease)}, f.era().ReplayLimits()); err != nil {
		t.Fatal(err)
	}
	progress := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`
	if err := es.Append(ctx, "", key, id, legacy.StoredEvent{Seq: 1, Data: []byte(progress)}); err != nil {
		t.Fatal(err)
	}
	// The owner's lease is valid: the resumer replays and waits.
	_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", legacy.EventID(id, 0))
	if got := g.UpTo(func(TEvent) bool { return true }); got[0].Id != legacy.EventID(id, 1) {
		t.Fatalf("replayed %v", got)
	}
	// The lease passes (45 s): the next poll answers for the stopped owner.
	clk.Advance(legacy.StreamLease + time.Second)
	got := g.All()
	if len(got) != 1 || got[0].Id != legacy.EventID(id, 2) {
		t.Fatalf("after the lease: %v", got)
	}
	w := DecodeWire(t, []byte(got[0].Data))
	CheckLegacyMessage(t, "2025-11-25", w.Raw, "tools/call")
	if w.Id() != "5" || w.Code() != protocol.CodeInternalError || !strings.Contains(string(w.Raw), legacy.MsgOwnerStopped) {
		t.Errorf("the answer for the stopped owner: %s", w.Raw)
	}
	_, g = openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", legacy.EventID(id, 0))
	if got := g.All(); len(got) != 2 || !strings.Contains(got[1].Data, legacy.MsgOwnerStopped) {
		t.Errorf("the recorded answer: %v", got)
	}
}

// TestReplayOff: ReplayRetention < 0 turns resumability off: no ids, no
// priming event, DisconnectForPolling false, nothing stored.
func TestReplayOff(t *testing.T) {
	f := newResumeFixture(t, Legacy(legacy.Config{ReplayRetention: -1}))
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	_, _, rec := c.Call(1, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`)
	if b := rec.Body.String(); strings.Contains(b, "id: ") || strings.Contains(b, "data: \n") {
		t.Errorf("ids or priming with replay off: %q", b)
	}
	close(f.gate)
	w, _, _ := c.Call(2, "tools/call", `{"name":"poll"}`)
	if <-f.polled || !strings.Contains(ResultText(t, w), "polled=false") {
		t.Errorf("DisconnectForPolling with replay off: %s", w.Raw)
	}
	if f.era().Cfg().EventStore != nil {
		t.Error("an event store with replay off")
	}
}

// TestDeleteDropsLogs: DELETE deletes the session's event logs (§4.3).
func TestDeleteDropsLogs(t *testing.T) {
	f := newResumeFixture(t)
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	c.Call(1, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`)
	es := f.era().Cfg().EventStore.(*legacy.MemoryEventStore)
	if es.Streams() != 1 {
		t.Fatalf("%d streams logged, want 1", es.Streams())
	}
	if rec := c.Send(http.MethodDelete, ""); rec.Code != 204 {
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
	g := OpenGET(t, srv, c)
	_ = f.NotifyToolsChanged()
	g.Message() // the stream is attached
	if err := f.era().Cfg().Store.Delete(context.Background(), "", legacy.SessionKey(c.Sid)); err != nil {
		t.Fatal(err) // deleted with no closed event, as if it was lost
	}
	if err := f.era().Publish(server.Event{Kind: server.EventResync}); err != nil {
		t.Fatal(err)
	}
	g.Ended(false)
}

// TestResumeShutdown: Shutdown ends a resumed stream with retry (the
// client reconnects elsewhere) and waits for the detached request, whose
// response still goes to the log.
func TestResumeShutdown(t *testing.T) {
	f, srv, c := newResumeSession(t, "2025-11-25")
	_, ev := openStream(t, srv, c, http.MethodPost, EraBody(1, "tools/call", `{"name":"poll","_meta":{"progressToken":"p"}}`))
	evs := ev.All()
	<-f.polled
	_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[0].Id)
	g.UpTo(func(e TEvent) bool { return strings.Contains(e.Data, "after the disconnect") })
	done := make(chan error, 1)
	go func() { done <- f.Shutdown(context.Background()) }()
	if got := g.All(); len(got) != 1 || got[0].Retry != "1000" {
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
	evs2, meta, err := f.era().Cfg().EventStore.Read(context.Background(), "", legacy.SessionKey(c.Sid), strings.TrimSuffix(evs[0].Id, ".0"), 0, 0)
	if err != nil || !meta.Done || len(evs2) != 3 || !strings.Contains(string(evs2[2].Data), "Reconnection test completed") {
		t.Errorf("the log after Shutdown: %v %+v %v", evs2, meta, err)
	}
}

// TestResumeStandaloneTruncated: resuming the standalone stream before its
// oldest kept event opens a fresh stream (§4.8 case 1, standalone: its
// messages are notifications only), with a new id and its priming event.
func TestResumeStandaloneTruncated(t *testing.T) {
	f := newResumeFixture(t, Legacy(legacy.Config{MaxReplayEvents: 1}))
	srv := GetServer(t, Handler(f.Server, streamhttp.Options{}))
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	first := OpenGET(t, srv, c)
	_ = f.NotifyToolsChanged()
	first.Message()
	_ = f.NotifyPromptsChanged()
	first.Message() // .1 is dropped: one event kept
	old := first.LastID[:12]
	second := OpenGET(t, srv, c, "Last-Event-ID", legacy.EventID(old, 0))
	first.Ended(true)
	l := <-second.Ch
	for l.Kind == "comment" {
		l = <-second.Ch
	}
	if l.Kind != "id" || l.Value == legacy.EventID(old, 0) || !strings.HasSuffix(l.Value, ".0") {
		t.Fatalf("want a fresh stream's priming id, got %s %q", l.Kind, l.Value)
	}
	// From the kept event, it is a take-over that continues the stream.
	third := OpenGET(t, srv, c, "Last-Event-ID", legacy.EventID(old, 1))
	second.Ended(true)
	if w := third.Message(); w.Method() != "notifications/prompts/list_changed" || third.LastID != legacy.EventID(old, 2) {
		t.Errorf("resume from .1: %s %q", w.Raw, third.LastID)
	}
}

// TestResumeNoLeak: once a polled request has answered and been resumed,
// and a broken connection's request has ended, nothing of them is left:
// no goroutine (renewers, detached requests, resumers), no open log.
func TestResumeNoLeak(t *testing.T) {
	f := newResumeFixture(t, server.WithKeepAlive(time.Millisecond))
	srv := GetServer(t, Handler(f.Server, streamhttp.Options{}))
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	resp, ev := openStream(t, srv, c, http.MethodPost, EraBody(1, "tools/call", `{"name":"slow","_meta":{"progressToken":"p"}}`))
	first := ev.UpTo(func(e TEvent) bool { return strings.Contains(e.Data, "first") })
	resp.Body.Close()
	_, ev = openStream(t, srv, c, http.MethodPost, EraBody(2, "tools/call", `{"name":"poll"}`))
	polled := ev.All()
	<-f.polled
	time.Sleep(20 * time.Millisecond) // keep-alives and lease renewals run meanwhile
	close(f.gate)
	for _, leid := range []string{first[0].Id, polled[0].Id} {
		_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", leid)
		if got := g.All(); len(got) == 0 || !isResponse(got[len(got)-1]) {
			t.Fatalf("resume from %s: %v", leid, got)
		}
	}
	WaitFor(t, func() bool { return f.era().LogsLen() == 0 })
	srv.Close()
	goleak.VerifyNone(t,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
	)
}

// downEventStore is a MemoryEventStore whose calls fail while down.
type downEventStore struct {
	*legacy.MemoryEventStore
	down atomic.Bool
}

var errEventsDown = errors.New("event store down")

func (d *downEventStore) Open(ctx context.Context, p, s, id string, m legacy.StreamMeta, l legacy.ReplayLimits) error {
	if d.down.Load() {
		return errEventsDown
	}
	return d.MemoryEventStore.Open(ctx, p, s, id, m, l)
}

func (d *downEventStore) Append(ctx context.Context, p, s, id string, ev legacy.StoredEvent) error {
	if d.down.Load() {
		return errEventsDown
	}
	return d.MemoryEventStore.Append(ctx, p, s, id, ev)
}

func (d *downEventStore) Read(ctx context.Context, p, s, id string, after int64, max int) ([]legacy.StoredEvent, legacy.StreamMeta, error) {
	if d.down.Load() {
		return nil, legacy.StreamMeta{}, errEventsDown
	}
	return d.MemoryEventStore.Read(ctx, p, s, id, after, max)
}

// TestEventStoreOutage: an event store that fails never costs a connected
// client its answer (events go out live with their ids, only the log is
// lost), and a resume while it fails is 503 with Retry-After: 1 (the
// client tries again), not a 400 that would make it give up.
func TestEventStoreOutage(t *testing.T) {
	es := &downEventStore{MemoryEventStore: legacy.NewMemoryEventStore(0)}
	f := newResumeFixture(t, Legacy(legacy.Config{EventStore: es}))
	srv := GetServer(t, Handler(f.Server, streamhttp.Options{}))
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	es.down.Store(true)
	w, notes, _ := c.Call(1, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`)
	if len(notes) != 3 || ResultText(t, w) != "done" {
		t.Errorf("with the store down: %d notes, %s", len(notes), w.Raw)
	}
	es.down.Store(false)
	_, ev := openStream(t, srv, c, http.MethodPost, EraBody(2, "tools/call", `{"name":"progress","_meta":{"progressToken":"p"}}`))
	evs := ev.All()
	es.down.Store(true)
	resp, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[1].Id)
	if g != nil || resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("a resume with the store down: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	es.down.Store(false)
	_, g = openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[1].Id)
	if got := g.All(); len(got) != 3 || !isResponse(got[2]) {
		t.Errorf("the resume once the store is back: %v", got)
	}
}

// TestDisconnectForPollingNeedsAllowPolling: a 2025-11-25 call of a tool
// registered without AllowPolling runs on its HTTP request's goroutine,
// so DisconnectForPolling cannot let the connection go: it returns false,
// and the answer is the POST's own (JSON), as in an older revision.
func TestDisconnectForPollingNeedsAllowPolling(t *testing.T) {
	f := newResumeFixture(t)
	AddTool(t, f.Server, `{"name":"nopoll","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("polled=" + boolText(r.DisconnectForPolling(0))), nil
	})
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	w, _, rec := c.Call(1, "tools/call", `{"name":"nopoll"}`)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" || !strings.Contains(ResultText(t, w), "polled=false") {
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
			_, ev := openStream(t, srv, c, http.MethodPost, EraBody(7, "tools/call", `{"name":"`+tool+`","_meta":{"progressToken":"p"}}`))
			first := ev.UpTo(func(e TEvent) bool { return strings.Contains(e.Data, "first") })
			_, g := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", first[len(first)-1].Id)
			if g == nil {
				t.Fatal("the resume is not a stream")
			}
			close(f.gate)
			resumed := g.All()
			if len(resumed) != 2 || !strings.Contains(resumed[0].Data, "second") || !isResponse(resumed[1]) {
				t.Fatalf("the resumed stream: %v", resumed)
			}
			for _, e := range ev.All() {
				if isResponse(e) || strings.Contains(e.Data, "second") {
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
			_, ev := openStream(t, srv, c, http.MethodPost, EraBody(7, "tools/call", `{"name":"`+tool+`","_meta":{"progressToken":"p"}}`))
			first := ev.UpTo(func(e TEvent) bool { return strings.Contains(e.Data, "first") })
			id := first[len(first)-1].Id
			resp, _ := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", id[:strings.IndexByte(id, '.')]+".999999")
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("the bogus resume: %d", resp.StatusCode)
			}
			close(f.gate)
			got := ev.All()
			if len(got) == 0 || !isResponse(got[len(got)-1]) {
				t.Errorf("the POST's stream after a refused resume: %v", got)
			}
		})
	}
}
