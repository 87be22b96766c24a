package mcpotel

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/textproto"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpwire/mcpwire/server"
)

// Middleware returns the server middleware (server.WithMiddleware) that
// gives every request a span and records its duration (the package
// documentation lists what it records). Instruments that the meter fails
// to create are replaced by no-op ones, and the error goes to the
// OpenTelemetry error handler (otel.Handle).
func Middleware(opts ...Option) server.Middleware {
	t := newTelemetry(newConfig(opts))
	return func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			return t.serve(ctx, r, next)
		}
	}
}

// telemetry is what the middleware records with.
type telemetry struct {
	tracer    trace.Tracer
	startOpts []trace.SpanStartOption // kind SERVER
	names     spanNames
	prop      propagation.TextMapPropagator
	fields    []string // the propagator's fields, looked for in _meta
	// w3c is set when prop is one of the W3C propagators whose Extract
	// from _meta the middleware does itself (w3c.go).
	w3c w3cMode
	// headerFields are the fields in canonical header form, looked for in
	// the HTTP headers before the propagator reads them: its carrier
	// canonicalizes each key it gets, an allocation per field.
	headerFields []string
	duration     metric.Float64Histogram
	active       metric.Int64UpDownCounter
	// maxAttrBytes bounds attribute values and the status description
	// (WithMaxAttributeBytes).
	maxAttrBytes int
	// sessionHMACKey keys sessionKey (WithSessionKey).
	sessionHMACKey []byte
	// noSpans is set for the no-op tracer provider (trace/noop): a span
	// of it records nothing, so none is started, and the handler's context
	// is the parent, which holds the client's span context as a no-op
	// span would.
	noSpans bool
}

func newTelemetry(c config) *telemetry {
	t := &telemetry{
		tracer:         c.tp.Tracer(ScopeName),
		startOpts:      []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)},
		names:          newSpanNames(c.maxCacheBytes),
		prop:           c.prop,
		fields:         c.prop.Fields(),
		w3c:            recognizeW3C(c.prop),
		maxAttrBytes:   c.maxAttrBytes,
		sessionHMACKey: c.sessionKey,
	}
	if len(t.sessionHMACKey) == 0 {
		t.sessionHMACKey = make([]byte, 32)
		_, _ = rand.Read(t.sessionHMACKey) // crypto/rand.Read does not fail (it panics)
	}
	_, t.noSpans = c.tp.(tracenoop.TracerProvider)
	for _, f := range t.fields {
		t.headerFields = append(t.headerFields, textproto.CanonicalMIMEHeaderKey(f))
	}
	t.duration, t.active = newInstruments(c.mp.Meter(ScopeName))
	return t
}

// serve runs one request in its span.
func (t *telemetry) serve(ctx context.Context, r *server.Request, next server.Handler) (server.Result, error) {
	timed := t.duration.Enabled(ctx)
	var start time.Time
	if timed {
		start = time.Now()
	}
	var target string // the span name's, the attributes' (none under no-op providers)
	if !t.noSpans || timed {
		target = targetOf(r, t.maxAttrBytes)
	}
	sctx, span := t.start(ctx, r, target)
	recording := span.IsRecording()
	if recording {
		var buf [maxAttrs]attribute.KeyValue
		span.SetAttributes(t.spanAttributes(commonAttributes(buf[:0], r, target), r)...)
	}
	active := t.active.Enabled(ctx)
	if active {
		t.active.Add(ctx, 1, metric.WithAttributes(keyMethod.String(r.Method)))
	}
	finished := false
	defer func() {
		if !finished { // a panic, which the server answers with -32603
			t.finish(sctx, r, target, span, recording, active, timed, start, internalError("panic"))
		}
	}()
	res, err := next(sctx, r)
	finished = true
	t.finish(sctx, r, target, span, recording, active, timed, start, outcomeOf(res, err))
	return res, err
}

// start returns the request's span and the context holding it: a new
// server span whose parent is the client's trace context, or under the
// no-op tracer provider (noSpans) the parent context with a span of no
// one, which records nothing.
func (t *telemetry) start(ctx context.Context, r *server.Request, target string) (context.Context, trace.Span) {
	parent, extracted := t.parent(ctx, r)
	if t.noSpans {
		// A span of no one: the one the parent holds (an HTTP
		// instrumentation's, say) is not mcpotel's to end or annotate.
		// Nor is a link looked for: there is no span to carry it.
		return parent, trace.SpanFromContext(context.Background())
	}
	spanOpts := t.startOpts
	if link := linkOf(ctx, parent, extracted); link.IsValid() {
		spanOpts = []trace.SpanStartOption{spanOpts[0], trace.WithLinks(trace.Link{SpanContext: link})}
	}
	return t.tracer.Start(parent, t.names.spanName(r, target), spanOpts...)
}

// finish ends the span and records the measurements, in ctx, the span's
// context (so that an exemplar names the server span). The status's
// description is bounded as attribute values are: an error's message may
// quote what the client sent ("Unknown tool: ...").
func (t *telemetry) finish(ctx context.Context, r *server.Request, target string, span trace.Span, recording, active, timed bool, start time.Time, o outcome) {
	if recording && o.errorType != "" {
		var buf [2]attribute.KeyValue
		span.SetAttributes(errorAttributes(buf[:0], o)...)
		span.SetStatus(codes.Error, bounded(o.description, t.maxAttrBytes))
	}
	span.End()
	if timed {
		var buf [maxAttrs]attribute.KeyValue
		kv := errorAttributes(commonAttributes(buf[:0], r, target), o)
		t.duration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(kv...))
	}
	if active {
		t.active.Add(ctx, -1, metric.WithAttributes(keyMethod.String(r.Method)))
	}
}

// extractMeta returns ctx with what the propagator extracts from _meta,
// and false (and ctx) when _meta holds none of the propagator's fields.
// The W3C propagators' extraction is done by extractW3C, the same
// without their carrier's string copies and interface calls; any other
// propagator's is its Extract.
func (t *telemetry) extractMeta(ctx context.Context, mc metaCarrier) (context.Context, bool) {
	if t.w3c != w3cNone {
		return extractW3C(ctx, t.w3c, mc.m)
	}
	if !mc.has(t.fields) {
		return ctx, false
	}
	return t.prop.Extract(ctx, mc), true
}

// hasHeader reports whether h holds any of the canonical keys.
func hasHeader(h http.Header, keys []string) bool {
	for _, k := range keys {
		if len(h[k]) > 0 {
			return true
		}
	}
	return false
}

// parent returns the context to start the server span in: ctx with the
// remote span context from _meta or, when _meta has none of the
// propagators' fields, from the HTTP headers; and whether the
// propagators read either (false: ctx as it is).
func (t *telemetry) parent(ctx context.Context, r *server.Request) (context.Context, bool) {
	if len(t.fields) == 0 {
		return ctx, false
	}
	extracted, ok := t.extractMeta(ctx, metaCarrier{m: &r.Meta.Extra})
	if !ok {
		h := r.Header()
		if !hasHeader(h, t.headerFields) {
			return ctx, false
		}
		extracted = t.prop.Extract(ctx, propagation.HeaderCarrier(h))
	}
	return extracted, true
}

// linkOf returns the span the server span links to: the valid span ctx
// (the middleware's context) already held when the propagators read a
// trace context (extracted) and parent (ctx with it) holds another one;
// otherwise none, and the ambient span, if any, stays the parent.
func linkOf(ctx, parent context.Context, extracted bool) trace.SpanContext {
	if !extracted {
		return trace.SpanContext{}
	}
	ambient := trace.SpanContextFromContext(ctx)
	if !ambient.IsValid() || trace.SpanContextFromContext(parent).Equal(ambient) {
		return trace.SpanContext{}
	}
	return ambient
}
