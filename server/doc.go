// Package server is a thin, stateless runtime for MCP 2026-07-28 servers,
// built on the generated types of package protocol.
//
// A Server holds tools, prompts, resources and a completion handler; it
// keeps no state between requests (R-STATE-01), so any number of
// instances configured alike (with the same WithStateKeys) can serve any
// request behind a load balancer. It is served over Streamable HTTP by
// (*Server).Handler and over stdio by (*Server).ServeStdio.
//
// # Authorization
//
// With HTTPOptions.Verifier (package auth: auth.JWTVerifier, or any
// auth.Verifier), the Handler is an OAuth 2.1 resource server: before
// the body is read, a request without a Bearer token is 401 with a
// WWW-Authenticate challenge naming HTTPOptions.ResourceMetadataURL and
// HTTPOptions.Scopes, a malformed Authorization header 400
// (invalid_request), a refused token 401 (invalid_token), a verifier
// outage 503. Tools, prompts and resources may need scopes
// (RequireScopes, RequirePromptScopes, RequireResourceScopes): a request
// whose token lacks one is 403 insufficient_scope, in either era; so is
// completion/complete of a ref naming such a prompt or resource, and a
// legacy resources/subscribe of such a resource, while a listen filter
// leaves such a resource out as if unknown. A listen or legacy GET stream
// opened with a token already past its exp is 401 invalid_token. The
// principal is the token's; handlers read the token's claims with
// Request.Token. stdio has no token and checks no scope. See
// docs/auth.md.
//
// # Order of checks
//
// Every request goes through the same steps, on both transports:
//
//  1. The body is one JSON-RPC message: invalid JSON is -32700 with no id;
//     a batch, a bad id (null, fraction, object), a jsonrpc other than
//     "2.0", a missing method or a response is -32600 (HTTP 400).
//     Notifications are accepted with 202.
//  2. The method exists in this revision and this server serves it;
//     removed methods (initialize, ping, logging/setLevel,
//     resources/subscribe, resources/unsubscribe) and unknown ones are
//     -32601 with HTTP 404. The error to initialize names the supported
//     versions (R-VER-05).
//  3. params._meta carries protocolVersion and clientCapabilities (an
//     object): otherwise -32602, HTTP 400 (R-META-01). This check reads
//     only _meta, so a request from a later revision is not refused for
//     params this revision does not know.
//  4. On HTTP, the standard headers match the body: MCP-Protocol-Version
//     equals _meta's version, Mcp-Method the method, Mcp-Name the tool or
//     prompt name or resource URI (after =?base64?…?= decoding): otherwise
//     -32020, HTTP 400 (R-HDR-01..06). A body without _meta fails step 3
//     first, so shaping the body can never skip the header checks.
//  5. The protocol version is supported: otherwise -32022 with
//     data.supported and data.requested, HTTP 400 (R-VER-01/02).
//  6. params match the method's schema, strictly (see package protocol):
//     otherwise -32602.
//  7. For tools/call, the tool must exist (-32602), and each Mcp-Param-*
//     header must match its x-mcp-header argument (-32020, R-HDR-07/08;
//     the tool's schema is needed to know which headers to expect).
//  8. Middleware (WithMiddleware) runs, outermost first, then the
//     handler: middleware never sees a request refused by steps 1 to 7.
//     Tool arguments are validated against the tool's
//     inputSchema first; a violation is a tool execution error (isError)
//     naming the path, so the model can correct itself. So are, before
//     the validator runs, arguments of more values than
//     WithMaxArgumentValues (counted on the text: none is built; the
//     headers of step 7 are compared on the few values they name), a
//     number over WithNumberLimits, a member whose name equals a declared
//     property only ignoring case (even where a patternProperties pattern
//     matches it), and arguments whose validation would take more than
//     WithMaxValidationWork.
//
// # Dual era
//
// WithEras chooses what a Server serves: ErasBoth, the default
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
// LegacyConfig.DowngradeModernInitialize). The result's capabilities come
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
// is sent before it, unless LegacyConfig.DefaultLogLevel);
// resources/subscribe accepts a URI that names a resource or matches a
// template and that WithSubscriptionAuthorizer allows (-32002 otherwise;
// 403 insufficient_scope when the token lacks its RequireResourceScopes),
// up to LegacyConfig.MaxSubscriptions. A session that declared the
// capability gets notifications/{tools,prompts,resources}/list_changed,
// without params, and notifications/resources/updated for its
// subscriptions.
//
// Over Streamable HTTP, initialize mints the session id: 256 random bits,
// base64url, sent once in Mcp-Session-Id on its answer, and stored only as
// its SHA-256 in LegacyConfig.Store (in memory by default), bound to the
// principal (the verified token's issuer and subject with
// HTTPOptions.Verifier, or the Authenticate hook's). Every later POST, GET and DELETE of
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
// (LegacyConfig.RetryInterval). A quiet stream gets keep-alive comments
// (WithKeepAlive); every fourth one re-reads the session (a deleted,
// expired or taken-over session ends the stream) and keeps it alive.
// WithMaxStreamLifetime and Shutdown end it with retry, so that the
// client reconnects; DELETE ends it without. Events reach the streams of
// every instance through the Broker.
//
// The session's streams are resumable (LegacyConfig.ReplayRetention, 5
// minutes; negative turns it off). Every event of a POST's stream or of
// the GET stream has an id <stream>.<seq> and is kept in
// LegacyConfig.EventStore (in memory by default, bounded by
// MaxReplayEvents, MaxReplayBytes and MaxReplayStreams); a 2025-11-25
// stream starts with a priming event (its id, empty data). A request of a
// session runs detached from its connection: a connection that breaks
// after an event with an id leaves it running, and the client gets what
// followed with a GET carrying Last-Event-ID, on any instance sharing the
// store, up to the response. Request.DisconnectForPolling, in a tool
// registered with AllowPolling (and LegacyConfig.PollAfter, for every
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
// LegacyConfig.MaxInputRounds rounds, a round past
// LegacyConfig.MaxOutstandingRequests, and a round unanswered after
// LegacyConfig.InputTimeout (its requests are then cancelled with
// notifications/cancelled, as they are when the client cancels the
// call). Over HTTP the answer is a POST of its own, to any instance: 202
// for an outstanding, repeated or late id, 400 for an unknown id or a
// response that is not valid; stored with SessionStore.PutAnswer, it
// wakes the waiting instance through the Broker (and its polling every
// LegacyConfig.PollInterval). On stdio, response lines are routed by the
// read loop. More than LegacyConfig.MaxBadResponses bad responses end the
// session (on stdio the legacy session; modern lines are still served).
//
// Sessions of 2025-03-26 may send JSON-RPC batches (a JSON array, 1 to
// LegacyConfig.MaxBatch elements, all requests and notifications or all
// responses, no initialize, no 2026-07-28 _meta, and over HTTP no
// Mcp-Method or Mcp-Name; else 400 -32600 for the whole). Requests run
// concurrently; their responses come back as one JSON array (stdio: one
// line), or, over HTTP when an element sent a notification or a bridge
// request first, each as its own SSE event. Other revisions refuse
// batches with -32600.
//
// # Results
//
// Every result carries resultType and, unless WithoutServerInfo,
// _meta["io.modelcontextprotocol/serverInfo"]: the name and version given
// to New, the members the schema requires, while server/discover carries
// the whole Implementation (title, icons, ...; WithFullServerInfo puts it
// on every result). server/discover, the four
// lists and resources/read carry ttlMs and cacheScope (WithCacheHint;
// default 0 and "private"); input_required results never do.
//
// # Handler errors
//
// What a handler's error becomes is the same for every kind of handler:
//
//   - An *Error (InvalidParams, MissingCapability, or one built by hand)
//     reaches the client as it is, code, message and data, from a tool,
//     prompt, resource or completion handler alike. Only a code that
//     JSON-RPC reserves (-32768 to -32000) without the spec defining it
//     is replaced by -32603 "Internal error". ErrNotFound from a
//     resource handler is the -32602 "Resource not found" error.
//   - An *InputRequired (Request.AskInput) from a tool, prompt or
//     resource handler is an input_required result, not an error.
//   - Any other error from a tool handler is a tool execution error: a
//     result with isError set and the error's text as its only content,
//     which the model reads (tools.mdx, error handling).
//   - Any other error from a prompt, resource or completion handler is
//     logged (WithLogger) with the method and the target, and the client
//     receives -32603 "Internal error" without the error's text, which
//     may say what a client must not know. WithErrorDetails sends the
//     text as the message instead.
//   - A panic is logged with its stack and answered with -32603
//     "Internal error", with or without WithErrorDetails.
//
// # Multi round-trip requests
//
// A tools/call, prompts/get or resources/read handler asks the client for
// input by returning Request.AskInput(requests, state). The runtime checks
// the client declared the needed capabilities on this request (else
// -32021), seals state with AES-256-GCM under a versioned key, bound to the
// method, the tool, prompt or URI, the principal, a digest of the tool's or
// prompt's arguments (in a canonical form: member order and white space do
// not matter) and an expiry, and answers input_required. On the retry it
// opens the state before the handler runs; state that is tampered,
// truncated, expired, too large or presented for another target, principal
// or other arguments is -32602 and never reaches the handler.
//
// # Subscriptions
//
// subscriptions/listen answers on HTTP with an event stream, and on stdio
// by leaving the request open. Its first message is
// notifications/subscriptions/acknowledged with the honoured part of the
// filter: the list changes asked for, and the resourceSubscriptions URIs
// that name a resource or match a template of this server, whose
// RequireResourceScopes the token holds, and that
// WithSubscriptionAuthorizer, if set, lets the principal watch (others
// are left out alike, A21). A member an extension adds to the filter
// (ListenFilter: the tasks extension's taskIds) needs the extension
// declared on the request (-32021 otherwise) and is honoured as the
// extension decides. A filter is bounded (WithListenLimits: by default
// 1000 resourceSubscriptions totalling 64 KiB; an extension's member by
// its ListenFilter.MaxKeys); a larger one is -32602. Every notification on
// the stream carries
// _meta["io.modelcontextprotocol/subscriptionId"], the listen request's id
// with its JSON type; types not asked for are never sent, and progress and
// log notifications never go on it. A quiet HTTP stream gets a keep-alive
// comment (WithKeepAlive). AddTool, RemoveTool and the other registrations
// notify by themselves; NotifyToolsChanged, NotifyPromptsChanged,
// NotifyResourcesChanged and NotifyResourceUpdated do it by hand. Events go
// through a Broker (WithBroker), in-process by default, so that a change on
// one instance reaches the streams of every instance sharing it.
//
// How the server ends a stream (the specification is ambiguous, A1): on
// Shutdown, an HTTP stream ends with the subscriptions/listen result
// carrying the subscription id (R-SUB-06) and then closes; a stdio listen
// request is ended with notifications/cancelled naming it (R-SUB-07, which
// the schema places on stdio) and gets no response, since a response after
// the cancellation would contradict it. A client that goes away (a closed
// HTTP response, or notifications/cancelled on stdio) ends its stream with
// nothing more sent.
//
// # Extensions
//
// An extension (Extension, added with WithExtension) is advertised in
// capabilities.extensions and used on a request only when that request's
// client declares it (R-VER-04, Request.Declares). It adds methods, which
// go through steps 1 to 8 like the core ones (an ExtensionMethod's
// NameMember is what Mcp-Name mirrors), may serve the tools/call of the
// tools registered with its ToolExtension (CallTool: the tasks extension
// runs them as tasks), may take over other methods with its Middleware
// (inside the server's own), and may add a member to the listen filter whose
// keys its events (Server.Publish, EventExtension) are delivered by. Its
// results get the envelope like every result. The tasks extension,
// package github.com/mcpwire/mcpwire/ext/tasks, is written on this API
// alone. A tools/call of a tool without an extension costs nothing more
// for it.
//
// # Package map
//
// One concern a file:
//
//   - The runtime: server.go (Server, options, capabilities), dispatch.go
//     (the order of checks, dispatch by method), envelope.go (resultType,
//     serverInfo, writing a response), errors.go and errpolicy.go (error
//     codes, HTTP statuses, what a handler's error becomes), request.go
//     (Request, progress and log), detach.go (work that outlives its
//     request), middleware.go, requestlogger.go and requestlog.go
//     (middleware, the request log, the slog bridge), ext.go (the
//     extension API), limits.go and names.go (limits, name rules).
//   - The features: tools.go, typedtool.go, inferschema.go, rawschema.go
//     (tools and their schemas), prompts.go, resources.go, content.go and
//     results.go (result helpers), mrtr.go (multi round-trip requests),
//     listen.go and broker.go (subscriptions/listen and the events it
//     carries), testrequest.go (Request values for unit tests).
//   - Argument validation: package internal/validate (schemas compiled
//     and tamed, the number and value limits, the validation work
//     estimate, the flat fast path), called by tools.go.
//   - The transports: http.go, headers.go (Streamable HTTP and its
//     standard headers), http_auth.go and auth_scopes.go (the OAuth
//     resource server), stdio.go.
//   - The legacy era: era.go and era_http.go (which era a message is),
//     legacy*.go (initialize, the session methods, conversion of results),
//     session*.go and sessionstore_memory.go (sessions and their store),
//     sse_*.go, eventid.go and eventstore.go (the session's streams,
//     resumption), stdio_bridge.go and stdio_legacy.go (legacy stdio), with
//     the revision rules in internal/legacy and sealed request state in
//     internal/sealed.
//
// Beside it: package protocol (the generated types), ext/tasks (the tasks
// extension), redisstore (Redis stores and broker for several instances),
// servertest (an in-process client for tests), auth (token verifiers).
//
// # Notifications
//
// Request.Progress sends notifications/progress only for a request with a
// progressToken; Request.Log sends notifications/message only at or above
// the request's _meta logLevel. On HTTP the first notification turns the
// response into a text/event-stream (with X-Accel-Buffering: no) that ends
// with the response. Nothing is sent for a request after its response, or
// after it was cancelled (a closed HTTP response, or notifications/cancelled
// on stdio).
package server
