// Package mcpotel traces and measures the requests of an mcpwire server
// with OpenTelemetry, following the OpenTelemetry semantic conventions
// for the Model Context Protocol (the "MCP" page of the GenAI semantic
// conventions, https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/,
// docs/gen-ai/mcp.md in open-telemetry/semantic-conventions-genai,
// formerly in open-telemetry/semantic-conventions; status: development).
// It lives in a module of its own, so that the library's go.mod does not
// depend on OpenTelemetry.
//
// Options returns the server options to give server.New:
//
//	s, err := server.New(impl, mcpotel.Options()...)
//
// # Spans
//
// Every request that reaches the middleware chain (server.WithMiddleware:
// every request past the protocol checks, on HTTP and stdio, in both
// eras) gets one span of kind SERVER. As the convention asks, its name is
// the method followed by the tool or prompt name when there is one
// ("tools/call get-weather", "prompts/get review"), and the method alone
// otherwise; a resource URI is left out of the name, to keep names few.
// Its attributes:
//
//   - mcp.method.name, always;
//   - jsonrpc.request.id, the request's id as a string;
//   - mcp.protocol.version, the revision of the request (of the session,
//     in a legacy session);
//   - gen_ai.tool.name and gen_ai.operation.name "execute_tool" for
//     tools/call, gen_ai.prompt.name for prompts/get, mcp.resource.uri for
//     resources/read;
//   - mcp.session.id, for a legacy session over HTTP, a key of the
//     session, never its Mcp-Session-Id (which whoever reads it could use
//     as the session): the first 16 bytes, in hex, of the HMAC-SHA256 of
//     the id under a key of the middleware's, random unless WithSessionKey
//     sets it (a 2026-07-28 request has no session; a legacy stdio
//     session has no id);
//   - on HTTP: network.transport "tcp", network.protocol.name "http",
//     client.address and client.port (from Request.RemoteAddr); on stdio:
//     network.transport "pipe". network.protocol.version is not set:
//     the middleware does not see the HTTP request's protocol version;
//   - when the request fails: error.type and rpc.response.status_code,
//     both the JSON-RPC error code as a string ("-32602"), and the span's
//     status Error with the error's message as its description. A tool
//     result with isError is a failure too: error.type "tool_error",
//     status Error. A plain (non-*server.Error) error is the -32603 the
//     client gets.
//
// The span's attributes are set once it started and only when it
// records, so that a no-op provider costs no attribute work; a sampler
// sees the span's name and kind, not its attributes.
//
// # Names the client chose
//
// A tool, prompt or resource the server does not have
// (server.Request.Registered) is "_OTHER", as in the conventions'
// http.request.method: in the span name ("tools/call _OTHER"), in
// gen_ai.tool.name, gen_ai.prompt.name and mcp.resource.uri, so that a
// client naming what does not exist adds no span name to the cache and
// no series to the histogram. Every string attribute value, and the
// span status's description, is cut to WithMaxAttributeBytes (256 bytes
// by default), the cut copied; span names are cached only for
// registered tools and prompts, within WithMaxNameCacheBytes (64 KiB a
// method by default).
//
// # Trace context
//
// The parent is the context the client propagated in the request's
// _meta (the members traceparent, tracestate and baggage, SEP-414,
// R-META-08), read by the configured propagators. When _meta carries none
// of the propagators' fields and the request came over HTTP, the HTTP
// request's headers are read instead (a W3C traceparent header). When a
// parent was found this way and the context the middleware got already
// holds a span (an HTTP server instrumentation around the handler), the
// server span links to that span, as the convention advises; otherwise
// that span is the parent. The server span is in the context passed to
// the handler, so the handler's own spans nest under it, and the
// notifications the request sends (Request.Progress, Request.Log) carry
// its trace context in their _meta (NotificationMeta, through
// server.WithNotificationMeta).
//
// When the propagator is propagation.TraceContext{} or a composite
// (propagation.NewCompositeTextMapPropagator) of TraceContext{} and
// propagation.Baggage{}, once each in either order, the middleware reads
// _meta itself rather than through the propagator's Extract: it parses
// traceparent from the member's JSON bytes (decoding them only when they
// hold an escape), and tracestate, with trace.ParseTraceState, and
// baggage, with Baggage{}, only when present. The result is the
// propagator's (FuzzTraceparentFastPath compares the two), at a fraction
// of the cost. Any other propagator, wrapped or mixed with a third, is
// called as it is; the HTTP headers are always read by the propagator.
// The global propagator (the default of WithPropagators) is recognised
// when otel.SetTextMapPropagator was called before the middleware was
// built: it is then the propagator given there; before, it is a
// delegating one, called as it is.
//
// # Metrics
//
//   - mcp.server.operation.duration, the convention's histogram, in
//     seconds, with its bucket boundaries 0.01, 0.02, 0.05, 0.1, 0.2, 0.5,
//     1, 2, 5, 10, 30, 60, 120 and 300; its attributes: mcp.method.name,
//     mcp.protocol.version, gen_ai.tool.name, gen_ai.operation.name,
//     gen_ai.prompt.name, network.transport, network.protocol.name, and on
//     failure error.type and rpc.response.status_code. mcp.resource.uri,
//     opt-in there, is left out.
//   - mcp.server.active_requests, an UpDownCounter of the requests being
//     served ({request}), by mcp.method.name. The convention defines no
//     such instrument; the name and unit follow those of the HTTP
//     convention's http.server.active_requests.
//
// Requests served by the session layer of a legacy session (initialize,
// ping, logging/setLevel, resources/subscribe and resources/unsubscribe)
// and notifications from the client do not pass through middleware and
// get neither spans nor measurements.
package mcpotel
