package testkit

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// sseStream reads the events of one streamed response line by line.
type SseStream struct {
	T    *testing.T
	R    *bufio.Reader
	Body io.Closer
}

// openListenWith opens a listen stream whose params are p; mod may change
// the request before it is sent (an X-User header, for instance).
func OpenListenWith(t *testing.T, srv *httptest.Server, id any, p M, mod func(*http.Request)) *SseStream {
	t.Helper()
	body := Rpc(id, "subscriptions/listen", p)
	req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range Mirror(body) {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	if mod != nil {
		mod(req)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("listen: status %d, %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	if resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Error("listen stream without X-Accel-Buffering: no (R-HTTP-12)")
	}
	st := &SseStream{T: t, R: bufio.NewReader(resp.Body), Body: resp.Body}
	t.Cleanup(func() { resp.Body.Close() })
	return st
}

// next returns the next data message, or the comment text prefixed "#".
func (s *SseStream) Next(timeout time.Duration) (string, bool) {
	type line struct {
		S   string
		Err error
	}
	ch := make(chan line, 1)
	go func() {
		for {
			l, err := s.R.ReadString('\n')
			if err != nil {
				ch <- line{"", err}
				return
			}
			l = strings.TrimRight(l, "\r\n")
			switch {
			case strings.HasPrefix(l, "data: "):
				ch <- line{strings.TrimPrefix(l, "data: "), nil}
				return
			case strings.HasPrefix(l, ":"):
				ch <- line{"#" + l, nil}
				return
			}
		}
	}()
	select {
	case l := <-ch:
		return l.S, l.Err == nil
	case <-time.After(timeout):
		return "", false
	}
}

func (s *SseStream) Message(timeout time.Duration) *Wire {
	s.T.Helper()
	for {
		d, ok := s.Next(timeout)
		if !ok {
			s.T.Fatal("no message on the listen stream")
		}
		if strings.HasPrefix(d, "#") {
			continue
		}
		return DecodeWire(s.T, []byte(d))
	}
}

func WaitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
