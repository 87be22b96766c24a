package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ---- json_gen.go: single-pass strict decoders and encoders ----

func (g *emitter) emitJSON() {
	for _, n := range g.m.Order {
		d := g.m.Decls[n]
		switch d.Kind {
		case DAlias:
			continue
		case DStruct:
			g.emitStructDecode(d)
			g.emitStructEncode(d)
		case DUnion:
			g.emitUnionDecode(d)
			g.emitUnionDecodeAs(d)
			g.emitUnionEncode(d)
		case DEnum:
			g.emitEnumCodec(d)
		case DString:
			g.p("func (v *%s) decodeFrom(d *decoder) error {", d.Name)
			g.p("s, err := d.readString()")
			g.p("*v = %s(s)", d.Name)
			g.p("return err")
			g.p("}")
			g.p("")
			g.p("func (v %s) encodeTo(e *encoder) error {", d.Name)
			g.p("e.string(string(v))")
			g.p("return nil")
			g.p("}")
			g.p("")
		case DRaw:
			g.p("func (v *%s) decodeFrom(d *decoder) error {", d.Name)
			g.p("raw, err := d.readRaw(%s)", rawModeConst(d.Target.Raw))
			g.p("*v = raw")
			g.p("return err")
			g.p("}")
			g.p("")
			g.p("func (v %s) encodeTo(e *encoder) error {", d.Name)
			g.p("if len(v) == 0 {")
			switch d.Target.Raw {
			case RawJSONObject, RawObject:
				g.p("e.buf = append(e.buf, \"{}\"...)")
				g.p("return nil")
			case RawJSONArray:
				g.p("e.buf = append(e.buf, \"[]\"...)")
				g.p("return nil")
			default:
				g.p("return encodeError(%q, \"empty value\")", d.Name)
			}
			g.p("}")
			g.p("if err := checkRaw(%q, v, %s); err != nil {", d.Name, rawModeConst(d.Target.Raw))
			g.p("return err")
			g.p("}")
			g.p("e.raw(v)")
			g.p("return nil")
			g.p("}")
			g.p("")
		case DMap, DList:
			g.p("func (v *%s) decodeFrom(d *decoder) error {", d.Name)
			g.p("var x %s", g.goType(d.Target))
			g.decodeValue("x", d.Target, "%s")
			g.p("*v = x")
			g.p("return nil")
			g.p("}")
			g.p("")
			g.p("func (v %s) encodeTo(e *encoder) error {", d.Name)
			g.p("x := %s(v)", g.goType(d.Target))
			g.encodeValue("x", d.Target, d.Name)
			g.p("return nil")
			g.p("}")
			g.p("")
		case DScalarUnion:
			g.emitScalarUnionCodec(d)
		}
		g.emitJSONMethods(d)
	}
}

// emitJSONMethods gives every type MarshalJSON and UnmarshalJSON, so that
// encoding/json (and any library built on it) gets the strict codec too.
func (g *emitter) emitJSONMethods(d *Decl) {
	g.p("// MarshalJSON encodes %s strictly; see [Marshal].", d.Name)
	g.p("func (v %s) MarshalJSON() ([]byte, error) { return Marshal(&v) }", d.Name)
	g.p("")
	g.p("// UnmarshalJSON decodes %s strictly; see [Unmarshal].", d.Name)
	g.p("func (v *%s) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }", d.Name)
	g.p("")
}

// wrapErr renders the error-wrapping expression for err at this depth.
func wrapErr(wrap, err string) string {
	return strings.Replace(wrap, "%s", err, 1)
}

// decodeValue prints statements that decode the next value into dst, an
// addressable expression of type t. wrap is a format with one %s that
// turns an error into the error to return (adding path segments).
func (g *emitter) decodeValue(dst string, t TypeRef, wrap string) {
	ret := func(e string) { g.p("return %s", wrapErr(wrap, e)) }
	switch t.Kind {
	case KString, KInt, KFloat, KBool:
		reader := map[Kind]string{KString: "readString", KInt: "readInt64", KFloat: "readFloat64", KBool: "readBool"}[t.Kind]
		v := g.fresh("s")
		g.p("%s, err := d.%s()", v, reader)
		g.p("if err != nil {")
		ret("err")
		g.p("}")
		g.p("%s = %s", dst, v)
	case KRaw:
		v := g.fresh("raw")
		g.p("%s, err := d.readRaw(%s)", v, rawModeConst(t.Raw))
		g.p("if err != nil {")
		ret("err")
		g.p("}")
		g.p("%s = %s", dst, v)
	case KNamed:
		if _, ok := g.foreignName(t.Name); ok {
			g.p("if err := decodeForeign(d, %s); err != nil {", pointerTo(dst))
		} else {
			g.p("if err := %s.decodeFrom(d); err != nil {", addr(dst))
		}
		ret("err")
		g.p("}")
	case KSlice:
		first, i, more := g.fresh("first"), g.fresh("i"), g.fresh("more")
		g.p("if err := d.beginArray(); err != nil {")
		ret("err")
		g.p("}")
		g.p("%s = %s{}", dst, g.goType(t))
		g.p("%s := true", first)
		g.p("for %s := 0; ; %s++ {", i, i)
		g.p("%s, err := d.nextElement(&%s)", more, first)
		g.p("if err != nil {")
		ret("err")
		g.p("}")
		g.p("if !%s {", more)
		g.p("break")
		g.p("}")
		var zero string
		switch t.Elem.Kind {
		case KString:
			zero = `""`
		case KInt, KFloat:
			zero = "0"
		case KBool:
			zero = "false"
		case KRaw, KSlice, KMap:
			zero = "nil"
		default:
			zero = g.goType(*t.Elem) + "{}"
			if d := g.decl(t.Elem.Name); d != nil && (d.Kind == DRaw || d.Kind == DMap || d.Kind == DList) {
				zero = "nil"
			} else if d != nil && (d.Kind == DEnum || d.Kind == DString) {
				zero = `""`
			}
		}
		g.p("%s = append(%s, %s)", dst, dst, zero)
		g.decodeValue(fmt.Sprintf("%s[len(%s)-1]", dst, dst), *t.Elem, wrapErr(wrap, fmt.Sprintf("inIndex(%%s, %s)", i)))
		g.p("}")
	case KMap:
		first, k, more, key, x := g.fresh("first"), g.fresh("k"), g.fresh("more"), g.fresh("key"), g.fresh("x")
		g.p("if err := d.beginObject(); err != nil {")
		ret("err")
		g.p("}")
		g.p("%s = %s{}", dst, g.goType(t))
		g.p("%s := true", first)
		g.p("for {")
		g.p("%s, %s, err := d.nextMember(&%s)", k, more, first)
		g.p("if err != nil {")
		ret("err")
		g.p("}")
		g.p("if !%s {", more)
		g.p("break")
		g.p("}")
		g.p("%s := string(%s)", key, k)
		g.p("if _, dup := %s[%s]; dup {", dst, key)
		ret(fmt.Sprintf("d.duplicate(%s)", key))
		g.p("}")
		g.p("var %s %s", x, g.goType(*t.Elem))
		g.decodeValue(x, *t.Elem, wrapErr(wrap, fmt.Sprintf("inKey(%%s, %s)", key)))
		g.p("%s[%s] = %s", dst, key, x)
		g.p("}")
	}
}

// pointerTo returns a pointer to the addressable expr: the pointer itself
// for a dereference ("*p" → "p"). addr is for method calls, which take the
// address of a value themselves; a function taking any needs the pointer.
func pointerTo(expr string) string {
	if p, ok := strings.CutPrefix(expr, "*"); ok {
		return p
	}
	return "&" + expr
}

func addr(expr string) string {
	if strings.HasPrefix(expr, "*") {
		return "(" + expr + ")"
	}
	return "(&" + expr + ")"
}

// encodeValue prints statements that encode src, an addressable expression
// of type t. path names the value in encode errors.
func (g *emitter) encodeValue(src string, t TypeRef, path string) {
	switch t.Kind {
	case KString:
		g.p("e.string(%s)", src)
	case KInt:
		g.p("e.int(%s)", src)
	case KBool:
		g.p("e.bool(%s)", src)
	case KFloat:
		g.p("if err := e.float(%q, %s); err != nil {", path, src)
		g.p("return err")
		g.p("}")
	case KRaw:
		g.p("if len(%s) == 0 {", src)
		switch t.Raw {
		case RawObject, RawJSONObject:
			g.p("e.buf = append(e.buf, \"{}\"...)")
		default:
			g.p("e.buf = append(e.buf, \"null\"...)")
		}
		g.p("} else {")
		g.p("if err := e.checkRaw(%q, %s, %s); err != nil {", path, src, rawModeConst(t.Raw))
		g.p("return err")
		g.p("}")
		g.p("e.raw(%s)", src)
		g.p("}")
	case KNamed:
		if _, ok := g.foreignName(t.Name); ok {
			g.p("if err := encodeForeign(e, %s); err != nil {", pointerTo(src))
		} else if p, ok := strings.CutPrefix(src, "*"); ok && strings.HasSuffix(path, "._meta") {
			// A _meta object the caller encoded already (MarshalOptions.Meta).
			g.p("if e.metaJSON != nil && any(%s) == e.meta {", p)
			g.p("e.buf = append(e.buf, e.metaJSON...)")
			g.p("} else if err := %s.encodeTo(e); err != nil {", addr(src))
		} else {
			g.p("if err := %s.encodeTo(e); err != nil {", addr(src))
		}
		g.p("return err")
		g.p("}")
	case KSlice:
		i := g.fresh("i")
		g.p("e.buf = append(e.buf, '[')")
		g.p("for %s := range %s {", i, src)
		g.p("e.element(%s)", i)
		g.encodeValue(fmt.Sprintf("%s[%s]", src, i), *t.Elem, path+"[]")
		g.p("}")
		g.p("e.buf = append(e.buf, ']')")
	case KMap:
		i, k, x := g.fresh("i"), g.fresh("k"), g.fresh("x")
		g.p("e.buf = append(e.buf, '{')")
		g.p("for %s, %s := range sortedKeys(%s) {", i, k, src)
		g.p("e.element(%s)", i)
		g.p("e.string(%s)", k)
		g.p("e.buf = append(e.buf, ':')")
		g.p("%s := %s[%s]", x, src, k)
		g.encodeValue(x, *t.Elem, path+"{}")
		g.p("}")
		g.p("e.buf = append(e.buf, '}')")
	}
}

func (g *emitter) emitStructDecode(d *Decl) {
	if len(d.Fields) > 64 {
		panic(d.Name + ": more than 64 members")
	}
	g.p("func (v *%s) decodeFrom(d *decoder) error {", d.Name)
	g.p("*v = %s{}", d.Name)
	g.p("if err := d.beginObject(); err != nil {")
	g.p("return err")
	g.p("}")
	if len(d.Fields) > 0 {
		g.p("var seen uint64")
	}
	g.p("var extraNames map[string]struct{} // see unknownMember")
	g.p("first := true")
	g.p("for {")
	next := "nextName" // see decoder.nextName
	for _, f := range d.Fields {
		if !plainConst(f.JSONName) {
			next = "nextMember"
		}
	}
	g.p("name, ok, err := d.%s(&first)", next)
	g.p("if err != nil {")
	g.p("return err")
	g.p("}")
	g.p("if !ok {")
	g.p("break")
	g.p("}")
	if next == "nextName" {
		g.p("match:")
	}
	g.p("switch string(name) {")
	for i, f := range d.Fields {
		g.p("case %q:", f.JSONName)
		g.p("if seen&(1<<%d) != 0 {", i)
		g.p("return d.duplicate(%q)", f.JSONName)
		g.p("}")
		g.p("seen |= 1 << %d", i)
		wrap := fmt.Sprintf("inField(%%s, %q)", f.JSONName)
		if f.Nullable || f.NullAbsent {
			if f.NullAbsent {
				g.p("// null is taken for absence (gen/overrides.go nullAsAbsent).")
			}
			g.p("if d.peek() == 'n' && d.hasLiteral(\"null\") {")
			g.p("d.pos += 4")
			g.p("if err := d.afterLiteral(); err != nil {")
			g.p("return err")
			g.p("}")
			g.p("continue")
			g.p("}")
		}
		switch {
		case f.Const != nil && f.Const.IsInt:
			g.p("if err := d.readConstInt(%d); err != nil {", f.Const.Int)
			g.p("return %s", wrapErr(wrap, "err"))
			g.p("}")
		case f.Const != nil:
			read := "readConstString"
			if plainConst(f.Const.Str) {
				read = "readConstPlain"
			}
			g.p("if err := d.%s(%q); err != nil {", read, f.Const.Str)
			g.p("return %s", wrapErr(wrap, "err"))
			g.p("}")
			if !f.Required {
				g.p("v.has%s = true", f.GoName)
			}
		case (f.Required && !f.Nullable) || g.nillable(f.Type):
			g.decodeValue("v."+f.GoName, f.Type, wrap)
		default:
			x := g.fresh("p")
			g.p("%s := new(%s)", x, g.goType(f.Type))
			g.decodeValue("*"+x, f.Type, wrap)
			g.p("v.%s = %s", f.GoName, x)
		}
		if f.Type.Kind == KInt || f.Type.Kind == KFloat {
			target := "v." + f.GoName
			if !f.Required || f.Nullable {
				target = "*v." + f.GoName
			}
			if !f.Required || f.Nullable {
				g.p("if v.%s != nil {", f.GoName)
			}
			for _, b := range g.bounds(f) {
				g.p("if %s %s {", target, b.fails)
				g.p("return &DecodeError{Kind: KindRange, Offset: d.pos, Path: %q, Msg: %q}", f.JSONName, b.msg)
				g.p("}")
			}
			if !f.Required || f.Nullable {
				g.p("}")
			}
		}
	}
	g.p("default:")
	if next == "nextName" {
		g.p("if d.unchecked {")
		g.p("if name, err = d.checkName(); err != nil {")
		g.p("return err")
		g.p("}")
		g.p("if d.escaped {")
		g.p("goto match // the name unescaped may be a declared one")
		g.p("}")
		g.p("}")
	}
	g.p("if err := d.unknownMember(name, %s, %v, &v.Extra, &extraNames); err != nil {", namesList(d), d.Closed)
	g.p("return err")
	g.p("}")
	g.p("}")
	g.p("}")
	var req uint64
	for i, f := range d.Fields {
		if f.Required {
			req |= 1 << uint(i)
		}
	}
	if req != 0 {
		g.p("if seen&%#x != %#x {", req, req)
		for i, f := range d.Fields {
			if f.Required {
				g.p("if seen&(1<<%d) == 0 {", i)
				g.p("return missing(%q)", f.JSONName)
				g.p("}")
			}
		}
		g.p("}")
	}
	g.p("return nil")
	g.p("}")
	g.p("")
}

func (g *emitter) emitStructEncode(d *Decl) {
	g.p("func (v *%s) encodeTo(e *encoder) error {", d.Name)
	g.p("if v == nil {")
	g.p("return encodeError(%q, \"nil pointer\")", d.Name)
	g.p("}")
	g.p("e.buf = append(e.buf, '{')")
	if len(d.Fields) > 0 || !d.Closed { // a closed object without members writes none
		g.p("first := true")
	}
	for _, f := range d.Fields {
		path := d.Name + "." + f.JSONName
		switch {
		case f.Const != nil:
			lit := strconv.Quote(f.Const.Str)
			if f.Const.IsInt {
				lit = strconv.FormatInt(f.Const.Int, 10)
			}
			if !f.Required {
				g.p("if v.has%s {", f.GoName)
			}
			g.p("e.member(&first, %s)", jsonName(f.JSONName))
			g.p("e.buf = append(e.buf, %s...)", strconv.Quote(lit))
			if !f.Required {
				g.p("}")
			}
		case f.Required && f.Nullable:
			g.p("e.member(&first, %s)", jsonName(f.JSONName))
			g.p("if v.%s == nil {", f.GoName)
			g.p("e.buf = append(e.buf, \"null\"...)")
			g.p("} else {")
			if g.nillable(f.Type) {
				g.encodeChecked("v."+f.GoName, f, path)
			} else {
				g.encodeChecked("*v."+f.GoName, f, path)
			}
			g.p("}")
		case f.Required:
			g.p("e.member(&first, %s)", jsonName(f.JSONName))
			g.encodeChecked("v."+f.GoName, f, path)
		case g.nillable(f.Type):
			g.p("if v.%s != nil {", f.GoName)
			g.p("e.member(&first, %s)", jsonName(f.JSONName))
			g.encodeChecked("v."+f.GoName, f, path)
			g.p("}")
		default:
			g.p("if v.%s != nil {", f.GoName)
			g.p("e.member(&first, %s)", jsonName(f.JSONName))
			g.encodeChecked("*v."+f.GoName, f, path)
			g.p("}")
		}
	}
	g.p("if len(v.Extra) > 0 {")
	if d.Closed {
		g.p("return encodeError(%q, \"the schema closes this object; Extra must be empty\")", d.Name)
	} else {
		g.p("if err := e.members(&first, %q, v.Extra, %s); err != nil {", d.Name, declaredFunc(d))
		g.p("return err")
		g.p("}")
	}
	g.p("}")
	g.p("e.buf = append(e.buf, '}')")
	g.p("return nil")
	g.p("}")
	g.p("")
}

// bound is one numeric limit of a member: the failing comparison and its
// message.
type bound struct{ fails, msg string }

func (g *emitter) bounds(f *Field) []bound {
	num := func(v float64) string {
		if f.Type.Kind == KInt {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	var out []bound
	if f.Minimum != nil {
		out = append(out, bound{"< " + num(*f.Minimum), "must be at least " + num(*f.Minimum)})
	}
	if f.Maximum != nil {
		out = append(out, bound{"> " + num(*f.Maximum), "must be at most " + num(*f.Maximum)})
	}
	return out
}

// encodeChecked encodes a field value after checking its bounds.
func (g *emitter) encodeChecked(src string, f *Field, path string) {
	if f.Type.Kind == KInt || f.Type.Kind == KFloat {
		for _, b := range g.bounds(f) {
			g.p("if %s %s {", src, b.fails)
			g.p("return encodeError(%q, \"%s, got %%v\", %s)", path, b.msg, src)
			g.p("}")
		}
	}
	g.encodeValue(src, f.Type, path)
}

func (g *emitter) emitEnumCodec(d *Decl) {
	var quoted []string
	for _, v := range d.Values {
		quoted = append(quoted, strconv.Quote(v))
	}
	msg := "must be one of " + strings.Join(quoted, ", ")
	g.p("func (v *%s) decodeFrom(d *decoder) error {", d.Name)
	g.p("s, err := d.readStringBytes()")
	g.p("if err != nil {")
	g.p("return err")
	g.p("}")
	g.p("switch string(s) {")
	for _, v := range d.Values {
		g.p("case %q:", v)
		g.p("*v = %s", d.Name+goIdent(v))
	}
	g.p("default:")
	g.p("return &DecodeError{Kind: KindEnum, Offset: d.pos, Msg: %q + \", got \" + strconv.Quote(truncate(string(s)))}", msg)
	g.p("}")
	g.p("return nil")
	g.p("}")
	g.p("")
	g.p("func (v %s) encodeTo(e *encoder) error {", d.Name)
	g.p("if !v.Valid() {")
	g.p("return encodeError(%q, %q+\", got %%q\", string(v))", d.Name, msg)
	g.p("}")
	g.p("e.string(string(v))")
	g.p("return nil")
	g.p("}")
	g.p("")
}

// declaredFunc renders the test of whether a name is one of d's declared
// members as a switch: a function literal the encoder calls for every
// member of Extra.
func declaredFunc(d *Decl) string {
	var names []string
	for _, f := range d.Fields {
		names = append(names, strconv.Quote(f.JSONName))
	}
	if len(names) == 0 {
		return "func(string) bool { return false }"
	}
	return "func(name string) bool {\nswitch name {\ncase " + strings.Join(names, ", ") + ":\nreturn true\n}\nreturn false\n}"
}

// keyFunc renders the probe's key lookup as a switch: a function literal
// that returns a top-level member name's index among keys (-1 when it is
// none of them) and whether some dotted key looks inside it.
func keyFunc(keys []string) string {
	type entry struct {
		idx    int
		nested bool
	}
	entries := map[string]*entry{}
	var order []string
	get := func(name string) *entry {
		if e, ok := entries[name]; ok {
			return e
		}
		e := &entry{idx: -1}
		entries[name] = e
		order = append(order, name)
		return e
	}
	for i, k := range keys {
		if head, _, ok := strings.Cut(k, "."); ok {
			get(head).nested = true
		} else {
			get(k).idx = i
		}
	}
	sort.Strings(order)
	var b strings.Builder
	b.WriteString("func(name []byte) (int, bool) {\nswitch string(name) {\n")
	for _, name := range order {
		e := entries[name]
		fmt.Fprintf(&b, "case %q:\nreturn %d, %t\n", name, e.idx, e.nested)
	}
	b.WriteString("}\nreturn -1, false\n}")
	return b.String()
}

func (g *emitter) emitUnionDecode(d *Decl) {
	keys := strconv.Quote(strings.Join(d.KeyNames, "\x00"))
	keyIdx := map[string]int{}
	for i, k := range d.KeyNames {
		keyIdx[k] = i
	}
	var list *Variant
	for _, v := range d.Variants {
		if v.JSONKind == '[' {
			list = v
		}
	}
	g.p("func (u *%s) decodeFrom(d *decoder) error {", d.Name)
	g.p("*u = %s{}", d.Name)
	g.p("switch d.peek() {")
	if list != nil {
		g.p("case '[':")
		g.p("var x %s", list.GoName)
		g.p("if err := x.decodeFrom(d); err != nil {")
		g.p("return err")
		g.p("}")
		g.p("u.Value = x")
		g.p("return nil")
	}
	objects := 0
	for _, v := range d.Variants {
		if v.JSONKind == '{' {
			objects++
		}
	}
	if objects == 0 {
		g.p("}")
		g.p("return d.unexpected(\"array\")")
		g.p("}")
		g.p("")
		return
	}
	g.p("case '{':")
	g.p("default:")
	if list != nil {
		g.p("return d.unexpected(\"object or array\")")
	} else {
		g.p("return d.unexpected(\"object\")")
	}
	g.p("}")
	g.p("start, depth, members := d.pos, d.depth, d.members")
	g.p("var vals [%d][]byte", max(len(d.KeyNames), 1))
	g.p("p := probe{vals: vals[:0]}")
	stop := g.totalDiscriminator(d, keyIdx)
	var need uint64 // every const key, which the probe must see before it stops
	for _, v := range d.Variants {
		for _, c := range v.Consts {
			need |= 1 << uint(keyIdx[c.Key])
		}
	}
	g.p("if err := d.probeObject(&p, %s, %s, %d, %d, %#x); err != nil {", keys, keyFunc(d.KeyNames), len(d.KeyNames), stop, need)
	g.p("return err")
	g.p("}")
	g.p("d.pos, d.depth, d.members = start, depth, members // the chosen branch counts the members again")
	g.p("var cand uint64")
	// The discriminator key for error messages: the key constrained by the
	// most branches.
	count := map[string]int{}
	values := map[string]map[string]bool{}
	for _, v := range d.Variants {
		for _, c := range v.Consts {
			count[c.Key]++
			if values[c.Key] == nil {
				values[c.Key] = map[string]bool{}
			}
			for _, x := range c.Values {
				values[c.Key][x] = true
			}
		}
	}
	// The key constrained by the most branches names the error; among
	// equals, the one with the most distinct values (method, not jsonrpc).
	disc, discN := "", 0
	for _, k := range d.KeyNames {
		if count[k] > discN || (count[k] == discN && discN > 0 && len(values[k]) > len(values[disc])) {
			disc, discN = k, count[k]
		}
	}
	var objVariants []*Variant
	for _, v := range d.Variants {
		if v.JSONKind == '{' && v.SameAs == "" {
			objVariants = append(objVariants, v)
		}
	}
	var specs, names []string
	// Each branch's discriminator tests; a test that several branches share
	// ("jsonrpc" is "2.0") is evaluated once, into a local.
	condsOf := make([][]string, len(objVariants))
	uses := map[string]int{}
	for i, v := range objVariants {
		for _, c := range v.Consts {
			var in string
			if len(c.Values) == 1 {
				in = fmt.Sprintf("p.isOne(%d, %s)", keyIdx[c.Key], strconv.Quote(c.Values[0]))
			} else {
				var qs []string
				for _, x := range c.Values {
					qs = append(qs, strconv.Quote(x))
				}
				in = fmt.Sprintf("p.is(%d, %s)", keyIdx[c.Key], strings.Join(qs, ", "))
			}
			if !c.Required {
				in = fmt.Sprintf("(!p.has(%d) || %s)", keyIdx[c.Key], in)
			}
			condsOf[i] = append(condsOf[i], in)
			uses[in]++
		}
	}
	shared := map[string]string{}
	for _, conds := range condsOf {
		for _, in := range conds {
			if _, done := shared[in]; !done && uses[in] > 1 {
				shared[in] = fmt.Sprintf("c%d", len(shared))
				g.p("%s := %s", shared[in], in)
			}
		}
	}
	for i, v := range objVariants {
		conds := condsOf[i]
		for j, in := range conds {
			if local, ok := shared[in]; ok {
				conds[j] = local
			}
		}
		var req, consts uint64
		for _, c := range v.Consts {
			consts |= 1 << uint(keyIdx[c.Key])
		}
		for _, r := range v.Required {
			req |= 1 << uint(keyIdx[r])
		}
		if len(conds) == 0 {
			g.p("cand |= 1 << %d // %s", i, v.GoName)
		} else {
			g.p("if %s {", strings.Join(conds, " && "))
			g.p("cand |= 1 << %d // %s", i, v.GoName)
			g.p("}")
		}
		specs = append(specs, fmt.Sprintf("{required: %#x, consts: %#x}", req, consts))
		names = append(names, v.GoName)
	}
	g.p("if cand == 0 {")
	discIdx := -1
	allSame := ""
	if disc != "" {
		discIdx = keyIdx[disc]
		if len(values[disc]) == 1 && count[disc] == len(objVariants) {
			for x := range values[disc] {
				allSame = x
			}
		}
	}
	g.p("return noVariant(&p, %q, %q, %d, %q)", d.Name, disc, discIdx, allSame)
	g.p("}")
	g.p("specs := [...]variantSpec{%s}", strings.Join(specs, ", "))
	g.p("pick, err := choose(&p, cand, specs[:], %q, %q)", d.Name, strings.Join(names, "\x00"))
	g.p("if err != nil {")
	g.p("return err")
	g.p("}")
	g.p("return u.decodeVariant(d, pick)")
	g.p("}")
	g.p("")
	g.p("// decodeVariant decodes the object at the position as variant i.")
	g.p("func (u *%s) decodeVariant(d *decoder, i int) error {", d.Name)
	g.p("switch i {")
	for i, v := range objVariants {
		g.p("case %d:", i)
		g.p("x := new(%s)", v.GoName)
		g.p("if err := x.decodeFrom(d); err != nil {")
		g.p("return err")
		g.p("}")
		g.p("u.Value = x")
	}
	g.p("}")
	g.p("return nil")
	g.p("}")
	g.p("")
}

func (g *emitter) emitUnionEncode(d *Decl) {
	g.p("func (u *%s) encodeTo(e *encoder) error {", d.Name)
	g.p("if u.Value == nil {")
	g.p("return encodeError(%q, \"union holds no value\")", d.Name)
	g.p("}")
	// A type switch rather than an interface call keeps the encoder on the
	// caller's stack.
	g.p("switch x := u.Value.(type) {")
	for _, v := range d.Variants {
		if v.JSONKind == '[' {
			g.p("case %s:", v.GoName)
		} else {
			g.p("case *%s:", v.GoName)
		}
		g.p("return x.encodeTo(e)")
	}
	g.p("}")
	g.p("return encodeError(%q, \"variant %%T\", u.Value)", d.Name)
	g.p("}")
	g.p("")
}

func (g *emitter) emitScalarUnionCodec(d *Decl) {
	kinds := g.scalarKinds(d)
	var names []string
	for _, k := range kinds {
		names = append(names, k.json)
	}
	g.p("func (v *%s) decodeFrom(d *decoder) error {", d.Name)
	g.p("*v = %s{}", d.Name)
	g.p("switch c := d.peek(); {")
	for _, k := range kinds {
		switch k.json {
		case "string":
			g.p("case c == '\"':")
			g.p("s, err := d.readString()")
		case "integer":
			g.p("case c == '-' || (c >= '0' && c <= '9'):")
			g.p("s, err := d.readInt64()")
		case "number":
			g.p("case c == '-' || (c >= '0' && c <= '9'):")
			g.p("s, err := d.readFloat64()")
		case "boolean":
			g.p("case c == 't' || c == 'f':")
			g.p("s, err := d.readBool()")
		case "array":
			g.p("case c == '[':")
			g.p("var s %s", k.goType)
			g.decodeValue("s", d.Target, "%s")
			g.p("var err error")
		}
		g.p("*v = %s{%s: s, kind: %d}", d.Name, k.field, k.code)
		g.p("return err")
	}
	g.p("}")
	g.p("return d.unexpected(%q)", strings.Join(names, " or "))
	g.p("}")
	g.p("")
	g.p("func (v %s) encodeTo(e *encoder) error {", d.Name)
	g.p("switch v.kind {")
	for _, k := range kinds {
		g.p("case %d:", k.code)
		switch k.json {
		case "array":
			g.p("x := v.list")
			g.encodeValue("x", d.Target, d.Name)
		default:
			t := map[string]TypeRef{"string": {Kind: KString}, "integer": {Kind: KInt}, "number": {Kind: KFloat}, "boolean": {Kind: KBool}}[k.json]
			g.encodeValue("v."+k.field, t, d.Name)
		}
	}
	g.p("default:")
	g.p("return encodeError(%q, \"unset value\")", d.Name)
	g.p("}")
	g.p("return nil")
	g.p("}")
	g.p("")
}

// totalDiscriminator returns the index of a key on which every object
// branch has a required const of its own (ClientRequest's method,
// ContentBlock's type), or -1. The probe can stop at that key: the branch
// is then known, and its decoder checks the rest of the object.
func (g *emitter) totalDiscriminator(d *Decl, keyIdx map[string]int) int {
	for _, k := range d.KeyNames {
		seen := map[string]bool{}
		total := true
		for _, v := range d.Variants {
			if v.JSONKind != '{' {
				continue
			}
			found := false
			for _, c := range v.Consts {
				if c.Key == k && c.Required && len(c.Values) == 1 && !seen[c.Values[0]] && v.SameAs == "" {
					seen[c.Values[0]] = true
					found = true
				}
			}
			if !found {
				total = false
				break
			}
		}
		if total {
			return keyIdx[k]
		}
	}
	return -1
}

// plainConst reports whether a const string is printable ASCII other than
// '"' and '\\', which readConstPlain matches byte for byte.
func plainConst(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
