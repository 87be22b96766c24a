package streamhttp_test

import (
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

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
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

// D13: a listen client that stops reading no longer pins its stream.
// Once the socket buffers are full, the stream's write times out
// (HTTPOptions.WriteTimeout) and the stream ends, so Shutdown returns,
// and the server closes the connection; a client that keeps reading still
// gets the subscriptions/listen result (R-SUB-06). The http.Server has no
// WriteTimeout of its own, as examples/everything.
func TestStalledListenReaderEnds(t *testing.T) {
	// Each event carries a 60 KB URI (WithMaxURIBytes raised for it), so
	// that a few fill the socket buffers.
	s := NewServer(t, server.WithMaxStreamLifetime(time.Second), server.WithKeepAlive(50*time.Millisecond), server.WithMaxURIBytes(64<<10))
	long := "test://r/" + strings.Repeat("a", 60000)
	AddResource(t, s, protocol.Resource{URI: long, Name: "r"}, func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return nil, server.ErrNotFound
	})
	srv := httptest.NewUnstartedServer(Handler(s, streamhttp.Options{AllowedHosts: []string{"127.0.0.1"}, WriteTimeout: 200 * time.Millisecond}))
	srv.Config = &http.Server{Handler: srv.Config.Handler}
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)

	stalled, _ := RawListen(t, srv.Listener.Addr().String(), `{"resourceSubscriptions":[`+fmt.Sprintf("%q", long)+`]}`, true)
	reading, rd := RawListen(t, srv.Listener.Addr().String(), `{"toolsListChanged":true}`, true)
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
	if n := s.Adapter().OpenListenStreams(); n != 0 {
		t.Errorf("%d listen streams still counted after Shutdown", n)
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
	s := NewServer(t)
	AddTool(t, s, `{"name":"p","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		r.Progress(ctx, 1, 2, "half")
		return server.TextResult("done"), nil
	})
	rec := Post(t, Handler(s, streamhttp.Options{WriteTimeout: time.Millisecond}), Rpc(1, "tools/call", Params(M{"name": "p", "arguments": M{}, "_meta": Meta("progressToken", 7)})), nil)
	msgs := SseMessages(t, rec.Body.Bytes())
	if len(msgs) != 2 || msgs[0].Method() != "notifications/progress" || msgs[1].Text(t, 0) != "done" {
		t.Errorf("progress then result on a recorder: %s", rec.Body)
	}
}

// A client that sends a request and never reads its (large) response
// holds the request in flight for WriteTimeout at most, not forever: it
// would otherwise pin one of HTTPOptions.MaxConcurrent's places.
func TestUnreadResponseLeavesInFlight(t *testing.T) {
	s := NewServer(t)
	big := strings.Repeat("r", 8<<20)
	AddTool(t, s, `{"name":"big","inputSchema":{"type":"object"}}`, TextTool(big))
	h := Handler(s, streamhttp.Options{AllowedHosts: []string{"127.0.0.1"}, WriteTimeout: 200 * time.Millisecond})
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
	body := Rpc(1, "tools/call", Params(M{"name": "big", "arguments": M{}}))
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nMCP-Protocol-Version: %s\r\nMcp-Method: tools/call\r\nMcp-Name: big\r\nContent-Length: %d\r\n\r\n%s", Rev, len(body), body)
	WaitFor(t, func() bool { n, _ := streamhttp.Inflight(h); return n == 1 })
	// The client reads nothing: the 8 MB response cannot be written.
	WaitFor(t, func() bool { n, _ := streamhttp.Inflight(h); return n == 0 })
}
