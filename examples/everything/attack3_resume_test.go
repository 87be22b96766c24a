package main

import (
	"bufio"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/server"
)

// TestAttack3ResumeOnOtherInstance: with -redis the example shares the
// legacy sessions (redisstore.SessionStore), the broker and the tasks,
// but not the event logs of resumability: LegacyConfig.EventStore is left
// to the per-process MemoryEventStore. A 2025-11-25 client whose POST
// stream test_reconnection closed (DisconnectForPolling) and whose GET
// with Last-Event-ID reaches the other instance — what a load balancer
// does — gets 400 -32600 "cannot resume: the events after … are no longer
// kept", so the response of its request is lost although the session is
// shared (docs/dual-era.md §7.2, §7.4: a resumer may be on another
// instance; the example's own doc says a session opened through one
// instance is served by any other). The server accepts the combination
// silently (a shared SessionStore with a process-local EventStore).
// Expected: the resume on B replays the response; fix: set
// redisstore.NewEventStore as LegacyConfig.EventStore with -redis (and,
// in the server, warn or refuse when Store is shared and EventStore is
// not).
func TestAttack3ResumeOnOtherInstance(t *testing.T) {
	if os.Getenv("MCPWIRE_ATTACK") != "1" {
		t.Skip("attack reproduction: set MCPWIRE_ATTACK=1")
	}
	url := testRedisURL(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var urls []string
	for range 2 {
		cl, done, err := newCluster(logger, url, server.ErasBoth)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(done)
		s, err := newServer(logger, server.ErasBoth, cl)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s.Handler(server.HTTPOptions{}))
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
	resp := do(urls[0], http.MethodPost, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"attack3","version":"1"}}}`)
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
