package testkit

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// rawListen opens a listen stream on a raw TCP connection (with a small
// receive buffer when small), reads the response head and the
// acknowledgement, and returns the connection and its reader; the caller
// decides whether to read further.
func RawListen(t *testing.T, addr, filter string, small bool) (*net.TCPConn, *bufio.Reader) {
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
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{%q:%q,%q:{}},"notifications":%s}}`, KeyVersion, Rev, KeyCaps, filter)
	fmt.Fprintf(tc, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nMCP-Protocol-Version: %s\r\nMcp-Method: subscriptions/listen\r\nContent-Length: %d\r\n\r\n%s", Rev, len(body), body)
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
