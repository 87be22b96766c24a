package legacy

import (
	"time"
)

// Workers of the resumable session requests (sessionRequestResumable).
// Such a request runs on a goroutine other than its handler's, so that
// the handler can return (letting the connection go) while the request
// goes on. A new goroutine per request starts with a small stack that the
// request then grows, copying its frames each time the stack doubles;
// a worker that served a request keeps its grown stack for the next one.
// A worker with nothing to do for workerIdle ends, as do all at Shutdown.

// workerIdle is how long a worker waits for its next request before it
// ends (Server.workerIdle; tests make it longer).
const workerIdle = 100 * time.Millisecond

// goServe runs run.serve on an idle worker, or on a new one when none is
// idle.
func (s *Era) goServe(run *resumableRun) {
	select {
	case s.runs <- run:
	default:
		s.workers.Add(1)
		go s.worker(run)
	}
}

// worker serves run, then the requests handed to it while it waits, until
// it has waited workerIdle or the server shuts down.
func (s *Era) worker(run *resumableRun) {
	growStack()
	wait := s.workerIdle
	idle := time.NewTimer(wait)
	defer idle.Stop()
	for {
		run.serve()
		run = nil // not kept alive while waiting
		idle.Reset(wait)
		select {
		case run = <-s.runs:
		case <-idle.C:
			return
		case <-s.closing:
			return
		}
	}
}

// growStack grows a new worker's stack, while it is nearly empty, to about
// what serving a request uses: the stack would otherwise double several
// times on the way down, copying the frames each time.
//
//go:noinline
func growStack() {
	var pad [16 << 10]byte
	stackSink(pad[:])
}

//go:noinline
func stackSink(b []byte) { _ = b }
