// Package legacy serves the clients of MCP 2024-11-05 to 2025-11-25,
// those that open a session with initialize, beside the 2026-07-28
// requests of package server, on the same Streamable HTTP endpoint and
// stdio stream, with the same handlers (basic/versioning.mdx, Backward
// Compatibility).
//
// An Era (New) holds everything that exists only because of those
// sessions: the era decision of every message, the sessions and their
// store (SessionStore, MemorySessionStore), the session's SSE GET stream,
// Last-Event-ID replay and its store (EventStore, MemoryEventStore),
// 2025-03-26 batches, the input bridge that carries a handler's
// Request.AskInput to the client as server-to-client requests, and the
// conversion of requests and results between the session's revision and
// the handlers' 2026-07-28 types (docs/conversion.md). It serves them
// through the server's adapter interface (server.Adapter), as any
// adapter would: a converted request runs through the server's
// middleware and handlers (server.Adapter.ServeCall), and its result
// comes back in 2026-07-28 types for the Era to convert.
//
// The transports hand it the messages of their endpoints:
// streamhttp.Options.Legacy and stdio.Options.Legacy (legacy.Default
// when nil). Share one Era between the endpoints of a Server to share its
// sessions:
//
//	era, err := New(s, Config{Store: store, EventStore: events})
//	http.Handle("/mcp", streamhttp.Handler(s, streamhttp.Options{Legacy: era}))
//
// # Eras
//
// Config.Eras chooses what an Era serves: ErasBoth, the default
// (2026-07-28 requests statelessly, and the legacy clients of 2024-11-05
// to 2025-11-25 in sessions opened with initialize, on the same endpoint
// and stdio stream), ErasModern (2026-07-28 only) or ErasLegacy. The
// era is chosen per message, from the MCP-Protocol-Version header (HTTP),
// the Mcp-Session-Id header (HTTP) and params._meta: a message is modern
// when the header names a version that is not a legacy version served,
// or is repeated or malformed, or when _meta holds
// io.modelcontextprotocol/protocolVersion or
// io.modelcontextprotocol/clientCapabilities; otherwise it is legacy.
// A modern message goes through the order of checks above, unchanged, and
// may not carry Mcp-Session-Id (-32020 under ErasBoth: a session id never
// combines with modern signals, and the session is not looked up). A
// legacy message without a session id may only be initialize, ping, or a
// notification the server ignores; every other one is -32600 (400). A
// body without _meta never escapes the modern checks when the header is
// modern, and a modern body never reaches session code. The probe of
// _meta is strict: a case variant of _meta or of the two keys is -32600,
// so that no reader can see modern _meta where the server sees none.
//
// The two version lists are kept apart: _meta may name only 2026-07-28
// (-32022 otherwise), while server/discover and -32022's data.supported
// list every version served, legacy ones included under ErasBoth.
// ErasLegacy refuses every modern request with -32600 (stdio:
// server/discover is -32601), never a 2026-07-28 code, so that a
// dual-era client falls back to initialize.
//
// # Order of checks in a legacy session
//
// initialize negotiates the version: the client's when it is served, the
// newest served otherwise (under ErasBoth, 2026-07-28 is refused with
// -32602 naming the served versions, unless
// Config.DowngradeModernInitialize). The result's capabilities come
// from the registrations at that moment, and the session keeps them, with
// the client's capabilities and clientInfo. After the transport's own
// checks (HTTP: the session id and headers), a request of the session goes
// through these steps:
//
//  1. Before notifications/initialized only ping is served: -32600 (HTTP
//     400). ping answers {} at any time.
//  2. An id still running in the session is -32600.
//  3. The method is a client request of the session's revision that this
//     server serves: otherwise -32601 (initialize again, server/discover,
//     subscriptions/listen and the 2025-11-25 tasks methods included).
//  4. resources/subscribe needs the resources capability the server
//     declared, logging/setLevel the logging one, completion/complete a
//     completion handler: otherwise -32601.
//  5. params decode strictly with the 2025-11-25 types: otherwise -32602
//     naming the member.
//  6. inputResponses and requestState (2026-07-28 retries) are -32602.
//  7. The params are converted to the handler's types; Request.Meta comes
//     from the session (version, capabilities, clientInfo, log level) and
//     the request (progressToken).
//  8. For tools/call: the tool exists (-32602); a tool that requires an
//     extension (a task-only tool) is -32602 (it is never listed for
//     legacy clients); a
//     Mcp-Param-* header, when present, matches its argument (-32600, HTTP
//     400); the rate limit (-31429, HTTP 429).
//  9. Middleware (WithMiddleware) runs, then the handler, as for a
//     modern request (arguments validated first); ping,
//     logging/setLevel and resources/(un)subscribe, which the session
//     layer answers, pass through middleware too. AskInput returns -32021 without the capability declared at
//     initialize, and -32603 for an input request the revision cannot
//     carry; otherwise the input bridge serves it (below).
//  10. The result or error is converted to the session's revision
//     (docs/conversion.md): no resultType, cache hints or serverInfo
//     _meta, members the revision lacks removed, the server's own
//     resource-not-found as -32002.
//
// Over HTTP, errors of steps 2 to 10 are sent with status 200 (legacy
// clients read no JSON-RPC error from a 4xx answer), the rate limit with
// 429; the transport's and step 1's refusals keep their 4xx.
//
// logging/setLevel sets the level of the session's later requests (none
// is sent before it, unless Config.DefaultLogLevel);
// resources/subscribe accepts a URI that names a resource or matches a
// template and that WithSubscriptionAuthorizer allows (-32002 otherwise;
// 403 insufficient_scope when the token lacks its RequireResourceScopes),
// up to Config.MaxSubscriptions and within the byte budgets of
// MaxSubscriptionBytes, MaxSubscriptionBytesPerPrincipal and
// MaxSubscriptionBytesTotal (-32602 naming the limit). A session that
// declared the
// capability gets notifications/{tools,prompts,resources}/list_changed,
// without params, and notifications/resources/updated for its
// subscriptions.
//
// Over Streamable HTTP, initialize mints the session id: 256 random bits,
// base64url, sent once in Mcp-Session-Id on its answer, and stored only as
// its SHA-256 in Config.Store (in memory by default), bound to the
// principal (the verified token's issuer and subject with
// streamhttp.Options.Verifier, or the Authenticate hook's). Every later POST, GET and DELETE of
// the session carries it: without it a request is 400; an id that is
// unknown, expired (IdleTimeout, MaxLifetime), evicted (a principal past
// MaxSessionsPerPrincipal loses its least recently used session), deleted
// or another principal's is 404, all alike; a repeated header is 400; an
// initialize carrying one is 400 and mints nothing. MCP-Protocol-Version
// is optional in a session but must name its version when present (400).
// Mcp-Method, Mcp-Name and Mcp-Param-* are not required, but must match
// the body when present (400). DELETE ends the session (204) and cancels
// its running requests; notifications/cancelled cancels one. Past
// MaxSessions, initialize is 503 with Retry-After: 30. A store that cannot
// be reached is 503 with Retry-After: 1, never 404.
//
// A GET with the session id opens the session's standalone stream: it
// carries the list changes the session declared and the updates of the
// resources it subscribed to, never a response or a request's progress or
// logs (those go on the POST's stream). One stream at a time per session:
// a second GET takes over, and the first ends with an SSE retry field
// (Config.RetryInterval). A quiet stream gets keep-alive comments
// (WithKeepAlive); every fourth one re-reads the session (a deleted,
// expired or taken-over session ends the stream) and keeps it alive.
// WithMaxStreamLifetime and Shutdown end it with retry, so that the
// client reconnects; DELETE ends it without. Events reach the streams of
// every instance through the Broker.
//
// The session's streams are resumable (Config.ReplayRetention, 5
// minutes; negative turns it off). Every event of a POST's stream or of
// the GET stream has an id <stream>.<seq> and is kept in
// Config.EventStore (in memory by default, bounded by
// MaxReplayEvents, MaxReplayBytes and MaxReplayStreams); a 2025-11-25
// stream starts with a priming event (its id, empty data). A request of a
// session runs detached from its connection: a connection that breaks
// after an event with an id leaves it running, and the client gets what
// followed with a GET carrying Last-Event-ID, on any instance sharing the
// store, up to the response. Request.DisconnectForPolling, in a tool
// registered with AllowPolling (and Config.PollAfter, for every
// request), closes a 2025-11-25 POST's stream with a retry field on
// purpose, for SSE polling. A Last-Event-ID that is malformed,
// repeated, another session's, or names events no longer kept is 400
// (a gone standalone stream opens afresh instead); a request whose
// instance stopped renewing its lease is answered -32603 by the resumer.
//
// On stdio the first legacy initialize opens the session of the process;
// initialize and notifications/initialized are handled before the next
// line is read, and lines with modern _meta stay stateless beside it
// (R-STATE-01): the session's version, capabilities and log level never
// reach them. A response line is never answered.
//
// The input bridge: a handler of a legacy session returns
// Request.AskInput(requests, state) as for a modern client, and the
// runtime sends each input request to the client as a server-to-client
// request (elicitation/create, sampling/createMessage, roots/list; ids
// mcpwire- and 22 base64url characters), on stdout or as SSE events of
// the POST's answer, waits for the answers, and calls the handler again
// with Request.InputResponse, Request.InputError and Request.State set
// (State is the handler's bytes, never sealed). A result is decoded
// strictly as its method's result, and an accepted form's content is
// validated against its requestedSchema; a failure is the client error
// -32602 for that key. A key the client refused and the handler asks for
// again ends the call with -32603, as do more than
// Config.MaxInputRounds rounds, a round past
// Config.MaxOutstandingRequests, and a round unanswered after
// Config.InputTimeout (its requests are then cancelled with
// notifications/cancelled, as they are when the client cancels the
// call). Over HTTP the answer is a POST of its own, to any instance: 202
// for an outstanding, repeated or late id, 400 for an unknown id or a
// response that is not valid; stored with SessionStore.PutAnswer, it
// wakes the waiting instance through the Broker (and its polling every
// Config.PollInterval). On stdio, response lines are routed by the
// read loop. More than Config.MaxBadResponses bad responses end the
// session (on stdio the legacy session; modern lines are still served).
//
// Sessions of 2025-03-26 may send JSON-RPC batches (a JSON array, 1 to
// Config.MaxBatch elements, all requests and notifications or all
// responses, no initialize, no 2026-07-28 _meta, and over HTTP no
// Mcp-Method or Mcp-Name; else 400 -32600 for the whole). Requests run
// concurrently; their responses come back as one JSON array (stdio: one
// line), or, over HTTP when an element sent a notification or a bridge
// request first, each as its own SSE event. Other revisions refuse
// batches with -32600.
package legacy
