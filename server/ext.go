package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
)

// Extension is a protocol extension served beside the core methods
// (basic/extensions: an extension is advertised in
// capabilities.extensions under its id, and used on a request only when
// that request's client declares it too, R-VER-04). Add one with
// WithExtension or Server.AddExtension. The tasks extension
// (github.com/mcpwire/mcpwire/ext/tasks) is written on this API alone.
//
// An extension can:
//   - add methods (Methods), which go through the same checks, middleware
//     and result envelope as the core ones;
//   - take over the tools/call of the tools registered with its
//     ToolExtension (CallTool), after their arguments are validated;
//   - add a member to the filter of subscriptions/listen (Listen), and
//     publish notifications to the streams that asked for a key of it
//     (Server.Publish with an EventExtension);
//   - take over other methods (prompts/get, resources/read) with its
//     Middleware, and end work of its own on Server.Shutdown (Shutdown).
type Extension struct {
	// ID is the capability key, e.g. "io.modelcontextprotocol/tasks".
	ID string
	// Settings is the value advertised under capabilities.extensions[ID]
	// (default: {}).
	Settings protocol.JSONObject
	// Attach, if set, is called when the extension is about to be added to
	// a server (WithExtension, AddExtension, or ToolExtension's IfAbsent),
	// before it serves anything: an extension that needs the server (its
	// log, broker, Publish) keeps it. It is called without the server's
	// locks held. Should the addition then fail (an id or method already
	// taken), the extension is not used.
	Attach func(s *Server)
	// Methods are the methods the extension adds, by name. A core method
	// name is refused, and so is one another extension added.
	Methods map[string]ExtensionMethod
	// CheckTool, if set, is called when a tool is registered with
	// ToolExtension(ID, value, ...): an error refuses the registration.
	CheckTool func(tool string, value any) error
	// CallTool, if set, serves the tools/call of every tool registered
	// with ToolExtension(ID, ...), in place of the runtime's own call of
	// the handler. It runs after the arguments were validated, the
	// Mcp-Param-* headers compared and the multi round-trip input opened,
	// inside the middleware chain. It may run the tool now (call.Invoke,
	// then call.Finish), or later (a task) and answer something else.
	CallTool func(ctx context.Context, r *Request, call *ToolCall) (Result, error)
	// Listen, if set, is a member of subscriptions/listen's notifications
	// filter that the extension adds.
	Listen *ListenFilter
	// Shutdown, if set, is called by Server.Shutdown, which waits for it
	// (within its context) as it waits for the requests in flight: an
	// extension that runs work of its own (the tasks extension's tasks)
	// ends it there.
	Shutdown func(ctx context.Context) error
	// Middleware, if set, runs around the handler of every request, inside
	// the server's own middleware (WithMiddleware), for an extension that
	// takes over other methods than tools/call (prompts/get,
	// resources/read): it may answer a request itself, or pass it on. Only
	// an extension given to New (WithExtension) may have one, since the
	// chain is built once.
	Middleware Middleware
}

// ExtensionMethod is a method an extension adds.
type ExtensionMethod struct {
	// NameMember is the member of the params that the Mcp-Name header
	// mirrors over HTTP ("taskId" for tasks/get), or "" when the method
	// has no Mcp-Name. A request whose header is absent or differs gets
	// -32020 (HTTP 400), as for tools/call.
	NameMember string
	// Handle serves the method. params are the request's params, as JSON,
	// _meta included (the runtime already checked _meta and read it into
	// r.Meta). The result is a core result type of package protocol or a
	// type generated from the extension's schema (anything that encodes
	// to a JSON object); the runtime adds the envelope (resultType when it
	// is missing, serverInfo in _meta).
	Handle func(ctx context.Context, r *Request, params json.RawMessage) (Result, error)
}

// ListenFilter is a member of subscriptions/listen's notifications filter
// that an extension adds (the tasks extension's taskIds): a JSON array of
// strings, the keys the client wants notifications for.
//
// A request whose filter has the member while its client does not
// declare the extension gets -32021 naming it. Otherwise the keys are
// bounded (MaxKeys) and de-duplicated, and Accept picks those the request
// may watch; the acknowledgement lists them under Member, and the stream
// then receives every EventExtension of the extension whose Key is one of
// them, as a notification Method.
type ListenFilter struct {
	// Member is the filter member, e.g. "taskIds".
	Member string
	// Method is the method of the notifications sent for its events,
	// e.g. "notifications/tasks".
	Method string
	// MaxKeys bounds the entries of the member (default
	// DefaultMaxListenKeys); a request over it gets -32602.
	MaxKeys int
	// Accept returns, in order, the keys of keys (unique, in the order
	// asked) that the stream will watch: those that exist and that the
	// request's principal may see. An error refuses the listen request;
	// an *Error reaches the client as it is.
	Accept func(ctx context.Context, r *Request, keys []string) ([]string, error)
	// Verify, if set, checks an event's Data before it is sent: false
	// drops the event (logged). The tasks extension checks that the task
	// in Data is the task Key names, so that a delivery decision read from
	// Key always matches what the client gets.
	Verify func(key string, data json.RawMessage) bool
}

// DefaultMaxListenKeys is the default of ListenFilter.MaxKeys.
const DefaultMaxListenKeys = 1000

// ToolExtensionOptions configures ToolExtension.
type ToolExtensionOptions struct {
	// Required makes the tool callable only by a client that declares the
	// extension on the request: others get -32021 naming it before the
	// handler runs, and the tool is not listed for legacy sessions, whose
	// clients cannot declare an extension (a legacy call gets -32602).
	Required bool
	// IfAbsent, if set, returns the extension to add when the server does
	// not have it yet (the tasks extension with its defaults). Without it
	// the registration of a tool for an absent extension fails.
	IfAbsent func() Extension
}

// ToolExtension registers a tool with an extension (AddTool,
// typed.AddTool): value is the extension's setting for the tool, which its
// CheckTool checks and its CallTool receives as ToolCall.Value. A tool
// carries at most one value per extension; the CallTool of the first
// extension given for the tool serves its calls.
func ToolExtension(id string, value any, o ToolExtensionOptions) ToolOption {
	return func(s *Server, t *tool) error {
		e, err := s.extensionFor(id, o.IfAbsent)
		if err != nil {
			return err
		}
		for _, x := range t.exts {
			if x.ext.ID == id {
				return fmt.Errorf("server: tool %s: extension %s given twice", t.def.Name, id)
			}
		}
		if e.CheckTool != nil {
			if err := e.CheckTool(t.def.Name, value); err != nil {
				return err // AddTool names the tool
			}
		}
		t.exts = append(t.exts, toolExt{ext: e, value: value, required: o.Required})
		return nil
	}
}

// toolExt is a tool's registration with one extension.
type toolExt struct {
	ext      *Extension
	value    any
	required bool
}

// ToolCall is a tools/call that an extension's CallTool serves.
type ToolCall struct {
	// Name is the tool's name.
	Name string
	// Arguments are the validated arguments, as JSON.
	Arguments json.RawMessage
	// Value is the tool's setting for the extension (ToolExtension).
	Value any
	// ClientKey is the client key of an HTTP request (its address, an IPv6
	// one by its prefix: streamhttp.Options.ClientKey), for limits counted per
	// client when the request has no principal; "" on stdio.
	ClientKey string

	s *Server
	t *tool
}

// Invoke calls the tool's handler (with its WrapTool middleware) with r,
// which may be another Request than the call's (Request.Detach), in ctx,
// and returns what it returned.
func (c *ToolCall) Invoke(ctx context.Context, r *Request) (*protocol.CallToolResult, error) {
	return c.t.handler(ctx, r, c.Arguments)
}

// Finish turns what the handler returned into what the client gets, as
// the runtime does for a tool without extension: an *InputRequired
// becomes the input_required result (its state sealed), an *Error stays
// the error, a plain error becomes a result with isError, and a result is
// checked against the tool's outputSchema.
func (c *ToolCall) Finish(r *Request, res *protocol.CallToolResult, err error) (Result, error) {
	return c.s.finishTool(r, c.t, res, err)
}

// ExtensionFailure is the error a client gets for err inside an
// extension's work (a task that failed): err itself when it is an *Error
// with a code the revision allows, -32603 "Internal error" otherwise,
// err going to the server's log.
func (s *Server) ExtensionFailure(op string, err error) *Error {
	if e, ok := asError(err); ok && emittable(e.Code) {
		return e
	}
	s.log.Error(op, "err", err)
	return InternalError("Internal error")
}

// WithExtension adds an extension to the server (see Extension).
func WithExtension(e Extension) Option {
	return func(c *config) { c.exts = append(c.exts, e) }
}

// AddExtension adds an extension to a running server: capabilities.
// extensions advertises it from now on and its methods are served. It
// fails for an id already added, and for a method that is a core one or
// another extension's.
func (s *Server) AddExtension(e Extension) error {
	_, err := s.addExtension(e, false)
	return err
}

// addExtension attaches e (outside s.mu: Attach may call the server) and
// records it.
func (s *Server) addExtension(e Extension, inNew bool) (*Extension, error) {
	if e.Attach != nil {
		e.Attach(s)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addExtensionLocked(e, inNew)
}

// HasExtension reports whether the server serves the extension id.
func (s *Server) HasExtension(id string) bool {
	_, ok := lookup(s, s.exts, id)
	return ok
}

// Logger returns the server's log (WithLogger), for extensions.
func (s *Server) Logger() *slog.Logger { return s.log }

// extensionFor returns the extension id, adding the one ifAbsent makes
// when the server has none yet. Tools registered from several goroutines
// add it once: one made meanwhile by another wins, and this one is
// dropped.
func (s *Server) extensionFor(id string, ifAbsent func() Extension) (*Extension, error) {
	e, ok := lookup(s, s.exts, id)
	switch {
	case ok:
		return e, nil
	case ifAbsent == nil:
		return nil, fmt.Errorf("server: extension %s is not on this server (WithExtension)", id)
	}
	made := ifAbsent()
	if made.ID != id {
		return nil, fmt.Errorf("server: the extension made for %s has the id %q", id, made.ID)
	}
	if made.Attach != nil {
		made.Attach(s)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.exts[id]; ok {
		return e, nil
	}
	return s.addExtensionLocked(made, false)
}

// addExtensionLocked records an extension; the caller holds s.mu. New
// (inNew) has put its Middleware in the chain already.
func (s *Server) addExtensionLocked(e Extension, inNew bool) (*Extension, error) {
	if e.ID == "" {
		return nil, errors.New("server: an extension needs an ID")
	}
	if e.Middleware != nil && !inNew {
		return nil, fmt.Errorf("server: extension %s has a Middleware: give it to New (WithExtension)", e.ID)
	}
	if _, dup := s.exts[e.ID]; dup {
		return nil, fmt.Errorf("server: extension %s added twice", e.ID)
	}
	for m, h := range e.Methods {
		if err := checkExtMethodName(m); err != nil {
			return nil, err
		}
		if _, dup := s.extMethods[m]; dup {
			return nil, fmt.Errorf("server: extension method %s is added twice", m)
		}
		if h.Handle == nil {
			return nil, fmt.Errorf("server: extension method %s has no Handle", m)
		}
	}
	if l := e.Listen; l != nil {
		if l.Member == "" || l.Method == "" || l.Accept == nil {
			return nil, fmt.Errorf("server: extension %s: a ListenFilter needs Member, Method and Accept", e.ID)
		}
		for _, x := range s.listenExts {
			if x.Listen.Member == l.Member {
				return nil, fmt.Errorf("server: extension %s: listen filter member %s is another extension's", e.ID, l.Member)
			}
		}
	}
	if e.Settings == nil {
		e.Settings = protocol.JSONObject("{}")
	}
	x := &e
	s.exts[e.ID] = x
	s.extensions[e.ID] = e.Settings
	for m, h := range e.Methods {
		s.extMethods[m] = h
	}
	if e.Listen != nil {
		s.listenExts = append(s.listenExts, x)
	}
	return x, nil
}

// checkExtMethodName refuses a name an extension may not take: empty,
// JSON-RPC's reserved rpc.*, a notification's, a 2026-07-28 method, or one
// that 2026-07-28 removed and answers -32601 (removedMethod).
func checkExtMethodName(m string) error {
	_, core := protocol.LookupMethod(m)
	switch {
	case m == "" || strings.HasPrefix(m, "rpc.") || strings.HasPrefix(m, "notifications/"):
		return fmt.Errorf("server: extension method %q: a reserved name", m)
	case core, removedMethod(m):
		return fmt.Errorf("server: extension method %s is a core method", m)
	}
	return nil
}

// removedMethod reports whether m is a request of 2025-11-25 that
// 2026-07-28 removed: a 2026-07-28 request for one is -32601 (step 2 of the
// order of checks; initialize's error names the supported versions,
// R-VER-05; tasks/result, R-TASK-19). The tasks extension defines
// tasks/get and tasks/cancel anew, so those two are not among them.
func removedMethod(m string) bool {
	switch m {
	case "initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "tasks/result", "tasks/list":
		return true
	}
	return false
}

// extParams carries an extension method's params through dispatch.
type extParams struct {
	raw   json.RawMessage
	named bool // the method has a NameMember, mirrored by Mcp-Name
}

func (s *Server) extMethod(method string) (ExtensionMethod, bool) {
	return lookup(s, s.extMethods, method)
}

// Declares reports whether the request's client declared the extension
// id in this request's capabilities (R-VER-04: an extension is used only
// when the request declares it; nothing is inferred from earlier
// requests).
func (r *Request) Declares(id string) bool {
	_, ok := r.Meta.ClientCapabilities.Extensions[id]
	return ok
}

// ClientExtension returns the settings the request's client declared for
// the extension id, and whether it declared it.
func (r *Request) ClientExtension(id string) (protocol.JSONObject, bool) {
	v, ok := r.Meta.ClientCapabilities.Extensions[id]
	return v, ok
}

// MissingExtension is the -32021 error for a request that needs the
// extension id while its client did not declare it.
func MissingExtension(id string) *Error {
	return MissingCapability(protocol.ClientCapabilities{Extensions: map[string]protocol.JSONObject{id: protocol.JSONObject("{}")}})
}

// requiredExtension returns the extension a tool needs its caller to
// declare (ToolExtensionOptions.Required), or nil.
func (t *tool) requiredExtension() *Extension {
	for _, x := range t.exts {
		if x.required {
			return x.ext
		}
	}
	return nil
}

// callHook returns the extension registration whose CallTool serves the
// tool's calls, or nil.
func (t *tool) callHook() *toolExt {
	for i := range t.exts {
		if t.exts[i].ext.CallTool != nil {
			return &t.exts[i]
		}
	}
	return nil
}
