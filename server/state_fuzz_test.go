package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/sealed"
)

// fzStateTTL keeps the seed tokens valid for a whole fuzzing run.
const fzStateTTL = 24 * time.Hour

// fzTarget is one multi round-trip handler of the state fuzz server.
type fzTarget struct {
	method, target string
}

var (
	fzTargets = []fzTarget{
		{protocol.MethodToolsCall, "ask"},
		{protocol.MethodToolsCall, "other"},
		{protocol.MethodPromptsGet, "ask"},
		{protocol.MethodResourcesRead, "mrtr://ask"},
	}
	fzPrincipals = []string{"", "alice", "bob"}
)

// fzSel turns the fuzz selector into a target and a principal.
func fzSel(sel uint8) (fzTarget, string) {
	return fzTargets[int(sel)%len(fzTargets)], fzPrincipals[int(sel)/len(fzTargets)%len(fzPrincipals)]
}

// fzStateFor is the state the handlers seal: a function of the binding, so
// that a state reaching the wrong handler or principal shows.
func fzStateFor(method, target, principal string) []byte {
	return []byte("state|" + method + "|" + target + "|" + principal)
}

// fzStateServer counts the handler calls and records the state each saw.
type fzStateServer struct {
	*server.Server
	h     http.Handler
	calls atomic.Int64
	mu    sync.Mutex
	seen  []byte
}

func newFzStateServer(t testing.TB, key server.StateKey) *fzStateServer {
	t.Helper()
	m := &fzStateServer{Server: NewServer(t, server.WithStateKeys(key), server.WithStateLimits(fzStateTTL, 0))}
	handle := func(r *server.Request) (string, error) {
		m.calls.Add(1)
		st := r.State()
		if st == nil {
			return "", r.AskInput(nil, fzStateFor(r.Method, r.Target(), r.Principal))
		}
		m.mu.Lock()
		m.seen = bytes.Clone(st)
		m.mu.Unlock()
		return "state=" + string(st), nil
	}
	AddAskTargets(t, m.Server, handle)
	m.h = Handler(m.Server, streamhttp.Options{Authenticate: func(r *http.Request) (string, error) {
		return r.Header.Get("X-Fuzz-Principal"), nil
	}})
	return m
}

// call sends method to target as principal, with the requestState st when
// it is not nil.
func (m *fzStateServer) call(t testing.TB, tg fzTarget, principal string, st *string) *Wire {
	t.Helper()
	p := M{}
	if tg.method == protocol.MethodResourcesRead {
		p["uri"] = tg.target
	} else {
		p["name"] = tg.target
	}
	if st != nil {
		p["requestState"] = *st
	}
	rec := Post(t, m.h, Rpc(1, tg.method, Params(p)), func(r *http.Request) {
		r.Header.Set("X-Fuzz-Principal", principal)
	})
	w := Single(t, rec)
	want := http.StatusOK
	if w.Error != nil {
		want = (&server.Error{Code: w.Error.Code}).HTTPStatus()
	}
	if rec.Code != want {
		t.Fatalf("status %d for %s", rec.Code, w.Raw)
	}
	return w
}

// FuzzRequestState retries a multi round-trip request with an arbitrary
// requestState, to one of four handlers (two tools, a prompt, a resource)
// as one of three principals (sel). The handlers seal a state that names
// their binding. An oracle with the server's key says whether the token
// opens for the binding; if it does, the handler must run once and see
// exactly the state it sealed; if not, the answer is -32602 (400) and no
// handler runs (R-MRTR-07/08). Seeds: tokens the server sealed for each
// binding, sent to every binding, and mutations of them, plus the
// hand-written ../testdata/fuzz/requeststate/*.txt.
func FuzzRequestState(f *testing.F) {
	key := server.StateKey{ID: 3, Secret: func() []byte { s := sha256.Sum256([]byte("FuzzRequestState")); return s[:] }()}
	m := newFzStateServer(f, key)
	ring, err := sealed.NewKeyring(sealed.Key{ID: key.ID, Secret: key.Secret})
	if err != nil {
		f.Fatal(err)
	}
	oracle := sealed.NewSealer(ring, sealed.Options{TTL: fzStateTTL})

	// Real tokens: the fuzzing workers share the key, so these open there.
	n := uint8(len(fzTargets) * len(fzPrincipals))
	for sel := range n {
		tg, principal := fzSel(sel)
		w := m.call(f, tg, principal, nil)
		tok, _ := w.Result["requestState"].(string)
		if tok == "" {
			f.Fatalf("no requestState from %v as %q: %s", tg, principal, w.Raw)
		}
		for other := range n {
			f.Add(tok, other)
		}
		f.Add(tok[:len(tok)-1], sel)
		f.Add(tok+"A", sel)
		f.Add(tok[:10]+"_"+tok[11:], sel)
	}
	fzSeedLines(f, "requeststate", "*.txt", uint8(0))

	f.Fuzz(func(t *testing.T, token string, sel uint8) {
		tg, principal := fzSel(sel)
		// What the server will read: JSON replaces invalid UTF-8.
		b, _ := json.Marshal(token)
		var sent string
		if err := json.Unmarshal(b, &sent); err != nil {
			t.Fatal(err)
		}
		want, openErr := oracle.Open(sealed.Binding{Method: tg.method, Target: tg.target, Principal: principal, Params: server.ParamsDigest(nil)}, sent) // the calls carry no arguments

		m.mu.Lock()
		m.seen = nil
		m.mu.Unlock()
		before := m.calls.Load()
		w := m.call(t, tg, principal, &sent)
		calls := m.calls.Load() - before
		m.mu.Lock()
		seen := m.seen
		m.mu.Unlock()

		if openErr != nil {
			if w.Code() != protocol.CodeInvalidParamsError {
				t.Fatalf("token %q (%v) for %v as %q: want -32602, got %s", sent, openErr, tg, principal, w.Raw)
			}
			if calls != 0 {
				t.Fatalf("R-MRTR-08: token %q (%v) reached the handler %d times", sent, openErr, calls)
			}
			return
		}
		if w.Error != nil {
			t.Fatalf("valid token for %v as %q refused: %s", tg, principal, w.Raw)
		}
		if calls != 1 {
			t.Fatalf("valid token: handler ran %d times", calls)
		}
		if !bytes.Equal(seen, want) || !bytes.Equal(seen, fzStateFor(tg.method, tg.target, principal)) {
			t.Fatalf("handler %v as %q saw state %q; the token holds %q", tg, principal, seen, want)
		}
	})
}
