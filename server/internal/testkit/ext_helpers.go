package testkit

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/server"
)

// notesID is the test extension's capability key.
const NotesID = "example.com/notes"

// notes is the state of one server's test extension: note ids and their
// owners.
type Notes struct {
	MaxKeys int
	// verify is the ListenFilter's Verify (newNotes: isNote).
	Verify func(key string, data json.RawMessage) bool
	Mu     sync.Mutex
	Owner  map[string]string
	S      *server.Server
}

// newNotes returns the test extension's state; maxKeys is its
// ListenFilter.MaxKeys (0: the default).
func NewNotes(maxKeys int) *Notes {
	return &Notes{MaxKeys: maxKeys, Verify: IsNote, Owner: map[string]string{}}
}

// add records note id, owned by principal owner ("" for anonymous).
func (n *Notes) Add(id, owner string) {
	n.Mu.Lock()
	defer n.Mu.Unlock()
	n.Owner[id] = owner
}

// extension returns the test extension.
func (n *Notes) Extension() server.Extension {
	return server.Extension{
		ID:     NotesID,
		Attach: func(s *server.Server) { n.S = s },
		Listen: &server.ListenFilter{
			Member: "noteIds", Method: "notifications/notes", MaxKeys: n.MaxKeys,
			Accept: n.Accept, Verify: n.Verify,
		},
	}
}

// accept keeps the keys that name a note of the request's principal.
func (n *Notes) Accept(_ context.Context, r *server.Request, keys []string) ([]string, error) {
	n.Mu.Lock()
	defer n.Mu.Unlock()
	var out []string
	for _, k := range keys {
		if owner, ok := n.Owner[k]; ok && owner == r.Principal {
			out = append(out, k)
		}
	}
	return out, nil
}

// isNote reports whether data is the note key names.
func IsNote(key string, data json.RawMessage) bool {
	var v struct {
		NoteID string `json:"noteId"`
	}
	return json.Unmarshal(data, &v) == nil && v.NoteID == key
}

// publish sends an event of the test extension for key with data.
func (n *Notes) Publish(t testing.TB, key, data string) {
	t.Helper()
	if err := n.S.Publish(context.Background(), server.Event{Kind: server.EventExtension, Extension: NotesID, Key: key, Data: []byte(data)}); err != nil {
		t.Fatal(err)
	}
}

// notesTool is ToolExtension for a tool that requires the test extension
// (added to the server when it does not have it yet).
func NotesTool() server.ToolOption {
	return server.ToolExtension(NotesID, nil, server.ToolExtensionOptions{Required: true, IfAbsent: NewNotes(0).Extension})
}
