package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/textproto"
	"regexp"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/validate"
)

// ToolHandler serves tools/call for one tool. args is the call's
// "arguments" object, already validated against the tool's inputSchema
// ("{}" when the client sent none). Returning an error that is not an
// *Error or an *InputRequired makes a tool execution error: a result with
// isError set and the error's text, which the model can read (tools.mdx,
// error handling), with or without WithErrorDetails; ErrorResult builds
// the same result. Return an *Error for a protocol error: it reaches the
// client with its code. See the package documentation, "Handler errors".
type ToolHandler func(ctx context.Context, req *Request, args json.RawMessage) (*protocol.CallToolResult, error)

// ToolOption configures a tool at registration (AddTool, typed.AddTool).
type ToolOption func(s *Server, t *tool) error

type tool struct {
	def     protocol.Tool
	handler ToolHandler
	input   *validate.Input  // the compiled inputSchema, for checkArgs
	output  *validate.Schema // the compiled outputSchema, nil without one
	headers []headerParam
	exts    []toolExt        // set by ToolExtension
	polling bool             // set by AllowPolling
	scopes  []string         // set by RequireScopes
	replace bool             // set by Replace
	wrap    []ToolMiddleware // set by WrapTool
	// conforms is set by OutputConforms, and kept only for a tool with
	// neither WrapTool middleware nor an extension, which could change
	// its results: tools/call does not validate them.
	conforms bool
	// validJSON is set by StructuredContentValid, and kept as conforms is.
	validJSON bool
}

// OutputConforms registers a tool whose results conform to its
// outputSchema by construction, their numbers as encoding a Go number
// writes them (at most 25 digits, an exponent of at most 324), so that
// tools/call does not validate their structuredContent (a result without
// one is still refused). It is ignored for a tool with WrapTool
// middleware or an extension, and under WithNumberLimits below those
// bounds. typed.AddTool sets it only where the check cannot fail:
// the outputSchema inferred from a Go type every encoding of which
// conforms (see typed.AddTool). A tool that sets it and sends a result
// that does not conform sends it to the client unchecked.
func OutputConforms() ToolOption {
	return func(_ *Server, t *tool) error {
		t.conforms = true
		return nil
	}
}

// StructuredContentValid registers a tool whose every structuredContent
// is JSON that need not be validated again before it is written: what an
// encoding/json-compatible encoder writes for a struct with no maps and
// no type that encodes itself, a few levels deep, unchanged since
// (typed.AddTool sets it for such an Out). Up to maxTrustedRaw bytes it is
// written as it is; a larger one is validated. It is ignored as
// OutputConforms is, and under WithMiddleware, which may change results.
// A tool that sets it and sends other bytes may send invalid JSON.
func StructuredContentValid() ToolOption {
	return func(_ *Server, t *tool) error { t.validJSON = true; return nil }
}

// maxTrustedRaw bounds a StructuredContentValid structuredContent written
// unvalidated: far under the string and member limits the validation
// enforces (protocol.MarshalOptions.Trusted).
const maxTrustedRaw = 1 << 20

// AllowPolling registers a tool whose handler may call
// Request.DisconnectForPolling. In a 2025-11-25 session with resumability
// on, such a tool's calls run on a goroutine of their own, apart from the
// one that serves their HTTP request, so that the response can end while
// the call goes on; other calls run on the HTTP request's goroutine, which
// costs less, and DisconnectForPolling does nothing in them (it returns
// false and logs a warning). legacy.Config.PollAfter applies to every
// request, as if every tool allowed polling.
func AllowPolling() ToolOption {
	return func(_ *Server, t *tool) error {
		t.polling = true
		return nil
	}
}

// headerParam is an argument mirrored into an Mcp-Param-* header.
type headerParam struct {
	name string   // header suffix, e.g. "Region"
	key  string   // the header's canonical name, as net/http stores it
	path []string // property path into the arguments
	typ  string   // "string", "integer" or "boolean"
}

// AddTool registers a tool with its raw inputSchema (and optional
// outputSchema). The schemas are compiled once, here: the default dialect
// is JSON Schema 2020-12, "$schema" may select another, only local "$ref"s
// resolve (nothing is ever fetched, R-SCHEMA-05), and nesting is bounded
// (WithMaxSchemaDepth). x-mcp-header annotations are checked (R-HDR-10).
// A name outside the form R-TOOL-04 recommends (1-128 characters of
// [A-Za-z0-9_.-]) is accepted with a warning in the log, or refused under
// WithStrictNames; an empty name is refused. A name already registered
// is an error wrapping ErrDuplicate, since names are unique (R-TOOL-04),
// unless opts has Replace. opts (AsTask, RequireScopes, Replace)
// configure it.
func (s *Server) AddTool(def protocol.Tool, h ToolHandler, opts ...ToolOption) error {
	if err := s.checkName("tool", def.Name); err != nil {
		return err
	}
	if h == nil {
		return fmt.Errorf("server: tool %s: nil handler", def.Name)
	}
	t := &tool{def: def, handler: h}
	in, err := protocol.Marshal(&def.InputSchema)
	if err != nil {
		return fmt.Errorf("server: tool %s: inputSchema: %w", def.Name, err)
	}
	if t.input, err = validate.CompileInput(in, s.schemaOptions()); err != nil {
		return fmt.Errorf("server: tool %s: inputSchema: %w", def.Name, err)
	}
	if t.headers, err = headerParams(in); err != nil {
		return fmt.Errorf("server: tool %s: %w", def.Name, err)
	}
	if def.OutputSchema != nil {
		out, err := protocol.Marshal(def.OutputSchema)
		if err != nil {
			return fmt.Errorf("server: tool %s: outputSchema: %w", def.Name, err)
		}
		if t.output, err = s.compileSchema(out); err != nil {
			return fmt.Errorf("server: tool %s: outputSchema: %w", def.Name, err)
		}
	}
	for _, o := range opts {
		if err := o(s, t); err != nil {
			return fmt.Errorf("server: tool %s: %w", def.Name, err)
		}
	}
	t.handler = wrapTool(t.handler, t.wrap)
	t.conforms = t.conforms && len(t.wrap) == 0 && len(t.exts) == 0
	t.validJSON = t.validJSON && len(t.wrap) == 0 && len(t.exts) == 0
	s.mu.Lock()
	if _, ok := s.tools[def.Name]; ok && !t.replace {
		s.mu.Unlock()
		return fmt.Errorf("server: tool %s: %w (Replace replaces it)", def.Name, ErrDuplicate)
	}
	s.tools[def.Name] = t
	s.sortedTools.Store(nil)
	s.mu.Unlock()
	_ = s.NotifyToolsChanged()
	return nil
}

// RemoveTool unregisters a tool; it reports whether it was there.
func (s *Server) RemoveTool(name string) bool {
	return unregister(s, s.tools, name, &s.sortedTools, s.NotifyToolsChanged)
}

// compileSchema compiles a schema that is not a tool's inputSchema (an
// outputSchema, an elicitation's requestedSchema) with the server's
// settings (validate.Compile).
func (s *Server) compileSchema(raw []byte) (*validate.Schema, error) {
	return validate.Compile(raw, s.schemaOptions())
}

// schemaOptions are the settings tool schemas are compiled with: the
// nesting limit (WithMaxSchemaDepth) and whether "format" asserts
// (WithFormatAssertion).
func (s *Server) schemaOptions() validate.Options {
	return validate.Options{MaxDepth: s.cfg.maxSchemaDepth, AssertFormat: s.cfg.assertFormat}
}

// headerArgs reads, of arguments with too many values to build, only the
// members the Mcp-Param-* headers of params are compared with
// (validate.HeaderArgs).
func headerArgs(args []byte, params []headerParam) any {
	paths := make([][]string, len(params))
	for i, p := range params {
		paths[i] = p.path
	}
	return validate.HeaderArgs(args, paths)
}

var tcharRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// headerParams finds the x-mcp-header annotations of an inputSchema and
// checks them (R-HDR-10): an RFC 9110 token, unique ignoring case, only on
// string, integer or boolean properties reached through "properties".
func headerParams(raw []byte) ([]headerParam, error) {
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, err
	}
	var out []headerParam
	seen := map[string]bool{}
	var walk func(obj map[string]any, path []string) error
	walk = func(obj map[string]any, path []string) error {
		props, _ := obj["properties"].(map[string]any)
		for _, k := range sortedKeys(props) {
			p, ok := props[k].(map[string]any)
			if !ok {
				continue
			}
			sub := append(append([]string(nil), path...), k)
			if h, has := p["x-mcp-header"]; has {
				name, ok := h.(string)
				if !ok || name == "" || !tcharRE.MatchString(name) {
					return fmt.Errorf("property %s: x-mcp-header %v is not an HTTP token", strings.Join(sub, "."), h)
				}
				if seen[strings.ToLower(name)] {
					return fmt.Errorf("property %s: x-mcp-header %q is used twice", strings.Join(sub, "."), name)
				}
				seen[strings.ToLower(name)] = true
				typ, _ := p["type"].(string)
				if typ != "string" && typ != "integer" && typ != "boolean" {
					return fmt.Errorf("property %s: x-mcp-header needs type string, integer or boolean, not %v", strings.Join(sub, "."), p["type"])
				}
				out = append(out, headerParam{name: name, key: textproto.CanonicalMIMEHeaderKey(HeaderParamPrefix + name), path: sub, typ: typ})
			}
			if err := walk(p, sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, nil); err != nil {
		return nil, err
	}
	if at, bad := strayHeader(root, false, true, ""); bad {
		return nil, fmt.Errorf("x-mcp-header at %s is not on a property reached through \"properties\" from the root", at)
	}
	return out, nil
}

// strayHeader finds an x-mcp-header that headerParams does not reach: on
// the root, or under items, a composition keyword, $defs and the like
// (R-HDR-10 makes the whole tool invalid). ok says whether node may carry
// the annotation, childrenOK whether its "properties" children may.
func strayHeader(node map[string]any, ok, childrenOK bool, path string) (string, bool) {
	if _, has := node["x-mcp-header"]; has && !ok {
		if path == "" {
			path = "/"
		}
		return path, true
	}
	for _, k := range sortedKeys(node) {
		switch k {
		case "enum", "const", "examples", "default": // values, not schemas
			continue
		}
		switch v := node[k].(type) {
		case map[string]any:
			switch k {
			case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
				reach := k == "properties" && childrenOK
				for _, name := range sortedKeys(v) {
					if sub, isObj := v[name].(map[string]any); isObj {
						if at, bad := strayHeader(sub, reach, reach, path+"/"+k+"/"+name); bad {
							return at, true
						}
					}
				}
			default:
				if at, bad := strayHeader(v, false, false, path+"/"+k); bad {
					return at, true
				}
			}
		case []any:
			for i, e := range v {
				if sub, isObj := e.(map[string]any); isObj {
					if at, bad := strayHeader(sub, false, false, fmt.Sprintf("%s/%s/%d", path, k, i)); bad {
						return at, true
					}
				}
			}
		}
	}
	return "", false
}

// lookup returns m[name] under s.mu, m one of s's maps (made by New).
func lookup[V any](s *Server, m map[string]V, name string) (V, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := m[name]
	return v, ok
}

// callTool runs tools/call.
func (s *Server) callTool(ctx context.Context, r *Request, p *protocol.CallToolRequestParams, x *Exchange) (wireResult, error) {
	t, _ := lookup(s, s.tools, p.Name)
	if t == nil {
		return nil, InvalidParams("Unknown tool: "+p.Name, nil)
	}
	if err := checkScopes(r, t.scopes); err != nil {
		return nil, err // R-AUTH-08: before the arguments are looked at
	}
	args := json.RawMessage(p.Arguments)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	// The common case, a flat schema and no Mcp-Param-* headers to
	// compare, is decided on the text; anything else is parsed once for
	// the headers and the validator.
	lim := s.valueLimits()
	if x.HTTP && len(t.headers) > 0 || !t.input.ValidRaw(args, lim) {
		if res, err := s.checkArgs(ctx, t, args, lim, x); res != nil || err != nil {
			return res, err
		}
	}
	if err := s.prepareMRTR(r, p.Name, args, p.InputResponses, p.RequestState); err != nil {
		return nil, err
	}
	if len(t.exts) > 0 {
		if e := t.requiredExtension(); e != nil && !r.Declares(e.ID) {
			return nil, MissingExtension(e.ID) // R-VER-04
		}
		if h := t.callHook(); h != nil {
			call := &ToolCall{Name: t.def.Name, Arguments: args, Value: h.value, ClientKey: x.ClientKey, s: s, t: t}
			res, err := h.ext.CallTool(ctx, r, call)
			return extResult(res, err, true)
		}
	}
	res, err := t.handler(ctx, r, args)
	return s.finishTool(r, t, res, err)
}

// checkArgs parses and validates tool arguments the fast path did not
// vouch for: a result (a tool execution error) or an error refuses them.
// The Mcp-Param-* headers are compared once the arguments are parsed,
// before anything of them is refused but their form (R-HDR-07): Parse
// builds the tree whatever its numbers, and Check judges it. Parsing and
// the check stop when ctx ends (see validate.Input.Check).
func (s *Server) checkArgs(ctx context.Context, t *tool, args json.RawMessage, lim validate.Limits, x *Exchange) (wireResult, error) {
	a, err := validate.Parse(ctx, args, lim)
	var tooMany *validate.ValueError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err() // the client went away, or the deadline passed
	case errors.As(err, &tooMany):
		// More values than WithMaxArgumentValues: none was built. The
		// headers are still compared first (R-HDR-07), on the few values
		// they name.
		if x.HTTP && len(t.headers) > 0 {
			if err := checkParamHeaders(t.headers, headerArgs(args, t.headers), x.Header); err != nil {
				return nil, err
			}
		}
		return toolError("Invalid arguments: " + tooMany.Error()), nil
	default:
		return nil, InvalidParams("arguments: "+err.Error(), nil)
	}
	if x.HTTP {
		if err := checkParamHeaders(t.headers, a.Value, x.Header); err != nil {
			return nil, err
		}
	}
	// A tool execution error from here on, so that the model can correct
	// itself.
	problem, err := t.input.Check(ctx, a, lim)
	switch {
	case err != nil:
		return nil, err
	case problem != "":
		return toolError("Invalid arguments: " + problem), nil
	}
	return nil, nil
}

// finishTool turns what a tool handler returned into the tools/call
// answer: an input_required result, a protocol error, a tool execution
// error, or the result checked against the outputSchema.
func (s *Server) finishTool(r *Request, t *tool, res *protocol.CallToolResult, err error) (wireResult, error) {
	if err != nil {
		var ir *InputRequired
		if errors.As(err, &ir) {
			return s.inputRequiredResult(r, ir)
		}
		if e, ok := asError(err); ok {
			return nil, e
		}
		return toolError(err.Error()), nil
	}
	if res == nil {
		return nil, InternalError("tool returned no result")
	}
	if t.output != nil && (res.IsError == nil || !*res.IsError) {
		if len(res.StructuredContent) == 0 {
			s.log.Error("tool result lacks structuredContent required by its outputSchema", "tool", t.def.Name)
			return nil, InternalError("tool result does not match its outputSchema")
		}
		if err := s.checkOutput(t, res); err != nil {
			s.log.Error("tool result does not match its outputSchema", "tool", t.def.Name, "err", err)
			return nil, InternalError("tool result does not match its outputSchema")
		}
	}
	if res.Content == nil {
		res.Content = []protocol.ContentBlock{}
	}
	if t.validJSON && s.chain == nil && len(res.StructuredContent) <= maxTrustedRaw {
		r.trusted = res.StructuredContent // no middleware can change it before resultOutcome
	}
	return res, nil
}

// The most digits and the largest exponent of a Go number's JSON
// (OutputConforms): strconv's shortest float64, 0.000001 and up to 1e21
// written in full, 5e-324 the smallest.
const goNumberDigits, goNumberExponent = 25, 324

// checkOutput validates a result's structuredContent against the tool's
// outputSchema, unless the tool's results conform by construction.
func (s *Server) checkOutput(t *tool, res *protocol.CallToolResult) error {
	lim := s.valueLimits()
	if t.conforms && lim.MaxDigits >= goNumberDigits && lim.MaxExponent >= goNumberExponent {
		return nil
	}
	lim.MaxValues = 0 // the server's own result: not bounded as arguments are
	v, err := validate.ParseValue(context.Background(), res.StructuredContent, lim)
	if err != nil {
		return err
	}
	return t.output.Validate(v)
}

func toolError(text string) *protocol.CallToolResult {
	t := true
	return &protocol.CallToolResult{IsError: &t, Content: []protocol.ContentBlock{{Value: &protocol.TextContent{Text: text}}}}
}

// WithFormatAssertion makes "format" an assertion in tool schemas, in
// every dialect. By default it is an annotation, as JSON Schema 2020-12
// (the default dialect) specifies and drafts 04 to 07 allow (they make
// its assertion optional): the validator asserts it for drafts before
// 2019-09, and format "regex" compiles the string as a regular
// expression, at a cost out of proportion to its length (150 µs a byte at
// worst). Asserted, a format counts in WithMaxValidationWork as a pattern
// does, and "regex" 3,000 units a byte.
func WithFormatAssertion() Option { return func(c *config) { c.assertFormat = true } }
