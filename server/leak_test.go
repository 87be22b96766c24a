package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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

// Opening and dropping 1,000 SSE responses and 1,000 listen streams
// mid-stream leaves no goroutine behind, and the heap comes back.
func TestDroppedStreamsLeakNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 2,000 streams; skipped with -short")
	}
	// Dropped streams end a little after their client goes: not capped
	// per address here (32 clients at once, all from 127.0.0.1).
	s := Fixture(t, server.WithKeepAlive(time.Hour), server.WithMaxListenStreams(-1, 0))
	AddTool(t, s, `{"name":"stream","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		for i := 1; ; i++ {
			if !r.Progress(ctx, float64(i), 0, "") {
				return nil, ctx.Err()
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	srv := httptest.NewServer(Handler(s, streamhttp.Options{AllowedHosts: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	t.Cleanup(client.CloseIdleConnections)

	settle := func() (int, uint64) {
		var ms runtime.MemStats
		for range 3 {
			runtime.GC()
		}
		runtime.ReadMemStats(&ms)
		return runtime.NumGoroutine(), ms.HeapInuse
	}
	g0, h0 := settle()

	open := func(body []byte) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		for k, v := range Mirror(body) {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		// Read the first event, then drop the stream mid-way.
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "event:") {
			t.Errorf("first line %q, %v", line, err)
		}
		resp.Body.Close()
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range 2000 {
		var body []byte
		if i%2 == 0 {
			body = Rpc(i, "subscriptions/listen", Params(M{"notifications": M{"toolsListChanged": true}}))
		} else {
			body = Rpc(i, "tools/call", Params(M{"name": "stream", "_meta": Meta("progressToken", i)}))
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			open(body)
		}()
	}
	wg.Wait()
	client.CloseIdleConnections()

	deadline := time.Now().Add(5 * time.Second)
	var g1 int
	var h1 uint64
	for {
		g1, h1 = settle()
		if g1 <= g0+2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if g1 > g0+2 {
		t.Errorf("goroutines: %d before, %d after dropping 2,000 streams", g0, g1)
	}
	if h1 > h0+8<<20 {
		t.Errorf("heap in use: %d KiB before, %d KiB after", h0>>10, h1>>10)
	}
	t.Logf("goroutines %d → %d, heap %d KiB → %d KiB", g0, g1, h0>>10, h1>>10)
}
