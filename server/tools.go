package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/textproto"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpwire/mcpwire/protocol"
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

// ToolOption configures a tool at registration (AddTool, AddTypedTool).
type ToolOption func(s *Server, t *tool) error

type tool struct {
	def     protocol.Tool
	handler ToolHandler
	input   *sjs.Schema
	flat    *flatSchema // the same inputSchema, when it is a flat object of primitives
	index   *argIndex   // inputSchema's declared names and validation work, for checkArgs
	output  *sjs.Schema
	headers []headerParam
	exts    []toolExt        // set by ToolExtension
	polling bool             // set by AllowPolling
	scopes  []string         // set by RequireScopes
	replace bool             // set by Replace
	wrap    []ToolMiddleware // set by WrapTool
}

// AllowPolling registers a tool whose handler may call
// Request.DisconnectForPolling. In a 2025-11-25 session with resumability
// on, such a tool's calls run on a goroutine of their own, apart from the
// one that serves their HTTP request, so that the response can end while
// the call goes on; other calls run on the HTTP request's goroutine, which
// costs less, and DisconnectForPolling does nothing in them (it returns
// false and logs a warning). LegacyConfig.PollAfter applies to every
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
	var dynamic []*sjs.Schema
	if t.input, dynamic, err = s.compileSchemaAll(in); err != nil {
		return fmt.Errorf("server: tool %s: inputSchema: %w", def.Name, err)
	}
	if t.index, err = newArgIndex(t.input, dynamic...); err != nil {
		return fmt.Errorf("server: tool %s: inputSchema: %w", def.Name, err)
	}
	t.flat = compileFlat(in)
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

// noLoader refuses every URL: only references inside the schema resolve.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("refusing to load %s: only local $ref is resolved (R-SCHEMA-05)", url)
}

// compileSchema compiles a tool schema once, at registration, and tames
// it (tameSchema): uniqueItems, enum and const are checked by the runtime
// in linear time, and format is an annotation unless WithFormatAssertion.
func (s *Server) compileSchema(raw []byte) (*sjs.Schema, error) {
	sch, _, err := s.compileSchemaAll(raw)
	return sch, err
}

// compileSchemaAll is compileSchema, also returning the compiled schemas
// that only a $dynamicRef may reach (through a $dynamicAnchor no keyword
// leads to), tamed as well, for argIndex to see.
func (s *Server) compileSchemaAll(raw []byte) (*sjs.Schema, []*sjs.Schema, error) {
	return compileToolSchema(raw, s.cfg.maxSchemaDepth, s.cfg.assertFormat)
}

// compileToolSchema is compileSchemaAll with the server's settings given:
// the nesting limit and whether "format" asserts.
func compileToolSchema(raw []byte, maxDepth int, assertFormat bool) (*sjs.Schema, []*sjs.Schema, error) {
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, err
	}
	if n := nodes(doc, DefaultMaxSchemaNodes+1); n > DefaultMaxSchemaNodes {
		return nil, nil, fmt.Errorf("schema has more than %d nodes", DefaultMaxSchemaNodes)
	}
	if c := schemaCost(doc, DefaultMaxSchemaCost); c > DefaultMaxSchemaCost {
		return nil, nil, fmt.Errorf("validating against this schema may take more than %d steps (its $refs expand too far)", DefaultMaxSchemaCost)
	}
	if d := depth(doc, 0); d > maxDepth {
		return nil, nil, fmt.Errorf("schema nests %d levels, more than the limit of %d", d, maxDepth)
	}
	if err := schemaNumbers(doc, ""); err != nil {
		return nil, nil, err
	}
	c := sjs.NewCompiler()
	c.DefaultDraft(sjs.Draft2020)
	c.UseLoader(noLoader{})
	if assertFormat {
		c.AssertFormat() // in every dialect (else tameSchema drops it)
	}
	const loc = "mcpwire:///tool-schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, nil, err
	}
	root, err := c.Compile(loc)
	if err != nil {
		return nil, nil, err
	}
	var extra []*sjs.Schema
	for _, ptr := range dynamicAnchorPointers(doc) {
		// The compiler keeps one schema per location: this is the one a
		// $dynamicRef resolves to, when the location is a schema at all.
		if sch, err := c.Compile(loc + "#" + (&url.URL{Fragment: ptr}).EscapedFragment()); err == nil {
			extra = append(extra, sch)
		}
	}
	if err := refCycle(append([]*sjs.Schema{root}, extra...), loc); err != nil {
		return nil, nil, err
	}
	tameSchema(append([]*sjs.Schema{root}, extra...), assertFormat)
	return root, extra, nil
}

// refCycle refuses a schema whose references loop without the instance
// going one level down: $defs a whose $ref is b, whose $ref is a, or a
// $dynamicRef that resolves to the schema holding it. The validator
// would find the loop on every instance that reaches it, so every call
// would fail; recursion through properties or items (a tree) descends,
// and is fine. The keywords followed are those that apply a schema to the
// same instance.
func refCycle(roots []*sjs.Schema, loc string) error {
	const (
		unseen = iota
		active
		done
	)
	state := map[*sjs.Schema]int{}
	var visit func(s *sjs.Schema) *sjs.Schema
	visit = func(s *sjs.Schema) *sjs.Schema {
		if s == nil || state[s] == done {
			return nil
		}
		if state[s] == active {
			return s
		}
		state[s] = active
		next := []*sjs.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else}
		if s.DynamicRef != nil {
			next = append(next, s.DynamicRef.Ref)
		}
		next = append(next, s.AllOf...)
		next = append(next, s.AnyOf...)
		next = append(next, s.OneOf...)
		for _, k := range sortedKeys(s.DependentSchemas) {
			next = append(next, s.DependentSchemas[k])
		}
		for _, k := range sortedKeys(s.Dependencies) {
			if t, ok := s.Dependencies[k].(*sjs.Schema); ok {
				next = append(next, t)
			}
		}
		for _, t := range next {
			if c := visit(t); c != nil {
				return c
			}
		}
		state[s] = done
		return nil
	}
	for _, s := range compiledSchemas(roots) {
		if c := visit(s); c != nil {
			return fmt.Errorf("at %s: its references loop back to it without descending into the instance, so validating any value that reaches it never ends", strings.TrimPrefix(c.Location, loc))
		}
	}
	return nil
}

// schemaNumbers refuses a bound of a schema (multipleOf, minimum,
// maximum and the exclusive ones) whose exponent float64 cannot hold:
// 1e99999999, which overflows, or 1e-99999999, which underflows to 0. The
// validator's big-number arithmetic is not made for such exponents (a
// multipleOf of either panics in math/big), and no argument could be
// compared with it anyway. It walks the schema as a schema: the bounds
// where they are keywords, the subschemas where keywords hold them, and
// nothing else (enum, const, default, examples and unknown members are
// data, compared as they are or not at all).
func schemaNumbers(v any, at string) error {
	sch, ok := v.(map[string]any)
	if !ok {
		return nil // true, false, or not a schema at all (the compiler says so)
	}
	for _, k := range sortedKeys(sch) {
		here := at + "/" + k
		switch x := sch[k]; k {
		case "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			if n, ok := x.(json.Number); ok && !boundFits(string(n)) {
				return fmt.Errorf("at %s: the number %.40s is out of range", here, n)
			}
		case "items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains",
			"propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
			if list, ok := x.([]any); ok { // items as an array (drafts before 2020-12)
				if err := schemaList(list, here); err != nil {
					return err
				}
			} else if err := schemaNumbers(x, here); err != nil {
				return err
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			if list, ok := x.([]any); ok {
				if err := schemaList(list, here); err != nil {
					return err
				}
			}
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			if m, ok := x.(map[string]any); ok {
				for _, name := range sortedKeys(m) {
					if err := schemaNumbers(m[name], here+"/"+name); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// schemaList is schemaNumbers for each schema of a list.
func schemaList(list []any, at string) error {
	for i, e := range list {
		if err := schemaNumbers(e, at+"/"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	return nil
}

// boundFits reports whether a JSON number is a float64 neither
// overflowing nor underflowing to zero.
func boundFits(n string) bool {
	f, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return false
	}
	if f != 0 {
		return true
	}
	mantissa, _, _ := strings.Cut(strings.ToLower(n), "e")
	return !strings.ContainsAny(mantissa, "123456789") // a true zero
}

// schemaCost bounds the work of validating against a schema: each keyword
// and subschema counts one, and a local $ref costs what its target costs,
// computed once per target. A chain of definitions each an anyOf of two
// references to the next therefore costs 2^N, as its validation does, and
// is refused at registration (R-SCHEMA-08). A reference back into a
// definition being costed (recursion) counts one: its depth is bounded by
// the instance.
func schemaCost(root any, limit int) int {
	memo := map[string]int{}
	active := map[string]bool{}
	var cost func(v any, depth int) int
	cost = func(v any, depth int) int {
		if depth > 256 {
			return limit + 1
		}
		c := 1
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
				switch m, done := memo[ref]; {
				case active[ref]:
					c++
				case done:
					c += m
				default:
					active[ref] = true
					m := cost(resolvePointer(root, ref), depth+1)
					active[ref] = false
					memo[ref] = m
					c += m
				}
			}
			for k, e := range x {
				if k == "$defs" || k == "definitions" {
					continue // definitions cost where they are used
				}
				if c += cost(e, depth+1); c > limit {
					return c
				}
			}
		case []any:
			for _, e := range x {
				if c += cost(e, depth+1); c > limit {
					return c
				}
			}
		}
		return c
	}
	return cost(root, 0)
}

// resolvePointer follows a local JSON pointer ("#", "#/$defs/a"); an
// anchor or a pointer that names nothing resolves to nil.
func resolvePointer(root any, ref string) any {
	p := strings.TrimPrefix(ref, "#")
	if p == "" {
		return root
	}
	if !strings.HasPrefix(p, "/") {
		return nil
	}
	v := root
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// nodes counts the values of a schema document, stopping at limit.
func nodes(v any, limit int) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if n += nodes(e, limit-n); n >= limit {
				return n
			}
		}
	case []any:
		for _, e := range x {
			if n += nodes(e, limit-n); n >= limit {
				return n
			}
		}
	}
	return n
}

func depth(v any, d int) int {
	if d > 1000 {
		return d
	}
	m := d
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			m = max(m, depth(e, d+1))
		}
	case []any:
		for _, e := range x {
			m = max(m, depth(e, d+1))
		}
	}
	return m
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

func (s *Server) lookupTool(name string) *tool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tools[name]
}

// callTool runs tools/call.
func (s *Server) callTool(ctx context.Context, r *Request, p *protocol.CallToolRequestParams, x *exchange) (wireResult, error) {
	t := s.lookupTool(p.Name)
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
	lim := s.valueLimits(ctx)
	if t.flat == nil || x.viaHTTP && len(t.headers) > 0 || !t.flat.validRaw(args, lim) {
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
			call := &ToolCall{Name: t.def.Name, Arguments: args, Value: h.value, ClientKey: x.remote, s: s, t: t}
			res, err := h.ext.CallTool(ctx, r, call)
			return extResult(res, err, true)
		}
	}
	res, err := t.handler(ctx, r, args)
	return s.finishTool(r, t, res, err)
}

// checkArgs parses and validates tool arguments the fast path did not
// vouch for: a result (a tool execution error) or an error refuses them.
//
// The validator (santhosh-tekuri/jsonschema) cannot be interrupted, so its
// work is bounded before it starts: numbers by the number limits, and the
// whole by the estimate of argIndex (WithMaxValidationWork). Parsing and
// the estimate stop when ctx ends, and ctx is checked again just before
// the validator runs.
func (s *Server) checkArgs(ctx context.Context, t *tool, args json.RawMessage, lim valueLimits, x *exchange) (wireResult, error) {
	vp := valueParser{b: args, lim: lim}
	inst, err := vp.parse()
	var tooMany *valueError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err() // the client went away, or the deadline passed
	case errors.As(err, &tooMany):
		// More values than WithMaxArgumentValues: none was built. The
		// headers are still compared first (R-HDR-07), on the few values
		// they name.
		if x.viaHTTP && len(t.headers) > 0 {
			if err := checkParamHeaders(t.headers, headerArgs(args, t.headers), x.headers); err != nil {
				return nil, err
			}
		}
		return toolError("Invalid arguments: " + tooMany.Error()), nil
	default:
		return nil, InvalidParams("arguments: "+err.Error(), nil)
	}
	if x.viaHTTP {
		if err := checkParamHeaders(t.headers, inst, x.headers); err != nil {
			return nil, err
		}
	}
	// A tool execution error from here on, so that the model can correct
	// itself.
	if vp.over != nil {
		return toolError("Invalid arguments: " + vp.over.Error()), nil
	}
	// The runtime's own check of a flat schema is linear: only the
	// general validator's work is bounded.
	limit := int64(math.MaxInt64)
	if t.flat == nil {
		limit = s.maxValidationWork()
	}
	work, variants, err := t.index.scan(ctx, inst, limit)
	switch {
	case err != nil:
		return nil, err
	case work > limit:
		return toolError(fmt.Sprintf("Invalid arguments: too large to validate (the work of validating them is over the limit of %d)", limit)), nil
	case len(variants) > 0:
		return toolError("Invalid arguments: " + variants.Error()), nil
	}
	if t.flat != nil {
		if err := t.flat.validate(inst); err != nil {
			return toolError("Invalid arguments: " + err.Error()), nil
		}
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := t.input.Validate(inst); err != nil {
		return toolError("Invalid arguments: " + validationText(err)), nil
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
		lim := s.valueLimits(context.Background())
		lim.maxValues = 0 // the server's own result: not bounded as arguments are
		v, err := parseValue(res.StructuredContent, lim)
		if err == nil {
			err = t.output.Validate(v)
		}
		if err != nil {
			s.log.Error("tool result does not match its outputSchema", "tool", t.def.Name, "err", err)
			return nil, InternalError("tool result does not match its outputSchema")
		}
	}
	if res.Content == nil {
		res.Content = []protocol.ContentBlock{}
	}
	return res, nil
}

func toolError(text string) *protocol.CallToolResult {
	t := true
	return &protocol.CallToolResult{IsError: &t, Content: []protocol.ContentBlock{{Value: &protocol.TextContent{Text: text}}}}
}

// maxValidationLines bounds the failures validationText spells out: an
// array of a million wrong values must not make a message of tens of
// megabytes.
const maxValidationLines = 32

// validationText flattens a validator error into one line per failure,
// each with its instance path, up to maxValidationLines of them.
func validationText(err error) string {
	var ve *sjs.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	english := message.NewPrinter(language.English)
	var lines []string
	more := 0
	var walk func(e *sjs.ValidationError)
	walk = func(e *sjs.ValidationError) {
		if len(e.Causes) == 0 {
			if len(lines) == maxValidationLines {
				more++
				return
			}
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			lines = append(lines, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(english)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if more > 0 {
		lines = append(lines, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(lines, "; ")
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
