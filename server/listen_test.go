package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/internal/testutil"
	"github.com/mcpwire/mcpwire/server"
)

func openListen(t *testing.T, srv *httptest.Server, id any, filter M) *SseStream {
	t.Helper()
	return OpenListenWith(t, srv, id, Params(M{"notifications": filter}), nil)
}

func subID(t *testing.T, w *Wire) string {
	t.Helper()
	m := w.Params()["_meta"].(map[string]any)
	b, _ := json.Marshal(m["io.modelcontextprotocol/subscriptionId"])
	return string(b)
}

// R-SUB-01..04, R-SUB-09, R-HTTP-11: the acknowledgement comes first with
// the honoured filter; list changes arrive tagged with the listen id (same
// JSON type); types not asked for never arrive; request-scoped
// notifications never go on the stream.
func TestListenHTTP(t *testing.T) {
	s := Fixture(t, server.WithKeepAlive(40*time.Millisecond))
	srv := httptest.NewServer(Handler(s, streamhttp.Options{AllowedHosts: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close) // after the streams' own cleanups close their bodies

	st := openListen(t, srv, "sub-1", M{"toolsListChanged": true, "resourceSubscriptions": []string{"file:///a.txt", "test://nope"}})
	ack := st.Message(2 * time.Second)
	if ack.Method() != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first frame %s, want the acknowledgement (R-SUB-02)", ack.Method())
	}
	if got := subID(t, ack); got != `"sub-1"` {
		t.Fatalf("ack subscriptionId %s, want \"sub-1\" (R-SUB-04)", got)
	}
	n := ack.Params()["notifications"].(map[string]any)
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
	w := st.Message(2 * time.Second)
	if w.Method() != "notifications/tools/list_changed" || subID(t, w) != `"sub-1"` {
		t.Fatalf("got %s tagged %s, want tools/list_changed tagged \"sub-1\"", w.Method(), subID(t, w))
	}
	if err := s.NotifyResourceUpdated("file:///a.txt"); err != nil {
		t.Fatal(err)
	}
	w = st.Message(2 * time.Second)
	if w.Method() != "notifications/resources/updated" || w.Params()["uri"] != "file:///a.txt" {
		t.Fatalf("got %s %v", w.Method(), w.Params())
	}
	// Keep-alive comments while quiet (R-HTTP-13).
	sawComment := false
	for range 5 {
		d, ok := st.Next(time.Second)
		if ok && strings.HasPrefix(d, "#") {
			sawComment = true
			break
		}
	}
	if !sawComment {
		t.Error("no keep-alive comment on a quiet stream")
	}
	// Adding a tool notifies by itself.
	AddTool(t, s, `{"name":"late","inputSchema":{"type":"object"}}`, TextTool("x"))
	if w := st.Message(2 * time.Second); w.Method() != "notifications/tools/list_changed" {
		t.Fatalf("AddTool sent %s", w.Method())
	}
	// Shutdown ends the stream with the listen result (R-SUB-06, A1).
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	go func() { _ = s.Shutdown(ctx) }()
	w = st.Message(2 * time.Second)
	if w.Id() != `"sub-1"` || !strings.Contains(string(w.Members["result"]), `"io.modelcontextprotocol/subscriptionId":"sub-1"`) {
		t.Fatalf("shutdown sent %s %s, want the listen result", w.Id(), w.Members["result"])
	}
}

// An integer listen id tags with an integer (R-SUB-04); a client that goes
// away ends the stream and its goroutines.
func TestListenIntegerIDAndDisconnect(t *testing.T) {
	s := Fixture(t)
	srv := httptest.NewServer(Handler(s, streamhttp.Options{AllowedHosts: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close) // after the streams' own cleanups close their bodies
	st := openListen(t, srv, 7, M{"promptsListChanged": true})
	ack := st.Message(2 * time.Second)
	if subID(t, ack) != "7" {
		t.Fatalf("subscriptionId %s, want 7", subID(t, ack))
	}
	st.Body.Close()
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
	s := Fixture(t, withNotes(NewNotes(0)), server.WithMaxStreamLifetime(time.Second))
	h := Handler(s, streamhttp.Options{})
	rec := Post(t, h, Rpc(1, "subscriptions/listen", Params(M{"notifications": M{"noteIds": []string{"n1"}}})), nil)
	w := Single(t, rec)
	if w.Code() != -32021 {
		t.Fatalf("code %d, want -32021: %s", w.Code(), w.Raw)
	}
	caps, _ := w.Data(t)["requiredCapabilities"].(M)
	if exts, _ := caps["extensions"].(M); exts == nil || exts[NotesID] == nil {
		t.Errorf("the -32021 does not name %s: %s", NotesID, w.Raw)
	}
}

// stdio: the stream is the open listen request; notifications/cancelled
// from the client ends it with no response (R-CANCEL-01); Shutdown ends
// another with notifications/cancelled naming it (R-SUB-07, A1).
func TestListenStdio(t *testing.T) {
	s := Fixture(t)
	pr, pw := io.Pipe()
	var out testutil.SyncBuffer
	done := make(chan error, 1)
	go func() { done <- ServeStdio(context.Background(), s, pr, &out) }()
	write := func(b []byte) {
		if _, err := pw.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	write(Rpc("a", "subscriptions/listen", Params(M{"notifications": M{"toolsListChanged": true}})))
	write(Rpc("b", "subscriptions/listen", Params(M{"notifications": M{"toolsListChanged": true}})))
	WaitFor(t, func() bool { return strings.Count(out.String(), "subscriptions/acknowledged") == 2 })
	if err := s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	WaitFor(t, func() bool { return strings.Count(out.String(), "tools/list_changed") == 2 })
	write([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`))
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	WaitFor(t, func() bool { return strings.Contains(out.String(), `"requestId":"b"`) })
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		w := DecodeWire(t, []byte(l))
		if w.HasID() {
			t.Errorf("a listen stream got a response on stdio: %s", l)
		}
		if w.Method() == "notifications/cancelled" && w.Params()["requestId"] != "b" {
			t.Errorf("cancelled names %v", w.Params()["requestId"])
		}
	}
}
