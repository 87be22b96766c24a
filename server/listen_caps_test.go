package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// fromHeader serves h with the request's RemoteAddr taken from the
// X-Test-Remote header, so that one test client can be many addresses.
func fromHeader(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("X-Test-Remote"); a != "" {
			r.RemoteAddr = a
		}
		h.ServeHTTP(w, r)
	})
}

// tryListen opens a listen stream as addr (and user, when not ""): it
// returns the open response, or the refusal's status, Retry-After and
// body.
func tryListen(t *testing.T, srv *httptest.Server, addr, user string) (resp *http.Response, status int, retry string, body string) {
	t.Helper()
	b := Rpc(1, "subscriptions/listen", Params(M{"notifications": M{"toolsListChanged": true}}))
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range Mirror(b) {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Test-Remote", addr)
	if user != "" {
		req.Header.Set("X-User", user)
	}
	resp, err = srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == 200 {
		line, err := bufio.NewReader(resp.Body).ReadString('\n') // the acknowledgement is on its way
		if err != nil || !strings.HasPrefix(line, "event:") {
			t.Fatalf("listen as %s: %q, %v", addr, line, err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp, 200, "", ""
	}
	all, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return nil, resp.StatusCode, resp.Header.Get("Retry-After"), string(all)
}

// D8: listen streams are capped per principal, per client address without
// one (an IPv6 address by its /64), and in all; over a cap the stream is
// refused with the rate-limited answer, and a slot frees when a stream
// ends.
func TestListenStreamCaps(t *testing.T) {
	s := NewServer(t, server.WithMaxListenStreams(2, 6))
	AddTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, TextTool("x"))
	h := Handler(s, streamhttp.Options{AllowedHosts: []string{"127.0.0.1", "localhost"}, Authenticate: func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }})
	srv := httptest.NewServer(fromHeader(h))
	t.Cleanup(srv.Close)

	open := func(addr, user string) *http.Response {
		t.Helper()
		resp, status, _, body := tryListen(t, srv, addr, user)
		if status != 200 {
			t.Fatalf("stream %d of %s %q refused: %d %s", s.StreamTotal()+1, addr, user, status, body)
		}
		return resp
	}
	refused := func(addr, user, msg string) {
		t.Helper()
		_, status, retry, body := tryListen(t, srv, addr, user)
		w := DecodeWire(t, []byte(body))
		if status != http.StatusTooManyRequests || retry != "10" || w.Code() != server.CodeRateLimited || w.Error.Message != msg {
			t.Errorf("over a cap, %s %q: %d, Retry-After %q: %s", addr, user, status, retry, body)
		}
	}
	a1 := open("198.51.100.1:1000", "")
	open("198.51.100.1:1001", "")
	refused("198.51.100.1:1002", "", "Too many listen streams (at most 2 per client address); close one or retry later")
	// One /64 is one client; an IPv4-mapped address is its IPv4 address.
	open("[2001:db8:0:1::1]:443", "")
	open("[2001:db8:0:1:ffff:ffff:ffff:ffff]:443", "")
	refused("[2001:db8:0:1:abcd::1]:443", "", "Too many listen streams (at most 2 per client address); close one or retry later")
	refused("[::ffff:198.51.100.1]:443", "", "Too many listen streams (at most 2 per client address); close one or retry later")
	// A principal counts on its own, whatever its address.
	open("198.51.100.1:1003", "alice")
	open("198.51.100.1:1004", "alice")
	refused("198.51.100.9:1", "alice", "Too many listen streams (at most 2 per principal); close one or retry later")
	if n := s.StreamTotal(); n != 6 {
		t.Fatalf("%d streams counted, want 6", n)
	}
	// Six in all: a seventh client is refused too.
	refused("198.51.100.7:1", "", "Too many listen streams (at most 6 on this server); retry later")
	// Other requests are not affected.
	if w := tcall(t, h, "tools/call", Params(M{"name": "t", "arguments": M{}}), from("198.51.100.1:1005", "")); w.Error != nil {
		t.Errorf("a tools/call from a client with 2 streams: %s", w.Raw)
	}
	// A stream that ends frees its slot.
	a1.Body.Close()
	WaitFor(t, func() bool { return s.StreamTotal() == 5 })
	open("198.51.100.1:1006", "")
}

// On stdio the one client is bounded by WithMaxConcurrent; its streams
// count against the total only.
func TestListenStreamCapsStdio(t *testing.T) {
	s := NewServer(t, server.WithMaxListenStreams(1, 2))
	ss := StartStdio(t, s)
	for id := 1; id <= 2; id++ {
		ss.Send(string(Rpc(id, "subscriptions/listen", Params(M{"notifications": M{"toolsListChanged": true}}))))
		if w := ss.Recv(); w.Method() != "notifications/subscriptions/acknowledged" {
			t.Fatalf("stdio stream %d: %s", id, w.Raw)
		}
	}
	ss.Send(string(Rpc(3, "subscriptions/listen", Params(M{"notifications": M{"toolsListChanged": true}}))))
	if w := ss.Recv(); w.Code() != server.CodeRateLimited || w.Error.Message != "Too many listen streams (at most 2 on this server); retry later" {
		t.Errorf("a third stdio stream: %s", w.Raw)
	}
}

// D8: what one open stream keeps of a large filter. The filter is held
// packed and sorted (not as a map and the acknowledged list besides): with
// 1000 URIs of 60 bytes, under 120 KB a stream in all (goroutines,
// connection and broker subscription included; 162 KB before). The clients are raw
// connections, so that nothing on the client side keeps the bodies.
func TestListenStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 40 streams of 1000 URIs")
	}
	s := NewServer(t, server.WithMaxListenStreams(-1, 0)) // all from 127.0.0.1
	const uris = 1000
	var list []string
	for j := range uris {
		uri := fmt.Sprintf("test://r/%04d-%s", j, strings.Repeat("a", 45))
		list = append(list, fmt.Sprintf("%q", uri))
		AddResource(t, s, protocol.Resource{URI: uri, Name: "r"}, func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return nil, server.ErrNotFound
		})
	}
	filter := `{"resourceSubscriptions":[` + strings.Join(list, ",") + `]}`
	srv := httptest.NewServer(Handler(s, streamhttp.Options{AllowedHosts: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close)
	RawListen(t, srv.Listener.Addr().String(), filter, false) // warm up: pools, the first connection
	settle := func() uint64 {
		var ms runtime.MemStats
		for range 3 {
			runtime.GC()
		}
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	const n = 40
	conns := make([]net.Conn, 0, n)
	before := settle()
	for i := range n {
		c, _ := RawListen(t, srv.Listener.Addr().String(), filter, false)
		conns = append(conns, c)
		_ = i
	}
	after := settle()
	per := float64(after-before) / n
	t.Logf("%d streams of %d URIs (%d bytes of filter): heap in use +%.1f MiB, %.0f KB a stream", n, uris, len(filter), float64(after-before)/(1<<20), per/1000)
	if per > 120_000 {
		t.Errorf("a stream with a filter of %d bytes holds %.0f KB", len(filter), per/1000)
	}
	runtime.KeepAlive(conns)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.Shutdown(ctx)
}
