package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/jsonline"
)

// wireResult is a pointer to a generated result type (CallToolResult,
// ListToolsResult, InputRequiredResult, ...).
type wireResult any

// The order of checks on a request (documented in the package doc):
//
//  1. the body is one JSON-RPC request (-32700 for bad JSON, -32600 for
//     anything else that is not a request);
//  2. the method exists in this revision and is served here (-32601, 404);
//  3. params._meta carries protocolVersion and clientCapabilities (-32602);
//  4. on HTTP, the headers match the body (-32020);
//  5. the protocol version is supported (-32022);
//  6. params match the method's schema (-32602);
//  7. for tools/call, the tool exists and its Mcp-Param-* headers match;
//  8. the handler runs.
func (s *Server) process(ctx context.Context, body []byte, x *Exchange) Outcome {
	// Fast path: a well-formed request of this revision decodes in one
	// pass into its own type. Anything else takes the careful path below,
	// which finds the right error in the documented order.
	// One allocation holds the request and its Request; Mcp-Method hints at its variant.
	c := new(struct {
		cr protocol.ClientRequest
		r  Request
	})
	hint, _, _ := headerValue(x.Header, keyMethod, HeaderMethod)
	if s.cfg.decode.UnmarshalVariant(body, &c.cr, hint) == nil {
		if id, method, params, extra := clientRequestParts(&c.cr); params != nil && s.serves(method) && !responseMembers(extra) {
			meta, name := metaAndName(params)
			c.cr = protocol.ClientRequest{} // a long request (listen) does not keep the envelope
			return s.run(ctx, &c.r, id, method, params, nil, meta, name, x)
		}
	}
	var msg protocol.JSONRPCMessage
	if err := s.cfg.decode.Unmarshal(body, &msg); err != nil {
		return s.malformed(body, err)
	}
	switch m := msg.Value.(type) {
	case *protocol.JSONRPCNotification:
		return Outcome{Notification: true, Status: 202}
	case *protocol.JSONRPCRequest:
		if responseMembers(m.Extra) {
			return s.errorFor(m.ID, &Error{Code: protocol.CodeInvalidRequestError, Message: "Invalid Request: a request cannot carry result or error"})
		}
		return s.request(ctx, m, x)
	default:
		return s.errorOutcome(nil, &Error{Code: protocol.CodeInvalidRequestError, Message: "Invalid Request: a client sends requests and notifications only"})
	}
}

// responseMembers reports a request that also carries a response's
// members: JSONRPCMessage refuses it as ambiguous, and so must the fast
// path.
func responseMembers(extra protocol.Members) bool {
	for _, m := range extra {
		if m.Name == "result" || m.Name == "error" {
			return true
		}
	}
	return false
}

// clientRequestParts takes a decoded client request apart.
func clientRequestParts(cr *protocol.ClientRequest) (protocol.RequestId, string, any, protocol.Members) {
	switch v := cr.Value.(type) {
	case *protocol.CallToolRequest:
		return v.ID, protocol.MethodToolsCall, &v.Params, v.Extra
	case *protocol.ListToolsRequest:
		return v.ID, protocol.MethodToolsList, &v.Params, v.Extra
	case *protocol.GetPromptRequest:
		return v.ID, protocol.MethodPromptsGet, &v.Params, v.Extra
	case *protocol.ListPromptsRequest:
		return v.ID, protocol.MethodPromptsList, &v.Params, v.Extra
	case *protocol.ReadResourceRequest:
		return v.ID, protocol.MethodResourcesRead, &v.Params, v.Extra
	case *protocol.ListResourcesRequest:
		return v.ID, protocol.MethodResourcesList, &v.Params, v.Extra
	case *protocol.ListResourceTemplatesRequest:
		return v.ID, protocol.MethodResourcesTemplatesList, &v.Params, v.Extra
	case *protocol.DiscoverRequest:
		return v.ID, protocol.MethodServerDiscover, &v.Params, v.Extra
	case *protocol.CompleteRequest:
		return v.ID, protocol.MethodCompletionComplete, &v.Params, v.Extra
	case *protocol.SubscriptionsListenRequest:
		return v.ID, protocol.MethodSubscriptionsListen, &v.Params, v.Extra
	}
	return protocol.RequestId{}, "", nil, nil
}

// malformed answers a body that is not a JSON-RPC message.
func (s *Server) malformed(body []byte, err error) Outcome {
	return s.errorOutcome(malformedError(body, err))
}

// malformedError is the error for a body that is not a JSON-RPC message,
// and the id it can echo.
func malformedError(body []byte, err error) (*protocol.RequestId, *Error) {
	de, _ := protocol.AsDecodeError(err)
	if de != nil && de.Kind == protocol.KindSyntax {
		return nil, &Error{Code: protocol.CodeParseError, Message: "Parse error: " + de.Msg}
	}
	// The strict decoder stops at the first thing wrong, which may be the
	// shape of text that is not JSON at all (a lone quote): that is a parse
	// error too, whatever the decoder met first.
	if (de == nil || de.Kind != protocol.KindDepth && de.Kind != protocol.KindLimit) && !json.Valid(body) {
		return nil, &Error{Code: protocol.CodeParseError, Message: "Parse error: invalid JSON"}
	}
	return recoverID(body), &Error{Code: protocol.CodeInvalidRequestError, Message: "Invalid Request: " + strings.TrimPrefix(err.Error(), "protocol: ")}
}

// recoverID finds a valid id in a message that is otherwise invalid, so
// that the error can echo it (R-BASE-07). Only an exact, single "id" member
// of a top-level object counts: a duplicate or a case variant ("ID") means
// there is no id to trust.
func recoverID(body []byte) *protocol.RequestId {
	var id protocol.RequestId
	if found := jsonline.SoleMember(body, "id"); found == nil || protocol.Unmarshal(found, &id) != nil {
		return nil
	}
	return &id
}

func (s *Server) request(ctx context.Context, m *protocol.JSONRPCRequest, x *Exchange) Outcome {
	id := m.ID
	info, ok := protocol.LookupMethod(m.Method)
	if !ok {
		if em, ok := s.extMethod(m.Method); ok {
			return s.extRequest(ctx, id, m, em, x)
		}
	}
	if !ok || !info.FromClient || info.Notification || !s.serves(m.Method) {
		e := MethodNotFound(m.Method)
		if m.Method == "initialize" {
			// R-VER-05: name the supported versions to a client of an
			// earlier revision.
			e.Data = jsonText(map[string]any{"supported": x.versions()})
		}
		return s.errorFor(id, e)
	}
	params := []byte(m.Params)
	if len(params) == 0 {
		return s.errorFor(id, InvalidParams("Invalid params: params with _meta is required", nil))
	}
	typed := info.NewParams()
	typedErr := protocol.Unmarshal(params, typed)
	var meta protocol.RequestMetaObject
	var name string
	if typedErr == nil {
		meta, name = metaAndName(typed)
	} else {
		var rp protocol.RequestParams
		if err := protocol.Unmarshal(params, &rp); err != nil {
			return s.errorFor(id, InvalidParams("Invalid params: "+strings.TrimPrefix(err.Error(), "protocol: "), nil))
		}
		meta = rp.Meta
		for _, k := range []string{"name", "uri"} {
			if raw, ok := rp.Extra.Get(k); ok {
				_ = json.Unmarshal(raw, &name)
			}
		}
	}
	return s.run(ctx, new(Request), id, m.Method, typed, typedErr, meta, name, x)
}

// run finishes the checks of a request whose _meta could be read (steps
// 4 to 6 of the order) and runs its handler as r, a zero Request.
func (s *Server) run(ctx context.Context, r *Request, id protocol.RequestId, method string, typed any, typedErr error, meta protocol.RequestMetaObject, name string, x *Exchange) Outcome {
	if x.HTTP {
		named := method == protocol.MethodToolsCall || method == protocol.MethodPromptsGet || method == protocol.MethodResourcesRead
		if p, ok := typed.(*extParams); ok {
			named = p.named
		}
		if e := checkHeaders(x.Header, method, meta.ProtocolVersion, name, named, x.ProtocolVersion); e != nil {
			return s.errorFor(id, e)
		}
	}
	if meta.ProtocolVersion != protocol.Revision {
		return s.errorFor(id, unsupportedVersion(meta.ProtocolVersion, x.versions()))
	}
	if typedErr != nil {
		return s.errorFor(id, InvalidParams("Invalid params: "+strings.TrimPrefix(typedErr.Error(), "protocol: "), nil))
	}
	s.work.add()
	defer s.work.done()
	// Field by field: r is zero, and a whole Request built and copied
	// into it would cost more than what it sets.
	r.Method, r.ID, r.Meta, r.Principal, r.auth, r.out, r.ctx = method, id, meta, x.Principal, AuthorizationFrom(ctx), x.Notifier, ctx
	r.maxInputs, r.log, r.header, r.peer, r.notifyMeta, r.srv = s.cfg.maxInputs, s.log, x.Header, x.RemoteAddr, s.cfg.notifyMeta, s
	r.rc.Context, r.rc.r = ctx, r
	if s.cfg.handlerTimeout > 0 && method != protocol.MethodSubscriptionsListen {
		r.rc.deadline = time.Now().Add(s.cfg.handlerTimeout)
	}
	res, err := s.dispatchRecovered(&r.rc, r, typed, x)
	r.finish()
	if ctx.Err() != nil || errors.Is(err, errSilent) {
		return Outcome{Cancelled: true, Status: 499}
	}
	if r.rc.Err() == context.DeadlineExceeded {
		s.log.Warn("handler deadline passed", "method", method, "timeout", s.cfg.handlerTimeout)
		return s.errorFor(id, InternalError("Request timed out"))
	}
	if err != nil {
		return s.errorFor(id, s.clientError(r, err))
	}
	return s.resultOutcome(id, res, r.trusted)
}

// unsupportedVersion is the -32022 error for a request whose _meta names
// a version other than this revision (R-VER-01). data.supported lists
// what the endpoint serves (Exchange.Versions), earlier revisions
// included where an era serves them; a version of that list named in
// _meta is refused all the same, and the message says why
// (docs/dual-era.md §1.5, §11 R2).
func unsupportedVersion(requested string, served []string) *Error {
	msg := "Unsupported protocol version"
	if slices.Contains(served, requested) {
		msg += ": " + requested + " is served only after initialize"
	}
	return &Error{Code: protocol.CodeUnsupportedProtocolVersionError, Message: msg,
		Data: jsonText(map[string]any{"supported": served, "requested": requested})}
}

// emittable reports whether the server may send an error code under this
// revision: never -32000..-32019 (R-BASE-13), -32002 or -32042 (R-BASE-14),
// nor an undefined code of -32099..-32020 or of JSON-RPC's reserved
// -32768..-32100 (R-BASE-12).
func emittable(code int64) bool {
	switch code {
	case protocol.CodeParseError, protocol.CodeInvalidRequestError, protocol.CodeMethodNotFoundError,
		protocol.CodeInvalidParamsError, protocol.CodeInternalError, protocol.CodeHeaderMismatchError,
		protocol.CodeMissingRequiredClientCapabilityError, protocol.CodeUnsupportedProtocolVersionError:
		return true
	}
	return code < -32768 || code > -32000
}

// extRequest reads an extension method's _meta and Mcp-Name member, then
// runs it like any request.
func (s *Server) extRequest(ctx context.Context, id protocol.RequestId, m *protocol.JSONRPCRequest, em ExtensionMethod, x *Exchange) Outcome {
	params := []byte(m.Params)
	var rp protocol.RequestParams
	if len(params) == 0 {
		return s.errorFor(id, InvalidParams("Invalid params: params with _meta is required", nil))
	}
	if err := protocol.Unmarshal(params, &rp); err != nil {
		return s.errorFor(id, InvalidParams("Invalid params: "+strings.TrimPrefix(err.Error(), "protocol: "), nil))
	}
	var name string
	if em.NameMember != "" {
		if raw, ok := rp.Extra.Get(em.NameMember); ok {
			_ = json.Unmarshal(raw, &name)
		}
	}
	return s.run(ctx, new(Request), id, m.Method, &extParams{raw: params, named: em.NameMember != ""}, nil, rp.Meta, name, x)
}

// serves reports whether the server answers a method of the revision.
func (s *Server) serves(method string) bool {
	switch method {
	case protocol.MethodServerDiscover, protocol.MethodToolsList, protocol.MethodToolsCall,
		protocol.MethodPromptsList, protocol.MethodPromptsGet, protocol.MethodResourcesList,
		protocol.MethodResourcesTemplatesList, protocol.MethodResourcesRead:
		return true
	case protocol.MethodCompletionComplete:
		return s.cfg.completion != nil
	case protocol.MethodSubscriptionsListen:
		return true
	}
	return false
}

// metaAndName reads _meta and the name or URI that Mcp-Name mirrors.
func metaAndName(p any) (protocol.RequestMetaObject, string) {
	switch v := p.(type) {
	case *protocol.CallToolRequestParams:
		return v.Meta, v.Name
	case *protocol.GetPromptRequestParams:
		return v.Meta, v.Name
	case *protocol.ReadResourceRequestParams:
		return v.Meta, v.URI
	case *protocol.PaginatedRequestParams:
		return v.Meta, ""
	case *protocol.CompleteRequestParams:
		return v.Meta, ""
	case *protocol.SubscriptionsListenRequestParams:
		return v.Meta, ""
	case *protocol.RequestParams:
		return v.Meta, ""
	}
	panic(fmt.Sprintf("server: no _meta accessor for %T", p))
}

// dispatchRecovered runs dispatch and turns a handler's panic into -32603,
// logged with its stack: over HTTP net/http would only drop the
// connection, with no answer for the client, and on stdio the panic would
// end the process and every other client request with it.
func (s *Server) dispatchRecovered(ctx context.Context, r *Request, params any, x *Exchange) (res wireResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("handler panicked", "method", r.Method, "target", r.target, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, InternalError("Internal error")
		}
	}()
	r.params = params
	if s.chain != nil {
		return s.viaMiddleware(ctx, r, params, x)
	}
	return s.dispatch(ctx, r, params, x)
}

func (s *Server) dispatch(ctx context.Context, r *Request, params any, x *Exchange) (wireResult, error) {
	switch p := params.(type) {
	case *protocol.CallToolRequestParams:
		r.target = p.Name
		if e := s.rateLimited(r, x.ClientKey); e != nil {
			return nil, e
		}
		return s.callTool(ctx, r, p, x)
	case *protocol.GetPromptRequestParams:
		r.target = p.Name
		return s.getPrompt(ctx, r, p)
	case *protocol.ReadResourceRequestParams:
		r.target = p.URI
		return s.readResource(ctx, r, p)
	case *protocol.CompleteRequestParams:
		return s.complete(ctx, r, p)
	case *protocol.SubscriptionsListenRequestParams:
		return s.listen(ctx, r, p, x)
	case *protocol.PaginatedRequestParams:
		return s.list(r, p.Cursor)
	case *protocol.RequestParams:
		if r.Method == protocol.MethodServerDiscover {
			return s.discover(x.versions()), nil
		}
	case *extParams:
		if em, ok := s.extMethod(r.Method); ok {
			res, err := em.Handle(ctx, r, p.raw)
			return extResult(res, err, false)
		}
	}
	return nil, MethodNotFound(r.Method)
}

// prepareMRTR reads the retry half of a multi round-trip request: the
// client's input responses and the sealed state, which must open for this
// method, target, principal and salient params (the tool's or prompt's
// arguments, as JSON) before the handler sees anything.
func (s *Server) prepareMRTR(r *Request, target string, salient []byte, responses protocol.InputResponses, state *string) error {
	r.target, r.salient = target, salient
	if r.holdInput {
		return nil // the adapter set the responses and state (Call.Responses, Call.State)
	}
	if len(responses) > s.cfg.maxInputs && s.cfg.maxInputs > 0 {
		return InvalidParams("Invalid params: more inputResponses than the server accepts", nil)
	}
	r.inputResponses = responses
	if state != nil {
		return s.openState(r, *state)
	}
	return nil
}

// handlerError turns a prompt or resource handler's error into a result
// or an error.
func (s *Server) handlerError(r *Request, err error) (wireResult, error) {
	var ir *InputRequired
	if errors.As(err, &ir) {
		return s.inputRequiredResult(r, ir)
	}
	if e, ok := asError(err); ok {
		return nil, e
	}
	return nil, s.plainError(r, err)
}

func (s *Server) discover(versions []string) *protocol.DiscoverResult {
	ttl, scope := s.cacheHint(protocol.MethodServerDiscover)
	res := &protocol.DiscoverResult{
		SupportedVersions: versions,
		Capabilities:      s.capabilities(),
		TTLMs:             ttl,
		CacheScope:        scope,
	}
	if !s.cfg.omitServerInfo {
		res.Meta = s.discoverMeta // shared and read-only, as resultMeta
	}
	if s.cfg.instructions != "" {
		in := s.cfg.instructions
		res.Instructions = &in
	}
	return res
}

// Cursors are opaque to clients: base64url of the last name on the page.
func encodeCursor(last string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("c1:" + last))
}

func decodeCursor(c *string) (string, error) {
	if c == nil {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(string(*c))
	if err != nil || !strings.HasPrefix(string(b), "c1:") {
		return "", InvalidParams("Invalid cursor", nil)
	}
	return string(b[3:]), nil
}

// page cuts one page out of sorted keys after the cursor's key.
func (s *Server) page(keys []string, cursor *string) ([]string, *string, error) {
	after, err := decodeCursor(cursor)
	if err != nil {
		return nil, nil, err
	}
	start := 0
	if cursor != nil {
		i, found := slices.BinarySearch(keys, after)
		if found {
			i++
		}
		start = i
	}
	end := min(start+s.cfg.pageSize, len(keys))
	var next *string
	if end < len(keys) {
		c := encodeCursor(keys[end-1])
		next = &c
	}
	return keys[start:end], next, nil
}

// pageDefs cuts one page out of a registry whose keys are sorted, and
// returns the definitions on it.
func pageDefs[V, D any](s *Server, m map[string]V, sorted []string, cursor *string, def func(V) D, keep func(V) bool) ([]D, *string, error) {
	keys, next, err := s.page(sorted, cursor)
	if err != nil {
		return nil, nil, err
	}
	out := make([]D, 0, len(keys))
	for _, k := range keys {
		if v := m[k]; keep == nil || keep(v) {
			out = append(out, def(v))
		}
	}
	return out, next, nil
}

// list serves the four list methods. With streamhttp.Options.FilterListsByScope,
// a page leaves out what r's token may not use (it may then hold fewer
// entries than the page size; the cursor is the same), and the answer is
// private.
func (s *Server) list(r *Request, cursor *string) (wireResult, error) {
	method := r.Method
	ttl, scope := s.cacheHint(method)
	var keepTool func(*tool) bool
	var keepPrompt func(*prompt) bool
	var keepResource func(*resource) bool
	var keepTemplate func(*template) bool
	if filtersLists(r) {
		scope = protocol.CacheScopePrivate
		keepTool = func(t *tool) bool { return listable(r, t.scopes) }
		keepPrompt = func(p *prompt) bool { return listable(r, p.scopes) }
		keepResource = func(x *resource) bool { return listable(r, x.scopes) }
		keepTemplate = func(x *template) bool { return listable(r, x.scopes) }
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	switch method {
	case protocol.MethodToolsList:
		tools, next, err := pageDefs(s, s.tools, cachedKeys(&s.sortedTools, s.tools), cursor, func(t *tool) protocol.Tool { return t.def }, keepTool)
		if err != nil {
			return nil, err
		}
		return &protocol.ListToolsResult{Tools: tools, NextCursor: next, TTLMs: ttl, CacheScope: scope}, nil
	case protocol.MethodPromptsList:
		prompts, next, err := pageDefs(s, s.prompts, cachedKeys(&s.sortedPrompts, s.prompts), cursor, func(p *prompt) protocol.Prompt { return p.def }, keepPrompt)
		if err != nil {
			return nil, err
		}
		return &protocol.ListPromptsResult{Prompts: prompts, NextCursor: next, TTLMs: ttl, CacheScope: scope}, nil
	case protocol.MethodResourcesList:
		resources, next, err := pageDefs(s, s.resources, cachedKeys(&s.sortedResources, s.resources), cursor, func(r *resource) protocol.Resource { return r.def }, keepResource)
		if err != nil {
			return nil, err
		}
		return &protocol.ListResourcesResult{Resources: resources, NextCursor: next, TTLMs: ttl, CacheScope: scope}, nil
	case protocol.MethodResourcesTemplatesList:
		// Templates are listed in registration order: keyed by their
		// registration number, so that a removal moves no cursor.
		byPos := make(map[string]*template, len(s.templates))
		for _, t := range s.templates {
			byPos[fmt.Sprintf("%020d", t.seq)] = t
		}
		templates, next, err := pageDefs(s, byPos, sortedKeys(byPos), cursor, func(t *template) protocol.ResourceTemplate { return t.def }, keepTemplate)
		if err != nil {
			return nil, err
		}
		return &protocol.ListResourceTemplatesResult{ResourceTemplates: templates, NextCursor: next, TTLMs: ttl, CacheScope: scope}, nil
	}
	return nil, MethodNotFound(method)
}
