// Package server is a thin, stateless runtime for MCP 2026-07-28 servers,
// built on the generated types of package protocol.
//
// A Server holds tools, prompts, resources and a completion handler; it
// keeps no state between requests (R-STATE-01), so any number of
// instances configured alike (with the same WithStateKeys) can serve any
// request behind a load balancer. It is served over Streamable HTTP by
// package streamhttp (streamhttp.Handler) and over stdio by package stdio
// (stdio.Serve); clients of 2024-11-05 to 2025-11-25, which open a
// session with initialize, are served beside 2026-07-28 ones on the same
// endpoint by package legacy, through this package's Adapter, with the
// same handlers. This package knows no era but its own.
//
//	s, err := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
//	// s.AddTool(...), s.AddPrompt(...), s.AddResource(...)
//	http.Handle("/mcp", streamhttp.Handler(s, streamhttp.Options{}))
//
// docs/architecture.md shows the layers: what each package owns and the
// direction of imports.
//
// # Authorization
//
// With streamhttp.Options.Verifier (package auth: auth.JWTVerifier, or any
// auth.Verifier), the Handler is an OAuth 2.1 resource server: before
// the body is read, a request without a Bearer token is 401 with a
// WWW-Authenticate challenge naming Options.ResourceMetadataURL and
// Options.Scopes, a malformed Authorization header 400
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
// One concern a file: server.go (Server, options), dispatch.go (the
// order of checks), envelope.go (the result envelope), errors.go and
// errpolicy.go (codes, HTTP statuses, what a handler's error becomes),
// request.go and loghandler.go (Request, progress, log), detach.go (work
// outliving its request), middleware.go, ext.go (the extension API),
// adapter.go (the transports' and eras' interface), workcount.go (what
// Shutdown waits for), auth.go and auth_scopes.go, headers.go, limits.go,
// names.go; tools.go and rawschema.go, prompts.go, resources.go,
// content.go and results.go, mrtr.go (multi round-trip requests),
// listen.go and broker.go (subscriptions/listen), testrequest.go. The
// packages beside the core (internal/validate, internal/sealed, the
// transports, the legacy era) are in docs/architecture.md.
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
