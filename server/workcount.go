package server

import (
	"context"
	"sync"
	"sync/atomic"
)

// workCount counts the work Shutdown waits for: running requests,
// listen streams and what adapters hold. Unlike a sync.WaitGroup it may
// go up again after reaching zero while Shutdown waits (a request that
// arrives during Shutdown, a legacy call between its input rounds), and
// Wait waits until it is zero once more.
type workCount struct {
	n       atomic.Int64
	waiting atomic.Bool // a Wait is under way: the last Done signals
	mu      sync.Mutex
	zero    chan struct{} // closed when n reaches zero; nil until a Wait needs it
}

func (w *workCount) add() { w.n.Add(1) }

func (w *workCount) done() {
	// waiting is read after the decrement and written before Wait reads
	// n: either Wait sees zero or done sees the waiter.
	if w.n.Add(-1) == 0 && w.waiting.Load() {
		w.mu.Lock()
		if w.zero != nil {
			close(w.zero)
			w.zero = nil
		}
		w.mu.Unlock()
	}
}

// wait returns when the count is zero, or ctx's error.
func (w *workCount) wait(ctx context.Context) error {
	w.waiting.Store(true)
	for {
		w.mu.Lock()
		if w.n.Load() == 0 {
			w.mu.Unlock()
			return nil
		}
		if w.zero == nil {
			w.zero = make(chan struct{})
		}
		ch := w.zero
		w.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
