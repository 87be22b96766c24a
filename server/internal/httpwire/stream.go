// Package httpwire is the mechanics of Streamable HTTP that package
// streamhttp and the legacy era's HTTP side (package legacy) share: the
// writer of one response (Stream: plain JSON, or an event stream with
// write deadlines, keep-alives and event ids), and what the streams of
// one endpoint share (Endpoint: the in-flight and body-memory budgets, the
// auth challenges, the modern pipeline).
package httpwire

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/jsonline"
)

// Endpoint is what the streams of one Streamable HTTP endpoint share: the
// server's adapter, the write timeout, the in-flight and body-memory
// budgets, what the auth challenges name, and the modern pipeline, which
// an era hands a modern message to.
type Endpoint struct {
	// Core is the server's adapter interface.
	Core *server.Adapter
	// WriteTimeout bounds each write of a response (0: no bound).
	WriteTimeout time.Duration
	// MaxConcurrent bounds the requests read or served at once, and
	// MaxBodyMemory the bytes their bodies hold (negative: no bound).
	MaxConcurrent int
	MaxBodyMemory int64
	// ResourceMetadataURL and Scopes are what a challenge names
	// (streamhttp.Options).
	ResourceMetadataURL string
	Scopes              []string
	// Modern serves a POST through the modern pipeline; version is its
	// MCP-Protocol-Version as the era read it (server.Exchange.ProtocolVersion).
	Modern func(r *http.Request, sse *Stream, body []byte, principal, client, version string)

	// Inflight counts the requests being read or served (MaxConcurrent),
	// BodyBytes the bytes their body buffers hold (MaxBodyMemory).
	Inflight  atomic.Int64
	BodyBytes atomic.Int64
}

// NewStream returns the writer of one response.
func (ep *Endpoint) NewStream(w http.ResponseWriter) *Stream { return &Stream{W: w, ep: ep} }

// ExpiredTokenChallenge is the WWW-Authenticate of server.ExpiredToken's
// 401, as the Verifier's own refusal of an expired token reads
// (R-AUTH-07).
func (ep *Endpoint) ExpiredTokenChallenge() string {
	return auth.Challenge(auth.ChallengeParams{ResourceMetadata: ep.ResourceMetadataURL, Scopes: ep.Scopes,
		Error: "invalid_token", ErrorDescription: "token expired"})
}

// InsufficientScopeChallenge is the WWW-Authenticate of a 403 for the
// scopes need (R-AUTH-08): every scope the operation needs, in one
// challenge.
func (ep *Endpoint) InsufficientScopeChallenge(need []string) string {
	return auth.Challenge(auth.ChallengeParams{ResourceMetadata: ep.ResourceMetadataURL, Scopes: need, Error: "insufficient_scope",
		ErrorDescription: "the access token lacks a scope this operation needs"})
}

// Tee is what a stream's messages go through when it has an event log
// (package legacy's resumable streams): every message sent through Notify
// goes to Send, to be numbered, stored and written with its id.
type Tee interface {
	Send(msg []byte) bool
	DisconnectForPolling(retry time.Duration) bool
}

// Stream turns the response into an event stream when the first
// notification arrives, and otherwise writes plain JSON. It also holds
// the request's place in its Handler's in-flight count and body budget
// (Enter, Hold, Leave), which the request's own goroutine alone uses.
type Stream struct {
	Mu sync.Mutex
	W  http.ResponseWriter
	ep *Endpoint
	// held is the bytes taken from h.BodyBytes.
	held int64
	// Started: the event stream has begun; Done: the response is over;
	// Broken: a write failed or timed out, nothing more is written;
	// noDeadline: the ResponseWriter has no write deadlines; counted: the
	// request is in h.Inflight.
	Started, Done, Broken, noDeadline, counted bool
	// Tee, when set, is the event log of a legacy session's stream
	// (package legacy): every message sent through Notify goes to it.
	Tee Tee
	// contentType backs the Content-Type header of a JSON answer: the
	// header's value slice, in the allocation of the stream.
	contentType [1]string
}

// Enter counts the request in flight, or reports false over
// MaxConcurrent.
func (s *Stream) Enter() bool {
	h := s.ep
	if h.MaxConcurrent < 0 {
		return true
	}
	if h.Inflight.Add(1) > int64(h.MaxConcurrent) {
		h.Inflight.Add(-1)
		return false
	}
	s.counted = true
	return true
}

// Hold takes n more bytes from the body budget, or reports false when
// they would exceed MaxBodyMemory.
func (s *Stream) Hold(n int64) bool {
	h := s.ep
	if h.MaxBodyMemory < 0 {
		return true
	}
	if h.BodyBytes.Add(n) > h.MaxBodyMemory {
		h.BodyBytes.Add(-n)
		return false
	}
	s.held += n
	return true
}

// Leave gives back the request's place in flight and its body bytes:
// when its response is written, or when it becomes a listen stream,
// which the listen stream caps count instead. It is idempotent.
func (s *Stream) Leave() {
	if s.counted {
		s.ep.Inflight.Add(-1)
		s.counted = false
	}
	if s.held != 0 {
		s.ep.BodyBytes.Add(-s.held)
		s.held = 0
	}
}

// Start begins the event stream: its headers, status 200.
func (s *Stream) Start() {
	h := s.W.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	s.W.WriteHeader(http.StatusOK)
	s.Started = true
}

// Write sends b on the started stream and flushes it, within the Write
// timeout. After a failure nothing more is written: the stream is
// broken (the connection is closed once the handler returns).
func (s *Stream) Write(b []byte) error {
	if s.Broken {
		return errStreamBroken
	}
	if err := s.deadline(); err != nil {
		s.Broken = true
		return err
	}
	_, err := s.W.Write(b)
	if err == nil {
		if err = http.NewResponseController(s.W).Flush(); errors.Is(err, http.ErrNotSupported) {
			err = nil
		}
	}
	if err != nil {
		s.Broken = true
	}
	return err
}

// deadline sets the write deadline of the next write (WriteTimeout from
// now), unless there is no timeout or the ResponseWriter has no deadlines.
func (s *Stream) deadline() error {
	d := s.ep.WriteTimeout
	if d <= 0 || s.noDeadline {
		return nil
	}
	// As http.ResponseController.SetWriteDeadline does, without its
	// allocation when the writer has no deadlines (a recorder).
	for w := s.W; ; {
		switch v := w.(type) {
		case interface{ SetWriteDeadline(time.Time) error }:
			return v.SetWriteDeadline(time.Now().Add(d))
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			s.noDeadline = true
			return nil
		}
	}
}

// errStreamBroken is what writes to a broken stream return.
var errStreamBroken = errors.New("httpwire: the event stream is broken")

// Event writes msg as one event of the started stream.
func (s *Stream) Event(msg []byte) error {
	msg = jsonline.Compact(msg) // one data line per event
	buf := make([]byte, 0, len(msg)+24)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(buf, msg...)
	buf = append(buf, "\n\n"...)
	return s.Write(buf)
}

// Notify sends a notification of the request (server.Notifier): through
// the Tee when there is one, else as an event, starting the stream at the
// first; false once the response is over or the stream broken.
func (s *Stream) Notify(msg []byte) bool {
	if s.Tee != nil {
		return s.Tee.Send(msg)
	}
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if s.Done || s.Broken {
		return false
	}
	if !s.Started {
		s.Start()
	}
	return s.Event(msg) == nil
}

// KeepAlive writes an SSE comment on a started stream (R-HTTP-13). It
// reports false when the client is gone or the stream is broken.
func (s *Stream) KeepAlive() bool {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if s.Done || s.Broken || !s.Started {
		return !s.Done && !s.Broken
	}
	return s.Write([]byte(": keep-alive\n\n")) == nil
}

// Finish writes the request's outcome and ends the response: 202 for a
// notification, nothing for a cancelled request, the last event of a
// started stream, or a JSON body with its status and challenge headers.
func (s *Stream) Finish(out server.Outcome) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.Done = true
	switch {
	case out.Cancelled:
		return // R-HTTP-14: nothing more for a cancelled request
	case out.Notification:
		s.W.WriteHeader(http.StatusAccepted)
	case s.Started:
		_ = s.Event(out.Body) // nothing on a broken stream
	default:
		// The canonical key: no conversion per response; the value slice
		// is the stream's own (one per response, as a new one would be).
		s.contentType[0] = "application/json"
		s.W.Header()["Content-Type"] = s.contentType[:]
		if out.RetryAfter > 0 {
			s.W.Header().Set("Retry-After", strconv.Itoa(out.RetryAfter))
		}
		if out.Scopes != nil {
			s.W.Header().Set("WWW-Authenticate", s.ep.InsufficientScopeChallenge(out.Scopes))
		}
		if out.Expired {
			s.W.Header().Set("WWW-Authenticate", s.ep.ExpiredTokenChallenge())
		}
		_ = s.deadline() // a client that does not read its response holds it WriteTimeout at most
		s.W.WriteHeader(out.Status)
		_, _ = s.W.Write(out.Body)
	}
}

// RetryField writes an event holding only the retry field, on a started
// stream: reconnect after d. It reports false when the stream is broken.
func (s *Stream) RetryField(d time.Duration) bool {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if s.Done || s.Broken || !s.Started {
		return false
	}
	return s.Write([]byte("retry: "+strconv.FormatInt(d.Milliseconds(), 10)+"\n\n")) == nil
}

// EventWithID writes one event with its id on the started stream.
func (s *Stream) EventWithID(id string, msg []byte) error {
	buf := make([]byte, 0, len(msg)+len(id)+32)
	buf = append(buf, "event: message\nid: "...)
	buf = append(buf, id...)
	buf = append(buf, "\ndata: "...)
	buf = append(buf, msg...)
	buf = append(buf, "\n\n"...)
	return s.Write(buf)
}

// DisconnectForPolling is what Request.DisconnectForPolling reaches: the
// writer's log, when the request's stream is resumable.
func (s *Stream) DisconnectForPolling(retry time.Duration) bool {
	if s.Tee == nil {
		return false
	}
	return s.Tee.DisconnectForPolling(retry)
}
