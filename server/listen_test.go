package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/testutil"
)

// sseStream reads the events of one streamed response line by line.
type sseStream struct {
	t    *testing.T
	r    *bufio.Reader
	body io.Closer
}

func openListen(t *testing.T, srv *httptest.Server, id any, filter M) *sseStream {
	t.Helper()
	return openListenWith(t, srv, id, params(M{"notifications": filter}), nil)
}

// openListenWith opens a listen stream whose params are p; mod may change
// the request before it is sent (an X-User header, for instance).
func openListenWith(t *testing.T, srv *httptest.Server, id any, p M, mod func(*http.Request)) *sseStream {
	t.Helper()
	body := rpc(id, "subscriptions/listen", p)
	req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range mirror(body) {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	if mod != nil {
		mod(req)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("listen: status %d, %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	if resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Error("listen stream without X-Accel-Buffering: no (R-HTTP-12)")
	}
	st := &sseStream{t: t, r: bufio.NewReader(resp.Body), body: resp.Body}
	t.Cleanup(func() { resp.Body.Close() })
	return st
}

// next returns the next data message, or the comment text prefixed "#".
func (s *sseStream) next(timeout time.Duration) (string, bool) {
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		for {
			l, err := s.r.ReadString('\n')
			if err != nil {
				ch <- line{"", err}
				return
			}
			l = strings.TrimRight(l, "\r\n")
			switch {
			case strings.HasPrefix(l, "data: "):
				ch <- line{strings.TrimPrefix(l, "data: "), nil}
				return
			case strings.HasPrefix(l, ":"):
				ch <- line{"#" + l, nil}
				return
			}
		}
	}()
	select {
	case l := <-ch:
		return l.s, l.err == nil
	case <-time.After(timeout):
		return "", false
	}
}

func (s *sseStream) message(timeout time.Duration) *wire {
	s.t.Helper()
	for {
		d, ok := s.next(timeout)
		if !ok {
			s.t.Fatal("no message on the listen stream")
		}
		if strings.HasPrefix(d, "#") {
			continue
		}
		return decodeWire(s.t, []byte(d))
	}
}

func subID(t *testing.T, w *wire) string {
	t.Helper()
	m := w.params()["_meta"].(map[string]any)
	b, _ := json.Marshal(m["io.modelcontextprotocol/subscriptionId"])
	return string(b)
}

// R-SUB-01..04, R-SUB-09, R-HTTP-11: the acknowledgement comes first with
// the honoured filter; list changes arrive tagged with the listen id (same
// JSON type); types not asked for never arrive; request-scoped
// notifications never go on the stream.
func TestListenHTTP(t *testing.T) {
	s := fixture(t, WithKeepAlive(40*time.Millisecond))
	srv := httptest.NewServer(s.Handler(HTTPOptions{AllowedHosts: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close) // after the streams' own cleanups close their bodies

	st := openListen(t, srv, "sub-1", M{"toolsListChanged": true, "resourceSubscriptions": []string{"file:///a.txt", "test://nope"}})
	ack := st.message(2 * time.Second)
	if ack.method() != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first frame %s, want the acknowledgement (R-SUB-02)", ack.method())
	}
	if got := subID(t, ack); got != `"sub-1"` {
		t.Fatalf("ack subscriptionId %s, want \"sub-1\" (R-SUB-04)", got)
	}
	n := ack.params()["notifications"].(map[string]any)
	if n["toolsListChanged"] != true || n["promptsListChanged"] != nil {
		t.Errorf("honoured filter %v (R-SUB-03)", n)
	}
	if subs, _ := n["resourceSubscriptions"].([]any); len(subs) != 1 || subs[0] != "file:///a.txt" {
		t.Errorf("resourceSubscriptions %v: unknown URIs are left out", subs)
	}

	if err := s.NotifyPromptsChanged(); err != nil { // not asked for (R-SUB-01)
		t.Fatal(err)
	}
	if err := s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	w := st.message(2 * time.Second)
	if w.method() != "notifications/tools/list_changed" || subID(t, w) != `"sub-1"` {
		t.Fatalf("got %s tagged %s, want tools/list_changed tagged \"sub-1\"", w.method(), subID(t, w))
	}
	if err := s.NotifyResourceUpdated("file:///a.txt"); err != nil {
		t.Fatal(err)
	}
	w = st.message(2 * time.Second)
	if w.method() != "notifications/resources/updated" || w.params()["uri"] != "file:///a.txt" {
		t.Fatalf("got %s %v", w.method(), w.params())
	}
	// Keep-alive comments while quiet (R-HTTP-13).
	sawComment := false
	for range 5 {
		d, ok := st.next(time.Second)
		if ok && strings.HasPrefix(d, "#") {
			sawComment = true
			break
		}
	}
	if !sawComment {
		t.Error("no keep-alive comment on a quiet stream")
	}
	// Adding a tool notifies by itself.
	addTool(t, s, `{"name":"late","inputSchema":{"type":"object"}}`, textTool("x"))
	if w := st.message(2 * time.Second); w.method() != "notifications/tools/list_changed" {
		t.Fatalf("AddTool sent %s", w.method())
	}
	// Shutdown ends the stream with the listen result (R-SUB-06, A1).
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	go func() { _ = s.Shutdown(ctx) }()
	w = st.message(2 * time.Second)
	if w.id() != `"sub-1"` || !strings.Contains(string(w.members["result"]), `"io.modelcontextprotocol/subscriptionId":"sub-1"`) {
		t.Fatalf("shutdown sent %s %s, want the listen result", w.id(), w.members["result"])
	}
}

// An integer listen id tags with an integer (R-SUB-04); a client that goes
// away ends the stream and its goroutines.
func TestListenIntegerIDAndDisconnect(t *testing.T) {
	s := fixture(t)
	srv := httptest.NewServer(s.Handler(HTTPOptions{AllowedHosts: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close) // after the streams' own cleanups close their bodies
	st := openListen(t, srv, 7, M{"promptsListChanged": true})
	ack := st.message(2 * time.Second)
	if subID(t, ack) != "7" {
		t.Fatalf("subscriptionId %s, want 7", subID(t, ack))
	}
	st.body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("the listen stream did not end after the client left: %v", err)
	}
}

// R-VER-04 (R-TASK-13 for the tasks extension's taskIds): an extension's
// filter member without the extension declared on the request is -32021
// naming the extension in requiredCapabilities.
func TestListenKeysNeedExtension(t *testing.T) {
	// The stream lifetime only bounds a run against code that opens it.
	s := fixture(t, withNotes(newNotes(0)), WithMaxStreamLifetime(time.Second))
	h := s.Handler(HTTPOptions{})
	rec := post(t, h, rpc(1, "subscriptions/listen", params(M{"notifications": M{"noteIds": []string{"n1"}}})), nil)
	w := single(t, rec)
	if w.code() != -32021 {
		t.Fatalf("code %d, want -32021: %s", w.code(), w.raw)
	}
	caps, _ := w.data(t)["requiredCapabilities"].(M)
	if exts, _ := caps["extensions"].(M); exts == nil || exts[notesID] == nil {
		t.Errorf("the -32021 does not name %s: %s", notesID, w.raw)
	}
}

// stdio: the stream is the open listen request; notifications/cancelled
// from the client ends it with no response (R-CANCEL-01); Shutdown ends
// another with notifications/cancelled naming it (R-SUB-07, A1).
func TestListenStdio(t *testing.T) {
	s := fixture(t)
	pr, pw := io.Pipe()
	var out testutil.SyncBuffer
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), pr, &out) }()
	write := func(b []byte) {
		if _, err := pw.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	write(rpc("a", "subscriptions/listen", params(M{"notifications": M{"toolsListChanged": true}})))
	write(rpc("b", "subscriptions/listen", params(M{"notifications": M{"toolsListChanged": true}})))
	waitFor(t, func() bool { return strings.Count(out.String(), "subscriptions/acknowledged") == 2 })
	if err := s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Count(out.String(), "tools/list_changed") == 2 })
	write([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`))
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Contains(out.String(), `"requestId":"b"`) })
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		w := decodeWire(t, []byte(l))
		if w.hasID() {
			t.Errorf("a listen stream got a response on stdio: %s", l)
		}
		if w.method() == "notifications/cancelled" && w.params()["requestId"] != "b" {
			t.Errorf("cancelled names %v", w.params()["requestId"])
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
