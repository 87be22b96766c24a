package legacy_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// lastEventIDRe is the grammar of docs/dual-era.md §4.8.
var lastEventIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]{12}\.(0|[1-9][0-9]{0,18})$`)

func TestParseLastEventID(t *testing.T) {
	for _, c := range []struct {
		in  string
		ok  bool
		seq int64
	}{
		{"AAAAAAAAAAAA.0", true, 0},
		{"Ab-_09zZ12xy.42", true, 42},
		{"AAAAAAAAAAAA.9223372036854775807", true, 9223372036854775807},
		{"AAAAAAAAAAAA.9223372036854775808", false, 0}, // over int64
		{"AAAAAAAAAAAA.9999999999999999999", false, 0},
		{"AAAAAAAAAAAA.01", false, 0},
		{"AAAAAAAAAAAA.", false, 0},
		{"AAAAAAAAAAAA.-1", false, 0},
		{"AAAAAAAAAAAA.+1", false, 0},
		{"AAAAAAAAAAAA.1 ", false, 0},
		{"AAAAAAAAAAA.1", false, 0},
		{"AAAAAAAAAAAAA.1", false, 0},
		{"AAAAAAAAAAA=.1", false, 0},
		{"AAAAAAAAAAA+.1", false, 0},
		{"abc", false, 0},
		{"x.1", false, 0},
		{"", false, 0},
		{strings.Repeat("A", 2048), false, 0},
		{"AAAAAAAAAAAA.1\x00", false, 0},
	} {
		stream, seq, ok := legacy.ParseLastEventID(c.in)
		if ok != c.ok || ok && (seq != c.seq || stream != c.in[:12]) {
			t.Errorf("legacy.ParseLastEventID(%q) = %q %d %v, want %d %v", c.in, stream, seq, ok, c.seq, c.ok)
		}
	}
}

// FuzzLastEventID: the parser accepts exactly the grammar of §4.8 (with a
// seq that fits an int64), never panics, and what it accepts formats back
// to the same string.
func FuzzLastEventID(f *testing.F) {
	for _, s := range []string{"AAAAAAAAAAAA.0", "Ab-_09zZ12xy.42", "abc", "x.1", "AAAAAAAAAAAA.01", "AAAAAAAAAAAA.9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stream, seq, ok := legacy.ParseLastEventID(s)
		if ok != (lastEventIDRe.MatchString(s) && (len(s) < 32 || s[13:] <= "9223372036854775807")) {
			t.Fatalf("legacy.ParseLastEventID(%q) ok=%v, grammar disagrees", s, ok)
		}
		if ok && legacy.EventID(stream, seq) != s {
			t.Fatalf("%q formats back as %q", s, legacy.EventID(stream, seq))
		}
	})
}

func TestStreamIDBinding(t *testing.T) {
	for _, standalone := range []bool{false, true} {
		id, err := legacy.NewSessionStreamID("key-one", standalone)
		if err != nil {
			t.Fatal(err)
		}
		if len(id) != 12 || !lastEventIDRe.MatchString(id+".0") {
			t.Fatalf("stream id %q is not 12 base64url characters", id)
		}
		sa, ok := legacy.CheckStreamID("key-one", id)
		if !ok || sa != standalone {
			t.Errorf("legacy.CheckStreamID(own) = %v %v, want %v true", sa, ok, standalone)
		}
		if _, ok := legacy.CheckStreamID("key-two", id); ok {
			t.Errorf("a stream id of another session verified")
		}
		// Flipping the kind bit breaks the tag.
		b := []byte(id)
		if b[0] == 'A' {
			b[0] = 'g'
		} else {
			b[0] = 'A'
		}
		if _, ok := legacy.CheckStreamID("key-one", string(b)); ok {
			t.Errorf("a tampered stream id verified")
		}
	}
	if _, ok := legacy.CheckStreamID("key-one", "AAAAAAAAAAAA"); ok {
		t.Error("a made-up stream id verified")
	}
}

// FuzzResumeGET: whatever Last-Event-ID a GET of a live session carries,
// the answer is 400 -32600 (malformed, another session's, events gone) or
// an event stream, never a panic or a hang (docs/dual-era.md §4.8, rows
// session/malformed Last-Event-ID and session/Last-Event-ID of another
// session).
func FuzzResumeGET(f *testing.F) {
	for _, s := range []string{"abc", "x.1", strings.Repeat("A", 2048), "AAAAAAAAAAAA.0", "AAAAAAAAAAAA.9223372036854775807", "\x00", ""} {
		f.Add(s)
	}
	fx := newLegacyFixture(f, legacy.ErasBoth)
	h := Handler(fx.Server, streamhttp.Options{})
	c := NewLegacyHTTP(f, h, "2025-11-25")
	c.Open("")
	f.Fuzz(func(t *testing.T, leid string) {
		if !utf8.ValidString(leid) || strings.ContainsAny(leid, "\r\n") {
			return // not a header value net/http would deliver
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/mcp", nil)
		r.Host = Loopback
		r.Header.Set(legacy.HeaderSessionID, c.Sid)
		r.Header["Last-Event-Id"] = []string{leid}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch ct := w.Header().Get("Content-Type"); {
		case ct == "text/event-stream" && w.Code == 200:
		case w.Code == 400 && DecodeWire(t, w.Body.Bytes()).Code() == -32600:
		default:
			t.Fatalf("Last-Event-ID %q: %d %s %s", leid, w.Code, ct, w.Body.Bytes())
		}
	})
}

func TestIsResponseData(t *testing.T) {
	for data, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                             true,
		`{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"x"}}`: true,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`:  false,
		`{"jsonrpc":"2.0","id":"mcpwire-x","method":"elicitation/create"}`: false,
		`{"jsonrpc":"2.0","id":1,"result":{"method":"inner"}}`:             true,
		``: false,
	} {
		if got := legacy.IsResponseData([]byte(data)); got != want {
			t.Errorf("legacy.IsResponseData(%s) = %v", data, got)
		}
	}
}
