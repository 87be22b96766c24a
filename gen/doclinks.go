package main

import (
	"regexp"
	"strings"
)

// Schema descriptions carry TypeScript {@link …} references, some of them
// damaged by upstream's TypeScript-to-JSON step, which fuses a link's text
// onto its target. Once the whole model is built, linkDocs rewrites every
// description so that a reference to a generated type becomes a Go doc link
// ([Name], [Name.Field]) and anything else becomes plain text. The forms
// (gen/README.md, "Doc comments"):
//
//	{@link Tool}                          [Tool]
//	{@link Tool.outputSchema}             [Tool.OutputSchema]
//	{@link Tool | the tool}               the tool ([Tool])
//	{@link MetaObject`_meta` key rules}   `_meta` key rules ([MetaObject])
//	{@link CallToolRequesttools/call} request
//	                                      tools/call request ([CallToolRequest])
//	{@link Unknown}                       Unknown

// linkRE matches one {@link …}; group 1 is everything inside.
var linkRE = regexp.MustCompile(`\{@link\s+([^{}]*?)\s*\}`)

// linkTargetRE is the target at the start of a link: a name, optionally
// followed by member names.
var linkTargetRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*`)

// fusedMethodRE is what may follow a type name fused with a method name: a
// method name with at least one slash ("tools/call"; a method without one,
// "ping", is accepted only when it is the type's own method const).
var fusedMethodRE = regexp.MustCompile(`^[a-z][A-Za-z0-9_]*(?:/[A-Za-z0-9_]+)*$`)

// unknownFusedRE splits a fused target whose type is not generated.
var unknownFusedRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*(?:Request|Notification|Result)([a-z][A-Za-z0-9_]*/[A-Za-z0-9_/]+)$`)

// messageNounRE is the word after a fused method link that the link's
// parenthesis moves behind: "a tools/call request ([CallToolRequest])".
var messageNounRE = regexp.MustCompile(`^(\s+)(requests?|notifications?|streams?|subscriptions?)\b`)

// docLinker renders the links of one model's descriptions.
type docLinker struct {
	m *Model
}

// linkDocs rewrites the description of every declaration and member of m.
func linkDocs(m *Model) {
	l := docLinker{m: m}
	for _, n := range m.Order {
		d := m.Decls[n]
		d.Doc = l.render(d.Doc)
		for _, f := range d.Fields {
			f.Doc = l.render(f.Doc)
		}
	}
}

// render rewrites the links of one description.
func (l docLinker) render(s string) string {
	if !strings.Contains(s, "{@link") {
		return s
	}
	var b strings.Builder
	rest := s
	for {
		loc := linkRE.FindStringSubmatchIndex(rest)
		if loc == nil {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:loc[0]])
		inner := rest[loc[2]:loc[3]]
		rest = rest[loc[1]:]
		text, ref := l.link(inner)
		if ref == "" {
			b.WriteString(text)
			continue
		}
		b.WriteString(text)
		if _, isMethod := l.fused(inner); isMethod {
			if m := messageNounRE.FindStringSubmatch(rest); m != nil {
				b.WriteString(m[0])
				rest = rest[len(m[0]):]
			}
		}
		if text == "" {
			b.WriteString(ref)
		} else {
			b.WriteString(" (" + ref + ")")
		}
	}
	return strings.TrimSpace(b.String())
}

// link splits the inside of one {@link …} into the text to print and the
// Go doc link to add ("" when the target is not a generated type). An empty
// text means the link stands alone: "[Tool]".
func (l docLinker) link(inner string) (text, ref string) {
	if target, label, ok := strings.Cut(inner, "|"); ok {
		target, label = strings.TrimSpace(target), strings.TrimSpace(label)
		if r, ok := l.resolve(target); ok {
			return label, r
		}
		return label, ""
	}
	if name, method := l.fused(inner); method {
		return strings.TrimPrefix(inner, name), "[" + name + "]"
	}
	if m := unknownFusedRE.FindStringSubmatch(inner); m != nil {
		return m[1], ""
	}
	target := linkTargetRE.FindString(inner)
	label := strings.TrimSpace(inner[len(target):])
	r, ok := l.resolve(target)
	switch {
	case !ok:
		return inner, ""
	case label == "":
		return "", r
	default:
		return label, r
	}
}

// fused reports whether inner is a generated type's name with a method name
// glued to it ("CallToolRequesttools/call"), and which type; the longest
// type name that leaves a method name wins.
func (l docLinker) fused(inner string) (name string, ok bool) {
	for i := len(inner) - 1; i > 0; i-- {
		prefix, method := inner[:i], inner[i:]
		d := l.m.Decls[prefix]
		if d == nil || !fusedMethodRE.MatchString(method) {
			continue
		}
		if strings.Contains(method, "/") || methodConst(d) == method {
			return d.Name, true
		}
	}
	return "", false
}

// resolve maps a schema reference (a definition name, optionally followed
// by member names: "ClientCapabilities.sampling.tools") to a Go doc link of
// the generated package: the type, or the struct field at the end of the
// member path.
func (l docLinker) resolve(target string) (string, bool) {
	parts := strings.Split(target, ".")
	d := l.m.Decls[parts[0]]
	if d == nil || d.Kind == DFloatEnumUnused {
		return "", false
	}
	owner, field := d, ""
	for _, member := range parts[1:] {
		if field != "" {
			next := l.fieldDecl(owner, field)
			if next == nil {
				return "", false
			}
			owner = next
		}
		f := structField(l.follow(owner), member)
		if f == nil {
			return "", false
		}
		field = f.GoName
		owner = l.follow(owner)
	}
	if field == "" {
		return "[" + d.Name + "]", true
	}
	return "[" + owner.Name + "." + field + "]", true
}

// fieldDecl is the named declaration the Go field of owner has as its type.
func (l docLinker) fieldDecl(owner *Decl, goField string) *Decl {
	for _, f := range owner.Fields {
		if f.GoName == goField && f.Type.Kind == KNamed {
			return l.m.Decls[f.Type.Name]
		}
	}
	return nil
}

// follow goes through aliases to the declaration that has the fields.
func (l docLinker) follow(d *Decl) *Decl {
	for i := 0; i < 8 && d != nil && d.Kind == DAlias; i++ {
		d = l.m.Decls[d.Target.Name]
	}
	return d
}

// structField is the non-const member named jsonName of a struct, or nil:
// a const member has no Go field to link to.
func structField(d *Decl, jsonName string) *Field {
	if d == nil || d.Kind != DStruct {
		return nil
	}
	for _, f := range d.Fields {
		if f.JSONName == jsonName && f.Const == nil {
			return f
		}
	}
	return nil
}
