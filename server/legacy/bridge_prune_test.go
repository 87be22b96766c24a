package legacy

import (
	"strconv"
	"testing"
	"time"
)

// The tombstone cap of both transports drops the oldest first and never
// an outstanding request (pending, or answered and not yet taken).
func TestBridgePruneTombstones(t *testing.T) {
	now := time.Now()
	t.Run("http", func(t *testing.T) {
		r := &SessionRecord{Pending: map[string]PendingRequest{}}
		for i := range 50 {
			r.Pending["t"+strconv.Itoa(i)] = PendingRequest{State: answeredState, Deadline: now.Add(time.Duration(i) * time.Second)}
		}
		r.Pending["old"] = PendingRequest{State: abandonedState, Deadline: now.Add(-2 * tombstoneTTL)}
		r.Pending["p"] = PendingRequest{State: pendingState, Deadline: now.Add(-time.Second)}
		r.Pending["held"] = PendingRequest{State: answeredState, AnswerBytes: 10, Deadline: now}
		if n := prunePending(r, now, 3); n != 2 {
			t.Errorf("outstanding %d, want 2", n)
		}
		for _, id := range []string{"p", "held", "t47", "t48", "t49"} {
			if _, ok := r.Pending[id]; !ok {
				t.Errorf("%s dropped", id)
			}
		}
		if len(r.Pending) != 5 {
			t.Errorf("%d entries kept, want 5", len(r.Pending))
		}
	})
	t.Run("stdio", func(t *testing.T) {
		b := newStdioBridge()
		for i := range 50 {
			b.pending["t"+strconv.Itoa(i)] = &stdioPending{state: answeredState, deadline: now.Add(time.Duration(i) * time.Second)}
		}
		b.pending["p"] = &stdioPending{state: pendingState, deadline: now}
		b.pending["held"] = &stdioPending{state: answeredState, payload: []byte("{}"), deadline: now}
		if n := b.prune(now, 3); n != 2 {
			t.Errorf("outstanding %d, want 2", n)
		}
		for _, id := range []string{"p", "held", "t47", "t48", "t49"} {
			if b.pending[id] == nil {
				t.Errorf("%s dropped", id)
			}
		}
		if len(b.pending) != 5 {
			t.Errorf("%d entries kept, want 5", len(b.pending))
		}
	})
}
