package main

import (
	"strings"
)

// ---- methods_gen.go: the method table ----

func methodConstName(method string) string {
	return "Method" + goIdent(method)
}

func (g *emitter) emitMethods() {
	g.p("// Method names of this revision.")
	g.p("const (")
	for _, m := range g.m.Methods {
		g.p("// %s is the method of %s.", methodConstName(m.Name), m.Message)
		g.p("%s = %q", methodConstName(m.Name), m.Name)
	}
	g.p(")")
	g.p("")
	if g.corePkg != "" {
		g.p("// Revision is the revision of the extension schema this package was")
		g.p("// generated from: its folder in the extension's repository.")
	} else {
		g.p("// Revision is the MCP protocol revision this package was generated from.")
	}
	g.p("const Revision = %q", g.m.Revision)
	g.p("")
	g.p("// LookupMethod describes a method of this revision, or reports false for")
	g.p("// a method the revision does not have.")
	g.p("func LookupMethod(name string) (MethodInfo, bool) {")
	g.p("switch name {")
	for _, m := range g.m.Methods {
		g.p("case %s:", methodConstName(m.Name))
		g.p("return %s, true", g.methodLiteral(m))
	}
	g.p("}")
	g.p("return MethodInfo{}, false")
	g.p("}")
	g.p("")
	g.p("// Methods lists every method of this revision, sorted by name.")
	g.p("func Methods() []MethodInfo {")
	g.p("return []MethodInfo{")
	for _, m := range g.m.Methods {
		g.p("%s,", g.methodLiteral(m))
	}
	g.p("}")
	g.p("}")
	g.p("")
}

func (g *emitter) methodLiteral(m Method) string {
	var b strings.Builder
	b.WriteString("MethodInfo{Name: " + methodConstName(m.Name))
	if m.Notification {
		b.WriteString(", Notification: true")
	}
	for _, d := range m.Directions {
		switch d {
		case "client-to-server":
			b.WriteString(", FromClient: true")
		case "server-to-client":
			b.WriteString(", FromServer: true")
		}
	}
	b.WriteString(`, Message: "` + m.Message + `"`)
	b.WriteString(", NewMessage: func() any { return new(" + m.Message + ") }")
	if m.Params != "" {
		b.WriteString(`, Params: "` + m.Params + `"`)
		b.WriteString(", NewParams: func() any { return new(" + m.Params + ") }")
	}
	if m.Result != "" {
		b.WriteString(`, Result: "` + m.Result + `"`)
		b.WriteString(", NewResult: func() any { return new(" + m.Result + ") }")
	}
	b.WriteString("}")
	return b.String()
}

// ---- errors_gen.go: error codes fixed by the schema ----

func errorConstName(def string) string {
	return "Code" + def
}

func (g *emitter) emitErrors() {
	g.p("// JSON-RPC error codes fixed by the schema, each named after the")
	g.p("// definition that carries it.")
	g.p("const (")
	for _, c := range g.m.ErrorCodes {
		g.p("// %s is the code of %s.", errorConstName(c.Name), c.Name)
		g.p("%s int64 = %d", errorConstName(c.Name), c.Code)
	}
	g.p(")")
	g.p("")
	g.p("// ErrorCodeName returns the name of the definition that fixes code, or")
	g.p("// \"\" for a code the schema does not fix.")
	g.p("func ErrorCodeName(code int64) string {")
	g.p("switch code {")
	for _, c := range g.m.ErrorCodes {
		g.p("case %s:", errorConstName(c.Name))
		g.p("return %q", c.Name)
	}
	g.p("}")
	g.p(`return ""`)
	g.p("}")
	g.p("")
}

// ---- registry_gen.go: type names to values ----

func (g *emitter) emitRegistry() {
	g.p("// NewValue returns a pointer to a new zero value of the type that has the")
	if g.corePkg != "" {
		g.p("// given schema name (the extension's own definitions, and their inline")
		g.p("// types; not those mapped onto package %s), or nil.", g.corePkg)
	} else {
		g.p("// given schema name (every definition, and the inline types), or nil.")
	}
	g.p("func NewValue(typeName string) any {")
	g.p("switch typeName {")
	for _, n := range g.m.Order {
		g.p("case %q:", n)
		g.p("return new(%s)", n)
	}
	g.p("}")
	g.p("return nil")
	g.p("}")
	g.p("")
}

// emitStaticDispatch generates type switches that call each type's codec
// directly, so that the decoder and encoder stay on the stack (a call
// through an interface makes them escape).
func (g *emitter) emitStaticDispatch() {
	g.p("// decodeStatic decodes into a pointer to a type of this package, or")
	g.p("// reports false for any other value.")
	g.p("func decodeStatic(d *decoder, v any) (bool, error) {")
	g.p("switch x := v.(type) {")
	for _, n := range g.m.Order {
		if g.m.Decls[n].Kind == DAlias {
			continue
		}
		g.p("case *%s:", n)
		g.p("return true, x.decodeFrom(d)")
	}
	g.p("}")
	g.p("return false, nil")
	g.p("}")
	g.p("")
	g.p("// encodeStatic encodes a pointer to a type of this package, or reports")
	g.p("// false for any other value.")
	g.p("func encodeStatic(e *encoder, v any) (bool, error) {")
	g.p("switch x := v.(type) {")
	for _, n := range g.m.Order {
		if g.m.Decls[n].Kind == DAlias {
			continue
		}
		g.p("case *%s:", n)
		g.p("return true, x.encodeTo(e)")
	}
	g.p("}")
	g.p("return false, nil")
	g.p("}")
	g.p("")
}
