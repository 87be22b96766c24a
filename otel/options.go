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
