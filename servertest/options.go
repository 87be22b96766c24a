package servertest

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// PrincipalHeader is the request header that carries the principal set
// with WithPrincipal. The Client's handler is built with an
// streamhttp.Options.Authenticate that returns this header's value, so that
// Request.Principal in a handler is the principal of the call. It is a
// test-only header: a production handler must never trust it.
const PrincipalHeader = "X-Servertest-Principal"

// DefaultMaxRounds is the default number of input_required rounds a call
// answers before giving up (WithMaxRounds).
const DefaultMaxRounds = 10

// ElicitFunc answers an elicitation/create input request.
type ElicitFunc func(ctx context.Context, req *protocol.ElicitRequest) (*protocol.ElicitResult, error)

// SampleFunc answers a sampling/createMessage input request.
type SampleFunc func(ctx context.Context, req *protocol.CreateMessageRequest) (*protocol.CreateMessageResult, error)

// RootsFunc answers a roots/list input request.
type RootsFunc func(ctx context.Context, req *protocol.ListRootsRequest) (*protocol.ListRootsResult, error)

// Option configures a Client (given to New) or one call.
type Option func(*config)

// config is what the options set; a call starts from a copy of the
// Client's.
type config struct {
	version    string
	clientInfo protocol.Implementation
	caps       *protocol.ClientCapabilities
	meta       map[string]json.RawMessage
	principal  string
	headers    map[string]string
	onElicit   ElicitFunc
	onSample   SampleFunc
	onRoots    RootsFunc
	maxRounds  int
	onNotify   func(Notification)
	httpOpts   *streamhttp.Options
}

func (c config) clone() config {
	c.meta = maps.Clone(c.meta)
	c.headers = maps.Clone(c.headers)
	return c
}

// WithProtocolVersion sets the protocol version sent in _meta and in the
// MCP-Protocol-Version header (default protocol.Revision).
func WithProtocolVersion(v string) Option { return func(c *config) { c.version = v } }

// WithClientInfo sets the clientInfo sent in _meta (default
// {"name":"servertest","version":"0"}).
func WithClientInfo(impl protocol.Implementation) Option {
	return func(c *config) { c.clientInfo = impl }
}

// WithCapabilities sets the client capabilities sent in _meta. Without
// it, the Client declares elicitation, sampling and roots for the
// callbacks it has (OnElicit, OnSample, OnRoots) and nothing else.
func WithCapabilities(caps protocol.ClientCapabilities) Option {
	return func(c *config) { c.caps = &caps }
}

// WithMeta adds a member to the request's _meta (for example
// "io.modelcontextprotocol/logLevel"). value is encoded with
// encoding/json; a value that does not encode fails the call.
func WithMeta(key string, value any) Option {
	return func(c *config) {
		b, err := json.Marshal(value)
		if err != nil {
			b = nil
		}
		if c.meta == nil {
			c.meta = map[string]json.RawMessage{}
		}
		c.meta[key] = b
	}
}

// WithPrincipal makes the request authenticated as principal (sent in
// PrincipalHeader; see there). Empty means unauthenticated.
func WithPrincipal(principal string) Option { return func(c *config) { c.principal = principal } }

// WithHeader sets an extra HTTP request header, such as Authorization
// for a handler built with WithHTTPOptions.
func WithHeader(key, value string) Option {
	return func(c *config) {
		if c.headers == nil {
			c.headers = map[string]string{}
		}
		c.headers[key] = value
	}
}

// OnElicit sets the callback that answers elicitation input requests.
func OnElicit(f ElicitFunc) Option { return func(c *config) { c.onElicit = f } }

// OnSample sets the callback that answers sampling input requests.
func OnSample(f SampleFunc) Option { return func(c *config) { c.onSample = f } }

// OnRoots sets the callback that answers roots input requests.
func OnRoots(f RootsFunc) Option { return func(c *config) { c.onRoots = f } }

// WithMaxRounds bounds the input_required rounds of one call (default
// DefaultMaxRounds); a server that asks more often fails the call.
func WithMaxRounds(n int) Option { return func(c *config) { c.maxRounds = n } }

// WithHTTPOptions sets the streamhttp.Options of the Client's handler; it only
// has an effect given to New. When opts.Authenticate is nil, the Client
// sets it to read PrincipalHeader; otherwise WithPrincipal has no effect
// and the caller's Authenticate decides (use WithHeader to feed it).
func WithHTTPOptions(opts streamhttp.Options) Option {
	return func(c *config) { c.httpOpts = &opts }
}

// OnNotification sets a callback for the notifications the server sends
// in the answer of a call before its response (progress with a
// progressToken in WithMeta, log messages with
// "io.modelcontextprotocol/logLevel"), called in order before the call
// returns. Listen streams deliver theirs through Stream.Next instead.
func OnNotification(f func(Notification)) Option { return func(c *config) { c.onNotify = f } }
