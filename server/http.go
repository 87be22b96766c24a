package server

import (
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/protocol"
)

// HTTPOptions configures the Streamable HTTP handler. The zero value is
// safe for a server bound to loopback.
type HTTPOptions struct {
	// MaxBodyBytes limits a request body (default 4 MiB); a larger body is
	// answered with 413.
	MaxBodyBytes int64
	// AllowedHosts lists the host names (without port) that the Host and
	// Origin headers may name; anything else gets 403 (R-HTTP-02, DNS
	// rebinding). Default: localhost, 127.0.0.1 and ::1.
	AllowedHosts []string
	// Authenticate, when set, runs before the body is read and returns the
	// authenticated principal, which binds sealed request state and is
	// available as Request.Principal. An error is answered with 401 and
	// the WWWAuthenticate challenge.
	Authenticate func(r *http.Request) (principal string, err error)
	// WWWAuthenticate is the challenge sent with 401 (default "Bearer").
	WWWAuthenticate string

	// Verifier, when set, makes the endpoint an OAuth 2.1 resource server
	// (R-AUTH-05): every request's Authorization header is read and its
	// Bearer token verified before the body is read, and the principal is
	// the token's (TokenInfo.Principal). No token: 401 with
	// `WWW-Authenticate: Bearer resource_metadata="…", scope="…"`; an
	// invalid one (an error wrapping auth.ErrInvalidToken): 401 with
	// error="invalid_token"; a malformed header: 400 with
	// error="invalid_request"; any other Verify error: 503 with
	// Retry-After (docs/auth.md). Handlers read the token with
	// Request.Token. Verifier and Authenticate together are a
	// configuration error: Handler panics.
	Verifier auth.Verifier
	// ResourceMetadataURL is the URL of the server's Protected Resource
	// Metadata (auth.MetadataURL), sent as resource_metadata in every
	// challenge (R-AUTH-03).
	ResourceMetadataURL string
	// Scopes are the scopes a 401's challenge advertises as scope=
	// (R-AUTH-04): what a client should ask for to use the server at all.
	// offline_access is never sent (R-AUTH-10).
	Scopes []string
	// ScopeSatisfies reports whether a token satisfies a scope an
	// operation needs (RequireScopes), for issuers with scope hierarchies
	// (R-AUTH-09: "files" implying "files:read", say). Default: the token
	// carries the scope itself (TokenInfo.HasScope). It must be safe for
	// concurrent use.
	ScopeSatisfies func(have *auth.TokenInfo, need string) bool
	// FilterListsByScope leaves out of tools/list, prompts/list,
	// resources/list and resources/templates/list the entries whose scopes
	// the request's token lacks (R-TOOL-02 lets lists vary by
	// authorization). Those list answers then depend on the token: their
	// cache hint is private, whatever WithCacheHint says, and a list
	// result cached as public elsewhere must not be used with this on.
	FilterListsByScope bool

	// WriteTimeout bounds each write of a response (default
	// DefaultStreamWriteTimeout, 30 s; negative: no bound): every event of
	// an event stream (a listen stream, or a response that turned into
	// one with a notification), keep-alive comments included, and the
	// body of a plain JSON response. A write that does not complete in
	// time, because the client stopped reading and the socket buffers are
	// full, ends the response: nothing more is sent and the connection is
	// closed, so that such a client holds its stream (and Shutdown), or a
	// request in flight, for at most this long. The deadline is set on the
	// connection before each write, as
	// http.ResponseController.SetWriteDeadline does: it replaces
	// http.Server's WriteTimeout for the rest of that response (a server
	// with long-lived streams needs no server-wide write timeout, and one
	// with a shorter one should set this option to match). A
	// ResponseWriter without deadlines (httptest.ResponseRecorder, a
	// wrapper without Unwrap) writes without one.
	WriteTimeout time.Duration
	// MaxConcurrent bounds the POSTs that this Handler reads and serves at
	// once (DefaultMaxHTTPConcurrent; negative: no bound), counted from
	// the moment their body starts being read until their response is
	// written. A listen stream leaves the count once it is accepted: the
	// listen stream caps count it instead (WithMaxListenStreams).
	MaxConcurrent int
	// MaxBodyMemory bounds the bytes that the bodies of those requests
	// hold in all (DefaultMaxBodyMemory; negative: no bound). A body counts
	// as its buffer grows with what arrives, not by its declared
	// Content-Length, so that a client that declares a large body and
	// stalls holds little of the budget; a body is read into at most
	// twice the bytes that arrived. Decoding a body and the handler's
	// work take memory in proportion to it, which this bound thus caps
	// as well, as a multiple.
	//
	// A request over MaxConcurrent or MaxBodyMemory is shed: it is
	// answered at once with 503 Service Unavailable, Retry-After: 1 and a
	// JSON-RPC error with no id and code CodeRateLimited (retryAfterMs
	// 1000), and the rest of its body is not read. 503 rather than 429:
	// the server is at capacity, through no fault of this client, and a
	// load balancer may send the retry to another instance; the code is
	// the one a client already backs off on.
	MaxBodyMemory int64
	// ClientKey, when set, names the client of a request without a
	// principal, in place of the connection's remote address: the key
	// that the rate limit (WithRateLimit), the task quota
	// (TaskConfig.MaxTasksPerPrincipal) and the listen stream cap per
	// client (WithMaxListenStreams) count by. A key that is an IP address
	// (with or without a port) is grouped as a remote address is (see
	// IPv6PrefixLen); an empty key falls back to the remote address. Use
	// it behind a reverse proxy, to read the address the proxy reports
	// (the last X-Forwarded-For entry your own proxy appended, say):
	// only behind a proxy you trust, which overwrites or appends to the
	// header, since a client sets X-Forwarded-For to whatever it likes
	// and would otherwise pick its own key. It runs for every request
	// without a principal, before the body is read, and must be safe for
	// concurrent use.
	ClientKey func(r *http.Request) string
	// IPv6PrefixLen is how many leading bits of an IPv6 client address
	// name the client for those limits (DefaultIPv6PrefixLen, 64: a client
	// rotating through the addresses of its /64 is one client; 128: each
	// address on its own). An IPv4-mapped IPv6 address counts as its IPv4
	// address, and an IPv4 address as itself.
	IPv6PrefixLen int
}

// Defaults of HTTPOptions.
const (
	// DefaultStreamWriteTimeout bounds one write to an event stream
	// (HTTPOptions.WriteTimeout).
	DefaultStreamWriteTimeout = 30 * time.Second
	// DefaultMaxHTTPConcurrent bounds the requests one Handler reads and
	// serves at once (HTTPOptions.MaxConcurrent).
	DefaultMaxHTTPConcurrent = 1024
	// DefaultMaxBodyMemory bounds the bytes that the bodies of those
	// requests hold in all (HTTPOptions.MaxBodyMemory): 16 bodies of the
	// largest size allowed by default, thousands of ordinary ones.
	// Decoding and validating a body takes several times its size, so
	// that requests in flight take some multiple of this at their peak.
	DefaultMaxBodyMemory = 64 << 20
)

// Handler returns the Streamable HTTP endpoint of s: POST only, one
// JSON-RPC message per request, answered with application/json or, when
// the handler sends progress or log notifications before its result, with
// a text/event-stream. Under ErasModern no session is ever created:
// Mcp-Session-Id and Last-Event-ID are ignored. When legacy clients are
// served (WithEras), initialize opens a session, and GET and DELETE serve
// it (see the package documentation, "Dual era").
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.AllowedHosts == nil {
		opts.AllowedHosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	hosts := make([]string, len(opts.AllowedHosts)) // compared with the lower-cased request host
	for i, h := range opts.AllowedHosts {
		hosts[i] = strings.ToLower(h)
	}
	opts.AllowedHosts = hosts
	if opts.Verifier != nil && opts.Authenticate != nil {
		panic("server: HTTPOptions.Verifier and HTTPOptions.Authenticate are exclusive: set one")
	}
	if opts.WWWAuthenticate == "" {
		opts.WWWAuthenticate = "Bearer"
	}
	switch {
	case opts.WriteTimeout == 0:
		opts.WriteTimeout = DefaultStreamWriteTimeout
	case opts.WriteTimeout < 0:
		opts.WriteTimeout = 0
	}
	if opts.MaxConcurrent == 0 {
		opts.MaxConcurrent = DefaultMaxHTTPConcurrent
	}
	if opts.MaxBodyMemory == 0 {
		opts.MaxBodyMemory = DefaultMaxBodyMemory
	}
	if opts.IPv6PrefixLen <= 0 {
		opts.IPv6PrefixLen = DefaultIPv6PrefixLen
	}
	return &httpHandler{s: s, opts: opts}
}

type httpHandler struct {
	s    *Server
	opts HTTPOptions

	inflight  atomic.Int64 // requests being read or served (MaxConcurrent)
	bodyBytes atomic.Int64 // bytes their body buffers hold (MaxBodyMemory)
}

// clientKey is the key of the client of a request without a principal
// (see HTTPOptions.ClientKey).
func (h *httpHandler) clientKey(r *http.Request) string {
	if h.opts.ClientKey != nil {
		if k := h.opts.ClientKey(r); k != "" {
			return clientKey(k, h.opts.IPv6PrefixLen)
		}
	}
	return clientKey(r.RemoteAddr, h.opts.IPv6PrefixLen)
}

// errBusy refuses a body over HTTPOptions.MaxBodyMemory.
var errBusy = errors.New("server: body memory budget exhausted")

// shed answers a request over MaxConcurrent or MaxBodyMemory (see
// HTTPOptions.MaxBodyMemory): 503 with Retry-After, nothing more read.
func (h *httpHandler) shed(w http.ResponseWriter, msg string) {
	w.Header().Set("Retry-After", "1")
	w.Header().Set("Connection", "close") // the rest of the body is not read
	h.writeError(w, http.StatusServiceUnavailable, RateLimited(msg, time.Second))
}

func (h *httpHandler) hostAllowed(hostport string) bool {
	host := hostport
	if strings.Contains(hostport, ":") {
		if hh, _, err := net.SplitHostPort(hostport); err == nil {
			host = hh
		}
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return slices.Contains(h.opts.AllowedHosts, strings.ToLower(host))
}

func (h *httpHandler) writeError(w http.ResponseWriter, status int, e *Error) {
	out := h.s.errorOutcome(nil, e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(out.Body)
}

// ServeHTTP implements http.Handler.
func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	dual := h.s.dual()
	if r.Method != http.MethodPost && (!dual || r.Method != http.MethodGet && r.Method != http.MethodDelete) {
		if dual {
			w.Header().Set("Allow", allowDual)
			h.refuseUnread(w, r, http.StatusMethodNotAllowed, &Error{Code: protocol.CodeInvalidRequestError, Message: "Method not allowed: the MCP endpoint accepts GET, POST and DELETE"})
			return
		}
		w.Header().Set("Allow", http.MethodPost)
		h.refuseUnread(w, r, http.StatusMethodNotAllowed, &Error{Code: protocol.CodeInvalidRequestError, Message: "Method not allowed: the MCP endpoint accepts POST only"})
		return
	}
	if !h.hostAllowed(r.Host) {
		h.refuseUnread(w, r, http.StatusForbidden, &Error{Code: protocol.CodeInvalidRequestError, Message: "Forbidden: Host not allowed"})
		return
	}
	// Every Origin is checked: the header has a single value, and a
	// proxy that reads another one than we do must not see a different
	// origin.
	for _, o := range r.Header["Origin"] {
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || u.Host == "" || !h.hostAllowed(u.Host) {
			h.refuseUnread(w, r, http.StatusForbidden, &Error{Code: protocol.CodeInvalidRequestError, Message: "Forbidden: Origin not allowed"})
			return
		}
	}
	var principal string
	if h.opts.Verifier != nil {
		var ok bool
		if r, ok = h.authorize(w, r); !ok {
			return
		}
		principal = AuthorizationFrom(r.Context()).Token.Principal()
	} else if h.opts.Authenticate != nil {
		p, err := h.opts.Authenticate(r)
		if err != nil {
			w.Header().Set("WWW-Authenticate", h.opts.WWWAuthenticate)
			h.refuseUnread(w, r, http.StatusUnauthorized, &Error{Code: protocol.CodeInvalidRequestError, Message: "Unauthorized"})
			return
		}
		principal = p
	}
	if r.Method != http.MethodPost {
		closeUnread(w, r)                   // a GET or DELETE body is never read
		h.serveSessionVerb(w, r, principal) // GET or DELETE, dual era only
		return
	}
	if ct := firstValue(r.Header, "Content-Type"); ct != "" && ct != "application/json" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			h.refuseUnread(w, r, http.StatusUnsupportedMediaType, &Error{Code: protocol.CodeInvalidRequestError, Message: "Unsupported Content-Type: want application/json"})
			return
		}
	}
	var client string
	if principal == "" {
		client = h.clientKey(r)
	}
	sse := &Stream{W: w, h: h}
	if !sse.Enter() {
		closeUnread(w, r)
		h.shed(w, "Server busy: too many requests in flight; retry later")
		return
	}
	defer sse.leave()
	body, err := h.readBody(w, r, sse)
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.Is(err, errBusy):
			h.shed(w, "Server busy: too many request bodies in memory; retry later")
		case errors.As(err, &mbe):
			h.writeError(w, http.StatusRequestEntityTooLarge, &Error{Code: protocol.CodeInvalidRequestError, Message: "Request body too large"})
		default:
			h.writeError(w, http.StatusBadRequest, &Error{Code: protocol.CodeParseError, Message: "Parse error: reading the body failed"})
		}
		return
	}
	if dual {
		h.serveDual(r, sse, body, principal, client)
		return
	}
	h.serveModern(r, sse, body, principal, client)
}

// refuseUnread answers a request refused before its body was read. When
// a body is coming, the connection closes after the answer: net/http
// would otherwise read up to 256 KiB of the unread body before it writes
// the answer, so that a client sending its body slowly would hold the
// refusal (and a connection) back for as long as it likes.
func (h *httpHandler) refuseUnread(w http.ResponseWriter, r *http.Request, status int, e *Error) {
	closeUnread(w, r)
	h.writeError(w, status, e)
}

// closeUnread asks for the connection to close after the answer when r
// has a body that was not read. Only HTTP/1 needs it: an HTTP/2 stream's
// unread body holds nothing back, and Go's HTTP/2 server would turn the
// header into a GOAWAY of the whole connection.
func closeUnread(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor == 1 && r.Body != nil && r.Body != http.NoBody {
		w.Header().Set("Connection", "close")
	}
}

// serveModern serves a POST through the modern pipeline, as a
// 2026-07-28-only server does.
func (h *httpHandler) serveModern(r *http.Request, sse *Stream, body []byte, principal, client string) {
	out := h.s.process(r.Context(), body, &Exchange{HTTP: true, Header: r.Header, RemoteAddr: r.RemoteAddr, Principal: principal, Notifier: sse, ClientKey: client})
	sse.Finish(out)
	h.s.recycle(out.buf)
}

// initialBodyBuffer is the most a body's buffer starts with, whatever
// Content-Length declares: the buffer doubles as bytes arrive, so a client
// that declares 4 MiB and stalls holds 16 KiB, not 4 MiB.
const initialBodyBuffer = 16 << 10

// readBody reads the request body up to MaxBodyBytes. A declared length
// over the limit is refused before anything is read; otherwise the buffer
// grows with what arrives (up to the declared length, when there is one),
// never ahead of it. Each growth is taken from the MaxBodyMemory budget
// first (held by sse until the request leaves): errBusy when it is spent.
func (h *httpHandler) readBody(w http.ResponseWriter, r *http.Request, sse *Stream) ([]byte, error) {
	limit := h.opts.MaxBodyBytes
	if r.ContentLength > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	body := r.Body
	want := r.ContentLength // -1: unknown; 0 is read as unknown too, so nothing sent is ignored
	if want <= 0 {
		body = http.MaxBytesReader(w, r.Body, limit)
		want = limit + 1 // read until EOF; MaxBytesReader refuses a byte past the limit
	}
	first := min(want, initialBodyBuffer)
	if !sse.Hold(first) {
		return nil, errBusy
	}
	buf := make([]byte, 0, first)
	for int64(len(buf)) < want {
		if len(buf) == cap(buf) {
			more := min(int64(cap(buf)), want-int64(cap(buf)))
			if !sse.Hold(more) {
				return nil, errBusy
			}
			grown := make([]byte, len(buf), int64(cap(buf))+more) // exactly what was taken (append would round up)
			copy(grown, buf)
			buf = grown
		}
		n, err := body.Read(buf[len(buf):min(int64(cap(buf)), want)])
		buf = buf[:len(buf)+n]
		switch {
		case int64(len(buf)) == want:
			return buf, nil // declared length reached (a streamed body cannot reach limit+1)
		case err == io.EOF && r.ContentLength <= 0:
			return buf, nil
		case err == io.EOF:
			return nil, io.ErrUnexpectedEOF // shorter than declared
		case err != nil:
			return nil, err
		}
	}
	return buf, nil
}

// Stream turns the response into an event stream when the first
// notification arrives, and otherwise writes plain JSON. It also holds
// the request's place in its Handler's in-flight count and body budget
// (enter, hold, leave), which the request's own goroutine alone uses.
type Stream struct {
	Mu sync.Mutex
	W  http.ResponseWriter
	h  *httpHandler
	// held is the bytes taken from h.bodyBytes.
	held int64
	// Started: the event stream has begun; Done: the response is over;
	// Broken: a write failed or timed out, nothing more is written;
	// noDeadline: the ResponseWriter has no write deadlines; counted: the
	// request is in h.inflight.
	Started, Done, Broken, noDeadline, counted bool
	// Tee, when set, is the event Tee of a legacy session's stream
	// (sse_resume.go): every message sent through notify goes to it, to be
	// numbered, stored and written with its id.
	Tee *streamLog
}

// Enter counts the request in flight, or reports false over
// MaxConcurrent.
func (s *Stream) Enter() bool {
	h := s.h
	if h.opts.MaxConcurrent < 0 {
		return true
	}
	if h.inflight.Add(1) > int64(h.opts.MaxConcurrent) {
		h.inflight.Add(-1)
		return false
	}
	s.counted = true
	return true
}

// Hold takes n more bytes from the body budget, or reports false when
// they would exceed MaxBodyMemory.
func (s *Stream) Hold(n int64) bool {
	h := s.h
	if h.opts.MaxBodyMemory < 0 {
		return true
	}
	if h.bodyBytes.Add(n) > h.opts.MaxBodyMemory {
		h.bodyBytes.Add(-n)
		return false
	}
	s.held += n
	return true
}

// leave gives back the request's place in flight and its body bytes:
// when its response is written, or when it becomes a listen stream,
// which the listen stream caps count instead. It is idempotent.
func (s *Stream) leave() {
	if s.counted {
		s.h.inflight.Add(-1)
		s.counted = false
	}
	if s.held != 0 {
		s.h.bodyBytes.Add(-s.held)
		s.held = 0
	}
}

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
	d := s.h.opts.WriteTimeout
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
var errStreamBroken = errors.New("server: the event stream is broken")

func (s *Stream) Event(msg []byte) error {
	msg = oneLine(msg) // one data line per event
	buf := make([]byte, 0, len(msg)+24)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(buf, msg...)
	buf = append(buf, "\n\n"...)
	return s.Write(buf)
}

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

// keepAlive writes an SSE comment on a started stream (R-HTTP-13). It
// reports false when the client is gone or the stream is broken.
func (s *Stream) keepAlive() bool {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if s.Done || s.Broken || !s.Started {
		return !s.Done && !s.Broken
	}
	return s.Write([]byte(": keep-alive\n\n")) == nil
}

func (s *Stream) Finish(out Outcome) {
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
		s.W.Header().Set("Content-Type", "application/json")
		if out.RetryAfter > 0 {
			s.W.Header().Set("Retry-After", strconv.Itoa(out.RetryAfter))
		}
		if out.Scopes != nil {
			s.W.Header().Set("WWW-Authenticate", s.h.insufficientScopeChallenge(out.Scopes))
		}
		if out.Expired {
			s.W.Header().Set("WWW-Authenticate", s.h.expiredTokenChallenge())
		}
		_ = s.deadline() // a client that does not read its response holds it WriteTimeout at most
		s.W.WriteHeader(out.Status)
		_, _ = s.W.Write(out.Body)
	}
}
