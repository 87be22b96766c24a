// Package typed registers tools whose arguments and results are Go types
// (AddTool): their input and output schemas are inferred from the types
// (github.com/google/jsonschema-go) or checked against the ones given,
// arguments decode into In, and Out becomes the result's
// structuredContent. It is written on package server's public API alone.
package typed

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	goccy "github.com/goccy/go-json"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// AddTool registers a tool whose arguments decode into In and whose
// result is Out. Out becomes structuredContent and its JSON also goes
// into a text block (R-TOOL-07).
//
// In is a struct, a pointer to one (the handler gets a non-nil pointer),
// struct{} (no arguments), a map with string keys, json.RawMessage (the
// arguments as they came) or any (the handler gets the arguments decoded
// as encoding/json decodes into an any: a map[string]any, numbers as
// float64). Another type is refused at registration with an error that
// names it.
//
// Out is any type encoding/json can encode, or:
//   - *protocol.CallToolResult: the handler builds the result itself
//     (text, images, its own isError) and it is sent as it is; the tool
//     declares no outputSchema unless def gives one;
//   - any (or another interface type): the tool declares no outputSchema
//     unless def gives one; a nil value makes a result
//     with no content and no structuredContent, a *protocol.CallToolResult
//     value is sent as it is, any other value is encoded as for a typed
//     Out.
//
// Schemas: the input and output schemas are inferred from In and Out
// (github.com/google/jsonschema-go; see InferSchema), unless def carries
// its own. def.InputSchema counts as given when it has any member besides
// "type" (a "$schema" or any member in Extra); def.OutputSchema when it is
// not nil. A given schema is used as it is, so that what it adds to the
// Go type (an enum, a pattern, descriptions, bounds) is declared in
// tools/list and enforced on every call. It is checked against the Go
// type where the type says something: for a struct In (or a pointer to
// one, without its own UnmarshalJSON), every property the inputSchema
// declares or requires must be one of In's JSON fields, and a property's
// "type" must be one the field's inferred type allows ("integer" fits
// "number"); for a struct Out, every property the outputSchema requires
// must be a field of Out, and a top-level "type" must be one Out's
// inferred schema allows. The results are also validated against the
// outputSchema on every call (R-TOOL-06), so what the check cannot see
// shows there; except where that cannot fail: an outputSchema inferred
// from a struct Out whose every encoding conforms to it (fields of
// booleans, numbers, strings, pointers and slices of them, no maps, no
// []byte, no ",string", no type of its own MarshalJSON or MarshalText:
// server.OutputConforms). A given outputSchema, and one inferred from
// anything else (a map, any, a type that encodes itself), is checked.
func AddTool[In, Out any](s *server.Server, def protocol.Tool, h func(ctx context.Context, req *server.Request, in In) (Out, error), opts ...server.ToolOption) error {
	inT, outT := reflect.TypeFor[In](), reflect.TypeFor[Out]()
	inName := "AddTool[In=" + inT.String() + "]"
	outName := "AddTool[Out=" + outT.String() + "]"
	inferred, err := inferInput(inT)
	if err != nil {
		return fmt.Errorf("typed: tool %s: %s: %w", def.Name, inName, err)
	}
	if inputSchemaGiven(&def.InputSchema) {
		if err := checkGivenInput(inT, inferred, &def.InputSchema); err != nil {
			return fmt.Errorf("typed: tool %s: %s: inputSchema: %w", def.Name, inName, err)
		}
	} else if err := schemaInto(inferred, &def.InputSchema); err != nil {
		return fmt.Errorf("typed: tool %s: %s: inferred input schema: %w", def.Name, inName, err)
	}
	raw := inT == reflect.TypeFor[json.RawMessage]()
	byCopy := !decodesItself(inT, map[reflect.Type]bool{})
	decode := func(args json.RawMessage) (In, error) {
		if raw {
			var in In
			reflect.ValueOf(&in).Elem().Set(reflect.ValueOf(slices.Clone(args)))
			return in, nil
		}
		return typedArgs[In](args, byCopy)
	}
	// call decodes the arguments and calls the handler.
	call := func(ctx context.Context, req *server.Request, args json.RawMessage) (out Out, err error) {
		in, err := decode(args)
		if err != nil {
			return out, err
		}
		return h(ctx, req, in)
	}
	switch {
	case outT == reflect.TypeFor[*protocol.CallToolResult]():
		// The handler's result goes as it is; a given outputSchema is
		// kept, and checks its structuredContent.
		return s.AddTool(def, func(ctx context.Context, req *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			out, err := call(ctx, req, args)
			if err != nil {
				return nil, err
			}
			return any(out).(*protocol.CallToolResult), nil
		}, opts...)
	case outT.Kind() == reflect.Interface:
		// No outputSchema unless one is given.
	default:
		outSchema, err := jsonschema.ForType(outT, nil)
		if err != nil {
			return fmt.Errorf("typed: tool %s: %s: %w (Out must be a type encoding/json can encode, any for a tool with no outputSchema, or *protocol.CallToolResult)", def.Name, outName, err)
		}
		if def.OutputSchema != nil {
			if err := checkGivenOutput(outT, outSchema, def.OutputSchema); err != nil {
				return fmt.Errorf("typed: tool %s: %s: outputSchema: %w", def.Name, outName, err)
			}
			break
		}
		def.OutputSchema = new(protocol.ToolOutputSchema)
		if err := schemaInto(outSchema, def.OutputSchema); err != nil {
			return fmt.Errorf("typed: tool %s: %s: inferred output schema: %w", def.Name, outName, err)
		}
		if encodesConforming(outT) {
			// The schema is inferred from Out and nothing narrowed it:
			// every result conforms, validating them cannot fail.
			opts = append(slices.Clip(opts), server.OutputConforms())
		}
	}
	if encodesValidJSON(outT) {
		// goccy's encoding of Out is valid JSON without duplicate names,
		// shallow: the server need not check it again.
		opts = append(slices.Clip(opts), server.StructuredContentValid())
	}
	iface := outT.Kind() == reflect.Interface
	return s.AddTool(def, func(ctx context.Context, req *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		out, err := call(ctx, req, args)
		if err != nil {
			return nil, err
		}
		var b []byte
		if iface {
			v := any(out)
			switch r := v.(type) {
			case nil:
				return &protocol.CallToolResult{Content: []protocol.ContentBlock{}}, nil
			case *protocol.CallToolResult:
				if r != nil {
					return r, nil
				}
			}
			b, err = goccy.Marshal(v)
		} else {
			// By its type: Out is not copied into an interface value
			// first (TestMarshalOfAsMarshal).
			b, err = goccy.MarshalOf(out)
		}
		if err != nil {
			return nil, fmt.Errorf("encoding the result: %w", err)
		}
		// The result, its one content block and its text in one
		// allocation.
		res := new(struct {
			r protocol.CallToolResult
			c [1]protocol.ContentBlock
			t protocol.TextContent
		})
		res.t.Text = string(b)
		res.c[0].Value = &res.t
		res.r.Content, res.r.StructuredContent = res.c[:], b
		return &res.r, nil
	}, opts...)
}

// isAny reports whether t is the empty interface.
func isAny(t reflect.Type) bool { return t.Kind() == reflect.Interface && t.NumMethod() == 0 }

// inMustBe says what In may be.
const inMustBe = "In must be a struct, a pointer to one, struct{}, a map with string keys, json.RawMessage or any"

// inferInput infers the input schema of In, or says why In cannot be a
// tool's arguments and what to use instead.
func inferInput(t reflect.Type) (*jsonschema.Schema, error) {
	switch {
	case isAny(t), t == reflect.TypeFor[json.RawMessage]():
		return &jsonschema.Schema{Type: "object"}, nil
	case t.Kind() == reflect.Struct, t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct:
		t = t.Elem() // the schema of the struct: the arguments are never null
	default:
		return nil, fmt.Errorf("%s: tool arguments are a JSON object (R-SCHEMA-09), which a %s cannot hold", inMustBe, t.Kind())
	}
	sch, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, fmt.Errorf("%w (give the field a type encoding/json can decode, or set def.InputSchema and make In any or json.RawMessage)", err)
	}
	return sch, nil
}

// inputSchemaGiven reports whether def.InputSchema says more than
// {"type":"object"}.
func inputSchemaGiven(sch *protocol.ToolInputSchema) bool {
	return sch.Schema != nil || len(sch.Extra) > 0
}

// checkGivenInput checks a given inputSchema against a struct In: what it
// declares and requires must be In's fields, with types they can hold.
func checkGivenInput(t reflect.Type, inferred *jsonschema.Schema, given *protocol.ToolInputSchema) error {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return nil // a map, any or json.RawMessage takes any object
	}
	g, err := schemaMap(given)
	if err != nil {
		return err
	}
	fields := slices.Sorted(maps.Keys(inferred.Properties))
	props, _ := g["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		f, ok := inferred.Properties[name]
		if !ok {
			return fmt.Errorf("property %q is no field of In (its JSON fields: %s): its value would be dropped", name, strings.Join(fields, ", "))
		}
		p, _ := props[name].(map[string]any)
		if err := typesFit(p["type"], f); err != nil {
			return fmt.Errorf("property %q: %w", name, err)
		}
	}
	req, _ := g["required"].([]any)
	for _, r := range req {
		name, _ := r.(string)
		if _, ok := inferred.Properties[name]; !ok {
			return fmt.Errorf("required property %q is no field of In (its JSON fields: %s)", name, strings.Join(fields, ", "))
		}
	}
	return nil
}

// checkGivenOutput checks a given outputSchema against Out: its top-level
// type must be one Out's values take, and what it requires must be a
// field of a struct Out.
func checkGivenOutput(t reflect.Type, inferred *jsonschema.Schema, given *protocol.ToolOutputSchema) error {
	g, err := schemaMap(given)
	if err != nil {
		return err
	}
	if err := typesFit(g["type"], inferred); err != nil {
		return err
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Marshaler]()) {
		return nil
	}
	fields := slices.Sorted(maps.Keys(inferred.Properties))
	req, _ := g["required"].([]any)
	for _, r := range req {
		name, _ := r.(string)
		if _, ok := inferred.Properties[name]; !ok {
			return fmt.Errorf("required property %q is no field of Out (its JSON fields: %s)", name, strings.Join(fields, ", "))
		}
	}
	return nil
}

// typesFit checks that every type a given schema's "type" names (a string
// or a list) is one the inferred schema allows; "integer" fits "number".
// Either side without a type fits.
func typesFit(given any, inferred *jsonschema.Schema) error {
	allowed := inferred.Types
	if inferred.Type != "" {
		allowed = []string{inferred.Type}
	}
	if given == nil || len(allowed) == 0 {
		return nil
	}
	var names []string
	switch g := given.(type) {
	case string:
		names = []string{g}
	case []any:
		for _, x := range g {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
	}
	for _, n := range names {
		if !slices.Contains(allowed, n) && !(n == "integer" && slices.Contains(allowed, "number")) {
			return fmt.Errorf("type %q does not fit the Go type, whose schema allows %s", n, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// schemaMap decodes a generated schema type into a generic map.
func schemaMap(v any) (map[string]any, error) {
	b, err := protocol.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// typedArgs decodes validated tool arguments into In. byCopy decodes
// with goccy.UnmarshalOf, into a copy that stays off the heap: for an In
// with no type that decodes itself (decodesItself), whose method could
// keep the address of the copy (TestUnmarshalOfAsUnmarshal).
func typedArgs[In any](args json.RawMessage, byCopy bool) (In, error) {
	if !byCopy {
		in := new(In)
		err := goccy.Unmarshal(args, in)
		return *in, argsError(err)
	}
	var in In // not the heap's: the pointer goes to UnmarshalOf by its type
	err := goccy.UnmarshalOf(args, &in)
	return in, argsError(err)
}

// argsError is typedArgs's error for goccy's, or nil.
func argsError(err error) error {
	if err != nil {
		return server.InvalidParams("arguments: "+err.Error(), nil)
	}
	return nil
}

// decodesItself reports whether t, or a type in it, has a method by
// which goccy lets a value decode itself: one named UnmarshalJSON,
// UnmarshalJSONFrom or UnmarshalText, whatever its signature.
func decodesItself(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	// By name, which covers json.Unmarshaler and encoding.TextUnmarshaler:
	// goccy also calls UnmarshalJSON(context.Context, []byte) and
	// UnmarshalJSONFrom(*jsontext.Decoder), whose receiver may be kept too.
	for _, name := range [...]string{"UnmarshalJSON", "UnmarshalJSONFrom", "UnmarshalText"} {
		if _, ok := reflect.PointerTo(t).MethodByName(name); ok {
			return true
		}
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return decodesItself(t.Elem(), seen)
	case reflect.Map:
		return decodesItself(t.Key(), seen) || decodesItself(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if decodesItself(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// schemaInto converts an inferred schema into a generated schema type.
func schemaInto(sch *jsonschema.Schema, dst interface{ UnmarshalJSON([]byte) error }) error {
	b, err := json.Marshal(sch)
	if err != nil {
		return err
	}
	return dst.UnmarshalJSON(b)
}
