package streamhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// checkShed checks the answer to a request shed by a Handler.
func checkShed(t *testing.T, rec *httptest.ResponseRecorder, msg string) {
	t.Helper()
	w := Single(t, rec)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" || w.Code() != server.CodeRateLimited ||
		w.HasID() && w.Id() != "null" || w.Error.Message != msg || string(w.Error.Data) != `{"retryAfterMs":1000}` {
		t.Errorf("shed: %d, Retry-After %q: %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
}

// D7: HTTPOptions.MaxConcurrent bounds the requests a Handler reads and
// serves at once; one over it is shed with 503; listen streams do not
// count once accepted.
func TestHTTPMaxConcurrent(t *testing.T) {
	s := NewServer(t)
	release := make(chan struct{})
	AddTool(t, s, `{"name":"block","inputSchema":{"type":"object"}}`, func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return server.TextResult("released"), nil
	})
	AddTool(t, s, `{"name":"fast","inputSchema":{"type":"object"}}`, TextTool("fast"))
	h := Handler(s, streamhttp.Options{MaxConcurrent: 2})
	body := func(name string) []byte { return Rpc(1, "tools/call", Params(M{"name": name, "arguments": M{}})) }

	var wg sync.WaitGroup
	codes := make(chan int, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- Post(t, h, body("block"), nil).Code
		}()
	}
	WaitFor(t, func() bool { n, _ := streamhttp.Inflight(h); return n == 2 })
	checkShed(t, Post(t, h, body("fast"), nil), "Server busy: too many requests in flight; retry later")
	close(release)
	wg.Wait()
	for range 2 {
		if c := <-codes; c != 200 {
			t.Errorf("a request within the bound: %d", c)
		}
	}
	if n, b := streamhttp.Inflight(h); n != 0 || b != 0 {
		t.Errorf("after the requests: %d in flight holding %d bytes", n, b)
	}

	// A listen stream is counted as a stream, not as a request in flight.
	h1 := Handler(s, streamhttp.Options{MaxConcurrent: 1})
	listening := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		listening <- Post(t, h1, Rpc(2, "subscriptions/listen", Params(M{"notifications": M{"toolsListChanged": true}})), nil)
	}()
	WaitFor(t, func() bool { return s.Adapter().OpenListenStreams() == 1 })
	if n, b := streamhttp.Inflight(h1); n != 0 || b != 0 {
		t.Errorf("an open listen stream counts in flight: %d, %d bytes", n, b)
	}
	if w := Single(t, Post(t, h1, body("fast"), nil)); w.Error != nil {
		t.Errorf("a call beside a listen stream, MaxConcurrent 1: %s", w.Raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if rec := <-listening; !strings.Contains(rec.Body.String(), `"resultType":"complete"`) {
		t.Errorf("the listen stream did not end with its result: %s", rec.Body)
	}
}

// stalledPost serves a POST declaring a 4 MiB body, of which the client
// sends sent bytes before it stalls; closing the returned writer ends the
// body early. The recorder is sent on done once the handler returns.
func stalledPost(h http.Handler, sent int, done chan<- *httptest.ResponseRecorder) *io.PipeWriter {
	pr, pw := io.Pipe()
	r := httptest.NewRequest(http.MethodPost, "/mcp", pr)
	r.ContentLength = server.DefaultMaxBodyBytes
	r.Host = Loopback
	r.Header.Set("Content-Type", "application/json")
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		done <- rec
	}()
	go func() { // from one shared chunk: the client side holds no body
		for sent > 0 {
			n, err := pw.Write(spaces[:min(sent, len(spaces))])
			if err != nil {
				return
			}
			sent -= n
		}
	}()
	return pw
}

// spaces is what stalledPost sends.
var spaces = bytes.Repeat([]byte(" "), 64<<10)

// D7, I6: HTTPOptions.MaxBodyMemory bounds the bytes that bodies being
// read hold in all. A body counts as its buffer grows with what arrives:
// with 300 KB of a declared 4 MiB sent, a request holds a 512 KiB buffer,
// so two fill a 1 MiB budget and a third is shed at once; a small request
// gets through again once they are gone.
func TestHTTPMaxBodyMemory(t *testing.T) {
	s := NewServer(t)
	AddTool(t, s, `{"name":"fast","inputSchema":{"type":"object"}}`, TextTool("fast"))
	h := Handler(s, streamhttp.Options{MaxBodyMemory: 1 << 20})
	done := make(chan *httptest.ResponseRecorder, 3)
	var stalled []*io.PipeWriter
	for range 2 {
		stalled = append(stalled, stalledPost(h, 300_000, done))
	}
	WaitFor(t, func() bool { _, b := streamhttp.Inflight(h); return b == 1<<20 })
	third := stalledPost(h, 300_000, done)
	checkShed(t, <-done, "Server busy: too many request bodies in memory; retry later")
	third.Close()
	if n, b := streamhttp.Inflight(h); n != 2 || b != 1<<20 {
		t.Errorf("after the shed: %d in flight, %d bytes", n, b)
	}
	for _, pw := range stalled {
		pw.CloseWithError(io.ErrUnexpectedEOF) // the clients give up
	}
	for range 2 {
		if rec := <-done; rec.Code != http.StatusBadRequest {
			t.Errorf("a body cut short: %d", rec.Code)
		}
	}
	if n, b := streamhttp.Inflight(h); n != 0 || b != 0 {
		t.Errorf("after the stalled requests: %d in flight holding %d bytes", n, b)
	}
	if w := Call(t, h, 1, "tools/call", Params(M{"name": "fast", "arguments": M{}})); w.Error != nil {
		t.Errorf("a small request after the stalled ones: %s", w.Raw)
	}
}

// I6: bodies held in all are bounded, whatever the number of clients: 40
// clients each send 2 MiB + 1 byte of a declared 4 MiB body (so that each
// buffer has grown to 4 MiB) and stall. With MaxBodyMemory 32 MiB the
// heap they hold stays under 48 MiB (160 MiB unbounded): at most 8 are
// held, and those over the budget are shed with 503.
func TestStalledBodiesBudget(t *testing.T) {
	const clients = 40
	s := NewServer(t)
	h := Handler(s, streamhttp.Options{MaxBodyMemory: 32 << 20})
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	done := make(chan *httptest.ResponseRecorder, clients)
	var pws []*io.PipeWriter
	for range clients {
		pws = append(pws, stalledPost(h, 2<<20+1, done))
	}
	// Every request either holds its body (whose last byte has arrived:
	// a 4 MiB buffer) or was shed.
	shed := 0
	deadline := time.Now().Add(20 * time.Second) // a bound against a hang
	for {
		n, b := streamhttp.Inflight(h)
		if int(n)+shed == clients && b == n*(4<<20) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d in flight, %d shed, %d bytes held", n, shed, b)
		}
		select {
		case rec := <-done:
			checkShed(t, rec, "Server busy: too many request bodies in memory; retry later")
			shed++
		case <-time.After(10 * time.Millisecond):
		}
	}
	grown := int64(heap()) - int64(before)
	n, b := streamhttp.Inflight(h)
	t.Logf("%d clients sending 2 MiB + 1 of 4 MiB: %d held (%d MiB of budget), %d shed; heap +%.1f MiB", clients, n, b>>20, shed, float64(grown)/(1<<20))
	if grown > 48<<20 {
		t.Errorf("%d stalled bodies hold %.1f MiB of heap, over a 32 MiB budget", clients, float64(grown)/(1<<20))
	}
	if n < 1 || n > 8 {
		t.Errorf("%d bodies of 4 MiB held within a budget of 32 MiB", n)
	}
	for _, pw := range pws {
		pw.CloseWithError(io.ErrUnexpectedEOF)
	}
	for range n {
		<-done
	}
	if n, b := streamhttp.Inflight(h); n != 0 || b != 0 {
		t.Errorf("afterwards: %d in flight holding %d bytes", n, b)
	}
}
