package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/atombender/go-jsonschema/pkg/schemas"
)

// builder turns the schema, as loaded by go-jsonschema, into the model.
type builder struct {
	defs    schemas.Definitions
	defPath string // "#/$defs/" or "#/definitions/"
	m       *Model

	// inline enums by member name and values, to share one type
	enumUses map[string][]string // key → origins
}

// parseSchema loads the schema with go-jsonschema's loader, which knows
// both the 2020-12 $defs and the draft-07 definitions layouts.
func parseSchema(data []byte) (*schemas.Schema, string, error) {
	s, err := schemas.FromJSONReader(bytes.NewReader(data))
	if err != nil {
		return nil, "", fmt.Errorf("parse schema: %w", err)
	}
	if len(s.Definitions) == 0 {
		return nil, "", fmt.Errorf("parse schema: no $defs or definitions")
	}
	var probe struct {
		Defs json.RawMessage `json:"$defs"`
	}
	_ = json.Unmarshal(data, &probe)
	prefix := "#/definitions/"
	if probe.Defs != nil {
		prefix = "#/$defs/"
	}
	return s, prefix, nil
}

// buildModel walks every definition in sorted order.
func buildModel(s *schemas.Schema, defPath string) (*Model, error) {
	b := &builder{
		defs:     s.Definitions,
		defPath:  defPath,
		m:        &Model{Decls: map[string]*Decl{}},
		enumUses: map[string][]string{},
	}
	b.countInlineEnums()
	names := make([]string, 0, len(s.Definitions))
	for n := range s.Definitions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := b.def(n, s.Definitions[n]); err != nil {
			return nil, fmt.Errorf("%s%s: %w", defPath, n, err)
		}
	}
	for n := range b.m.Decls {
		b.m.Order = append(b.m.Order, n)
	}
	sort.Strings(b.m.Order)
	if err := b.classifyUnions(); err != nil {
		return nil, err
	}
	b.methods()
	b.errorCodes()
	linkDocs(b.m)
	return b.m, nil
}

func (b *builder) add(d *Decl) error {
	if old, ok := b.m.Decls[d.Name]; ok {
		if d.Kind == DEnum && old.Kind == DEnum && slices.Equal(old.Values, d.Values) {
			return nil
		}
		return fmt.Errorf("two types named %s (%s and %s)", d.Name, old.Origin, d.Origin)
	}
	b.m.Decls[d.Name] = d
	return nil
}

func (b *builder) refName(ref string) (string, error) {
	if !strings.HasPrefix(ref, b.defPath) {
		return "", fmt.Errorf("unsupported $ref %q (only local definitions)", ref)
	}
	n := strings.TrimPrefix(ref, b.defPath)
	if _, ok := b.defs[n]; !ok {
		return "", fmt.Errorf("$ref %q names no definition", ref)
	}
	return n, nil
}

// def declares one definition under exactly its own name.
func (b *builder) def(name string, t *schemas.Type) error {
	origin := b.defPath + name
	t = normalize(t)
	doc := docText(t.Description)
	if raw, ok := rawDefs[name]; ok {
		return b.add(&Decl{Kind: DRaw, Name: name, Doc: doc, Origin: origin, Target: TypeRef{Kind: KRaw, Raw: raw.Mode}})
	}
	switch {
	case t.Ref != "" && len(t.Properties) == 0:
		target, err := b.refName(t.Ref)
		if err != nil {
			return err
		}
		return b.add(&Decl{Kind: DAlias, Name: name, Doc: doc, Origin: origin, Target: TypeRef{Kind: KNamed, Name: target}})
	case len(t.AnyOf) > 0 || len(t.OneOf) > 0:
		return b.union(name, doc, origin, t)
	case len(t.AllOf) > 0:
		flat, err := b.flatten(t)
		if err != nil {
			return err
		}
		return b.object(name, doc, origin, flat)
	}
	switch {
	case len(t.Type) > 1:
		return b.scalarUnion(name, doc, origin, []*schemas.Type{t})
	case isTypes(t, "string") && len(t.Enum) > 0:
		vals, err := stringEnum(t.Enum)
		if err != nil {
			return err
		}
		return b.add(&Decl{Kind: DEnum, Name: name, Doc: doc, Origin: origin, Values: vals})
	case isTypes(t, "string"):
		return b.add(&Decl{Kind: DString, Name: name, Doc: doc, Origin: origin})
	case isTypes(t, "object") || len(t.Properties) > 0:
		if len(t.Properties) == 0 && t.AdditionalProperties != nil && !isFalse(t.AdditionalProperties) && !isEmptySchema(t.AdditionalProperties) {
			elem, err := b.typeRef(name+"Value", origin+"/additionalProperties", t.AdditionalProperties)
			if err != nil {
				return err
			}
			return b.add(&Decl{Kind: DMap, Name: name, Doc: doc, Origin: origin, Target: TypeRef{Kind: KMap, Elem: &elem}})
		}
		return b.object(name, doc, origin, t)
	case isTypes(t, "array"):
		if t.Items == nil {
			return fmt.Errorf("array without items")
		}
		elem, err := b.typeRef(name+"Elem", origin+"/items", t.Items)
		if err != nil {
			return err
		}
		return b.add(&Decl{Kind: DList, Name: name, Doc: doc, Origin: origin, Target: TypeRef{Kind: KSlice, Elem: &elem}})
	}
	return fmt.Errorf("cannot map definition to a Go type (type %v)", t.Type)
}

func isTypes(t *schemas.Type, names ...string) bool {
	return slices.Equal([]string(t.Type), names)
}

func isFalse(t *schemas.Type) bool {
	return t != nil && t.Not != nil && isEmptySchema(t.Not)
}

// isEmptySchema reports a schema that allows anything: {} or true.
func isEmptySchema(t *schemas.Type) bool {
	if t == nil {
		return false
	}
	c := *t
	c.Description = ""
	c.Title = ""
	return c.Ref == "" && len(c.Type) == 0 && len(c.Properties) == 0 && c.AdditionalProperties == nil &&
		len(c.AnyOf) == 0 && len(c.AllOf) == 0 && len(c.OneOf) == 0 && c.Not == nil && c.Items == nil &&
		c.Const == nil && len(c.Enum) == 0
}

func stringEnum(vals []any) ([]string, error) {
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("enum value %v is not a string", v)
		}
		out = append(out, s)
	}
	return out, nil
}

// flatten merges allOf branches (following $refs) into one object schema by
// deep copy, so that no referenced definition is ever modified: the
// go-jsonschema merge works in place on the shared definition, which is how
// two error types got each other's code.
func (b *builder) flatten(t *schemas.Type) (*schemas.Type, error) {
	out := &schemas.Type{Type: schemas.TypeList{"object"}, Properties: map[string]*schemas.Type{}, Description: t.Description}
	var merge func(x *schemas.Type, depth int) error
	merge = func(x *schemas.Type, depth int) error {
		if depth > 16 {
			return fmt.Errorf("allOf nested too deeply")
		}
		if x.Ref != "" {
			n, err := b.refName(x.Ref)
			if err != nil {
				return err
			}
			return merge(b.defs[n], depth+1)
		}
		for _, sub := range x.AllOf {
			if err := merge(sub, depth+1); err != nil {
				return err
			}
		}
		for k, v := range x.Properties {
			cp := *v
			if old, ok := out.Properties[k]; ok && isEmptySchema(&cp) {
				continue // keep the more specific schema
			} else if ok && old.Const != nil && cp.Const == nil {
				continue
			}
			out.Properties[k] = &cp
		}
		for _, r := range x.Required {
			if !slices.Contains(out.Required, r) {
				out.Required = append(out.Required, r)
			}
		}
		if x.AdditionalProperties != nil {
			out.AdditionalProperties = x.AdditionalProperties
		}
		return nil
	}
	for _, sub := range t.AllOf {
		if err := merge(sub, 0); err != nil {
			return nil, err
		}
	}
	for k, v := range t.Properties {
		out.Properties[k] = v
	}
	out.Required = append(out.Required, t.Required...)
	return out, nil
}

// object declares a struct for an object schema with declared members.
func (b *builder) object(name, doc, origin string, t *schemas.Type) error {
	d := &Decl{Kind: DStruct, Name: name, Doc: doc, Origin: origin, Closed: isFalse(t.AdditionalProperties)}
	keys := make([]string, 0, len(t.Properties))
	for k := range t.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	goNames := map[string]string{}
	for _, k := range keys {
		p := normalize(t.Properties[k])
		f := &Field{JSONName: k, GoName: goFieldName(k), Doc: docText(p.Description), Required: slices.Contains(t.Required, k)}
		if other, dup := goNames[f.GoName]; dup {
			return fmt.Errorf("members %q and %q both map to Go field %s", other, k, f.GoName)
		}
		if f.GoName == "Extra" {
			return fmt.Errorf("member %q collides with the Extra field", k)
		}
		goNames[f.GoName] = k
		if c, ok := discriminatorOverrides[name].Members[k]; ok {
			f.Const = &Const{Str: c}
			f.Type = TypeRef{Kind: KString}
			d.Fields = append(d.Fields, f)
			continue
		}
		if p.Const != nil {
			c, ct, err := constOf(p.Const)
			if err != nil {
				return fmt.Errorf("member %s: %w", k, err)
			}
			f.Const = c
			f.Type = ct
			d.Fields = append(d.Fields, f)
			continue
		}
		if p.Minimum != nil {
			m := *p.Minimum
			f.Minimum = &m
		}
		if p.Maximum != nil {
			m := *p.Maximum
			f.Maximum = &m
		}
		p, f.Nullable = nonNull(p)
		ctx := name + goIdent(strings.TrimPrefix(k, reservedMetaPrefix))
		if b.inlinedDef(ctx, t.Properties[k]) {
			p = t.Properties[k]
		}
		ref, err := b.typeRef(ctx, origin+"/properties/"+k, p)
		if err != nil {
			return fmt.Errorf("member %s: %w", k, err)
		}
		f.Type = ref
		f.NullAbsent = nullAbsentField(name, f)
		d.Fields = append(d.Fields, f)
	}
	for _, r := range t.Required {
		if _, ok := t.Properties[r]; !ok {
			return fmt.Errorf("required member %q is not declared", r)
		}
	}
	return b.add(d)
}

func constOf(v any) (*Const, TypeRef, error) {
	switch x := v.(type) {
	case string:
		return &Const{Str: x}, TypeRef{Kind: KString}, nil
	case float64:
		if x != math.Trunc(x) {
			return nil, TypeRef{}, fmt.Errorf("non-integer const %v", x)
		}
		return &Const{Int: int64(x), IsInt: true}, TypeRef{Kind: KInt}, nil
	}
	return nil, TypeRef{}, fmt.Errorf("unsupported const %v", v)
}

// nonNull returns the schema without "null" in its type list, and whether
// null was there.
func nonNull(t *schemas.Type) (*schemas.Type, bool) {
	if !slices.Contains([]string(t.Type), "null") {
		return t, false
	}
	c := *t
	c.Type = slices.DeleteFunc(slices.Clone(t.Type), func(s string) bool { return s == "null" })
	return &c, true
}

// mergeArrayBranches folds several array branches of a union (the JSON-RPC
// batch request and batch response of 2025-03-26) into one array of the
// union of their items: arrays can only be told apart by their elements.
func mergeArrayBranches(branches []*schemas.Type) []*schemas.Type {
	var arrays []*schemas.Type
	for _, br := range branches {
		if br.Ref == "" && isTypes(br, "array") {
			arrays = append(arrays, br)
		}
	}
	if len(arrays) < 2 {
		return branches
	}
	items := &schemas.Type{}
	var descs []string
	for _, a := range arrays {
		descs = append(descs, a.Description)
		if a.Items == nil {
			continue
		}
		if len(a.Items.AnyOf) > 0 && a.Items.Ref == "" {
			items.AnyOf = append(items.AnyOf, a.Items.AnyOf...)
		} else {
			items.AnyOf = append(items.AnyOf, a.Items)
		}
	}
	merged := &schemas.Type{Type: schemas.TypeList{"array"}, Items: items, Description: strings.Join(descs, "\n\n")}
	out := []*schemas.Type{}
	done := false
	for _, br := range branches {
		if br.Ref == "" && isTypes(br, "array") {
			if !done {
				out = append(out, merged)
				done = true
			}
			continue
		}
		out = append(out, br)
	}
	return out
}

// typeRef maps a member's schema to a Go type, declaring inline types under
// ctx (parent type name + member name, as go-jsonschema names them).
func (b *builder) typeRef(ctx, origin string, t *schemas.Type) (TypeRef, error) {
	if b.inlinedDef(ctx, t) {
		return TypeRef{Kind: KNamed, Name: ctx}, nil
	}
	t = normalize(t)
	if t.Ref != "" {
		n, err := b.refName(t.Ref)
		if err != nil {
			return TypeRef{}, err
		}
		return TypeRef{Kind: KNamed, Name: n}, nil
	}
	if isEmptySchema(t) {
		return TypeRef{Kind: KRaw, Raw: RawAny}, nil
	}
	if len(t.AnyOf) > 0 || len(t.OneOf) > 0 {
		if err := b.union(ctx, docText(t.Description), origin, t); err != nil {
			return TypeRef{}, err
		}
		return TypeRef{Kind: KNamed, Name: ctx}, nil
	}
	if len(t.AllOf) > 0 {
		flat, err := b.flatten(t)
		if err != nil {
			return TypeRef{}, err
		}
		if err := b.object(ctx, docText(t.Description), origin, flat); err != nil {
			return TypeRef{}, err
		}
		return TypeRef{Kind: KNamed, Name: ctx}, nil
	}
	switch {
	case isTypes(t, "string") && len(t.Enum) > 0:
		vals, err := stringEnum(t.Enum)
		if err != nil {
			return TypeRef{}, err
		}
		name := b.enumName(ctx, origin, vals)
		if err := b.add(&Decl{Kind: DEnum, Name: name, Doc: docText(t.Description), Origin: origin, Values: vals}); err != nil {
			return TypeRef{}, err
		}
		return TypeRef{Kind: KNamed, Name: name}, nil
	case isTypes(t, "string"):
		return TypeRef{Kind: KString}, nil
	case isTypes(t, "integer"):
		return TypeRef{Kind: KInt}, nil
	case isTypes(t, "number"):
		return TypeRef{Kind: KFloat}, nil
	case isTypes(t, "boolean"):
		return TypeRef{Kind: KBool}, nil
	case len(t.Type) > 1:
		if err := b.scalarUnion(ctx, docText(t.Description), origin, []*schemas.Type{t}); err != nil {
			return TypeRef{}, err
		}
		return TypeRef{Kind: KNamed, Name: ctx}, nil
	case isTypes(t, "array"):
		if t.Items == nil {
			return TypeRef{Kind: KRaw, Raw: RawAny}, nil
		}
		elem, err := b.typeRef(ctx+"Elem", origin+"/items", t.Items)
		if err != nil {
			return TypeRef{}, err
		}
		return TypeRef{Kind: KSlice, Elem: &elem}, nil
	case isTypes(t, "object") || len(t.Properties) > 0:
		if t.Properties == nil && (t.AdditionalProperties == nil || isEmptySchema(t.AdditionalProperties)) {
			// A free-form object: {type: object} or {additionalProperties: {}}.
			return TypeRef{Kind: KRaw, Raw: RawObject}, nil
		}
		if t.Properties == nil && !isFalse(t.AdditionalProperties) {
			elem, err := b.typeRef(ctx+"Value", origin+"/additionalProperties", t.AdditionalProperties)
			if err != nil {
				return TypeRef{}, err
			}
			return TypeRef{Kind: KMap, Elem: &elem}, nil
		}
		if err := b.object(ctx, docText(t.Description), origin, t); err != nil {
			return TypeRef{}, err
		}
		return TypeRef{Kind: KNamed, Name: ctx}, nil
	}
	return TypeRef{}, fmt.Errorf("cannot map schema to a Go type (type %v)", t.Type)
}

// inlinedDef reports an inline schema that is a copy of the definition its
// inline type would be named after (the TypeScript-to-JSON step of ext-tasks
// inlines TaskStatusNotificationParams into TaskStatusNotification): the
// member then refers to the definition instead of declaring a second type
// of the same name. Descriptions are not compared.
func (b *builder) inlinedDef(ctx string, t *schemas.Type) bool {
	def, ok := b.defs[ctx]
	return ok && t.Ref == "" && t != def && sameSchema(t, def)
}

// copiedDef returns the first definition, in name order, that an inline
// union branch is a copy of ("" if none): ext-tasks' DetailedTask is the
// union of WorkingTask … CancelledTask written out inline.
func (b *builder) copiedDef(t *schemas.Type) string {
	if t.Ref != "" {
		return ""
	}
	names := make([]string, 0, len(b.defs))
	for n := range b.defs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if b.defs[n] != t && sameSchema(t, b.defs[n]) {
			return n
		}
	}
	return ""
}

// sameSchema compares two schemas as JSON, ignoring their top-level
// description and $schema (a definition may carry its own $schema).
func sameSchema(a, c *schemas.Type) bool {
	x, y := *a, *c
	x.Description, y.Description = "", ""
	x.Version, y.Version = "", ""
	xj, err1 := json.Marshal(&x)
	yj, err2 := json.Marshal(&y)
	return err1 == nil && err2 == nil && bytes.Equal(xj, yj)
}

// countInlineEnums finds inline string enums used under the same member
// name with the same values in more than one place.
func (b *builder) countInlineEnums() {
	var walk func(t *schemas.Type, member, origin string, depth int)
	walk = func(t *schemas.Type, member, origin string, depth int) {
		if t == nil || depth > 32 {
			return
		}
		t = normalize(t)
		if t.Ref == "" && len(t.Enum) > 0 && member != "" {
			if vals, err := stringEnum(t.Enum); err == nil {
				key := member + "\x00" + strings.Join(vals, "\x00")
				b.enumUses[key] = append(b.enumUses[key], origin)
			}
		}
		for k, p := range t.Properties {
			walk(p, k, origin+"/"+k, depth+1)
		}
		walk(t.Items, "", origin, depth+1)
		walk(t.AdditionalProperties, "", origin, depth+1)
		for _, x := range t.AllOf {
			walk(x, "", origin, depth+1)
		}
		for _, x := range t.AnyOf {
			walk(x, "", origin, depth+1)
		}
	}
	for n, t := range b.defs {
		walk(t, "", n, 0)
	}
}

// enumName names an inline enum: shared enums after the member name
// (CacheScope), single ones after parent and member (ElicitResultAction).
func (b *builder) enumName(ctx, origin string, vals []string) string {
	i := strings.LastIndex(origin, "/")
	member := origin[i+1:]
	key := member + "\x00" + strings.Join(vals, "\x00")
	if n := b.enumDef(vals); n != "" {
		return n
	}
	if len(b.enumUses[key]) > 1 {
		n := goIdent(member)
		if _, clash := b.defs[n]; !clash {
			return n
		}
	}
	return ctx
}

// enumDef returns the first definition, in name order, that is a string
// enum of exactly vals ("" if none): an inline copy of TaskStatus is
// TaskStatus.
func (b *builder) enumDef(vals []string) string {
	names := make([]string, 0, len(b.defs))
	for n := range b.defs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d := normalize(b.defs[n])
		if d.Ref != "" || !isTypes(d, "string") || len(d.Enum) == 0 {
			continue
		}
		if dv, err := stringEnum(d.Enum); err == nil && slices.Equal(dv, vals) {
			return n
		}
	}
	return ""
}

// union declares an anyOf as a struct holding a sealed interface, one
// variant per branch. Classification happens later, when every branch's
// declaration exists.
func (b *builder) union(name, doc, origin string, t *schemas.Type) error {
	branches := t.AnyOf
	if len(branches) == 0 {
		branches = t.OneOf
	}
	if allScalar(branches) {
		return b.scalarUnion(name, doc, origin, branches)
	}
	branches = mergeArrayBranches(branches)
	d := &Decl{Kind: DUnion, Name: name, Doc: doc, Origin: origin}
	for i, br := range branches {
		v := &Variant{}
		if n := b.copiedDef(br); n != "" {
			br = &schemas.Type{Ref: b.defPath + n}
		}
		switch {
		case br.Ref != "":
			n, err := b.refName(br.Ref)
			if err != nil {
				return err
			}
			v.Type = TypeRef{Kind: KNamed, Name: n}
		case isTypes(br, "array"):
			elem, err := b.typeRef(name+"Elem", fmt.Sprintf("%s/anyOf/%d/items", origin, i), br.Items)
			if err != nil {
				return err
			}
			list := name + "List"
			if err := b.add(&Decl{Kind: DList, Name: list, Doc: docText(br.Description), Origin: fmt.Sprintf("%s/anyOf/%d", origin, i), Target: TypeRef{Kind: KSlice, Elem: &elem}}); err != nil {
				return err
			}
			v.Type = TypeRef{Kind: KNamed, Name: list}
		case isTypes(br, "object") || len(br.Properties) > 0 || len(br.AllOf) > 0:
			vn := fmt.Sprintf("%sVariant%d", name, i)
			obj := br
			if len(br.AllOf) > 0 {
				flat, err := b.flatten(br)
				if err != nil {
					return err
				}
				obj = flat
			}
			if err := b.object(vn, docText(br.Description), fmt.Sprintf("%s/anyOf/%d", origin, i), obj); err != nil {
				return err
			}
			v.Type = TypeRef{Kind: KNamed, Name: vn}
		default:
			return fmt.Errorf("union %s: branch %d is neither a $ref, an object nor an array; refusing to emit an untyped union", name, i)
		}
		v.GoName = v.Type.Name
		d.Variants = append(d.Variants, v)
	}
	return b.add(d)
}

var scalarKinds = []string{"string", "integer", "number", "boolean"}

// allScalar reports branches that are JSON scalars, or arrays of one scalar
// type: a union decided by the JSON kind alone.
func allScalar(branches []*schemas.Type) bool {
	for _, br := range branches {
		if br.Ref != "" || len(br.Type) == 0 {
			return false
		}
		for _, t := range br.Type {
			switch {
			case slices.Contains(scalarKinds, t):
			case t == "array" && br.Items != nil && len(br.Items.Type) == 1 && slices.Contains(scalarKinds, br.Items.Type[0]) && br.Items.Ref == "":
			default:
				return false
			}
		}
	}
	return true
}

// scalarUnion declares a union decided by JSON kind, such as RequestId
// (string | integer), as a small struct that keeps the kind it arrived with.
func (b *builder) scalarUnion(name, doc, origin string, branches []*schemas.Type) error {
	if !allScalar(branches) {
		return fmt.Errorf("type list %v is not a union of scalars", branches[0].Type)
	}
	d := &Decl{Kind: DScalarUnion, Name: name, Doc: doc, Origin: origin}
	for _, br := range branches {
		for _, t := range br.Type {
			if t == "array" {
				elem, err := b.typeRef(name+"Elem", origin+"/items", br.Items)
				if err != nil {
					return err
				}
				d.Target = TypeRef{Kind: KSlice, Elem: &elem}
			}
			if slices.Contains(d.Kinds, t) {
				return fmt.Errorf("kind %s appears twice in the union", t)
			}
			d.Kinds = append(d.Kinds, t)
		}
	}
	if slices.Contains(d.Kinds, "integer") && slices.Contains(d.Kinds, "number") {
		return fmt.Errorf("a union of integer and number cannot keep its kind; refusing")
	}
	return b.add(d)
}
