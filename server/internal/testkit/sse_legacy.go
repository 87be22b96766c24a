package testkit

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server/legacy"
)

// legacyEvents reads a session's GET stream line by line.
type LegacyEvents struct {
	T    *testing.T
	Rev  string
	Resp *http.Response
	Ch   chan SseLine
	// lastID is the id of the last event read by next.
	LastID string
}

// sseLine is one meaningful line of the stream: kind is "data",
// "comment", "retry" or "eof".
type SseLine struct{ Kind, Value string }

// getServer serves h over a real connection until the test ends, after
// the streams it opened are closed (cleanups run last first).
func GetServer(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// sendOnSession sends req over srv with the client's headers, its
// session id and hdr (name, value, name, value ...) added, and closes the
// answer's body when the test ends.
func SendOnSession(t *testing.T, srv *httptest.Server, c *LegacyHTTP, req *http.Request, hdr ...string) *http.Response {
	t.Helper()
	all := append(append(append([]string{}, c.Hdr...), legacy.HeaderSessionID, c.Sid), hdr...)
	for i := 0; i+1 < len(all); i += 2 {
		req.Header.Add(all[i], all[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// openGET opens the session's stream over a real connection.
func OpenGET(t *testing.T, srv *httptest.Server, c *LegacyHTTP, hdr ...string) *LegacyEvents {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := SendOnSession(t, srv, c, req, hdr...)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" ||
		resp.Header.Get("Cache-Control") != "no-cache" || resp.Header.Get("X-Accel-Buffering") != "no" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET: %d %v %s", resp.StatusCode, resp.Header, b)
	}
	if sid := resp.Header.Get(legacy.HeaderSessionID); sid != "" {
		t.Errorf("the GET answer names the session: %q", sid)
	}
	return ReadLegacyEvents(t, c.Rev, resp)
}

// readLegacyEvents reads the lines of an event stream.
func ReadLegacyEvents(t *testing.T, rev string, resp *http.Response) *LegacyEvents {
	ev := &LegacyEvents{T: t, Rev: rev, Resp: resp, Ch: make(chan SseLine, 100)}
	go func() {
		br := bufio.NewReader(resp.Body)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				ev.Ch <- SseLine{Kind: "eof"}
				close(ev.Ch)
				return
			}
			l = strings.TrimRight(l, "\r\n")
			switch {
			case strings.HasPrefix(l, "data: "):
				ev.Ch <- SseLine{"data", strings.TrimPrefix(l, "data: ")}
			case strings.HasPrefix(l, ":"):
				ev.Ch <- SseLine{"comment", l}
			case strings.HasPrefix(l, "retry: "):
				ev.Ch <- SseLine{"retry", strings.TrimPrefix(l, "retry: ")}
			case strings.HasPrefix(l, "id: "):
				ev.Ch <- SseLine{"id", strings.TrimPrefix(l, "id: ")}
			case l == "" || strings.HasPrefix(l, "event: "):
			default:
				ev.Ch <- SseLine{"bad", l}
			}
		}
	}()
	return ev
}

// next returns the next line that is not a keep-alive comment, an id
// (kept in lastID) or the empty data of a priming event.
func (e *LegacyEvents) Next() SseLine {
	e.T.Helper()
	for {
		select {
		case l, ok := <-e.Ch:
			if !ok {
				return SseLine{Kind: "eof"}
			}
			if l.Kind == "id" {
				e.LastID = l.Value
				continue
			}
			if l.Kind == "comment" || l.Kind == "data" && l.Value == "" {
				continue
			}
			if l.Kind == "bad" {
				e.T.Fatalf("an unexpected SSE line %q", l.Value)
			}
			return l
		case <-time.After(5 * time.Second):
			e.T.Fatal("nothing on the stream within 5 s")
		}
	}
}

// message returns the next message, validated for the session's revision.
func (e *LegacyEvents) Message() *Wire {
	e.T.Helper()
	l := e.Next()
	if l.Kind != "data" {
		e.T.Fatalf("want a message, got %s %q", l.Kind, l.Value)
	}
	w := DecodeWire(e.T, []byte(l.Value))
	CheckLegacyMessage(e.T, e.Rev, w.Raw, "")
	if w.HasID() {
		e.T.Errorf("a response or request on the standalone stream: %s", w.Raw)
	}
	return w
}

// ended checks that the stream ends, after a retry field when retry is
// set, without one otherwise.
func (e *LegacyEvents) Ended(retry bool) {
	e.T.Helper()
	l := e.Next()
	if retry {
		if l.Kind != "retry" || l.Value != "1000" {
			e.T.Fatalf("want retry: 1000 before the end, got %s %q", l.Kind, l.Value)
		}
		l = e.Next()
	}
	if l.Kind != "eof" {
		e.T.Fatalf("want the end of the stream, got %s %q", l.Kind, l.Value)
	}
}
