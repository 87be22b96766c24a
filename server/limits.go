package server

import (
	"math"
	"net"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/protocol"
)

// Defaults of the limits that have no home elsewhere.
const (
	// DefaultMaxInputRequests bounds the input requests of one
	// input_required result and the inputResponses a retry may carry.
	DefaultMaxInputRequests = 16
	// DefaultMaxConcurrent bounds the requests one ServeStdio runs at once.
	DefaultMaxConcurrent = 64
	// DefaultMaxStreamLifetime bounds one listen stream; the client
	// reconnects after it ends.
	DefaultMaxStreamLifetime = time.Hour
	// DefaultMaxRateLimiters bounds how many principals or addresses the
	// rate limiter tracks at once.
	DefaultMaxRateLimiters = 10000
)

// CodeRateLimited is the JSON-RPC error code of a tools/call refused by
// the rate limiter (WithRateLimit) or of a stdio request over
// WithMaxConcurrent. It lies outside -32768..-32000, as application codes
// should (R-BASE-15); over HTTP it comes with status 429 and Retry-After.
const CodeRateLimited int64 = -31429

// DefaultDecodeLimits are the limits applied to every message the server
// reads (WithDecodeLimits): nesting 64 levels, strings of 1 MiB, 10,000
// object members.
func DefaultDecodeLimits() protocol.UnmarshalOptions {
	return protocol.UnmarshalOptions{MaxDepth: 64, MaxStringBytes: 1 << 20, MaxMembers: 10000}
}

// WithDecodeLimits sets the nesting, string-length and member-count limits
// of incoming messages; zero fields take protocol's defaults. A message
// over a limit is refused with -32600 before the rest of it is read.
func WithDecodeLimits(o protocol.UnmarshalOptions) Option { return func(c *config) { c.decode = o } }

// WithMaxInputRequests bounds the input requests of one input_required
// result and the inputResponses a retry may carry (default 16).
func WithMaxInputRequests(n int) Option { return func(c *config) { c.maxInputs = n } }

// WithMaxConcurrent bounds the requests one ServeStdio runs at once
// (default 64); a request over it is answered at once with CodeRateLimited.
func WithMaxConcurrent(n int) Option { return func(c *config) { c.maxConcurrent = n } }

// WithMaxStreamLifetime bounds one listen stream (default 1 hour; 0 or
// less: unbounded). It then ends as on Shutdown, and the client reconnects.
func WithMaxStreamLifetime(d time.Duration) Option { return func(c *config) { c.streamLifetime = d } }

// WithRateLimit limits tools/call to r calls per second with bursts of
// burst, per authenticated principal, or per client address when there is
// none (tools.mdx, security considerations: servers MUST rate limit tool
// invocations). A call over the limit gets CodeRateLimited (HTTP 429 with
// Retry-After). Off by default.
func WithRateLimit(r rate.Limit, burst int) Option {
	return func(c *config) { c.rate, c.burst = r, burst }
}

// limiters holds one token bucket per caller, forgetting idle ones.
type limiters struct {
	mu    sync.Mutex
	limit rate.Limit
	burst int
	max   int
	m     map[string]*limiterEntry
}

type limiterEntry struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiters(r rate.Limit, burst, max int) *limiters {
	return &limiters{limit: r, burst: burst, max: max, m: map[string]*limiterEntry{}}
}

// allow takes a token for key, or reports how long to wait for one.
func (l *limiters) allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.m[key]
	if e == nil {
		if len(l.m) >= l.max {
			l.sweep(now)
		}
		e = &limiterEntry{lim: rate.NewLimiter(l.limit, l.burst)}
		l.m[key] = e
	}
	e.seen = now
	res := e.lim.ReserveN(now, 1)
	if !res.OK() {
		return false, time.Second
	}
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

// sweep forgets callers whose bucket is full again (idle long enough), and
// if that is not enough, the least recently seen half.
func (l *limiters) sweep(now time.Time) {
	full := time.Duration(float64(l.burst) / float64(l.limit) * float64(time.Second))
	for k, e := range l.m {
		if now.Sub(e.seen) > full {
			delete(l.m, k)
		}
	}
	if len(l.m) < l.max {
		return
	}
	var cutoff time.Time
	for _, e := range l.m {
		if cutoff.IsZero() || e.seen.Before(cutoff) {
			cutoff = e.seen
		}
	}
	mid := cutoff.Add(now.Sub(cutoff) / 2)
	for k, e := range l.m {
		if e.seen.Before(mid) || e.seen.Equal(cutoff) {
			delete(l.m, k)
		}
	}
}

// rateLimited checks the caller's bucket for a tools/call.
func (s *Server) rateLimited(r *Request, remote string) *Error {
	if s.limiters == nil {
		return nil
	}
	key := "p:" + r.Principal
	if r.Principal == "" {
		key = "a:" + remoteHost(remote)
	}
	ok, wait := s.limiters.allow(key, time.Now())
	if ok {
		return nil
	}
	ms := int64(math.Ceil(float64(wait) / float64(time.Millisecond)))
	return &Error{Code: CodeRateLimited, Message: "Rate limit exceeded", Data: jsonText(map[string]int64{"retryAfterMs": ms})}
}

// remoteHost is the client address a rate limit keys on.
func remoteHost(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}
