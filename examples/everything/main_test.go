package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server"
)

// The example server's timeouts are set, and a slow-loris client that
// never finishes its headers is disconnected after ReadHeaderTimeout.
func TestSlowLoris(t *testing.T) {
	hs := newHTTPServer("127.0.0.1:0", http.NotFoundHandler())
	if hs.ReadHeaderTimeout <= 0 || hs.ReadTimeout <= 0 || hs.IdleTimeout <= 0 {
		t.Fatalf("timeouts not set: %+v", hs)
	}
	hs.ReadHeaderTimeout = 200 * time.Millisecond // the test's, to be quick
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	buf := make([]byte, 512)
	for {
		if _, err := conn.Read(buf); err != nil {
			break // the server closed the connection (after a 408, or at once)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("a client that never finished its headers held the connection for %v", d)
	}
}

// I4: on SIGINT or SIGTERM the example server calls s.Shutdown before the
// http.Server's: an open listen stream ends with its subscriptions/listen
// result (R-SUB-06) instead of being cut.
func TestGracefulShutdown(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := newServer(logger, cluster{})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.Handler(server.HTTPOptions{}))
	hs := newHTTPServer("127.0.0.1:0", mux)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- serveHTTP(ctx, logger, s, hs, ln, 10*time.Second) }()

	body := `{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true}}}`
	req, _ := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/mcp", strings.NewReader(body))
	req.Host = "127.0.0.1"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "event:") {
		t.Fatalf("listen: %d %q %v", resp.StatusCode, line, err)
	}
	stop()                    // as SIGTERM does
	rest, _ := io.ReadAll(br) // until the server ends the response
	if !strings.Contains(string(rest), `"io.modelcontextprotocol/subscriptionId":"sub-1"},"resultType":"complete"`) {
		t.Errorf("the listen stream ended without its result (R-SUB-06): %q", rest)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serveHTTP: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serveHTTP did not return after the stop")
	}
}
