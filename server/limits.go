package server

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/validate"
)

// Defaults of the limits that have no home elsewhere.
const (
	// DefaultMaxInputRequests bounds the input requests of one
	// input_required result and the inputResponses a retry may carry.
	DefaultMaxInputRequests = 16
	// DefaultMaxConcurrent bounds the requests one stdio.Serve runs at once.
	DefaultMaxConcurrent = 64
	// DefaultMaxStreamLifetime bounds one listen stream; the client
	// reconnects after it ends.
	DefaultMaxStreamLifetime = time.Hour
	// DefaultMaxRateLimiters bounds how many principals or addresses the
	// rate limiter tracks at once.
	DefaultMaxRateLimiters = 10000
	// DefaultMaxNumberDigits bounds the digits of one number in tool
	// arguments (WithNumberLimits).
	DefaultMaxNumberDigits = validate.DefaultMaxDigits
	// DefaultMaxNumberExponent bounds the exponent, as written, of one
	// number in tool arguments (WithNumberLimits).
	DefaultMaxNumberExponent = validate.DefaultMaxExponent
	// DefaultMaxValidationWork bounds the estimated work of validating
	// one tools/call's arguments (WithMaxValidationWork).
	DefaultMaxValidationWork = validate.DefaultMaxWork
	// DefaultMaxArgumentValues bounds the values of one tools/call's
	// arguments (WithMaxArgumentValues).
	DefaultMaxArgumentValues = validate.DefaultMaxValues
)

// CodeRateLimited is the JSON-RPC error code of a request refused for
// now, to be retried later: a tools/call over the rate limit
// (WithRateLimit), the task quota (TaskConfig.MaxTasksPerPrincipal) or
// TaskConfig.MaxRunning, a listen stream over WithMaxListenStreams, a
// stdio request over WithMaxConcurrent. Its data carries retryAfterMs. It
// lies outside -32768..-32000, as application codes should (R-BASE-15);
// over HTTP it comes with status 429 and Retry-After, except for a
// request shed by the Handler over streamhttp.Options.MaxConcurrent or
// MaxBodyMemory, which gets 503 (the server is at capacity, not the
// client at fault).
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

// WithNumberLimits bounds the numbers of tool arguments: at most
// maxDigits digits (integer and fraction parts together, leading zeros
// included; default 100) and an exponent, as written, of at most
// ±maxExponent (default 400), written with at most 8 digits (leading
// zeros included: 1e0000000001 is refused, as every conversion to big.Rat
// reads the whole literal). Zero or less keeps a default; values above
// 500,000 count as 500,000 (beyond, big.Rat refuses some numbers, and the
// validator then crashes on them: the limits keep every such number out).
//
// The schema validator turns numbers into exact rationals (big.Rat) for
// integer types, minimum and maximum, multipleOf, enum and const: 1e999999
// becomes a million-digit integer, some 20 ms of CPU each, and two hundred
// of them fit in 2 KB. The limits are applied where the arguments become
// the validator's input, before anything converts a number, to every
// number of the arguments whether or not its place is validated. A number
// over them is invalid arguments: a tool execution error naming its path
// (after the Mcp-Param-* headers are compared), and the handler does not
// run. The same limits apply to structuredContent checked against an
// outputSchema (a result over them is -32603, logged).
//
// The defaults accept every float64 a JSON encoder writes (at most 17
// significant digits; plain forms such as 0.000001234… or 1e20 written
// out stay under 30 digits; exponents reach ±324) and integers of up to
// 332 bits; 1e400 still reaches the schema, which judges it. At the
// limits one number costs the validator some 5 µs.
//
// This is not WithDecodeLimits: that bounds the protocol decoder, which
// never converts a number to a big value, and what it refuses is -32600,
// while arguments over these limits are a tool error.
func WithNumberLimits(maxDigits, maxExponent int) Option {
	return func(c *config) { c.maxNumberDigits, c.maxNumberExponent = maxDigits, maxExponent }
}

// WithMaxValidationWork bounds the work of validating one tools/call's
// arguments against the tool's inputSchema (default 10,000,000 units; zero
// or less keeps it). Before the validator runs, the runtime walks the
// arguments along the compiled schema and adds up what validating them
// takes: every subschema applied to every value, as often as it is
// reached (two branches of an allOf that both recurse into an array's
// items double the work at each level of the instance), a true or false
// subschema too, and every member of an object for each schema applied
// to the object (the validator walks them all, whatever applies to
// them), with keywords weighted by what they cost: big.Rat arithmetic
// for numbers (more for longer literals and larger exponents), patterns
// per 64 bytes of a string or member name, weighed by the size of their
// compiled program (Go's regexp costs up to an instruction per byte; a
// name is matched twice, by the walk and by the validator), the failed
// branches of anyOf and oneOf, uniqueItems over the array's contents and
// enum and const over the value up to the set's largest value (the
// runtime checks these three itself, in linear time, in place of the
// validator), the sets of members and items unevaluatedProperties and
// unevaluatedItems keep, and formats when WithFormatAssertion makes them
// assertions (regex per byte). Over the bound, the arguments are refused
// as too large to validate, a tool execution error, and the validator
// does not run.
//
// A unit is some 2 to 55 ns of the validator's time, depending on the
// keywords (BenchmarkValidationWork on an idle core, over its shapes; up to 95
// ns on a busy machine), so the default caps the validation of one call
// at about half a second (a second on a busy machine). It
// accepts an array of 10,000 records of ten members, with a pattern, an
// enum and a nested array (about 5,400,000 units; such a body also needs
// WithDecodeLimits to allow 100,000 members). A tool whose inputSchema is
// a flat object of primitives is checked by the runtime itself, in linear
// time, and is not subject to this bound.
//
// The validator (santhosh-tekuri/jsonschema) cannot be interrupted once it
// runs: this bound is what keeps its work in proportion. Parsing the
// arguments and the walk stop when the request's context ends, and the
// context is checked again just before the validator starts.
func WithMaxValidationWork(n int64) Option { return func(c *config) { c.maxWork = n } }

// WithMaxArgumentValues bounds the values of one tools/call's arguments:
// object members and array elements, at every depth, the arguments object
// itself included (default 200,000; zero or less keeps it). To be
// validated, arguments become a tree of values, some 30 bytes each and
// 350 for an object of one member (a 4 MiB array of 1s held 113 MiB of
// heap); WithDecodeLimits bounds the members of a message, not the
// elements of its arrays. The values are counted in a pass over the text
// before any is built. Over the bound, the arguments are refused, a tool
// execution error naming the limit (after the Mcp-Param-* headers are
// compared), and the handler does not run; an answer to a task's input
// request over it is -32602. The default accepts 10,000 records of ten
// members with a nested array of two (130,001 values; that body also
// needs WithDecodeLimits to allow 100,000 members).
func WithMaxArgumentValues(n int) Option { return func(c *config) { c.maxValues = n } }

// valueLimits returns the argument limits of s: the number limits, the
// values (WithMaxArgumentValues) and the validation work
// (WithMaxValidationWork), each a default when not set.
func (s *Server) valueLimits() validate.Limits {
	l := validate.DefaultLimits()
	if s.cfg.maxValues > 0 {
		l.MaxValues = s.cfg.maxValues
	}
	if s.cfg.maxNumberDigits > 0 {
		l.MaxDigits = min(s.cfg.maxNumberDigits, validate.MaxNumberLimit)
	}
	if s.cfg.maxNumberExponent > 0 {
		l.MaxExponent = min(s.cfg.maxNumberExponent, validate.MaxNumberLimit)
	}
	if s.cfg.maxWork > 0 {
		l.MaxWork = s.cfg.maxWork
	}
	return l
}

// WithMaxInputRequests bounds the input requests of one input_required
// result and the inputResponses a retry may carry (default 16).
func WithMaxInputRequests(n int) Option { return func(c *config) { c.maxInputs = n } }

// WithMaxConcurrent bounds the requests one stdio.Serve runs at once
// (default 64); a request over it is answered at once with CodeRateLimited.
func WithMaxConcurrent(n int) Option { return func(c *config) { c.maxConcurrent = n } }

// WithMaxStreamLifetime bounds one listen stream (default 1 hour; 0 or
// less: unbounded). It then ends as on Shutdown, and the client reconnects.
func WithMaxStreamLifetime(d time.Duration) Option { return func(c *config) { c.streamLifetime = d } }

// WithRateLimit limits tools/call to r calls per second with bursts of
// burst, per authenticated principal, or per client address when there is
// none (an IPv6 address by its /64: see streamhttp.Options.IPv6PrefixLen and
// streamhttp.Options.ClientKey) (tools.mdx, security considerations: servers MUST rate limit tool
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

// rateLimited checks the caller's bucket for a tools/call; client is the
// client key of a request without a principal (see clientKey).
func (s *Server) rateLimited(r *Request, client string) *Error {
	if s.limiters == nil {
		return nil
	}
	key := "p:" + r.Principal
	if r.Principal == "" {
		key = "a:" + client
	}
	ok, wait := s.limiters.allow(key, time.Now())
	if ok {
		return nil
	}
	ms := int64(math.Ceil(float64(wait) / float64(time.Millisecond)))
	return RateLimited("Rate limit exceeded", time.Duration(ms)*time.Millisecond) // wait rounded up to the millisecond
}

// DefaultMaxURIBytes bounds the URI of a resources/read and of each entry
// of a listen filter's resourceSubscriptions: RFC 9110 asks servers to
// support at least 8000 octets, and matching a URI against a template
// costs in proportion to its length.
const DefaultMaxURIBytes = 8 << 10

// WithMaxURIBytes sets the longest resource URI a request may name
// (default DefaultMaxURIBytes; zero or less keeps it). A resources/read
// over it, or a subscriptions/listen naming one, is -32602.
func WithMaxURIBytes(n int) Option { return func(c *config) { c.maxURIBytes = n } }

// maxURIBytes is the URI limit in force.
func (s *Server) maxURIBytes() int {
	if s.cfg.maxURIBytes > 0 {
		return s.cfg.maxURIBytes
	}
	return DefaultMaxURIBytes
}

// orDefault is an option's value: def for zero, 0 (no cap) for negative.
func orDefault(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}
