package server

import (
	"net/http"
	"runtime"
	"sync"
	"testing"
)

// TestAttack3ResumersUnbounded: a GET with Last-Event-ID naming a running
// request's POST stream follows that stream until its response
// (sse_resume.go resumeRequest). Nothing bounds the followers: they are
// not the session's standalone stream (no take-over, §4.8 "A resumed POST
// stream is not the session's standalone stream"), they leave
// HTTPOptions.MaxConcurrent (which counts POSTs), and the listen stream
// caps (WithMaxListenStreams, per principal and in all) do not count
// them. Each holds a connection, two goroutines, a keep-alive ticker and
// a store read every PollInterval (1 s; a Redis script per follower per
// second with the Redis EventStore) for as long as the request runs —
// up to the handler timeout, 5 min. One client can open thousands on one
// stream ("resume storms", brief). Expected: a resume of a POST stream
// that is already followed takes it over (the previous follower ends,
// as the standalone stream's take-over does), or followers count towards
// the listen stream caps.
//
// Here 100 GETs resuming one running request's stream are all held open.
func TestAttack3ResumersUnbounded(t *testing.T) {
	attack3Gate(t)
	f := newResumeFixture(t)
	h := f.Handler(HTTPOptions{MaxConcurrent: 4})
	srv := getServer(t, h)
	c := newLegacyHTTP(t, h, "2025-11-25")
	c.open("")
	_, ev := openStream(t, srv, c, http.MethodPost, eraBody(1, "tools/call", `{"name":"poll","arguments":{}}`))
	if ev == nil {
		t.Fatal("a JSON answer")
	}
	evs := ev.all()
	<-f.polled
	before := runtime.NumGoroutine()
	const n = 100
	var mu sync.Mutex
	open := 0
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := openStream(t, srv, c, http.MethodGet, "", "Last-Event-ID", evs[0].id)
			if resp.StatusCode == 200 && resp.Header.Get("Content-Type") == "text/event-stream" {
				mu.Lock()
				open++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d of %d resumers of one stream held open; goroutines %d -> %d", open, n, before, runtime.NumGoroutine())
	close(f.gate)
	if open >= n {
		t.Errorf("%d concurrent followers of one POST stream; want them bounded (take-over or the listen caps)", open)
	}
}
