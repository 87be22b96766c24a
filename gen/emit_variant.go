package main

import (
	"sort"
	"strings"
)

// ---- decodeAs: a union decoded straight into the variant a hint names ----

// hintVariant is one case of a union's decodeAs: the discriminator value
// and the index of the variant that carries it (decodeVariant's).
type hintVariant struct {
	value string
	index int
}

// hintVariants returns the discriminator member by which a hint can name
// a variant of the union d, and the variants it names: the member that
// every object variant holds as a required const of one value, a value no
// other variant has. It returns "" when there is none, or when a hint
// could make the result differ from the probing decoder's: a dotted probe
// key, a list variant, or a variant that does not declare every probe key
// (the probe refuses a case variant of a key that such a variant would keep
// as an extra member).
//
// For such a union, a variant's own decoder accepts exactly the objects
// the probing decoder would hand to it: its const guarantees that no
// other variant is a candidate, and its declared members include every
// name the probe looks at.
func (g *emitter) hintVariants(d *Decl) (string, []hintVariant) {
	var objs []*Variant
	for _, v := range d.Variants {
		switch {
		case v.JSONKind != '{':
			return "", nil
		case v.SameAs == "":
			objs = append(objs, v)
		}
	}
	if len(objs) < 2 || len(objs) != len(d.Variants) {
		return "", nil
	}
	for _, k := range d.KeyNames {
		if strings.Contains(k, ".") {
			return "", nil
		}
	}
	for _, key := range d.KeyNames {
		var out []hintVariant
		seen := map[string]bool{}
		for i, v := range objs {
			val, ok := requiredConst(v, key)
			if !ok || seen[val] || !declaresAll(g.m.Decls[v.GoName], d.KeyNames) {
				out = nil
				break
			}
			seen[val] = true
			out = append(out, hintVariant{value: val, index: i})
		}
		if out != nil {
			sort.Slice(out, func(i, j int) bool { return out[i].value < out[j].value })
			return key, out
		}
	}
	return "", nil
}

// requiredConst returns the single value of v's required const member key.
func requiredConst(v *Variant, key string) (string, bool) {
	for _, c := range v.Consts {
		if c.Key == key && c.Required && len(c.Values) == 1 {
			return c.Values[0], true
		}
	}
	return "", false
}

// declaresAll reports whether the struct s declares a member of every name.
func declaresAll(s *Decl, names []string) bool {
	if s == nil || s.Kind != DStruct {
		return false
	}
	for _, n := range names {
		found := false
		for _, f := range s.Fields {
			if f.JSONName == n {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// emitUnionDecodeAs generates decodeAs for a union with a hint member.
func (g *emitter) emitUnionDecodeAs(d *Decl) {
	key, vs := g.hintVariants(d)
	if key == "" {
		return
	}
	g.p("// decodeAs decodes the object at the position as the variant whose")
	g.p("// %q is hint, without probing; known is false when no variant has it.", key)
	g.p("func (u *%s) decodeAs(d *decoder, hint string) (known bool, err error) {", d.Name)
	g.p("*u = %s{}", d.Name)
	g.p("var i int")
	g.p("switch hint {")
	for _, v := range vs {
		g.p("case %q:", v.value)
		g.p("i = %d", v.index)
	}
	g.p("default:")
	g.p("return false, nil")
	g.p("}")
	g.p("return true, u.decodeVariant(d, i)")
	g.p("}")
	g.p("")
}

// emitHintDispatch generates decodeAsStatic, the type switch over the
// unions with a decodeAs.
func (g *emitter) emitHintDispatch() {
	g.p("// decodeAsStatic decodes into a union of this package as the variant a")
	g.p("// hint names; known is false for any other value or hint.")
	g.p("func decodeAsStatic(d *decoder, v any, hint string) (known bool, err error) {")
	var unions []string
	for _, n := range g.m.Order {
		if d := g.m.Decls[n]; d.Kind == DUnion {
			if key, _ := g.hintVariants(d); key != "" {
				unions = append(unions, n)
			}
		}
	}
	if len(unions) > 0 {
		g.p("switch x := v.(type) {")
		for _, n := range unions {
			g.p("case *%s:", n)
			g.p("return x.decodeAs(d, hint)")
		}
		g.p("}")
	}
	g.p("return false, nil")
	g.p("}")
	g.p("")
}
