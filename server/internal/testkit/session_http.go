package testkit

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
)

// xUser authenticates by the X-User header, for principal binding.
func XUser(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }

// legacyHTTP is a legacy client of Streamable HTTP: it keeps its session
// id and, from 2025-06-18 on, sends MCP-Protocol-Version, as the TS SDK
// 1.x client does.
type LegacyHTTP struct {
	T   testing.TB
	H   http.Handler
	Rev string
	Sid string
	Hdr []string // sent with every request (X-User)
}

func NewLegacyHTTP(t testing.TB, h http.Handler, rev string, hdr ...string) *LegacyHTTP {
	return &LegacyHTTP{T: t, H: h, Rev: rev, Hdr: hdr}
}

// send sends a request with the client's headers, then hdr.
func (c *LegacyHTTP) Send(verb, body string, hdr ...string) *httptest.ResponseRecorder {
	c.T.Helper()
	all := append([]string{}, c.Hdr...)
	if c.Sid != "" {
		all = append(all, legacy.HeaderSessionID, c.Sid)
		if c.Rev >= "2025-06-18" {
			all = append(all, server.HeaderProtocolVersion, c.Rev)
		}
	}
	return EraRequest(c.T, c.H, verb, body, append(all, hdr...)...)
}

var SessionIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// initialize opens the session and keeps its id.
func (c *LegacyHTTP) Initialize(caps string) *Wire {
	c.T.Helper()
	rec := c.Send(http.MethodPost, EraBody(0, "initialize", InitParams(c.Rev, caps)))
	sid := rec.Header().Get(legacy.HeaderSessionID)
	if rec.Code != 200 || !SessionIDRE.MatchString(sid) {
		c.T.Fatalf("initialize: %d, Mcp-Session-Id %q: %s", rec.Code, sid, rec.Body.Bytes())
	}
	w := Single(c.T, rec)
	CheckLegacyMessage(c.T, c.Rev, w.Raw, "initialize")
	c.Sid = sid
	return w
}

// open initializes and sends notifications/initialized.
func (c *LegacyHTTP) Open(caps string) {
	c.T.Helper()
	c.Initialize(caps)
	if rec := c.Send(http.MethodPost, EraNote("notifications/initialized", "")); rec.Code != 202 || rec.Body.Len() != 0 {
		c.T.Fatalf("notifications/initialized: %d %s", rec.Code, rec.Body.Bytes())
	}
}

// call sends a request and returns its response, the notifications sent
// before it (SSE), and the recorder. Every message is validated for the
// client's revision, and no answer but initialize's names the session.
func (c *LegacyHTTP) Call(id any, method, params string, hdr ...string) (*Wire, []*Wire, *httptest.ResponseRecorder) {
	c.T.Helper()
	rec := c.Send(http.MethodPost, EraBody(id, method, params), hdr...)
	if sid := rec.Header().Get(legacy.HeaderSessionID); sid != "" {
		c.T.Errorf("%s: the answer names the session (%q); only initialize's may (§4.5)", method, sid)
	}
	var msgs []*Wire
	switch ct := rec.Header().Get("Content-Type"); ct {
	case "application/json":
		msgs = []*Wire{DecodeWire(c.T, rec.Body.Bytes())}
	case "text/event-stream":
		msgs = SseMessages(c.T, rec.Body.Bytes())
	default:
		c.T.Fatalf("%s: %d Content-Type %q: %q", method, rec.Code, ct, rec.Body.Bytes())
	}
	for _, m := range msgs {
		CheckLegacyMessage(c.T, c.Rev, m.Raw, method)
	}
	last := msgs[len(msgs)-1]
	if last.Method() != "" {
		c.T.Fatalf("%s: the stream did not end with the response: %s", method, rec.Body.Bytes())
	}
	return last, msgs[:len(msgs)-1], rec
}
