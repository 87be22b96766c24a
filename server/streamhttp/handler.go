// Package streamhttp serves an MCP server over Streamable HTTP
// (basic/transports/streamable-http.mdx): Handler returns the endpoint,
// POST for 2026-07-28 requests, answered with application/json or an
// event stream. Clients of 2024-11-05 to 2025-11-25 are served on the
// same URL by the legacy era (package legacy, Options.Legacy): sessions
// opened with initialize, their GET streams and DELETE. With
// Options.Verifier the endpoint is an OAuth 2.1 resource server
// (docs/auth.md).
//
//	http.Handle("/mcp", streamhttp.Handler(s, streamhttp.Options{}))
package streamhttp

import (
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/httpwire"
	"github.com/mcpwire/mcpwire/server/legacy"
)

// Options configures the Streamable HTTP handler. The zero value is
// safe for a server bound to loopback.
type Options struct {
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

	// Legacy is the era that serves the clients of 2024-11-05 to
	// 2025-11-25 on this endpoint (package legacy), and says which eras
	// it serves. Nil: legacy.Default(s), both eras with the defaults of
	// legacy.Config. Share one Era between the Handlers (and the stdio
	// stream) of a Server so that they share its sessions.
	Legacy *legacy.Era
}

// Defaults of Options.
const (
	// DefaultStreamWriteTimeout bounds one write to an event stream
	// (Options.WriteTimeout).
	DefaultStreamWriteTimeout = 30 * time.Second
	// DefaultMaxHTTPConcurrent bounds the requests one Handler reads and
	// serves at once (Options.MaxConcurrent).
	DefaultMaxHTTPConcurrent = 1024
	// DefaultMaxBodyMemory bounds the bytes that the bodies of those
	// requests hold in all (Options.MaxBodyMemory): 16 bodies of the
	// largest size allowed by default, thousands of ordinary ones.
	// Decoding and validating a body takes several times its size, so
	// that requests in flight take some multiple of this at their peak.
	DefaultMaxBodyMemory = 64 << 20
	// DefaultIPv6PrefixLen is how many leading bits of an IPv6 client
	// address name the client (Options.IPv6PrefixLen): a /64, the
	// smallest network an ISP hands a subscriber, so that a client cannot
	// escape a limit by rotating through the addresses of its own network.
	DefaultIPv6PrefixLen = 64
)

// Handler returns the Streamable HTTP endpoint of s: POST only, one
// JSON-RPC message per request, answered with application/json or, when
// the handler sends progress or log notifications before its result, with
// a text/event-stream. Clients of 2024-11-05 to 2025-11-25 are served on
// the same endpoint by the era opts.Legacy (a new legacy.New(s,
// legacy.Config{}) when nil): initialize opens a session, and GET and
// DELETE serve it (package legacy). Under legacy.ErasModern no session is
// ever created: Mcp-Session-Id and Last-Event-ID are ignored.
func Handler(s *server.Server, opts Options) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = server.DefaultMaxBodyBytes
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
		panic("streamhttp: Options.Verifier and Options.Authenticate are exclusive: set one")
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
	era := opts.Legacy
	if era == nil {
		era = legacy.Default(s)
	}
	h := &httpHandler{core: s.Adapter(), opts: opts}
	h.ep = &httpwire.Endpoint{Core: h.core, WriteTimeout: opts.WriteTimeout, MaxConcurrent: opts.MaxConcurrent, MaxBodyMemory: opts.MaxBodyMemory,
		ResourceMetadataURL: opts.ResourceMetadataURL, Scopes: opts.Scopes, Modern: h.serveModern}
	if era.Dual() {
		h.era, h.versions = era.HTTP(h.ep), era.Versions()
	}
	return h
}

type httpHandler struct {
	core *server.Adapter
	opts Options
	ep   *httpwire.Endpoint
	// era serves the clients of earlier revisions (nil under
	// legacy.ErasModern); versions is what the endpoint serves, for
	// server/discover and -32022 (nil: 2026-07-28 only).
	era      *legacy.HTTP
	versions []string
}

// clientKey is the key of the client of a request without a principal
// (see Options.ClientKey).
func (h *httpHandler) clientKey(r *http.Request) string {
	if h.opts.ClientKey != nil {
		if k := h.opts.ClientKey(r); k != "" {
			return clientKey(k, h.opts.IPv6PrefixLen)
		}
	}
	return clientKey(r.RemoteAddr, h.opts.IPv6PrefixLen)
}

// errBusy refuses a body over Options.MaxBodyMemory.
var errBusy = errors.New("streamhttp: body memory budget exhausted")

// shed answers a request over MaxConcurrent or MaxBodyMemory (see
// Options.MaxBodyMemory): 503 with Retry-After, nothing more read.
func (h *httpHandler) shed(w http.ResponseWriter, msg string) {
	w.Header().Set("Retry-After", "1")
	w.Header().Set("Connection", "close") // the rest of the body is not read
	h.writeError(w, http.StatusServiceUnavailable, server.RateLimited(msg, time.Second))
}

func (h *httpHandler) hostAllowed(hostport string) bool {
	if plainHost(hostport) {
		return slices.Contains(h.opts.AllowedHosts, hostport) // what the general case below finds
	}
	host := hostport
	if strings.Contains(hostport, ":") {
		if hh, _, err := net.SplitHostPort(hostport); err == nil {
			host = hh
		}
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return slices.Contains(h.opts.AllowedHosts, strings.ToLower(host))
}

// plainHost reports a host without a port, brackets, upper-case letters
// or bytes outside ASCII ("localhost"): hostAllowed compares it as it is,
// since no port is split off, nothing trimmed, and lower-casing changes
// nothing (TestHostAllowedFastPath compares the two).
func plainHost(hostport string) bool {
	// The bytes below 0x80 that are not plain, one bit each: ':' in the
	// first word, '[', ']' and 'A' to 'Z' in the second.
	special := [2]uint64{1 << ':', 1<<('['-64) | 1<<(']'-64) | (1<<26-1)<<('A'-64)}
	for i := 0; i < len(hostport); i++ {
		if c := hostport[i]; c >= 0x80 || special[c>>6]>>(c&63)&1 != 0 {
			return false
		}
	}
	return true
}

func (h *httpHandler) writeError(w http.ResponseWriter, status int, e *server.Error) {
	out := h.core.ErrorOutcome(nil, e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(out.Body)
}

// ServeHTTP implements http.Handler.
func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	dual := h.era != nil
	if r.Method != http.MethodPost && (!dual || r.Method != http.MethodGet && r.Method != http.MethodDelete) {
		if dual {
			w.Header().Set("Allow", "GET, POST, DELETE")
			h.refuseUnread(w, r, http.StatusMethodNotAllowed, &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Method not allowed: the MCP endpoint accepts GET, POST and DELETE"})
			return
		}
		w.Header().Set("Allow", http.MethodPost)
		h.refuseUnread(w, r, http.StatusMethodNotAllowed, &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Method not allowed: the MCP endpoint accepts POST only"})
		return
	}
	if !h.hostAllowed(r.Host) {
		h.refuseUnread(w, r, http.StatusForbidden, &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Forbidden: Host not allowed"})
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
			h.refuseUnread(w, r, http.StatusForbidden, &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Forbidden: Origin not allowed"})
			return
		}
	}
	var principal string
	if h.opts.Verifier != nil {
		var ok bool
		if r, ok = h.authorize(w, r); !ok {
			return
		}
		principal = server.AuthorizationFrom(r.Context()).Token.Principal()
	} else if h.opts.Authenticate != nil {
		p, err := h.opts.Authenticate(r)
		if err != nil {
			w.Header().Set("WWW-Authenticate", h.opts.WWWAuthenticate)
			h.refuseUnread(w, r, http.StatusUnauthorized, &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Unauthorized"})
			return
		}
		principal = p
	}
	if r.Method != http.MethodPost {
		closeUnread(w, r)                // a GET or DELETE body is never read
		h.era.ServeVerb(w, r, principal) // GET or DELETE, dual era only
		return
	}
	if ct := contentType(r.Header); ct != "" && ct != "application/json" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			h.refuseUnread(w, r, http.StatusUnsupportedMediaType, &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Unsupported Content-Type: want application/json"})
			return
		}
	}
	var client string
	if principal == "" {
		client = h.clientKey(r)
	}
	sse := h.ep.NewStream(w)
	if !sse.Enter() {
		closeUnread(w, r)
		h.shed(w, "Server busy: too many requests in flight; retry later")
		return
	}
	defer sse.Leave()
	body, err := h.readBody(w, r, sse)
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.Is(err, errBusy):
			h.shed(w, "Server busy: too many request bodies in memory; retry later")
		case errors.As(err, &mbe):
			h.writeError(w, http.StatusRequestEntityTooLarge, &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Request body too large"})
		default:
			h.writeError(w, http.StatusBadRequest, &server.Error{Code: protocol.CodeParseError, Message: "Parse error: reading the body failed"})
		}
		return
	}
	if dual {
		h.era.ServePOST(r, sse, body, principal, client)
		return
	}
	h.serveModern(r, sse, body, principal, client, "")
}

// refuseUnread answers a request refused before its body was read. When
// a body is coming, the connection closes after the answer: net/http
// would otherwise read up to 256 KiB of the unread body before it writes
// the answer, so that a client sending its body slowly would hold the
// refusal (and a connection) back for as long as it likes.
func (h *httpHandler) refuseUnread(w http.ResponseWriter, r *http.Request, status int, e *server.Error) {
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
// 2026-07-28-only server does; version is the MCP-Protocol-Version the
// era read ("": none read).
func (h *httpHandler) serveModern(r *http.Request, sse *httpwire.Stream, body []byte, principal, client, version string) {
	out := h.core.Serve(r.Context(), body, &server.Exchange{HTTP: true, Header: r.Header, RemoteAddr: r.RemoteAddr, Principal: principal, Notifier: sse, ClientKey: client, Versions: h.versions,
		ProtocolVersion: version})
	sse.Finish(out)
	h.core.Release(out)
}

// contentType is the request's first Content-Type header, or "".
func contentType(h http.Header) string {
	if vs := h["Content-Type"]; len(vs) > 0 {
		return vs[0]
	}
	return ""
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
func (h *httpHandler) readBody(w http.ResponseWriter, r *http.Request, sse *httpwire.Stream) ([]byte, error) {
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
