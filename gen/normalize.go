package main

import (
	"slices"

	"github.com/atombender/go-jsonschema/pkg/schemas"
)

// Schema forms that say one thing in two ways. The core schemas write a
// nullable integer as type [integer, null] and an enum as enum; an
// extension schema (ext-tasks) writes anyOf [{integer}, {null}] and anyOf
// of string consts, and puts a union inside an allOf. normalize rewrites
// these to the forms the builder maps, on copies: a definition the schema
// shares is never modified.

// normalize returns t in the builder's canonical form.
func normalize(t *schemas.Type) *schemas.Type {
	if t == nil || t.Ref != "" {
		return t
	}
	if n := nullableAnyOf(t); n != nil {
		return n
	}
	if e := constEnum(t); e != nil {
		return e
	}
	if u := distributeAllOf(t); u != nil {
		return u
	}
	return t
}

// isNullOnly reports {type: null}, nothing else but annotations.
func isNullOnly(t *schemas.Type) bool {
	if t == nil || !isTypes(t, "null") {
		return false
	}
	c := *t
	c.Type = nil
	return isEmptySchema(&c)
}

// nullableAnyOf turns anyOf [X, {type: null}] (either order), X a plain
// scalar or array schema with a type, into X with "null" added to its type
// list and t's description.
func nullableAnyOf(t *schemas.Type) *schemas.Type {
	if len(t.AnyOf) != 2 || len(t.Type) > 0 || len(t.Properties) > 0 {
		return nil
	}
	x, null := t.AnyOf[0], t.AnyOf[1]
	if isNullOnly(x) {
		x, null = null, x
	}
	if !isNullOnly(null) || x.Ref != "" || len(x.Type) != 1 || x.Type[0] == "null" || len(x.AnyOf) > 0 || len(x.AllOf) > 0 || len(x.OneOf) > 0 {
		return nil
	}
	c := *x
	c.Type = append(slices.Clone(x.Type), "null")
	if t.Description != "" {
		c.Description = t.Description
	}
	return &c
}

// constEnum turns anyOf of {type: string, const: "v"} branches into a
// string enum of those values, in order.
func constEnum(t *schemas.Type) *schemas.Type {
	if len(t.AnyOf) < 2 || len(t.Type) > 0 || len(t.Properties) > 0 {
		return nil
	}
	vals := make([]any, 0, len(t.AnyOf))
	for _, br := range t.AnyOf {
		s, ok := br.Const.(string)
		if !ok || !isTypes(br, "string") {
			return nil
		}
		c := *br
		c.Type, c.Const = nil, nil
		if !isEmptySchema(&c) || slices.Contains(vals, any(s)) {
			return nil
		}
		vals = append(vals, s)
	}
	return &schemas.Type{Type: schemas.TypeList{"string"}, Enum: vals, Description: t.Description, Title: t.Title}
}

// distributeAllOf turns allOf [A, anyOf [B1 … Bn], C] (exactly one inline
// anyOf among the parts) into anyOf [allOf [A, B1, C], …, allOf [A, Bn, C]]:
// a union of flattened objects, one per branch.
func distributeAllOf(t *schemas.Type) *schemas.Type {
	if len(t.AllOf) == 0 || len(t.AnyOf) > 0 || len(t.OneOf) > 0 {
		return nil
	}
	at := -1
	for i, part := range t.AllOf {
		if part.Ref == "" && len(part.AnyOf) > 0 {
			if at >= 0 {
				return nil
			}
			at = i
		}
	}
	if at < 0 {
		return nil
	}
	out := &schemas.Type{Description: t.Description, Title: t.Title}
	for _, br := range t.AllOf[at].AnyOf {
		parts := slices.Clone(t.AllOf)
		parts[at] = br
		branch := &schemas.Type{AllOf: parts, Description: br.Description}
		if len(t.Properties) > 0 || len(t.Required) > 0 {
			branch.AllOf = append(branch.AllOf, &schemas.Type{Properties: t.Properties, Required: t.Required})
		}
		out.AnyOf = append(out.AnyOf, branch)
	}
	return out
}
