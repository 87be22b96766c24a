package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// A small extension written on the public extension API, for the tests
// of that API's generic mechanics (a listen filter member, a tool that
// requires an extension): example.com/notes. Its notes belong to the
// principal that added them; its listen filter member noteIds watches
// them, and its events are sent as notifications/notes.

// notesID is the test extension's capability key.
const notesID = "example.com/notes"

// notesCaps declares the test extension and nothing else.
var notesCaps = M{"extensions": M{notesID: M{}}}

// tparams returns request params whose _meta declares caps.
func tparams(caps M, m M) M { return withMeta(meta(keyCaps, caps), m) }

// tcall posts one request, with the headers a conforming client sends,
// and decodes the response.
func tcall(t testing.TB, h http.Handler, method string, p M, mod func(*http.Request)) *wire {
	t.Helper()
	return single(t, post(t, h, rpc(1, method, p), mod))
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

// notes is the state of one server's test extension: note ids and their
// owners.
type notes struct {
	maxKeys int
	// verify is the ListenFilter's Verify (newNotes: isNote).
	verify func(key string, data json.RawMessage) bool
	mu     sync.Mutex
	owner  map[string]string
	s      *Server
}

// newNotes returns the test extension's state; maxKeys is its
// ListenFilter.MaxKeys (0: the default).
func newNotes(maxKeys int) *notes {
	return &notes{maxKeys: maxKeys, verify: isNote, owner: map[string]string{}}
}

// add records note id, owned by principal owner ("" for anonymous).
func (n *notes) add(id, owner string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.owner[id] = owner
}

// extension returns the test extension.
func (n *notes) extension() Extension {
	return Extension{
		ID:     notesID,
		Attach: func(s *Server) { n.s = s },
		Listen: &ListenFilter{
			Member: "noteIds", Method: "notifications/notes", MaxKeys: n.maxKeys,
			Accept: n.accept, Verify: n.verify,
		},
	}
}

// withNotes adds the test extension of n to a server.
func withNotes(n *notes) Option { return WithExtension(n.extension()) }

// accept keeps the keys that name a note of the request's principal.
func (n *notes) accept(_ context.Context, r *Request, keys []string) ([]string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, k := range keys {
		if owner, ok := n.owner[k]; ok && owner == r.Principal {
			out = append(out, k)
		}
	}
	return out, nil
}

// isNote reports whether data is the note key names.
func isNote(key string, data json.RawMessage) bool {
	var v struct {
		NoteID string `json:"noteId"`
	}
	return json.Unmarshal(data, &v) == nil && v.NoteID == key
}

// publish sends an event of the test extension for key with data.
func (n *notes) publish(t testing.TB, key, data string) {
	t.Helper()
	if err := n.s.Publish(context.Background(), Event{Kind: EventExtension, Extension: notesID, Key: key, Data: []byte(data)}); err != nil {
		t.Fatal(err)
	}
}

// notesTool is ToolExtension for a tool that requires the test extension
// (added to the server when it does not have it yet).
func notesTool() ToolOption {
	return ToolExtension(notesID, nil, ToolExtensionOptions{Required: true, IfAbsent: newNotes(0).extension})
}

// ackKeys returns the entries of the member of an acknowledgement,
// failing unless w is one.
func ackKeys(t *testing.T, w *wire, member string) []any {
	t.Helper()
	if w.method() != protocol.MethodNotificationsSubscriptionsAcknowledged {
		t.Fatalf("first frame %s, want the acknowledgement (R-SUB-02): %s", w.method(), w.raw)
	}
	n, _ := w.params()["notifications"].(M)
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
