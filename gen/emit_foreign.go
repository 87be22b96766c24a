package main

import "strings"

// ---- foreign_gen.go: members whose type is the core package's ----

// foreignName reports a reference to a core type ("protocol.Tool") and
// returns the core name ("Tool").
func (g *emitter) foreignName(name string) (string, bool) {
	if g.corePkg == "" {
		return "", false
	}
	return strings.CutPrefix(name, g.corePkg+".")
}

// emitForeign prints the two functions through which an extension
// package's codecs decode and encode a member of a core type: with the
// core package's strict codec, its errors turned into this package's
// (path, kind and offset kept), and this decoder's limits passed on.
func (g *emitter) emitForeign() {
	pkg := g.corePkg
	g.p("// decodeForeign decodes the next value into v, a pointer to a type of package")
	g.p("// %s, with that package's strict decoder; the value is validated first", pkg)
	g.p("// under this decoder's limits, and what remains of them applies inside.")
	g.p("func decodeForeign(d *decoder, v any) error {")
	g.p("d.ws()")
	g.p("start := d.pos")
	g.p("raw, err := d.readRaw(rawAny)")
	g.p("if err != nil {")
	g.p("return err")
	g.p("}")
	g.p("opts := %s.UnmarshalOptions{MaxDepth: max(1, d.maxDepth-d.depth), MaxStringBytes: d.maxString, MaxMembers: d.maxMembers}", pkg)
	g.p("if err := opts.Unmarshal(raw, v); err != nil {")
	g.p("if de, ok := %s.AsDecodeError(err); ok {", pkg)
	g.p("return &DecodeError{Path: de.Path, Kind: ErrorKind(de.Kind), Offset: start + de.Offset, Msg: de.Msg}")
	g.p("}")
	g.p("return err")
	g.p("}")
	g.p("return nil")
	g.p("}")
	g.p("")
	g.p("// encodeForeign appends the encoding of v, a pointer to a type of package")
	g.p("// %s, with that package's strict encoder.", pkg)
	g.p("func encodeForeign(e *encoder, v any) error {")
	g.p("b, err := %s.AppendMarshal(e.buf, v)", pkg)
	g.p("if err != nil {")
	g.p("var ee *%s.EncodeError", pkg)
	g.p("if errors.As(err, &ee) {")
	g.p("return &EncodeError{Path: ee.Path, Msg: ee.Msg}")
	g.p("}")
	g.p("return err")
	g.p("}")
	g.p("e.buf = b")
	g.p("return nil")
	g.p("}")
	g.p("")
}
