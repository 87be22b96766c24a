package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// Tests of what a subscriptions/listen filter may name: the keys of an
// extension's member that the extension accepts, and bounded lists.

// asUser sets the X-User header that userAuth turns into the principal.
func asUser(user string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("X-User", user) }
}

// userAuth authenticates every request as its X-User header.
var userAuth = streamhttp.Options{Authenticate: func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }}

// R-SUB-03, R-VER-04 (the generic part of R-TASK-18): a stream gets an
// extension's event only for a key its filter honoured, and only when
// the extension vouches for the payload (ListenFilter.Verify). An event
// naming an honoured key but carrying another key's data (a bug, or a
// stranger publishing on a shared broker channel), one without data, and
// one for a key the stream never asked for are dropped; the genuine one
// arrives as the extension's notification, tagged with the stream.
func TestListenDeliversOnlyHonouredKeys(t *testing.T) {
	n := NewNotes(0)
	n.Add("n1", "")
	s := Fixture(t, withNotes(n))
	srv := httptest.NewServer(Handler(s, streamhttp.Options{}))
	t.Cleanup(srv.Close)
	st := OpenListenWith(t, srv, "s", tparams(notesCaps, M{"notifications": M{"toolsListChanged": true, "noteIds": []string{"n1", "no-such-note", "n1"}}}), nil)
	if ids := ackKeys(t, st.Message(2*time.Second), "noteIds"); len(ids) != 1 || ids[0] != "n1" {
		t.Fatalf("acknowledged noteIds %v, want [n1] (unknown keys left out, duplicates once)", ids)
	}
	for _, ev := range []struct{ key, data string }{
		{"n1", `{"noteId":"someone-else","secret":1}`},
		{"n1", `{"text":"no id"}`},
		{"n1", `not JSON`},
		{"n1", ``},
		{"someone-else", `{"noteId":"someone-else"}`},
		{"n1", `{"noteId":"n1","text":"hi"}`},
	} {
		n.Publish(t, ev.key, ev.data)
	}
	if err := s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	if m := st.Message(2 * time.Second); m.Method() != "notifications/notes" || m.Params()["noteId"] != "n1" || m.Params()["text"] != "hi" || subID(t, m) != `"s"` {
		t.Fatalf("got %s, want the genuine event of n1 first (the others dropped)", m.Raw)
	}
	if m := st.Message(2 * time.Second); m.Method() != protocol.MethodNotificationsToolsListChanged {
		t.Fatalf("an event not for an honoured key, or not vouched for, reached the stream: %s", m.Raw)
	}
}

// An extension event whose data is not a JSON object is dropped even when
// the extension has no Verify: the notification's params must be one.
func TestListenDropsNonObjectData(t *testing.T) {
	n := NewNotes(0)
	n.Verify = nil
	n.Add("n1", "")
	s := Fixture(t, withNotes(n))
	srv := httptest.NewServer(Handler(s, streamhttp.Options{}))
	t.Cleanup(srv.Close)
	st := OpenListenWith(t, srv, "s", tparams(notesCaps, M{"notifications": M{"toolsListChanged": true, "noteIds": []string{"n1"}}}), nil)
	if ids := ackKeys(t, st.Message(2*time.Second), "noteIds"); len(ids) != 1 || ids[0] != "n1" {
		t.Fatalf("acknowledged noteIds %v, want [n1]", ids)
	}
	for _, data := range []string{`["n1"]`, `"n1"`, `not JSON`, `{"noteId":"n1"}`} {
		n.Publish(t, "n1", data)
	}
	if err := s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	if m := st.Message(2 * time.Second); m.Method() != "notifications/notes" || m.Params()["noteId"] != "n1" {
		t.Fatalf("got %s, want the object event alone", m.Raw)
	}
	if m := st.Message(2 * time.Second); m.Method() != protocol.MethodNotificationsToolsListChanged {
		t.Fatalf("an event whose data is not an object reached the stream: %s", m.Raw)
	}
}

// R-SUB-03, R-VER-04: a server that does not offer an extension honours
// none of its filter member, even for a client that declares it.
func TestListenKeysWithoutExtension(t *testing.T) {
	s := Fixture(t)
	srv := httptest.NewServer(Handler(s, streamhttp.Options{}))
	t.Cleanup(srv.Close)
	st := OpenListenWith(t, srv, 1, tparams(notesCaps, M{"notifications": M{"toolsListChanged": true, "noteIds": []string{"n1"}}}), nil)
	if ids := ackKeys(t, st.Message(2*time.Second), "noteIds"); len(ids) != 0 {
		t.Errorf("a server without the extension acknowledged noteIds %v", ids)
	}
}

// uris returns n distinct URIs matching the fixture's template
// users://{id}/profile.
func uris(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("users://%d/profile", i)
	}
	return out
}

// A listen filter is bounded (R-SUB-03 leaves the server free to honour
// less; these bounds refuse outright what no client needs): more than
// DefaultMaxListenResources resourceSubscriptions, URIs totalling more
// than DefaultMaxListenResourceBytes, or more than an extension's
// ListenFilter.MaxKeys (DefaultMaxListenKeys) entries of its member is
// -32602 naming the bound, over HTTP and stdio, and so is a member that is
// not an array of strings; at the bounds the stream opens.
// WithListenLimits and MaxKeys move the bounds.
func TestListenFilterLimits(t *testing.T) {
	// The stream lifetime only bounds a run against code that opens a
	// stream where it must refuse.
	s := Fixture(t, withNotes(NewNotes(0)), server.WithMaxStreamLifetime(time.Second))
	custom := Fixture(t, withNotes(NewNotes(1)), server.WithMaxStreamLifetime(time.Second),
		server.WithListenLimits(server.ListenLimits{MaxResources: 2, MaxResourceBytes: 40}))
	// Nine URIs just under the URI limit (WithMaxURIBytes) pass the bytes
	// bound only together.
	var long []string
	total := 0
	for i := range 9 {
		u := fmt.Sprintf("users://%d%s/profile", i, strings.Repeat("x", 7500))
		long, total = append(long, u), total+len(u)
	}
	tooLong := "users://" + strings.Repeat("x", server.DefaultMaxURIBytes) + "/profile"
	over := []struct {
		name   string
		s      *server.Server
		filter M
		want   string
	}{
		{"resourceSubscriptions", s, M{"resourceSubscriptions": uris(1001)}, "notifications.resourceSubscriptions has 1001 entries, more than the limit of 1000"},
		{"resource bytes", s, M{"resourceSubscriptions": long}, fmt.Sprintf("the URIs of notifications.resourceSubscriptions total %d bytes, more than the limit of 65536", total)},
		{"one URI's bytes", s, M{"resourceSubscriptions": []string{"users://a/profile", tooLong}}, fmt.Sprintf("notifications.resourceSubscriptions[1] has %d bytes, more than the limit of %d", len(tooLong), server.DefaultMaxURIBytes)},
		{"noteIds", s, M{"noteIds": keyList(1001)}, "notifications.noteIds has 1001 entries, more than the limit of 1000"},
		{"noteIds not strings", s, M{"noteIds": []int{1}}, "notifications.noteIds must be an array of strings"},
		{"noteIds null", s, M{"noteIds": nil}, "notifications.noteIds must be an array of strings"},
		{"custom resourceSubscriptions", custom, M{"resourceSubscriptions": uris(3)}, "notifications.resourceSubscriptions has 3 entries, more than the limit of 2"},
		{"custom resource bytes", custom, M{"resourceSubscriptions": []string{"users://0123456789012345678901234/profile"}}, "total 41 bytes, more than the limit of 40"},
		{"custom noteIds", custom, M{"noteIds": []string{"a", "a"}}, "notifications.noteIds has 2 entries, more than the limit of 1"},
	}
	for _, c := range over {
		h := Handler(c.s, streamhttp.Options{})
		p := tparams(notesCaps, M{"notifications": c.filter})
		rec := Post(t, h, Rpc(1, "subscriptions/listen", p), nil)
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("HTTP: %s over the bound: %s response, want a -32602 error %q", c.name, ct, c.want)
		} else if w := Single(t, rec); rec.Code != http.StatusBadRequest || w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, c.want) {
			t.Errorf("HTTP: %s over the bound: %d %s, want 400 and -32602 %q", c.name, rec.Code, w.Raw, c.want)
		}
		ss := StartStdio(t, c.s)
		ss.Send(string(Rpc(2, "subscriptions/listen", p)))
		if w := ss.Recv(); w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, c.want) {
			t.Errorf("stdio: %s over the bound: %s, want -32602 %q", c.name, w.Raw, c.want)
		}
	}

	// At the bound: acknowledged, every URI once.
	srv := httptest.NewServer(Handler(s, streamhttp.Options{}))
	t.Cleanup(srv.Close)
	st := OpenListenWith(t, srv, 3, tparams(notesCaps, M{"notifications": M{"resourceSubscriptions": uris(1000), "noteIds": keyList(1000)}}), nil)
	ack := st.Message(2 * time.Second)
	n, _ := ack.Params()["notifications"].(M)
	if subs, _ := n["resourceSubscriptions"].([]any); ack.Method() != protocol.MethodNotificationsSubscriptionsAcknowledged || len(subs) != 1000 {
		t.Errorf("at the bound: %s with %d URIs", ack.Method(), len(subs))
	}
}

// R-SUB-01, R-SUB-03, R-SUB-10: resourceSubscriptions are honoured once
// each, in the order asked, unknown URIs left out; an update reaches the
// stream once, only for a URI it subscribed to.
func TestListenResourceSubscriptionsOnce(t *testing.T) {
	s := Fixture(t)
	srv := httptest.NewServer(Handler(s, streamhttp.Options{}))
	t.Cleanup(srv.Close)
	st := openListen(t, srv, 1, M{"toolsListChanged": true, "resourceSubscriptions": []string{
		"users://7/profile", "file:///a.txt", "users://7/profile", "test://nope", "file:///a.txt"}})
	ack := st.Message(2 * time.Second)
	n, _ := ack.Params()["notifications"].(M)
	if subs, _ := n["resourceSubscriptions"].([]any); len(subs) != 2 || subs[0] != "users://7/profile" || subs[1] != "file:///a.txt" {
		t.Fatalf("acknowledged resourceSubscriptions %v", n["resourceSubscriptions"])
	}
	for _, uri := range []string{"test://nope", "users://8/profile", "file:///a.txt"} {
		if err := s.NotifyResourceUpdated(uri); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	if w := st.Message(2 * time.Second); w.Method() != protocol.MethodNotificationsResourcesUpdated || w.Params()["uri"] != "file:///a.txt" {
		t.Fatalf("got %s, want the update of file:///a.txt alone", w.Raw)
	}
	if w := st.Message(2 * time.Second); w.Method() != protocol.MethodNotificationsToolsListChanged {
		t.Fatalf("got %s, want the list change (one update per event)", w.Raw)
	}
}

// R-SUB-03, R-SUB-10 with WithSubscriptionAuthorizer: a URI the
// authorizer refuses to a principal is left out of its acknowledgement
// exactly as an unknown one, and its updates never reach the principal's
// stream; another principal allowed to watch it gets them. The
// authorizer sees the listen request (RequestFrom) and is asked once per
// known URI, never for unknown or repeated ones.
func TestListenSubscriptionAuthorizer(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	s := Fixture(t, server.WithSubscriptionAuthorizer(func(ctx context.Context, principal, uri string) bool {
		r, ok := server.RequestFrom(ctx)
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, principal+" "+uri)
		if !ok || r.Principal != principal || r.Method != protocol.MethodSubscriptionsListen {
			t.Errorf("the authorizer's context carries %v", r)
		}
		// Profiles are private; other resources are public.
		return !strings.HasPrefix(uri, "users://") || uri == "users://"+principal+"/profile"
	}))
	srv := httptest.NewServer(Handler(s, userAuth))
	t.Cleanup(srv.Close)
	want := []string{"users://alice/profile", "file:///a.txt", "users://bob/profile", "test://nope", "users://alice/profile"}
	listen := func(user string) (*SseStream, []any) {
		st := OpenListenWith(t, srv, user, Params(M{"notifications": M{"toolsListChanged": true, "resourceSubscriptions": want}}), asUser(user))
		ack := st.Message(2 * time.Second)
		n, _ := ack.Params()["notifications"].(M)
		subs, _ := n["resourceSubscriptions"].([]any)
		return st, subs
	}
	bob, bobSubs := listen("bob")
	if len(bobSubs) != 2 || bobSubs[0] != "file:///a.txt" || bobSubs[1] != "users://bob/profile" {
		t.Errorf("bob's acknowledged resourceSubscriptions %v, want [file:///a.txt users://bob/profile]", bobSubs)
	}
	alice, aliceSubs := listen("alice")
	if len(aliceSubs) != 2 || aliceSubs[0] != "users://alice/profile" || aliceSubs[1] != "file:///a.txt" {
		t.Errorf("alice's acknowledged resourceSubscriptions %v, want [users://alice/profile file:///a.txt]", aliceSubs)
	}
	mu.Lock()
	if got := strings.Join(asked, ", "); got != "bob users://alice/profile, bob file:///a.txt, bob users://bob/profile, alice users://alice/profile, alice file:///a.txt, alice users://bob/profile" {
		t.Errorf("the authorizer was asked: %s", got)
	}
	mu.Unlock()

	if err := s.NotifyResourceUpdated("users://alice/profile"); err != nil {
		t.Fatal(err)
	}
	if w := alice.Message(2 * time.Second); w.Method() != protocol.MethodNotificationsResourcesUpdated || w.Params()["uri"] != "users://alice/profile" {
		t.Fatalf("alice got %s, want the update of her profile", w.Raw)
	}
	if err := s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	if w := bob.Message(2 * time.Second); w.Method() != protocol.MethodNotificationsToolsListChanged {
		t.Fatalf("bob got %s: an update of a resource he may not watch", w.Raw)
	}
}
