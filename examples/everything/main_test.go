package main

import (
	"net"
	"net/http"
	"testing"
	"time"
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
