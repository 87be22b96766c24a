package mcpotel

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/server"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/mcpwire/mcpwire/otel"

// Option configures the middleware and the notification hook.
type Option func(*config)

// config is what the options set.
type config struct {
	tp   trace.TracerProvider
	mp   metric.MeterProvider
	prop propagation.TextMapPropagator
	// maxAttrBytes bounds an attribute value and the span status's
	// description (WithMaxAttributeBytes).
	maxAttrBytes int
	// maxCacheBytes bounds the span names cached for one method
	// (WithMaxNameCacheBytes); negative: none cached.
	maxCacheBytes int
	// sessionKey keys the hash exported in place of a session id
	// (WithSessionKey); nil: a random key made with the middleware.
	sessionKey []byte
}

// DefaultMaxAttributeBytes is the default of WithMaxAttributeBytes.
const DefaultMaxAttributeBytes = 256

// DefaultMaxNameCacheBytes is the default of WithMaxNameCacheBytes.
const DefaultMaxNameCacheBytes = 64 << 10

// WithMaxAttributeBytes bounds the bytes of every string attribute value
// the middleware sets (a registered tool's or prompt's name, a resource
// URI, the request id) and of the span status's description (an error's
// message, which may quote what the client sent): a longer value is cut
// at a UTF-8 boundary at or below n bytes, and the cut copied, so that
// nothing keeps the request's bytes. n <= 0 means
// DefaultMaxAttributeBytes (256). The span name's target is bounded the
// same way.
func WithMaxAttributeBytes(n int) Option {
	return func(c *config) { c.maxAttrBytes = n }
}

// WithMaxNameCacheBytes bounds the bytes of the span names ("tools/call
// get-weather") kept for each of tools/call and prompts/get, counting
// each name's length and 64 bytes for its entry; once full, a name not
// kept is built for each request (an allocation). Only names of tools
// and prompts the server has are kept (Request.Registered). 0 means
// DefaultMaxNameCacheBytes (64 KiB); negative, none kept.
func WithMaxNameCacheBytes(n int) Option {
	return func(c *config) { c.maxCacheBytes = n }
}

// WithSessionKey sets the key of the keyed hash (HMAC-SHA256) that is
// exported as mcp.session.id in place of a legacy session's
// Mcp-Session-Id: the id itself, which whoever holds it can use, is
// never exported. The same id gives the same value under the same key,
// so that the spans of one session can be grouped; instances that
// should agree on it share the key. Without the option (or with an
// empty key), each Middleware makes a random 32-byte key of its own.
// The key is copied.
func WithSessionKey(key []byte) Option {
	return func(c *config) { c.sessionKey = append([]byte(nil), key...) }
}

// WithTracerProvider sets the provider of the tracer; by default the
// global one (otel.GetTracerProvider, read when the middleware is built:
// a global provider set later is used all the same, since the global
// provider delegates to it).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tp = tp }
}

// WithMeterProvider sets the provider of the meter; by default the
// global one (otel.GetMeterProvider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.mp = mp }
}

// WithPropagators sets the propagators that read the trace context of a
// request and write that of its notifications; by default the global
// ones (otel.GetTextMapPropagator). Note that the global default
// propagates nothing until otel.SetTextMapPropagator is called, e.g. with
// propagation.NewCompositeTextMapPropagator(propagation.TraceContext{},
// propagation.Baggage{}).
func WithPropagators(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.prop = p }
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	if c.prop == nil {
		c.prop = otel.GetTextMapPropagator()
	}
	if c.maxAttrBytes <= 0 {
		c.maxAttrBytes = DefaultMaxAttributeBytes
	}
	if c.maxCacheBytes == 0 {
		c.maxCacheBytes = DefaultMaxNameCacheBytes
	}
	return c
}

// Options returns the server options that turn tracing and metrics on:
// server.WithMiddleware(Middleware(opts...)) and
// server.WithNotificationMeta(NotificationMeta(opts...)). Give them to
// server.New; to place the middleware elsewhere in a chain, use
// Middleware and NotificationMeta instead. server.WithNotificationMeta
// keeps only the hook given last: a server with a hook of its own calls
// NotificationMeta's from it.
func Options(opts ...Option) []server.Option {
	return []server.Option{
		server.WithMiddleware(Middleware(opts...)),
		server.WithNotificationMeta(NotificationMeta(opts...)),
	}
}

// NotificationMeta returns the hook for server.WithNotificationMeta that
// writes the trace context of the context a handler passes to
// Request.Progress or Request.Log (the server span, or a span of the
// handler's own) into the notification's _meta, with the configured
// propagators (traceparent, tracestate, baggage with the W3C ones).
func NotificationMeta(opts ...Option) func(ctx context.Context, set func(key, value string)) {
	prop := newConfig(opts).prop
	return func(ctx context.Context, set func(key, value string)) {
		prop.Inject(ctx, setCarrier(set))
	}
}
