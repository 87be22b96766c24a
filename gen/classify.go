package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// classifyUnions decides, for every union, how a decoder tells its branches
// apart: by JSON kind (object or array), by const discriminators (type,
// method, mode, resultType), and by required members. Two object branches
// that no input can tell apart make generation fail: the generator never
// falls back to an untyped value or to "first branch that decodes wins".
func (b *builder) classifyUnions() error {
	for _, n := range b.m.Order {
		d := b.m.Decls[n]
		if d.Kind != DUnion {
			continue
		}
		if err := b.classify(d); err != nil {
			return fmt.Errorf("%s: %w", d.Origin, err)
		}
	}
	return nil
}

// resolveStruct follows aliases to the struct behind a branch.
func (b *builder) resolveStruct(name string) *Decl {
	for i := 0; i < 8; i++ {
		d := b.m.Decls[name]
		if d == nil {
			return nil
		}
		if d.Kind == DAlias {
			name = d.Target.Name
			continue
		}
		return d
	}
	return nil
}

func (b *builder) classify(d *Decl) error {
	keys := map[string]bool{}
	arrays := 0
	for _, v := range d.Variants {
		bd := b.resolveStruct(v.Type.Name)
		if bd == nil {
			return fmt.Errorf("branch %s is not declared", v.Type.Name)
		}
		switch bd.Kind {
		case DList:
			v.JSONKind = '['
			arrays++
			continue
		case DStruct:
			v.JSONKind = '{'
		default:
			return fmt.Errorf("branch %s is a %v, not an object or array; refusing to emit an untyped union", v.Type.Name, bd.Kind)
		}
		for _, f := range bd.Fields {
			if f.Required || slices.Contains(classifyRequires[bd.Name].Members, f.JSONName) {
				v.Required = append(v.Required, f.JSONName)
				keys[f.JSONName] = true
			}
			switch {
			case f.Const != nil && !f.Const.IsInt:
				v.Consts = append(v.Consts, VariantConst{Key: f.JSONName, Values: []string{f.Const.Str}, Required: f.Required})
				keys[f.JSONName] = true
			case f.Type.Kind == KNamed && b.m.Decls[f.Type.Name] != nil && b.m.Decls[f.Type.Name].Kind == DEnum && f.Required:
				v.Consts = append(v.Consts, VariantConst{Key: f.JSONName, Values: b.m.Decls[f.Type.Name].Values, Required: true})
				keys[f.JSONName] = true
			}
		}
	}
	if arrays > 1 {
		return fmt.Errorf("more than one array branch")
	}
	b.markIdentical(d)
	// Branches with the same signature: look one level down, into the
	// required members of their required inline objects.
	if b.ambiguous(d) {
		for _, v := range d.Variants {
			if v.JSONKind != '{' {
				continue
			}
			bd := b.resolveStruct(v.Type.Name)
			for _, f := range bd.Fields {
				if !f.Required || f.Type.Kind != KNamed {
					continue
				}
				sub := b.resolveStruct(f.Type.Name)
				if sub == nil || sub.Kind != DStruct || !strings.HasPrefix(sub.Origin, bd.Origin+"/") {
					continue
				}
				for _, sf := range sub.Fields {
					if sf.Required {
						k := f.JSONName + "." + sf.JSONName
						v.Required = append(v.Required, k)
						keys[k] = true
					}
				}
			}
		}
		if a, c, amb := b.findTie(d); amb {
			return fmt.Errorf("cannot classify union: branches %s and %s have the same discriminators and required members; add an entry to discriminatorOverrides", a, c)
		}
	}
	for k := range keys {
		d.KeyNames = append(d.KeyNames, k)
	}
	sort.Strings(d.KeyNames)
	for _, v := range d.Variants {
		sort.Strings(v.Required)
	}
	return nil
}

func (b *builder) signature(v *Variant) string {
	var parts []string
	parts = append(parts, string(v.JSONKind))
	for _, c := range v.Consts {
		parts = append(parts, fmt.Sprintf("%s=%s/%v", c.Key, strings.Join(c.Values, "|"), c.Required))
	}
	r := slices.Clone(v.Required)
	sort.Strings(r)
	parts = append(parts, strings.Join(r, ","))
	return strings.Join(parts, ";")
}

// markIdentical finds branches whose definitions are the same schema under
// two names (2025-11-25's GetTaskPayloadResult is Result again).
func (b *builder) markIdentical(d *Decl) {
	for i, v := range d.Variants {
		for _, w := range d.Variants[:i] {
			if w.SameAs == "" && v.JSONKind == '{' && w.JSONKind == '{' && b.sameStruct(b.resolveStruct(v.GoName), b.resolveStruct(w.GoName)) {
				v.SameAs = w.GoName
				break
			}
		}
	}
}

func (b *builder) sameStruct(x, y *Decl) bool {
	if x == nil || y == nil || x.Kind != DStruct || y.Kind != DStruct || len(x.Fields) != len(y.Fields) || x.Closed != y.Closed {
		return false
	}
	for i := range x.Fields {
		f, g := x.Fields[i], y.Fields[i]
		if f.JSONName != g.JSONName || f.Required != g.Required || f.Nullable != g.Nullable || f.NullAbsent != g.NullAbsent ||
			fmt.Sprint(f.Const) != fmt.Sprint(g.Const) || !sameType(f.Type, g.Type) {
			return false
		}
	}
	return true
}

func sameType(a, c TypeRef) bool {
	if a.Kind != c.Kind || a.Name != c.Name || a.Raw != c.Raw || (a.Elem == nil) != (c.Elem == nil) {
		return false
	}
	return a.Elem == nil || sameType(*a.Elem, *c.Elem)
}

func (b *builder) findTie(d *Decl) (string, string, bool) {
	seen := map[string]string{}
	for _, v := range d.Variants {
		if v.SameAs != "" {
			continue
		}
		s := b.signature(v)
		if other, ok := seen[s]; ok {
			return other, v.GoName, true
		}
		seen[s] = v.GoName
	}
	return "", "", false
}

func (b *builder) ambiguous(d *Decl) bool {
	_, _, amb := b.findTie(d)
	return amb
}

// methods builds the method table from the message definitions: every
// object with a const "method" member is a request (it has an id member or
// belongs to a request union) or a notification.
func (b *builder) methods() {
	direction := map[string][]string{}
	for _, n := range b.m.Order {
		d := b.m.Decls[n]
		if d.Kind != DUnion {
			continue
		}
		var dir string
		switch {
		case strings.HasPrefix(n, "Client") && (strings.HasSuffix(n, "Request") || strings.HasSuffix(n, "Notification")):
			dir = "client-to-server"
		case strings.HasPrefix(n, "Server") && (strings.HasSuffix(n, "Request") || strings.HasSuffix(n, "Notification")):
			dir = "server-to-client"
		case n == "InputRequest":
			dir = "server-to-client"
		default:
			continue
		}
		for _, v := range d.Variants {
			direction[v.GoName] = appendUnique(direction[v.GoName], dir)
		}
	}
	// Single-message "unions" such as ClientNotification in 2026-07-28.
	for _, n := range []string{"ClientNotification", "ClientRequest"} {
		if d := b.m.Decls[n]; d != nil && d.Kind == DStruct {
			for _, f := range d.Fields {
				if f.JSONName == "method" && f.Const != nil {
					for _, o := range b.m.Order {
						od := b.m.Decls[o]
						if od.Kind == DStruct && o != n && methodConst(od) == f.Const.Str {
							direction[o] = appendUnique(direction[o], "client-to-server")
						}
					}
				}
			}
		}
	}
	for _, n := range b.m.Order {
		d := b.m.Decls[n]
		if d.Kind != DStruct {
			continue
		}
		name := methodConst(d)
		if name == "" || n == "ClientNotification" || n == "ClientRequest" {
			continue
		}
		meth := Method{Name: name, Message: n, Directions: direction[n]}
		for _, f := range d.Fields {
			if f.JSONName == "params" && f.Type.Kind == KNamed {
				meth.Params = f.Type.Name
			}
		}
		switch {
		case strings.HasSuffix(n, "Notification"):
			meth.Notification = true
		case strings.HasSuffix(n, "Request"):
			res := strings.TrimSuffix(n, "Request") + "Result"
			if _, ok := b.m.Decls[res]; ok {
				meth.Result = res
			} else if _, ok := b.m.Decls["EmptyResult"]; ok {
				meth.Result = "EmptyResult"
			} else if _, ok := b.m.Decls["Result"]; ok {
				meth.Result = "Result"
			}
		default:
			continue
		}
		b.m.Methods = append(b.m.Methods, meth)
	}
	sort.Slice(b.m.Methods, func(i, j int) bool { return b.m.Methods[i].Name < b.m.Methods[j].Name })
	// Keep one entry per method name (a method can have two message types
	// in older revisions only by mistake; the first in name order wins and
	// the rest are dropped deterministically).
	out := b.m.Methods[:0]
	for i, m := range b.m.Methods {
		if i > 0 && out[len(out)-1].Name == m.Name {
			continue
		}
		out = append(out, m)
	}
	b.m.Methods = out
}

func methodConst(d *Decl) string {
	for _, f := range d.Fields {
		if f.JSONName == "method" && f.Const != nil && !f.Const.IsInt {
			return f.Const.Str
		}
	}
	return ""
}

func appendUnique(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// errorCodes collects the fixed JSON-RPC error codes: every integer const
// member named "code", directly in an error definition or in its "error"
// member (after allOf flattening).
func (b *builder) errorCodes() {
	seen := map[int64]bool{}
	for _, n := range b.m.Order {
		d := b.m.Decls[n]
		if d.Kind != DStruct || !strings.HasPrefix(d.Origin, b.defPath) || strings.Contains(strings.TrimPrefix(d.Origin, b.defPath), "/") {
			continue
		}
		code, ok := constCode(d)
		if !ok {
			for _, f := range d.Fields {
				if f.JSONName == "error" && f.Type.Kind == KNamed {
					if ed := b.m.Decls[f.Type.Name]; ed != nil && ed.Kind == DStruct {
						code, ok = constCode(ed)
					}
				}
			}
		}
		if ok && !seen[code] {
			seen[code] = true
			b.m.ErrorCodes = append(b.m.ErrorCodes, ErrorCode{Name: n, Code: code})
		}
	}
	sort.Slice(b.m.ErrorCodes, func(i, j int) bool { return b.m.ErrorCodes[i].Code < b.m.ErrorCodes[j].Code })
}

func constCode(d *Decl) (int64, bool) {
	for _, f := range d.Fields {
		if f.JSONName == "code" && f.Const != nil && f.Const.IsInt {
			return f.Const.Int, true
		}
	}
	return 0, false
}
