package server_test

import (
	"fmt"
	"net/http"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// A small extension written on the public extension API, for the tests
// of that API's generic mechanics (a listen filter member, a tool that
// requires an extension): example.com/notes. Its notes belong to the
// principal that added them; its listen filter member noteIds watches
// them, and its events are sent as notifications/notes.

// notesCaps declares the test extension and nothing else.
var notesCaps = M{"extensions": M{NotesID: M{}}}

// tparams returns request params whose _meta declares caps.
func tparams(caps M, m M) M { return WithMeta(Meta(KeyCaps, caps), m) }

// tcall posts one request, with the headers a conforming client sends,
// and decodes the response.
func tcall(t testing.TB, h http.Handler, method string, p M, mod func(*http.Request)) *Wire {
	t.Helper()
	return Single(t, Post(t, h, Rpc(1, method, p), mod))
}

// from makes a request come from addr, with the X-User header user.
func from(addr, user string) func(*http.Request) {
	return func(r *http.Request) {
		r.RemoteAddr = addr
		if user != "" {
			r.Header.Set("X-User", user)
		}
	}
}

// withNotes adds the test extension of n to a server.
func withNotes(n *Notes) server.Option { return server.WithExtension(n.Extension()) }

// ackKeys returns the entries of the member of an acknowledgement,
// failing unless w is one.
func ackKeys(t *testing.T, w *Wire, member string) []any {
	t.Helper()
	if w.Method() != protocol.MethodNotificationsSubscriptionsAcknowledged {
		t.Fatalf("first frame %s, want the acknowledgement (R-SUB-02): %s", w.Method(), w.Raw)
	}
	n, _ := w.Params()["notifications"].(M)
	ids, _ := n[member].([]any)
	return ids
}

// keyList returns n distinct keys that name no note.
func keyList(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("no-such-note-%d", i)
	}
	return out
}
