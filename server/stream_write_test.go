package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// smallBuffers is a listener whose connections have a small send buffer,
// so that a client that stops reading fills the kernel's buffers fast.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// rawListen opens a listen stream on a raw TCP connection (with a small
// receive buffer when small), reads the response head and the
// acknowledgement, and returns the connection and its reader; the caller
// decides whether to read further.
func rawListen(t *testing.T, addr, filter string, small bool) (*net.TCPConn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	tc := c.(*net.TCPConn)
	if small {
		_ = tc.SetReadBuffer(4096)
	}
	t.Cleanup(func() { tc.Close() })
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{%q:%q,%q:{}},"notifications":%s}}`, keyVersion, rev, keyCaps, filter)
	fmt.Fprintf(tc, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nMCP-Protocol-Version: %s\r\nMcp-Method: subscriptions/listen\r\nContent-Length: %d\r\n\r\n%s", rev, len(body), body)
	_ = tc.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(tc)
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the stream's head: %v", err)
		}
		if strings.HasPrefix(l, "HTTP/1.1 ") && !strings.HasPrefix(l, "HTTP/1.1 200") {
			t.Fatalf("listen: %s", l)
		}
		if strings.Contains(l, "notifications/subscriptions/acknowledged") {
			_ = tc.SetReadDeadline(time.Time{})
			return tc, br
		}
	}
}

// D13: a listen client that stops reading no longer pins its stream.
// Once the socket buffers are full, the stream's write times out
// (HTTPOptions.WriteTimeout) and the stream ends, so Shutdown returns,
// and the server closes the connection; a client that keeps reading still
// gets the subscriptions/listen result (R-SUB-06). The http.Server has no
// WriteTimeout of its own, as examples/everything.
func TestStalledListenReaderEnds(t *testing.T) {
	// Each event carries a 60 KB URI (WithMaxURIBytes raised for it), so
	// that a few fill the socket buffers.
	s := newServer(t, WithMaxStreamLifetime(time.Second), WithKeepAlive(50*time.Millisecond), WithMaxURIBytes(64<<10))
	long := "test://r/" + strings.Repeat("a", 60000)
	addResource(t, s, protocol.Resource{URI: long, Name: "r"}, func(context.Context, *Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return nil, ErrNotFound
	})
	srv := httptest.NewUnstartedServer(s.Handler(HTTPOptions{AllowedHosts: []string{"127.0.0.1"}, WriteTimeout: 200 * time.Millisecond}))
	srv.Config = &http.Server{Handler: srv.Config.Handler}
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)

	stalled, _ := rawListen(t, srv.Listener.Addr().String(), `{"resourceSubscriptions":[`+fmt.Sprintf("%q", long)+`]}`, true)
	reading, rd := rawListen(t, srv.Listener.Addr().String(), `{"toolsListChanged":true}`, true)
	tail := make(chan string, 1)
	go func() {
		var b strings.Builder
		for !strings.HasSuffix(b.String(), "\r\n0\r\n\r\n") { // the end of the chunked response
			l, err := rd.ReadString('\n')
			b.WriteString(l)
			if err != nil {
				break
			}
		}
		tail <- b.String()
	}()
	// 200 events of 60 KB: far more than the socket buffers hold.
	for range 200 {
		_ = s.NotifyResourceUpdated(long)
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a bound against a hang
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a stream whose client stopped reading: %v", err)
	}
	if s.streams.total != 0 {
		t.Errorf("%d listen streams still counted after Shutdown", s.streams.total)
	}
	// The stalled connection is closed by the server: draining it ends.
	_ = stalled.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := io.Copy(io.Discard, stalled); err != nil {
		t.Errorf("the stalled stream's connection was not closed: %d bytes, then %v", n, err)
	}
	_ = reading.SetReadDeadline(time.Now().Add(10 * time.Second))
	got := <-tail
	if !strings.Contains(got, `"io.modelcontextprotocol/subscriptionId":1},"resultType":"complete"}}`) {
		t.Errorf("the reading client did not get the listen result (R-SUB-06): %q", got)
	}
}

// The write deadline comes from http.ResponseController: a ResponseWriter
// without deadlines (a recorder) streams without one.
func TestStreamWriteWithoutDeadlineSupport(t *testing.T) {
	s := newServer(t)
	addTool(t, s, `{"name":"p","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		r.Progress(ctx, 1, 2, "half")
		return TextResult("done"), nil
	})
	rec := post(t, s.Handler(HTTPOptions{WriteTimeout: time.Millisecond}), rpc(1, "tools/call", params(M{"name": "p", "arguments": M{}, "_meta": meta("progressToken", 7)})), nil)
	msgs := sseMessages(t, rec.Body.Bytes())
	if len(msgs) != 2 || msgs[0].method() != "notifications/progress" || msgs[1].text(t, 0) != "done" {
		t.Errorf("progress then result on a recorder: %s", rec.Body)
	}
}

// A client that sends a request and never reads its (large) response
// holds the request in flight for WriteTimeout at most, not forever: it
// would otherwise pin one of HTTPOptions.MaxConcurrent's places.
func TestUnreadResponseLeavesInFlight(t *testing.T) {
	s := newServer(t)
	big := strings.Repeat("r", 8<<20)
	addTool(t, s, `{"name":"big","inputSchema":{"type":"object"}}`, textTool(big))
	h := s.Handler(HTTPOptions{AllowedHosts: []string{"127.0.0.1"}, WriteTimeout: 200 * time.Millisecond})
	srv := httptest.NewUnstartedServer(h)
	srv.Config = &http.Server{Handler: h}
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.(*net.TCPConn).SetReadBuffer(4096)
	body := rpc(1, "tools/call", params(M{"name": "big", "arguments": M{}}))
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nMCP-Protocol-Version: %s\r\nMcp-Method: tools/call\r\nMcp-Name: big\r\nContent-Length: %d\r\n\r\n%s", rev, len(body), body)
	waitFor(t, func() bool { n, _ := inflight(h); return n == 1 })
	// The client reads nothing: the 8 MB response cannot be written.
	waitFor(t, func() bool { n, _ := inflight(h); return n == 0 })
}
