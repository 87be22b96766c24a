package streamhttp_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/auth"
)

// R-AUTH-05, R-AUTH-07: a request refused before its body is read is
// answered at once, over a real connection, while its body is still
// coming: the answer asks for the connection to close, so that net/http
// does not first read (up to 256 KiB of) the unread body. Before, a
// client sending one byte of a declared 1,000 held its 401 back until
// the server's read timeout.
func TestRefusalBeforeBodyDoesNotWaitForIt(t *testing.T) {
	h := Handler(AuthServer(t), AuthOptions())
	srv := httptest.NewServer(h)
	defer srv.Close()
	cases := []struct {
		name, headers, status string
	}{
		{"no token", "", "401"},
		{"an invalid token", "Authorization: Bearer nope\r\n", "401"},
		{"a malformed Authorization header", "Authorization: Bearer\r\n", "400"},
		{"the verifier cannot decide", "Authorization: Bearer down\r\n", "503"},
		{"an Origin not allowed", "Authorization: Bearer reader\r\nOrigin: https://evil.example\r\n", "403"},
		{"another Content-Type", "Authorization: Bearer reader\r\nContent-Type: text/plain\r\n", "415"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct := "Content-Type: application/json\r\n"
			if strings.Contains(tc.headers, "Content-Type") {
				ct = ""
			}
			checkRefusedBodyPending(t, srv, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n"+tc.headers+ct, tc.status)
		})
	}
}

// checkRefusedBodyPending sends head (a request line and headers, each
// line ended) over a new connection to srv with a declared body of 1,000
// bytes of which it sends one, and checks that the answer, status, comes
// within 2 s while the body is pending and closes the connection.
func checkRefusedBodyPending(t *testing.T, srv *httptest.Server, head, status string) {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "%sContent-Length: 1000\r\n\r\n{", head)
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer within 2 s while the body is pending: %v", err)
	}
	defer resp.Body.Close()
	if got := fmt.Sprint(resp.StatusCode); got != status || !resp.Close {
		t.Errorf("status %s, close %v; want %s and the connection closed", got, resp.Close, status)
	}
}

// A Verifier that returns a token naming no Subject gets it refused (401
// invalid_token): otherwise every such token would be one principal,
// sharing tasks, sessions and sealed state (found by the hostile review:
// two tokens without a subject shared a task).
func TestTokenWithoutSubjectRefused(t *testing.T) {
	h := Handler(AuthServer(t), streamhttp.Options{Verifier: FakeVerifier{
		"nosub": &auth.TokenInfo{Issuer: AuthIss, Scopes: []string{"read"}, ClientID: "app"},
	}, ResourceMetadataURL: PrmURL})
	rec := Post(t, h, Rpc(1, "tools/call", Params(M{"name": "whoami"})), Bearer("nosub"))
	if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Header().Get("WWW-Authenticate"), `error="invalid_token", error_description="the token names no subject"`) {
		t.Fatalf("%d %q %s", rec.Code, rec.Header().Get("WWW-Authenticate"), rec.Body.Bytes())
	}
}

// A GET or DELETE whose body is never read (its refusals: 405 without a
// session id, 404 for an unknown one) is answered at once too, the
// connection closing (second hostile review: they waited for the body).
func TestSessionVerbRefusalDoesNotWaitForBody(t *testing.T) {
	srv := httptest.NewServer(Handler(AuthServer(t), streamhttp.Options{}))
	defer srv.Close()
	for _, tc := range []struct{ verb, hdr, status string }{
		{"GET", "", "405"},
		{"GET", "Mcp-Session-Id: bogus\r\n", "404"},
		{"DELETE", "", "405"},
		{"DELETE", "Mcp-Session-Id: bogus\r\n", "404"},
	} {
		t.Run(tc.verb+" "+tc.status, func(t *testing.T) {
			checkRefusedBodyPending(t, srv, tc.verb+" / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n"+tc.hdr, tc.status)
		})
	}
}

// Over HTTP/2 a refusal keeps the connection: an unread body holds
// nothing back there, and Connection: close would make Go's server send
// a GOAWAY (second hostile review: ten 401s cost ten TLS connections).
func TestRefusalOverHTTP2KeepsConnection(t *testing.T) {
	srv := httptest.NewUnstartedServer(Handler(AuthServer(t), AuthOptions()))
	srv.EnableHTTP2 = true
	var conns atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	defer srv.Close()
	c := srv.Client()
	for i := range 10 {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("refused request %d: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("refused request %d: %s %d", i, resp.Proto, resp.StatusCode)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 10 refusals over HTTP/2, want 1", n)
	}
}
