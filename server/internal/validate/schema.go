package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The bounds of a schema document, whatever the options.
const (
	// MaxSchemaNodes bounds the size of a schema (values in the document,
	// keywords and subschemas included), so that composition keywords
	// cannot make validation arbitrarily costly (R-SCHEMA-08).
	MaxSchemaNodes = 10000
	// MaxSchemaCost bounds the work of validating against a schema, its
	// $refs expanded (see schemaCost).
	MaxSchemaCost = 100000
	// DefaultMaxSchemaDepth is the default of Options.MaxDepth.
	DefaultMaxSchemaDepth = 64
)

// Options are the settings Compile and CompileInput compile with.
type Options struct {
	// MaxDepth bounds how many levels the schema document nests
	// (WithMaxSchemaDepth), as given: zero or less is no default, but a
	// bound no schema with a member meets.
	MaxDepth int
	// AssertFormat makes "format" an assertion, in every dialect; else it
	// is an annotation (tameSchema drops it).
	AssertFormat bool
}

// A Schema is a compiled schema that values are validated against: a
// tool's outputSchema, an elicitation's requestedSchema.
type Schema struct {
	root *sjs.Schema
}

// Compile compiles a schema once, and tames it: uniqueItems, enum and
// const are checked by the runtime in linear time, and format is an
// annotation unless o.AssertFormat. The default dialect is JSON Schema
// 2020-12, "$schema" may select another, only local "$ref"s resolve
// (nothing is ever fetched, R-SCHEMA-05), and the document is bounded
// (MaxSchemaNodes, MaxSchemaCost, o.MaxDepth; references that loop
// without descending into the instance are refused). Its errors are the
// compiler's own (a *jsonschema.SchemaValidationError when the schema
// does not satisfy its meta-schema) or say which bound the schema is
// over.
func Compile(raw []byte, o Options) (*Schema, error) {
	root, _, err := compile(raw, o)
	if err != nil {
		return nil, err
	}
	return &Schema{root: root}, nil
}

// Validate checks v, a value tree as ParseValue returns it, against s: nil
// when it satisfies s, else the validator's error (ErrorText spells it
// out).
func (s *Schema) Validate(v any) error { return s.root.Validate(v) }

// An Input is a tool's inputSchema compiled for Check: the compiled schema,
// its index (the case variants of declared names, and the estimate of the
// validator's work: argIndex) and, when it is a flat object of primitives,
// the runtime's own linear check of it (flatSchema).
type Input struct {
	root  *sjs.Schema
	index *argIndex
	flat  *flatSchema // nil: not a flat schema
}

// CompileInput compiles a tool's inputSchema as Compile does, and indexes
// it. It also refuses a schema whose subschemas combine in too many ways
// to bound the work of validating against it.
func CompileInput(raw []byte, o Options) (*Input, error) {
	root, dynamic, err := compile(raw, o)
	if err != nil {
		return nil, err
	}
	index, err := newArgIndex(root, dynamic...)
	if err != nil {
		return nil, err
	}
	return &Input{root: root, index: index, flat: compileFlat(raw)}, nil
}

// ValidRaw reports whether args certainly satisfy in, reading the JSON
// text without parsing it: only for a flat schema, and only in the plain
// cases (see flatSchema.validRaw). args has passed protocol's strict
// decoder. false means "not certain": the caller then parses (Parse) and
// checks (Check) them, which gives the verdict and the message.
func (in *Input) ValidRaw(args []byte, lim Limits) bool {
	return in.flat != nil && in.flat.validRaw(args, lim)
}

// Check judges arguments that Parse read: a number over the limits, a
// member name that equals a declared property only ignoring case, work
// of validating them estimated over lim.MaxWork (for a schema that is not
// flat: the runtime's own check of a flat one is linear), and then the
// schema. It returns what is wrong with them, "" when nothing: the text
// that follows "Invalid arguments: " in a tool execution error.
//
// The validator (santhosh-tekuri/jsonschema) cannot be interrupted, so its
// work is bounded before it starts: numbers by the number limits (Parse),
// and the whole by the estimate of argIndex. The estimate stops when ctx
// ends, and ctx is checked again just before the validator runs: the error
// is then ctx's.
func (in *Input) Check(ctx context.Context, a Args, lim Limits) (string, error) {
	if a.over != nil {
		return a.over.Error(), nil
	}
	// The runtime's own check of a flat schema is linear: only the
	// general validator's work is bounded.
	limit := int64(math.MaxInt64)
	if in.flat == nil || in.flat.checks != nil {
		limit = lim.MaxWork
	}
	work, variants, err := in.index.scan(ctx, a.Value, limit)
	switch {
	case err != nil:
		return "", err
	case work > limit:
		return fmt.Sprintf("too large to validate (the work of validating them is over the limit of %d)", limit), nil
	case len(variants) > 0:
		return variants.Error(), nil
	}
	if in.flat != nil && in.flat.checks == nil {
		if err := in.flat.validate(a.Value); err != nil {
			return err.Error(), nil
		}
		return "", nil
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := in.root.Validate(a.Value); err != nil {
		return ErrorText(err), nil
	}
	return "", nil
}

// noLoader refuses every URL: only references inside the schema resolve.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("refusing to load %s: only local $ref is resolved (R-SCHEMA-05)", url)
}

// compile compiles a schema and tames it (tameSchema), also returning the
// compiled schemas that only a $dynamicRef may reach (through a
// $dynamicAnchor no keyword leads to), tamed as well, for argIndex to see.
func compile(raw []byte, o Options) (*sjs.Schema, []*sjs.Schema, error) {
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, err
	}
	if n := nodes(doc, MaxSchemaNodes+1); n > MaxSchemaNodes {
		return nil, nil, fmt.Errorf("schema has more than %d nodes", MaxSchemaNodes)
	}
	if c := schemaCost(doc, MaxSchemaCost); c > MaxSchemaCost {
		return nil, nil, fmt.Errorf("validating against this schema may take more than %d steps (its $refs expand too far)", MaxSchemaCost)
	}
	if d := depth(doc, 0); d > o.MaxDepth {
		return nil, nil, fmt.Errorf("schema nests %d levels, more than the limit of %d", d, o.MaxDepth)
	}
	if err := schemaNumbers(doc, ""); err != nil {
		return nil, nil, err
	}
	c := sjs.NewCompiler()
	c.DefaultDraft(sjs.Draft2020)
	c.UseLoader(noLoader{})
	if o.AssertFormat {
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
	tameSchema(append([]*sjs.Schema{root}, extra...), o.AssertFormat)
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
		for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
			next = append(next, s.DependentSchemas[k])
		}
		for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
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
	for _, k := range slices.Sorted(maps.Keys(sch)) {
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
				for _, name := range slices.Sorted(maps.Keys(m)) {
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

// MaxErrorLines bounds the failures ErrorText spells out: an array of a
// million wrong values must not make a message of tens of megabytes.
const MaxErrorLines = 32

// ErrorText flattens an error of the validator (Schema.Validate) into one
// line per failure, each with its instance path, up to MaxErrorLines of
// them, followed by how many more there are; any other error is its
// Error().
func ErrorText(err error) string {
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
			if len(lines) == MaxErrorLines {
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
