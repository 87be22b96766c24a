package legacy

import (
	"crypto/sha256"
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// TestSessionStateModel runs random starts, dones, cancels, forgets,
// keeps and drops on a sessionState (a small cache, so that keeps evict)
// and on the map of maps it replaced, the model: every start is accepted
// or refused as the model says, every cancel and forget calls the cancel
// functions the model names, and the running sets kept are bounded by the
// cached states and the sessions with running requests (none is left
// behind for a session that is neither).
func TestSessionStateModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	st := newSessionState(3)
	model := map[string]map[protocol.RequestId]int{}         // the running requests: session → id → cancel number
	scOf := map[string]map[protocol.RequestId]*sessionConv{} // the state each was started with
	var stale []*sessionConv                                 // states made by keep, cached or dropped since
	pickSC := func(key string) *sessionConv {
		switch r.IntN(3) {
		case 0:
			return nil
		case 1:
			return st.convs[key] // as sessionConv returns it when cached (or nil)
		}
		if len(stale) == 0 {
			return nil
		}
		return stale[r.IntN(len(stale))] // one that may be dropped, or another session's: as a request that raced an eviction holds
	}
	called := map[int]int{}
	next := 0
	keys := []string{"a", "b", "c", "d", "e"}
	ids := []protocol.RequestId{protocol.IntRequestId(1), protocol.IntRequestId(2), protocol.StringRequestId("1"), protocol.StringRequestId("x")}
	for step := range 20000 {
		key, id := keys[r.IntN(len(keys))], ids[r.IntN(len(ids))]
		switch op := r.IntN(6); op {
		case 0, 1:
			n := next
			next++
			sc := pickSC(key)
			if sc != nil && st.convs[key] != sc {
				sc = nil // a request holds the state of its own session only; a dropped one has no set
				if c := stale[r.IntN(len(stale))]; c.running == nil {
					sc = c
				}
			}
			ok := st.start(key, sc, id, func() { called[n]++ })
			_, dup := model[key][id]
			if ok == dup {
				t.Fatalf("step %d: start(%s, %v) = %v, model: running %v", step, key, id, ok, dup)
			}
			if ok {
				if model[key] == nil {
					model[key] = map[protocol.RequestId]int{}
				}
				model[key][id] = n
				if scOf[key] == nil {
					scOf[key] = map[protocol.RequestId]*sessionConv{}
				}
				scOf[key][id] = sc
			}
		case 2:
			if _, ok := model[key][id]; ok { // done only what runs, as the callers do
				st.done(key, scOf[key][id], id)
				delete(model[key], id)
				delete(scOf[key], id)
			}
		case 3:
			n, ok := model[key][id]
			before := called[n]
			if got := st.cancel(key, id); got != ok || ok && called[n] != before+1 {
				t.Fatalf("step %d: cancel(%s, %v) = %v, model %v", step, key, id, got, ok)
			}
		case 4:
			want := map[int]int{}
			for _, n := range model[key] {
				want[n] = called[n] + 1
			}
			st.forget(key)
			for n, c := range want {
				if called[n] != c {
					t.Fatalf("step %d: forget(%s) did not cancel request %d", step, key, n)
				}
			}
		case 5:
			if r.IntN(2) == 0 {
				sc := &sessionConv{}
				st.keep(key, sc)
				stale = append(stale, sc)
			} else {
				st.drop(key)
			}
		}
		for k, rs := range st.running {
			_, cached := st.convs[k]
			if rs.cached != cached {
				t.Fatalf("step %d: set of %s marked cached %v, cached %v", step, k, rs.cached, cached)
			}
			if rs.empty() && !cached {
				t.Fatalf("step %d: an empty set of %s left behind", step, k)
			}
			if n := len(model[k]); n != len(rs.more)+boolInt(rs.one != nil) {
				t.Fatalf("step %d: set of %s holds %d requests, model %d", step, k, len(rs.more)+boolInt(rs.one != nil), n)
			}
		}
		for k, c := range st.convs {
			if c.running != st.running[k] {
				t.Fatalf("step %d: the cached state of %s holds set %p, the map %p", step, k, c.running, st.running[k])
			}
		}
		for _, c := range stale {
			if c.running != nil && st.convs[keyOf(st, c)] != c {
				t.Fatalf("step %d: a dropped state still holds a set", step)
			}
		}
		for k, m := range model {
			if len(m) > 0 && st.running[k] == nil {
				t.Fatalf("step %d: the running requests of %s are lost", step, k)
			}
		}
		if len(st.convs) > 3 {
			t.Fatalf("step %d: %d states cached, more than 3", step, len(st.convs))
		}
	}
}

// keyOf is the key under which c is cached, or "".
func keyOf(st *sessionState, c *sessionConv) string {
	for k, x := range st.convs {
		if x == c {
			return k
		}
	}
	return ""
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestEncodeKey checks encodeKey against base64.RawURLEncoding, and
// sessionKeyOf against sessionKey's definition, base64url(SHA-256(id)).
func TestEncodeKey(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var sum [sha256.Size]byte
	for i := range 2000 {
		switch i {
		case 0: // all zero
		case 1:
			for j := range sum {
				sum[j] = 0xff
			}
		default:
			for j := range sum {
				sum[j] = byte(r.Uint32())
			}
		}
		got := encodeKey(&sum)
		if want := base64.RawURLEncoding.EncodeToString(sum[:]); string(got[:]) != want {
			t.Fatalf("encodeKey(%x) = %s, want %s", sum, got, want)
		}
	}
	for _, id := range []string{"", "a", strings.Repeat("x", 43), strings.Repeat("y", maxSessionIDBytes), strings.Repeat("z", maxSessionIDBytes+1)} {
		s := sha256.Sum256([]byte(id))
		want := base64.RawURLEncoding.EncodeToString(s[:])
		if k := sessionKeyOf(id); string(k[:]) != want || sessionKey(id) != want {
			t.Errorf("sessionKey(%q) = %s, want %s", id, sessionKey(id), want)
		}
	}
}
