package streamhttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// httpCase is one row of the Streamable HTTP status table.
type httpCase struct {
	name   string             // starts with the rule it checks
	opts   streamhttp.Options // handler options (zero: defaults)
	verb   string             // HTTP method, POST when empty
	body   []byte             // body, sent with mirrored headers
	raw    string             // a whole HTTP/1.1 request, parsed as a server would (overrides verb and body)
	mod    func(r *http.Request)
	status int
	code   int64  // JSON-RPC error code; 0 for a result, or no body
	id     string // the id the response echoes (raw JSON); "" for no id
	ctype  string // Content-Type; "" for an empty body
	check  func(t *testing.T, rec *httptest.ResponseRecorder, w *Wire)
}

func delHeader(k string) func(r *http.Request) {
	return func(r *http.Request) { r.Header.Del(k) }
}

func mods(fs ...func(r *http.Request)) func(r *http.Request) {
	return func(r *http.Request) {
		for _, f := range fs {
			f(r)
		}
	}
}

// rawRequest is an HTTP/1.1 request with the given header lines, as the
// net/http server would parse it (header names canonicalised).
func rawRequest(body []byte, headerLines ...string) string {
	var b strings.Builder
	b.WriteString("POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n")
	for _, l := range headerLines {
		b.WriteString(l + "\r\n")
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	return b.String()
}

func runHTTPCase(t *testing.T, s *server.Server, c httpCase) {
	t.Helper()
	h := Handler(s, c.opts)
	var rec *httptest.ResponseRecorder
	switch {
	case c.raw != "":
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(c.raw)))
		if err != nil {
			t.Fatalf("raw request: %v", err)
		}
		r.RemoteAddr = "127.0.0.1:1234"
		r = r.WithContext(context.Background())
		if c.mod != nil {
			c.mod(r)
		}
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, r)
	default:
		verb := c.verb
		rec = Post(t, h, c.body, func(r *http.Request) {
			if verb != "" {
				r.Method = verb
			}
			if c.mod != nil {
				c.mod(r)
			}
		})
	}
	if rec.Code != c.status {
		t.Errorf("status %d, want %d; body %s", rec.Code, c.status, rec.Body.Bytes())
	}
	if got := rec.Header().Get("Content-Type"); got != c.ctype {
		t.Errorf("Content-Type %q, want %q", got, c.ctype)
	}
	if rec.Header().Get("Mcp-Session-Id") != "" {
		t.Errorf("R-HTTP-17: response carries Mcp-Session-Id %q", rec.Header().Get("Mcp-Session-Id"))
	}
	if c.ctype == "" {
		if rec.Body.Len() != 0 {
			t.Errorf("body %q, want none", rec.Body.Bytes())
		}
		if c.check != nil {
			c.check(t, rec, nil)
		}
		return
	}
	w := DecodeWire(t, rec.Body.Bytes())
	if got := w.Code(); got != c.code {
		t.Errorf("code %d, want %d; body %s", got, c.code, rec.Body.Bytes())
	}
	if c.code == 0 && w.Result == nil {
		t.Errorf("want a result, got %s", rec.Body.Bytes())
	}
	CheckCode(t, w.Code())
	if got := w.Id(); got != c.id {
		t.Errorf("R-BASE-04/07: id %q, want %q (\"\" = absent); body %s", got, c.id, rec.Body.Bytes())
	}
	if c.check != nil {
		c.check(t, rec, w)
	}
}

// TestHTTPStatusTable checks the status, JSON-RPC code, id echo and
// Content-Type of every request-level rule of the Streamable HTTP
// transport, one row per rule.
// The answers of a 2026-07-28-only server (ErasModern). Under the default,
// ErasBoth, the rows without a modern signal (no _meta, no header, GET,
// DELETE, initialize) belong to the legacy era: their answers there are
// the want-both of the hostile corpus (testdata/hostile) and the tables
// of era_test.go.
func TestHTTPStatusTable(t *testing.T) {
	s := Fixture(t, Eras(legacy.ErasModern))
	const (
		jsonCT = "application/json"
		bad    = http.StatusBadRequest
		ok     = http.StatusOK
	)
	discover := Rpc(1, protocol.MethodServerDiscover, Params(nil))
	echo := Rpc(7, protocol.MethodToolsCall, Params(M{"name": "echo", "arguments": M{"text": "hi"}}))
	echoStr := Rpc("a", protocol.MethodToolsCall, Params(M{"name": "echo", "arguments": M{"text": "hi"}}))
	greet := Rpc(2, protocol.MethodPromptsGet, Params(M{"name": "greet", "arguments": M{"who": "Ann"}}))
	grusse := Rpc(2, protocol.MethodPromptsGet, Params(M{"name": "grüße"}))
	read := Rpc(3, protocol.MethodResourcesRead, Params(M{"uri": "file:///a.txt"}))
	hdr := func(args M) []byte {
		return Rpc(9, protocol.MethodToolsCall, Params(M{"name": "hdr", "arguments": args}))
	}
	v999 := Rpc(4, protocol.MethodServerDiscover, WithMeta(M{KeyVersion: "v999", KeyCaps: M{}}, nil))
	authFail := streamhttp.Options{WWWAuthenticate: `Bearer realm="mcp"`, Authenticate: func(*http.Request) (string, error) { return "", errors.New("no token") }}
	authOK := streamhttp.Options{Authenticate: func(r *http.Request) (string, error) {
		return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), nil
	}}
	wantData := func(key string, want any) func(t *testing.T, _ *httptest.ResponseRecorder, w *Wire) {
		return func(t *testing.T, _ *httptest.ResponseRecorder, w *Wire) {
			d := w.Data(t)
			if fmt.Sprint(d[key]) != fmt.Sprint(want) {
				t.Errorf("data.%s = %v, want %v", key, d[key], want)
			}
		}
	}
	wantText := func(want string) func(t *testing.T, _ *httptest.ResponseRecorder, w *Wire) {
		return func(t *testing.T, _ *httptest.ResponseRecorder, w *Wire) {
			if got := w.Text(t, 0); got != want {
				t.Errorf("text %q, want %q", got, want)
			}
		}
	}

	cases := []httpCase{
		// Transport: verbs, sessions, origin and host, auth, body limits.
		{name: "R-HTTP-16 GET is 405", verb: http.MethodGet, body: nil, status: http.StatusMethodNotAllowed, code: protocol.CodeInvalidRequestError, ctype: jsonCT,
			check: func(t *testing.T, rec *httptest.ResponseRecorder, _ *Wire) {
				if rec.Header().Get("Allow") != "POST" {
					t.Errorf("Allow %q, want POST", rec.Header().Get("Allow"))
				}
			}},
		{name: "R-HTTP-16 DELETE is 405", verb: http.MethodDelete, mod: SetHeader("Mcp-Session-Id", "abc"), status: http.StatusMethodNotAllowed, code: protocol.CodeInvalidRequestError, ctype: jsonCT,
			check: func(t *testing.T, rec *httptest.ResponseRecorder, _ *Wire) {
				if rec.Header().Get("Allow") != "POST" {
					t.Errorf("Allow %q, want POST", rec.Header().Get("Allow"))
				}
			}},
		{name: "R-HTTP-17/18 Mcp-Session-Id and Last-Event-ID are ignored", body: discover,
			mod: mods(SetHeader("Mcp-Session-Id", "session-1"), SetHeader("Last-Event-ID", "42")), status: ok, id: "1", ctype: jsonCT},
		{name: "R-HTTP-02 Host not allowed is 403", body: discover, mod: func(r *http.Request) { r.Host = "evil.example" }, status: http.StatusForbidden, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "R-HTTP-02 Origin of another host is 403", body: discover, mod: SetHeader("Origin", "http://evil.example"), status: http.StatusForbidden, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "R-HTTP-02 Origin null is 403", body: discover, mod: SetHeader("Origin", "null"), status: http.StatusForbidden, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "R-HTTP-02 DNS rebinding (Host evil, Origin loopback) is 403", body: discover,
			mod: mods(func(r *http.Request) { r.Host = "evil.example:8080" }, SetHeader("Origin", "http://localhost:8080")), status: http.StatusForbidden, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "R-HTTP-02 loopback Host and Origin are allowed", body: discover, mod: SetHeader("Origin", "http://localhost:3000"), status: ok, id: "1", ctype: jsonCT},
		{name: "R-HTTP-02 127.0.0.1 Host and Origin are allowed", body: discover,
			mod: mods(func(r *http.Request) { r.Host = "127.0.0.1:9" }, SetHeader("Origin", "http://127.0.0.1")), status: ok, id: "1", ctype: jsonCT},
		{name: "R-HTTP-02 [::1] Host is allowed", body: discover, mod: func(r *http.Request) { r.Host = "[::1]:8080" }, status: ok, id: "1", ctype: jsonCT},
		{name: "R-HTTP-02 AllowedHosts admits a configured host", opts: streamhttp.Options{AllowedHosts: []string{"mcp.example.com"}}, body: discover,
			mod: mods(func(r *http.Request) { r.Host = "MCP.example.com" }, SetHeader("Origin", "https://mcp.example.com")), status: ok, id: "1", ctype: jsonCT},
		{name: "R-HTTP-02 AllowedHosts compares without regard to case", opts: streamhttp.Options{AllowedHosts: []string{"MCP.Example.COM"}}, body: discover,
			mod: mods(func(r *http.Request) { r.Host = "mcp.example.com:443" }, SetHeader("Origin", "https://Mcp.Example.com")), status: ok, id: "1", ctype: jsonCT},
		{name: "R-HTTP-02 AllowedHosts replaces the loopback default", opts: streamhttp.Options{AllowedHosts: []string{"mcp.example.com"}}, body: discover,
			status: http.StatusForbidden, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "R-AUTH 401 with WWW-Authenticate when Authenticate fails", opts: authFail, body: discover, status: http.StatusUnauthorized, code: protocol.CodeInvalidRequestError, ctype: jsonCT,
			check: func(t *testing.T, rec *httptest.ResponseRecorder, _ *Wire) {
				if got := rec.Header().Get("WWW-Authenticate"); got != `Bearer realm="mcp"` {
					t.Errorf("WWW-Authenticate %q", got)
				}
			}},
		{name: "R-AUTH the principal reaches the handler", opts: authOK,
			body: Rpc(5, protocol.MethodToolsCall, Params(M{"name": "whoami"})), mod: SetHeader("Authorization", "Bearer alice"), status: ok, id: "5", ctype: jsonCT,
			check: wantText("principal=alice")},
		{name: "R-HTTP-07 Content-Type other than JSON is 415", body: discover, mod: SetHeader("Content-Type", "text/plain"), status: http.StatusUnsupportedMediaType, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "R-HTTP-07 Content-Type with charset is accepted", body: discover, mod: SetHeader("Content-Type", "application/json; charset=utf-8"), status: ok, id: "1", ctype: jsonCT},
		{name: "body over MaxBodyBytes is 413", opts: streamhttp.Options{MaxBodyBytes: 64}, body: echo, status: http.StatusRequestEntityTooLarge, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "chunked body over MaxBodyBytes is 413", opts: streamhttp.Options{MaxBodyBytes: 64}, body: echo,
			mod: func(r *http.Request) {
				r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(echo)))
				r.ContentLength = -1
				r.TransferEncoding = []string{"chunked"}
			}, status: http.StatusRequestEntityTooLarge, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "body of exactly MaxBodyBytes is served", opts: streamhttp.Options{MaxBodyBytes: int64(len(discover))}, body: discover, status: ok, id: "1", ctype: jsonCT},

		// JSON-RPC framing (R-BASE-*).
		{name: "R-BASE-07 invalid JSON is 400 -32700 without id", body: []byte(`{"jsonrpc":"2.0","id":1,`), status: bad, code: protocol.CodeParseError, ctype: jsonCT},
		{name: "R-BASE-07 empty body is -32700", body: []byte(``), status: bad, code: protocol.CodeParseError, ctype: jsonCT},
		{name: "A5 batch array is 400 -32600", body: []byte(`[` + string(discover) + `]`), status: bad, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "A6 id null is -32600 without id", body: []byte(`{"jsonrpc":"2.0","id":null,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + Rev + `","io.modelcontextprotocol/clientCapabilities":{}}}}`), status: bad, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "A6 fractional id is -32600", body: Rpc(1.5, protocol.MethodServerDiscover, Params(nil)), status: bad, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "A6 object id is -32600", body: Rpc(M{"a": 1}, protocol.MethodServerDiscover, Params(nil)), status: bad, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "A6 boolean id is -32600", body: Rpc(true, protocol.MethodServerDiscover, Params(nil)), status: bad, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "R-BASE-02 jsonrpc 1.0 is -32600 echoing the id", body: []byte(`{"jsonrpc":"1.0","id":1,"method":"server/discover","params":{}}`), status: bad, code: protocol.CodeInvalidRequestError, id: "1", ctype: jsonCT},
		{name: "R-BASE-02 missing jsonrpc is -32600 echoing the id", body: []byte(`{"id":"x","method":"server/discover"}`), status: bad, code: protocol.CodeInvalidRequestError, id: `"x"`, ctype: jsonCT},
		{name: "R-BASE-11 a posted response is -32600", body: []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`), status: bad, code: protocol.CodeInvalidRequestError, ctype: jsonCT},
		{name: "R-BASE-04 string id echoed with its type", body: echoStr, status: ok, id: `"a"`, ctype: jsonCT},
		{name: "R-BASE-04 integer id echoed with its type", body: echo, status: ok, id: "7", ctype: jsonCT, check: wantText("hi")},
		{name: "R-HTTP-05 notification is 202 with no body", body: []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`), status: http.StatusAccepted},
		{name: "R-HTTP-05 unknown notification is 202 too", body: []byte(`{"jsonrpc":"2.0","method":"notifications/whatever"}`), status: http.StatusAccepted},

		// _meta (R-META-01).
		{name: "R-META-01 params missing is 400 -32602", body: Rpc(1, protocol.MethodServerDiscover, nil), status: bad, code: protocol.CodeInvalidParamsError, id: "1", ctype: jsonCT},
		{name: "R-META-01 _meta missing is 400 -32602", body: Rpc(1, protocol.MethodToolsList, M{}), status: bad, code: protocol.CodeInvalidParamsError, id: "1", ctype: jsonCT},
		{name: "R-META-01 protocolVersion missing is 400 -32602", body: Rpc(1, protocol.MethodServerDiscover, WithMeta(M{KeyCaps: M{}}, nil)),
			mod: SetHeader(server.HeaderProtocolVersion, Rev), status: bad, code: protocol.CodeInvalidParamsError, id: "1", ctype: jsonCT},
		{name: "R-META-01 clientCapabilities missing is 400 -32602", body: Rpc(1, protocol.MethodServerDiscover, WithMeta(M{KeyVersion: Rev}, nil)), status: bad, code: protocol.CodeInvalidParamsError, id: "1", ctype: jsonCT},
		{name: "R-META-01 clientCapabilities not an object is 400 -32602", body: Rpc(1, protocol.MethodServerDiscover, WithMeta(M{KeyVersion: Rev, KeyCaps: "all"}, nil)), status: bad, code: protocol.CodeInvalidParamsError, id: "1", ctype: jsonCT},
		{name: "R-META-01 clientCapabilities array is 400 -32602", body: Rpc(1, protocol.MethodServerDiscover, WithMeta(M{KeyVersion: Rev, KeyCaps: []any{}}, nil)), status: bad, code: protocol.CodeInvalidParamsError, id: "1", ctype: jsonCT},
		{name: "R-META-01 _meta missing on tools/call is -32602", body: Rpc(1, protocol.MethodToolsCall, M{"name": "echo", "arguments": M{"text": "x"}}), status: bad, code: protocol.CodeInvalidParamsError, id: "1", ctype: jsonCT},
		{name: "R-META-01 clientInfo absent is fine", body: discover, status: ok, id: "1", ctype: jsonCT},
		{name: "R-META-01 clientInfo present is fine", body: Rpc(1, protocol.MethodServerDiscover, WithMeta(Meta("io.modelcontextprotocol/clientInfo", M{"name": "c", "version": "1"}), nil)), status: ok, id: "1", ctype: jsonCT},

		// Standard headers (R-HDR-01..06, 09).
		{name: "R-HDR-02 missing MCP-Protocol-Version is 400 -32020", body: discover, mod: delHeader(server.HeaderProtocolVersion), status: bad, code: protocol.CodeHeaderMismatchError, id: "1", ctype: jsonCT},
		{name: "R-HDR-01 mismatching MCP-Protocol-Version is 400 -32020", body: discover, mod: SetHeader(server.HeaderProtocolVersion, "2025-11-25"), status: bad, code: protocol.CodeHeaderMismatchError, id: "1", ctype: jsonCT},
		{name: "R-HDR-03 missing Mcp-Method is 400 -32020", body: discover, mod: delHeader(server.HeaderMethod), status: bad, code: protocol.CodeHeaderMismatchError, id: "1", ctype: jsonCT},
		{name: "R-HDR-04 mismatching Mcp-Method is 400 -32020", body: discover, mod: SetHeader(server.HeaderMethod, "tools/list"), status: bad, code: protocol.CodeHeaderMismatchError, id: "1", ctype: jsonCT},
		{name: "R-HDR-09 Mcp-Method value is case-sensitive", body: echo, mod: SetHeader(server.HeaderMethod, "TOOLS/CALL"), status: bad, code: protocol.CodeHeaderMismatchError, id: "7", ctype: jsonCT},
		{name: "R-HDR-03 Mcp-Name missing on tools/call", body: echo, mod: delHeader(server.HeaderName), status: bad, code: protocol.CodeHeaderMismatchError, id: "7", ctype: jsonCT},
		{name: "R-HDR-03 Mcp-Name missing on prompts/get", body: greet, mod: delHeader(server.HeaderName), status: bad, code: protocol.CodeHeaderMismatchError, id: "2", ctype: jsonCT},
		{name: "R-HDR-03 Mcp-Name missing on resources/read", body: read, mod: delHeader(server.HeaderName), status: bad, code: protocol.CodeHeaderMismatchError, id: "3", ctype: jsonCT},
		{name: "R-HDR-04 Mcp-Name mismatching on tools/call", body: echo, mod: SetHeader(server.HeaderName, "whoami"), status: bad, code: protocol.CodeHeaderMismatchError, id: "7", ctype: jsonCT},
		{name: "R-HDR-04 Mcp-Name mismatching on prompts/get", body: greet, mod: SetHeader(server.HeaderName, "other"), status: bad, code: protocol.CodeHeaderMismatchError, id: "2", ctype: jsonCT},
		{name: "R-HDR-04 Mcp-Name mismatching on resources/read", body: read, mod: SetHeader(server.HeaderName, "file:///b.txt"), status: bad, code: protocol.CodeHeaderMismatchError, id: "3", ctype: jsonCT},
		{name: "R-HDR-04 Mcp-Name not needed on tools/list", body: Rpc(1, protocol.MethodToolsList, Params(nil)), status: ok, id: "1", ctype: jsonCT},
		{name: "R-HDR-05 base64 sentinel Mcp-Name decoded (non-ASCII)", body: grusse, status: ok, id: "2", ctype: jsonCT,
			check: func(t *testing.T, rec *httptest.ResponseRecorder, _ *Wire) {
				// mirror() encoded it; make sure it really was the sentinel.
				if !strings.Contains(rec.Body.String(), "Grüße") {
					t.Errorf("prompt not served: %s", rec.Body.Bytes())
				}
			}},
		{name: "R-HDR-05 base64 sentinel of an ASCII name is decoded", body: echo, mod: SetHeader(server.HeaderName, Sentinel("echo")), status: ok, id: "7", ctype: jsonCT},
		{name: "R-HDR-05 base64 sentinel of a URI is decoded", body: read, mod: SetHeader(server.HeaderName, Sentinel("file:///a.txt")), status: ok, id: "3", ctype: jsonCT},
		{name: "R-HDR-05 malformed base64 sentinel is -32020", body: echo, mod: SetHeader(server.HeaderName, "=?base64?ZWNo*by?="), status: bad, code: protocol.CodeHeaderMismatchError, id: "7", ctype: jsonCT},
		{name: "R-HDR-05 sentinel prefix is case-sensitive (plain value)", body: echo, mod: SetHeader(server.HeaderName, "=?BASE64?ZWNobw==?="), status: bad, code: protocol.CodeHeaderMismatchError, id: "7", ctype: jsonCT},
		{name: "R-HDR-06 raw non-ASCII in Mcp-Name is -32020", body: grusse, mod: SetHeader(server.HeaderName, "grüße"), status: bad, code: protocol.CodeHeaderMismatchError, id: "2", ctype: jsonCT},
		{name: "R-HDR-09 header names are case-insensitive", raw: rawRequest(echo, "mcp-protocol-version: "+Rev, "MCP-METHOD: tools/call", "mCp-NaMe: echo"), status: ok, id: "7", ctype: jsonCT},
		{name: "R-HDR-06 repeated header with different values is -32020", raw: rawRequest(echo, "Mcp-Protocol-Version: "+Rev, "Mcp-Method: tools/call", "Mcp-Name: echo", "Mcp-Name: whoami"), status: bad, code: protocol.CodeHeaderMismatchError, id: "7", ctype: jsonCT},
		{name: "R-HDR-06 repeated Mcp-Method is -32020", raw: rawRequest(discover, "Mcp-Protocol-Version: "+Rev, "Mcp-Method: server/discover", "mcp-method: tools/list"), status: bad, code: protocol.CodeHeaderMismatchError, id: "1", ctype: jsonCT},
		{name: "R-META-01 modern headers but no _meta is -32602 (no bypass)", body: Rpc(1, protocol.MethodToolsCall, M{"name": "echo"}),
			mod: mods(SetHeader(server.HeaderProtocolVersion, Rev), SetHeader(server.HeaderName, "echo")), status: bad, code: protocol.CodeInvalidParamsError, id: "1", ctype: jsonCT},

		// Order of checks and versions (R-VER-*).
		{name: "A3 header version matches revision, body v999: -32020 not -32022", body: v999, mod: SetHeader(server.HeaderProtocolVersion, Rev), status: bad, code: protocol.CodeHeaderMismatchError, id: "4", ctype: jsonCT},
		{name: "R-VER-01/02 header and body v999 is 400 -32022 with supported and requested", body: v999, status: bad, code: protocol.CodeUnsupportedProtocolVersionError, id: "4", ctype: jsonCT,
			check: func(t *testing.T, _ *httptest.ResponseRecorder, w *Wire) {
				d := w.Data(t)
				if d["requested"] != "v999" || fmt.Sprint(d["supported"]) != "["+Rev+"]" {
					t.Errorf("data %v", d)
				}
			}},
		{name: "R-VER-01 unsupported version on tools/call is -32022", body: Rpc(4, protocol.MethodToolsCall, WithMeta(M{KeyVersion: "2025-11-25", KeyCaps: M{}}, M{"name": "echo"})), status: bad, code: protocol.CodeUnsupportedProtocolVersionError, id: "4", ctype: jsonCT},
		{name: "R-HTTP-15 unknown method is 404 -32601", body: Rpc(1, "tools/destroy", Params(nil)), status: http.StatusNotFound, code: protocol.CodeMethodNotFoundError, id: "1", ctype: jsonCT},
		{name: "R-HTTP-15 unknown method is 404 even without _meta", body: Rpc(1, "tools/destroy", nil), status: http.StatusNotFound, code: protocol.CodeMethodNotFoundError, id: "1", ctype: jsonCT},
		{name: "R-VER-05 initialize is 404 -32601 naming supported versions", body: Rpc(1, "initialize", M{"protocolVersion": "2025-11-25", "capabilities": M{}, "clientInfo": M{"name": "c", "version": "1"}}),
			mod: delHeader(server.HeaderProtocolVersion), status: http.StatusNotFound, code: protocol.CodeMethodNotFoundError, id: "1", ctype: jsonCT, check: wantData("supported", []any{Rev})},
		{name: "R-HTTP-15 ping is removed: 404", body: Rpc(1, "ping", Params(nil)), status: http.StatusNotFound, code: protocol.CodeMethodNotFoundError, id: "1", ctype: jsonCT},
		{name: "R-HTTP-15 logging/setLevel is removed: 404", body: Rpc(1, "logging/setLevel", Params(M{"level": "info"})), status: http.StatusNotFound, code: protocol.CodeMethodNotFoundError, id: "1", ctype: jsonCT},
		{name: "R-HTTP-15 resources/subscribe is removed: 404", body: Rpc(1, "resources/subscribe", Params(M{"uri": "file:///a.txt"})), status: http.StatusNotFound, code: protocol.CodeMethodNotFoundError, id: "1", ctype: jsonCT},
		{name: "R-HTTP-15 resources/unsubscribe is removed: 404", body: Rpc(1, "resources/unsubscribe", Params(M{"uri": "file:///a.txt"})), status: http.StatusNotFound, code: protocol.CodeMethodNotFoundError, id: "1", ctype: jsonCT},
		{name: "R-HTTP-15 a server-to-client method is 404", body: Rpc(1, "elicitation/create", Params(nil)), status: http.StatusNotFound, code: protocol.CodeMethodNotFoundError, id: "1", ctype: jsonCT},
		{name: "R-HTTP-15 a notification method sent as request is 404", body: Rpc(1, "notifications/progress", Params(nil)), status: http.StatusNotFound, code: protocol.CodeMethodNotFoundError, id: "1", ctype: jsonCT},
		{name: "R-COMP-03 completion/complete without the capability is 404", body: Rpc(1, protocol.MethodCompletionComplete, Params(M{"ref": M{"type": "ref/prompt", "name": "greet"}, "argument": M{"name": "who", "value": "A"}})),
			status: http.StatusNotFound, code: protocol.CodeMethodNotFoundError, id: "1", ctype: jsonCT},

		// Mcp-Param-* (R-HDR-07/08).
		{name: "R-HDR-07 argument present, header missing: -32020", body: hdr(M{"region": "eu"}), status: bad, code: protocol.CodeHeaderMismatchError, id: "9", ctype: jsonCT},
		{name: "R-HDR-07 argument and header match", body: hdr(M{"region": "eu"}), mod: SetHeader("Mcp-Param-Region", "eu"), status: ok, id: "9", ctype: jsonCT, check: wantText("ok")},
		{name: "R-HDR-07 mismatch: -32020", body: hdr(M{"region": "eu"}), mod: SetHeader("Mcp-Param-Region", "us"), status: bad, code: protocol.CodeHeaderMismatchError, id: "9", ctype: jsonCT},
		{name: "R-HDR-09 Mcp-Param value is case-sensitive", body: hdr(M{"region": "eu"}), mod: SetHeader("Mcp-Param-Region", "EU"), status: bad, code: protocol.CodeHeaderMismatchError, id: "9", ctype: jsonCT},
		{name: "R-HDR-08 integer 42 equals header 42.0", body: hdr(M{"count": 42}), mod: SetHeader("Mcp-Param-Count", "42.0"), status: ok, id: "9", ctype: jsonCT},
		{name: "R-HDR-08 integer 42 equals header 42", body: hdr(M{"count": 42}), mod: SetHeader("Mcp-Param-Count", "42"), status: ok, id: "9", ctype: jsonCT},
		{name: "R-HDR-08 integer 42 differs from 43", body: hdr(M{"count": 42}), mod: SetHeader("Mcp-Param-Count", "43"), status: bad, code: protocol.CodeHeaderMismatchError, id: "9", ctype: jsonCT},
		{name: "R-HDR-08 integer header not a number", body: hdr(M{"count": 42}), mod: SetHeader("Mcp-Param-Count", "forty-two"), status: bad, code: protocol.CodeHeaderMismatchError, id: "9", ctype: jsonCT},
		{name: "R-HDR-08 boolean true", body: hdr(M{"flag": true}), mod: SetHeader("Mcp-Param-Flag", "true"), status: ok, id: "9", ctype: jsonCT},
		{name: "R-HDR-08 boolean header 1 is not true", body: hdr(M{"flag": true}), mod: SetHeader("Mcp-Param-Flag", "1"), status: bad, code: protocol.CodeHeaderMismatchError, id: "9", ctype: jsonCT},
		{name: "R-HDR-07 argument absent: no header needed", body: hdr(M{}), status: ok, id: "9", ctype: jsonCT},
		{name: "R-HDR-07 arguments absent altogether: no header needed", body: Rpc(9, protocol.MethodToolsCall, Params(M{"name": "hdr"})), status: ok, id: "9", ctype: jsonCT},
		{name: "R-HDR-07 argument null: no header expected (schema then refuses null: isError)", body: hdr(M{"region": nil}), status: ok, id: "9", ctype: jsonCT,
			check: func(t *testing.T, _ *httptest.ResponseRecorder, w *Wire) {
				if !w.IsError() {
					t.Errorf("want isError for a null string argument: %s", w.Raw)
				}
			}},
		{name: "R-HDR-07 nested property through properties", body: hdr(M{"loc": M{"zone": "z1"}}), mod: SetHeader("Mcp-Param-Zone", "z1"), status: ok, id: "9", ctype: jsonCT},
		{name: "R-HDR-07 nested property header missing", body: hdr(M{"loc": M{"zone": "z1"}}), status: bad, code: protocol.CodeHeaderMismatchError, id: "9", ctype: jsonCT},
		{name: "R-HDR-05 sentinel-encoded Mcp-Param value", body: hdr(M{"region": "Zürich"}), mod: SetHeader("Mcp-Param-Region", Sentinel("Zürich")), status: ok, id: "9", ctype: jsonCT},
		{name: "R-HDR-06 Mcp-Param with invalid characters is -32020", body: hdr(M{"region": "Zürich"}), mod: SetHeader("Mcp-Param-Region", "Zürich"), status: bad, code: protocol.CodeHeaderMismatchError, id: "9", ctype: jsonCT},
		{name: "R-HDR-09 Mcp-Param header name is case-insensitive", raw: rawRequest(hdr(M{"region": "eu"}), "Mcp-Protocol-Version: "+Rev, "Mcp-Method: tools/call", "Mcp-Name: hdr", "mcp-param-REGION: eu"), status: ok, id: "9", ctype: jsonCT},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runHTTPCase(t, s, c) })
	}
}

// TestXMCPHeaderAnnotations checks that AddTool refuses every invalid
// x-mcp-header annotation and accepts valid ones (R-HDR-10).
func TestXMCPHeaderAnnotations(t *testing.T) {
	cases := []struct {
		name   string
		schema string
		ok     bool
	}{
		{"R-HDR-10 valid string", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}`, true},
		{"R-HDR-10 valid integer and boolean", `{"type":"object","properties":{"a":{"type":"integer","x-mcp-header":"A"},"b":{"type":"boolean","x-mcp-header":"B-2"}}}`, true},
		{"R-HDR-10 valid nested through properties", `{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Deep"}}}}}`, true},
		{"R-HDR-10 tchar punctuation is a token", "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"A!#$%&'*+.^_`|~-\"}}}", true},
		{"R-HDR-10 empty name", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`, false},
		{"R-HDR-10 name with space", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`, false},
		{"R-HDR-10 name with colon", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A:B"}}}`, false},
		{"R-HDR-10 name with CRLF", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A\r\nB"}}}`, false},
		{"R-HDR-10 non-ASCII name", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Ä"}}}`, false},
		{"R-HDR-10 name not a string", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":7}}}`, false},
		{"R-HDR-10 duplicate ignoring case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"REGION"}}}`, false},
		{"R-HDR-10 type number refused", `{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`, false},
		{"R-HDR-10 type object refused", `{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"A"}}}`, false},
		{"R-HDR-10 type array refused", `{"type":"object","properties":{"a":{"type":"array","x-mcp-header":"A"}}}`, false},
		{"R-HDR-10 no type refused", `{"type":"object","properties":{"a":{"x-mcp-header":"A"}}}`, false},
		{"R-HDR-10 under items refused", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`, false},
		{"R-HDR-10 under oneOf refused", `{"type":"object","oneOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, false},
		{"R-HDR-10 under $defs refused", `{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"A"}},"properties":{"a":{"$ref":"#/$defs/d"}}}`, false},
		{"R-HDR-10 under additionalProperties refused", `{"type":"object","additionalProperties":{"type":"string","x-mcp-header":"A"}}`, false},
		{"R-HDR-10 on the root refused", `{"type":"object","x-mcp-header":"A"}`, false},
		{"R-HDR-10 a property named x-mcp-header is not an annotation", `{"type":"object","properties":{"x-mcp-header":{"type":"string"}}}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(t)
			err := s.AddTool(ToolDef(t, `{"name":"t","inputSchema":`+c.schema+`}`), TextTool("x"))
			if (err == nil) != c.ok {
				t.Fatalf("AddTool error %v, want ok=%v", err, c.ok)
			}
			if err != nil {
				if _, listed, _ := s.Adapter().CheckToolCall("t", nil, nil); listed {
					t.Error("a refused tool was registered")
				}
			}
		})
	}
}

// TestHTTPDisconnectCancels checks R-HTTP-14: a client that closes the
// response cancels the handler's context, and nothing more is written for
// the request (no later notification, no response).
func TestHTTPDisconnectCancels(t *testing.T) {
	s := NewServer(t)
	started := make(chan struct{})
	cancelled := make(chan struct{})
	var lateProgress atomic.Bool
	AddTool(t, s, `{"name":"slow","inputSchema":{"type":"object"}}`,
		func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			r.Progress(ctx, 1, 0, "started") // starts the event stream
			close(started)
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				return server.TextResult("not cancelled"), nil
			}
			close(cancelled)
			lateProgress.Store(r.Progress(context.WithoutCancel(ctx), 2, 0, "after cancel"))
			return server.TextResult("too late"), nil
		})
	var mu sync.Mutex
	var afterCancel int // bytes written once the request context was done
	handlerDone := make(chan struct{})
	inner := Handler(s, streamhttp.Options{AllowedHosts: []string{"127.0.0.1"}})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(handlerDone)
		inner.ServeHTTP(&watchWriter{ResponseWriter: w, ctx: r.Context(), mu: &mu, late: &afterCancel}, r)
	}))
	defer hs.Close()

	ctx, cancel := context.WithCancel(context.Background())
	body := Rpc(1, protocol.MethodToolsCall, Params(M{"name": "slow", "_meta": Meta("progressToken", "p")}))
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL, bytes.NewReader(body))
	for k, v := range Mirror(body) {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	errc := make(chan error, 1)
	go func() {
		resp, err := hs.Client().Do(req)
		if err == nil {
			// Read the first event, then hang up.
			_, _ = bufio.NewReader(resp.Body).ReadString('\n')
			cancel()
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		errc <- err
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("handler did not start")
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("R-HTTP-14: the handler's context was not cancelled by the disconnect")
	}
	<-handlerDone
	<-errc
	mu.Lock()
	defer mu.Unlock()
	if afterCancel != 0 {
		t.Errorf("R-HTTP-14: %d bytes written after the disconnect", afterCancel)
	}
	if lateProgress.Load() {
		t.Error("R-HTTP-14: a notification was sent after cancellation")
	}
}

// watchWriter counts bytes written after ctx is done.
type watchWriter struct {
	http.ResponseWriter
	ctx  context.Context
	mu   *sync.Mutex
	late *int
}

func (w *watchWriter) Write(b []byte) (int, error) {
	if w.ctx.Err() != nil {
		w.mu.Lock()
		*w.late += len(b)
		w.mu.Unlock()
	}
	return w.ResponseWriter.Write(b)
}

func (w *watchWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// TestHTTPRealServer runs a few requests through net/http end to end, so
// that header canonicalisation and the Host check see what a client sends.
func TestHTTPRealServer(t *testing.T) {
	s := Fixture(t)
	hs := httptest.NewServer(Handler(s, streamhttp.Options{AllowedHosts: []string{"127.0.0.1"}}))
	defer hs.Close()
	body := Rpc(1, protocol.MethodToolsCall, Params(M{"name": "echo", "arguments": M{"text": "über"}}))
	req, _ := http.NewRequest(http.MethodPost, hs.URL, bytes.NewReader(body))
	req.Header["mcp-protocol-version"] = []string{Rev} // R-HDR-09: sent in lower case
	req.Header["mcp-method"] = []string{"tools/call"}
	req.Header["mcp-name"] = []string{"echo"}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	w := DecodeWire(t, b)
	if w.Text(t, 0) != "über" {
		t.Errorf("R-BASE-03: UTF-8 text did not round-trip: %s", b)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Error("R-HTTP-17: session id minted")
	}
}
