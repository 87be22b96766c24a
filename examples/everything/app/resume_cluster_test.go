package app

import (
	"bufio"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// TestResumeOnOtherInstance: with -redis the example shares the legacy
// event logs as well as the sessions (docs/dual-era.md §7.2, §7.4: a
// resumer may be on another instance). A 2025-11-25 client whose POST
// stream test_reconnection closed (DisconnectForPolling) resumes with
// Last-Event-ID through the other instance, as a load balancer may route
// it, and gets the response replayed (R-RESUME-*; found by the hostile
// review of the dual era, defect 7: with the per-process
// MemoryEventStore this was 400 -32600 and the response was lost).
func TestResumeOnOtherInstance(t *testing.T) {
	url := testRedisURL(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var urls []string
	for range 2 {
		cl, done, err := newCluster(logger, url, legacy.ErasBoth)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(done)
		s, err := newServer(logger, legacy.ErasBoth, cl)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s.Handler(streamhttp.Options{}))
		t.Cleanup(hs.Close)
		urls = append(urls, hs.URL)
	}
	do := func(u, verb, sid, body string, hdr ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(verb, u, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := do(urls[0], http.MethodPost, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"resume-test","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d", resp.StatusCode)
	}
	if r := do(urls[0], http.MethodPost, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.StatusCode != 202 {
		t.Fatalf("initialized: %d", r.StatusCode)
	}
	post := do(urls[0], http.MethodPost, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_reconnection","arguments":{}}}`)
	var last string
	sc := bufio.NewScanner(post.Body)
	for sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			last = id
		}
	}
	if last == "" {
		t.Fatalf("the POST stream carried no event id (status %d)", post.StatusCode)
	}
	get := do(urls[1], http.MethodGet, sid, "", "Last-Event-ID", last)
	body, _ := io.ReadAll(get.Body)
	t.Logf("GET on the other instance with Last-Event-ID %s: %d %s", last, get.StatusCode, body)
	if get.StatusCode != 200 || !strings.Contains(string(body), "Reconnection test completed") {
		t.Errorf("resuming on the other instance: %d %s; want the response replayed", get.StatusCode, body)
	}
}
