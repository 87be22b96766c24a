package server

import (
	"context"
	"sync"
)

// workCount counts the work Shutdown waits for: running requests,
// listen streams and what adapters hold. Unlike a sync.WaitGroup it may
// rise again from zero while Shutdown waits (a request arriving during
// Shutdown), and wait returns only at a zero it sees.
type workCount struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n returns to zero; nil until wait needs it
}

func (w *workCount) add() { w.mu.Lock(); w.n++; w.mu.Unlock() }

func (w *workCount) done() {
	w.mu.Lock()
	if w.n--; w.n == 0 && w.zero != nil {
		close(w.zero)
		w.zero = nil
	}
	w.mu.Unlock()
}

// wait returns when the count is zero, or ctx's error.
func (w *workCount) wait(ctx context.Context) error {
	for {
		w.mu.Lock()
		if w.n == 0 {
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
