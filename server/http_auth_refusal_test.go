package server

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/auth"
)

// R-AUTH-05, R-AUTH-07: a request refused before its body is read is
// answered at once, over a real connection, while its body is still
// coming: the answer asks for the connection to close, so that net/http
// does not first read (up to 256 KiB of) the unread body. Before, a
// client sending one byte of a declared 1,000 held its 401 back until
// the server's read timeout.
func TestRefusalBeforeBodyDoesNotWaitForIt(t *testing.T) {
	h := authServer(t).Handler(authOptions())
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
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ct := "Content-Type: application/json\r\n"
			if strings.Contains(tc.headers, "Content-Type") {
				ct = ""
			}
			fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%sContent-Length: 1000\r\n\r\n{", tc.headers, ct)
			_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer within 2 s while the body is pending: %v", err)
			}
			defer resp.Body.Close()
			if got := fmt.Sprint(resp.StatusCode); got != tc.status || !resp.Close {
				t.Errorf("status %s, close %v; want %s and the connection closed", got, resp.Close, tc.status)
			}
		})
	}
}

// A Verifier that returns a token naming no Subject gets it refused (401
// invalid_token): otherwise every such token would be one principal,
// sharing tasks, sessions and sealed state (found by the hostile review:
// two tokens without a subject shared a task).
func TestTokenWithoutSubjectRefused(t *testing.T) {
	h := authServer(t).Handler(HTTPOptions{Verifier: fakeVerifier{
		"nosub": &auth.TokenInfo{Issuer: authIss, Scopes: []string{"read"}, ClientID: "app"},
	}, ResourceMetadataURL: prmURL})
	rec := post(t, h, rpc(1, "tools/call", params(M{"name": "whoami"})), bearer("nosub"))
	if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Header().Get("WWW-Authenticate"), `error="invalid_token", error_description="the token names no subject"`) {
		t.Fatalf("%d %q %s", rec.Code, rec.Header().Get("WWW-Authenticate"), rec.Body.Bytes())
	}
}
