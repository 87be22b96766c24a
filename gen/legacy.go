package main

// gen -legacy: the projection tables of server/internal/legacy.
//
// A dual-era server answers legacy clients (2024-11-05 … 2025-11-25) with
// values of package protocol (2026-07-28) and, for messages that only exist
// in the legacy era, of package mcp20251125. Before encoding, every member
// that the negotiated revision V does not declare at that position is
// cleared. This file derives, from the five pinned schemas, which members
// those are: it walks every message the server sends in a session (the
// result of each client request, each server notification, each server
// request, the error response) in the Go model and in V's schema side by
// side, member by member, and at unions picks V's branch by its const
// discriminators and required members. Definitions renamed across revisions
// (JSONRPCError → JSONRPCErrorResponse, ResourceReference →
// ResourceTemplateReference, params inline before 2025-11-25) align because
// the walk follows positions, never names. legacy_emit.go prints the result
// as server/internal/legacy/tables_gen.go.
//
// The walk fails generation, so that a person writes a rule, when:
//
//   - a member the Go type requires is not declared by V, other than the
//     result envelope (resultType, ttlMs, cacheScope) at the top of a result;
//   - V requires a member the Go type does not have;
//   - an optional const member is not declared by V (generated code cannot
//     clear it) and no rule names it;
//   - a value kind, enum or raw width of the Go side is wider than V's and
//     no rule names it;
//   - a union branch of V has no counterpart in the Go type, or a Go branch
//     matches several of V's;
//   - one Go type is reached at two positions of one revision that declare
//     different members (its zero function could not serve both);
//   - a client message of an older revision would not decode with the
//     2025-11-25 types (the server decodes every legacy revision with them).
//
// The design is docs/dual-era.md §3.7 and §3.8.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/schema"
)

// legacyRevisions are the legacy revisions oldest first: index i is bit i of
// a revSet and the value of the generated Rev.
var legacyRevisions = func() []string {
	revs := schema.LegacyRevisions()
	slices.Reverse(revs)
	return revs
}()

// revSet is a set of legacy revisions, bit i for legacyRevisions[i].
type revSet uint8

// allRevs is every legacy revision.
var allRevs = revSet(1<<len(legacyRevisions) - 1)

// envelopeMembers are the members a modern result requires and no legacy
// revision declares (§3.7 item 3, hand rule H2): they are removed from the
// top level of the encoded result.
var envelopeMembers = map[string]bool{"resultType": true, "ttlMs": true, "cacheScope": true}

// legacyRule is a hand-written rule that covers a case the walk would
// otherwise refuse; Rule names it in the table of docs/dual-era.md §3.7.
type legacyRule struct {
	Rule, Why string
}

// verbatimTypes are copied as they are, whatever V declares inside them
// (H1): they hold JSON Schema, not MCP shapes, and older revisions declare
// fewer keywords ($schema) than a tool's schema may use.
var verbatimTypes = map[string]legacyRule{
	"ToolInputSchema":  {"H1", "a tool's inputSchema is JSON Schema, copied verbatim"},
	"ToolOutputSchema": {"H1", "a tool's outputSchema is JSON Schema, copied verbatim (H4 drops it when V cannot carry it)"},
}

// memberRules cover members (Type.member, Go side) the walk cannot handle
// alone.
var memberRules = map[string]legacyRule{
	// Modern structuredContent is any JSON value; the legacy revisions that
	// have it require an object.
	"CallToolResult.structuredContent": {"H4", "kept only when V declares it and the value is an object; otherwise removed, with a text copy if content would be empty"},
	// An optional const the generated code cannot clear (its presence flag
	// is unexported): the bridge builds form requests without it.
	"ElicitRequestFormParams.mode": {"§3.6", "the bridge builds form elicitations without mode, which every legacy client reads as form"},
}

// notServed are legacy messages the server never sends or answers, by
// direction and method, with the reason; the walk skips them.
var notServed = map[string]string{
	"client-request tasks/get":                               "the experimental core tasks of 2025-11-25 are not served (docs/dual-era.md §0)",
	"client-request tasks/result":                            "the experimental core tasks of 2025-11-25 are not served (docs/dual-era.md §0)",
	"client-request tasks/list":                              "the experimental core tasks of 2025-11-25 are not served (docs/dual-era.md §0)",
	"client-request tasks/cancel":                            "the experimental core tasks of 2025-11-25 are not served (docs/dual-era.md §0)",
	"server-request tasks/get":                               "the experimental core tasks of 2025-11-25 are not served (docs/dual-era.md §0)",
	"server-request tasks/result":                            "the experimental core tasks of 2025-11-25 are not served (docs/dual-era.md §0)",
	"server-request tasks/list":                              "the experimental core tasks of 2025-11-25 are not served (docs/dual-era.md §0)",
	"server-request tasks/cancel":                            "the experimental core tasks of 2025-11-25 are not served (docs/dual-era.md §0)",
	"server-notification notifications/tasks/status":         "the experimental core tasks of 2025-11-25 are not served (docs/dual-era.md §0)",
	"server-notification notifications/elicitation/complete": "URL elicitation completion is not sent (docs/dual-era.md §0)",
	"server-request ping":                                    "the server never pings the client (docs/dual-era.md §2.2)",
}

// legacySide is one Go package the runtime projects values of.
type legacySide struct {
	m   *Model
	pkg string // Go package name, as the generated file refers to it
	fn  string // inserted into the names of its zero functions
}

// legacyRev is one legacy revision: its pin and the model of its schema.
type legacyRev struct {
	pin schema.Pin
	m   *Model
}

// legacyInput is what the tables are derived from.
type legacyInput struct {
	Modern, Legacy *Model // protocol (2026-07-28), mcp20251125 (2025-11-25)
	ModernPin      schema.Pin
	Revs           []legacyRev // legacyRevisions, oldest first
}

// loadLegacyInput loads and verifies the five pins and builds their models.
func loadLegacyInput(ctx context.Context) (legacyInput, error) {
	model := func(rev string) (*Model, schema.Pin, error) {
		pin, err := schema.Lookup(rev)
		if err != nil {
			return nil, pin, err
		}
		data, _, err := schema.Load(ctx, pin, schema.Options{})
		if err != nil {
			return nil, pin, err
		}
		s, defPath, err := parseSchema(data)
		if err != nil {
			return nil, pin, fmt.Errorf("%s: %w", rev, err)
		}
		m, err := buildModel(s, defPath)
		if err != nil {
			return nil, pin, fmt.Errorf("%s: %w", rev, err)
		}
		m.Revision, m.Commit, m.SHA256 = pin.Revision, pin.Commit, pin.SHA256
		return m, pin, nil
	}
	var in legacyInput
	var err error
	if in.Modern, in.ModernPin, err = model(schema.Current); err != nil {
		return in, err
	}
	for _, rev := range legacyRevisions {
		m, pin, err := model(rev)
		if err != nil {
			return in, err
		}
		in.Revs = append(in.Revs, legacyRev{pin: pin, m: m})
		if rev == schema.Legacy {
			in.Legacy = m
		}
	}
	if in.Legacy == nil {
		return in, fmt.Errorf("legacy revisions %v lack %s", legacyRevisions, schema.Legacy)
	}
	return in, nil
}

// ltype is what the walk learned about one Go type.
type ltype struct {
	side    *legacySide
	decl    *Decl
	reached revSet // revisions in which a value of it is sent
	// structs: per member JSON name, the revisions that declare it and the
	// revisions in which its value is walked into
	declared map[string]revSet
	recurse  map[string]revSet
	// unions: per variant Go name, the revisions that have a matching
	// branch, and those in which the branch is walked into
	branches map[string]revSet
	brecurse map[string]revSet
	// vOnly: members V declares and the Go type does not, by the
	// revisions declaring them. A value may hold one undeclared (in Extra),
	// or a case variant of it, with a value V forbids: the zero function
	// drops them.
	vOnly map[string]revSet
	// sig and where: per revision, what the first position declared, to
	// catch a second position that declares something else
	sig   [8]string
	where [8]string
	work  bool // the zero function changes something in some revision
}

func (t *ltype) key() string { return t.side.pkg + "." + t.decl.Name }

// lroot is one message the server sends in a session.
type lroot struct {
	Kind   string // "result", "notification", "request", "error"
	Method string // "" for the error response
	Type   *ltype
	Revs   revSet // revisions that have the message
}

// requiredGap is a member that V requires and the Go type leaves optional:
// the runtime must always set it (§3.7 item 4).
type requiredGap struct {
	Type, Member string // Go type key (pkg.Name) and JSON member name
	Revs         revSet
}

// unionBranch is a branch of a Go union and the revisions that have it.
type legacyTables struct {
	in         legacyInput
	sides      []*legacySide
	types      map[string]*ltype
	roots      []*lroot
	envelope   map[string][]string // root type key → envelope members to strip
	gaps       []requiredGap
	methods    []revMethods
	rules      map[string]legacyRule // rules that applied, by what they covered
	errs       []string
	memo       map[string]bool
	compatSeen map[string]bool
}

// revMethods are the messages of one revision (§3.7 item 5).
type revMethods struct {
	ClientRequests, ClientNotifications, ServerRequests, ServerNotifications []string
	Batches                                                                  bool
}

// walkCtx says where in a message a position is.
type walkCtx struct {
	resultRoot  bool // the top level of a result: the envelope may be missing
	messageRoot bool // the top level of a request or notification: V's JSON-RPC envelope declares jsonrpc and id
	root        *lroot
}

// buildLegacyTables derives the tables, or fails with every problem found.
func buildLegacyTables(in legacyInput) (*legacyTables, error) {
	t := &legacyTables{
		in:         in,
		types:      map[string]*ltype{},
		envelope:   map[string][]string{},
		rules:      map[string]legacyRule{},
		memo:       map[string]bool{},
		compatSeen: map[string]bool{},
	}
	modern := &legacySide{m: in.Modern, pkg: "protocol"}
	legacy := &legacySide{m: in.Legacy, pkg: "mcp20251125", fn: "Legacy"}
	t.sides = []*legacySide{modern, legacy}
	for r, rv := range in.Revs {
		t.methods = append(t.methods, messagesOf(rv.m))
		t.walkRoots(r, rv.m, modern, legacy)
		t.compatRoots(r, rv.m, in.Legacy)
	}
	if len(t.errs) > 0 {
		sort.Strings(t.errs)
		t.errs = slices.Compact(t.errs)
		return nil, fmt.Errorf("legacy tables:\n  %s", strings.Join(t.errs, "\n  "))
	}
	t.computeWork()
	sort.Slice(t.roots, func(i, j int) bool {
		a, b := t.roots[i], t.roots[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Method != b.Method {
			return a.Method < b.Method
		}
		return a.Type.key() < b.Type.key()
	})
	sort.Slice(t.gaps, func(i, j int) bool {
		if t.gaps[i].Type != t.gaps[j].Type {
			return t.gaps[i].Type < t.gaps[j].Type
		}
		return t.gaps[i].Member < t.gaps[j].Member
	})
	return t, nil
}

func (t *legacyTables) fail(format string, args ...any) {
	t.errs = append(t.errs, fmt.Sprintf(format, args...))
}

// messagesOf lists a revision's methods by direction, and whether its
// JSONRPCMessage has an array branch (batches).
func messagesOf(m *Model) revMethods {
	var out revMethods
	for _, meth := range m.Methods {
		for _, dir := range meth.Directions {
			switch {
			case dir == "client-to-server" && meth.Notification:
				out.ClientNotifications = append(out.ClientNotifications, meth.Name)
			case dir == "client-to-server":
				out.ClientRequests = append(out.ClientRequests, meth.Name)
			case dir == "server-to-client" && meth.Notification:
				out.ServerNotifications = append(out.ServerNotifications, meth.Name)
			case dir == "server-to-client":
				out.ServerRequests = append(out.ServerRequests, meth.Name)
			}
		}
	}
	if d := m.Decls["JSONRPCMessage"]; d != nil && d.Kind == DUnion {
		for _, v := range d.Variants {
			if v.JSONKind == '[' {
				out.Batches = true
			}
		}
	}
	return out
}

func lookupMethod(m *Model, name string) (Method, bool) {
	for _, meth := range m.Methods {
		if meth.Name == name {
			return meth, true
		}
	}
	return Method{}, false
}

// errorVariant finds the branch of a model's JSONRPCMessage that carries an
// error member: the error response, whatever the revision calls it.
func errorVariant(m *Model) string {
	d := m.Decls["JSONRPCMessage"]
	if d == nil || d.Kind != DUnion {
		return ""
	}
	var find func(name string, depth int) string
	find = func(name string, depth int) string {
		sd := resolveDecl(m, name)
		if sd == nil || depth > 4 {
			return ""
		}
		switch sd.Kind {
		case DStruct:
			for _, f := range sd.Fields {
				if f.JSONName == "error" {
					return sd.Name
				}
			}
		case DUnion:
			for _, v := range sd.Variants {
				if n := find(v.GoName, depth+1); n != "" {
					return n
				}
			}
		}
		return ""
	}
	return find("JSONRPCMessage", 0)
}

// walkRoots walks every message the server sends in revision r.
func (t *legacyTables) walkRoots(r int, vm *Model, modern, legacy *legacySide) {
	msgs := messagesOf(vm)
	root := func(kind, method, dir string, side *legacySide, goName, vName string) {
		if goName == "" || vName == "" {
			t.fail("%s: %s %s: no Go or %s type", legacyRevisions[r], kind, method, legacyRevisions[r])
			return
		}
		lt := t.typ(side, goName)
		if lt == nil {
			t.fail("%s: %s %s: Go type %s.%s is not declared", legacyRevisions[r], kind, method, side.pkg, goName)
			return
		}
		var rt *lroot
		for _, x := range t.roots {
			if x.Kind == kind && x.Method == method && x.Type == lt {
				rt = x
			}
		}
		if rt == nil {
			rt = &lroot{Kind: kind, Method: method, Type: lt}
			t.roots = append(t.roots, rt)
		}
		rt.Revs |= 1 << r
		ctx := walkCtx{resultRoot: kind == "result", messageRoot: kind == "notification" || kind == "request", root: rt}
		path := fmt.Sprintf("%s %s %s", legacyRevisions[r], kind, method)
		if method == "" {
			path = fmt.Sprintf("%s %s", legacyRevisions[r], kind)
		}
		t.walk(side, TypeRef{Kind: KNamed, Name: goName}, vm, TypeRef{Kind: KNamed, Name: vName}, r, path, ctx)
	}
	for _, name := range msgs.ClientRequests {
		if _, skip := notServed["client-request "+name]; skip {
			continue
		}
		vmeth, _ := lookupMethod(vm, name)
		if mm, ok := lookupMethod(modern.m, name); ok && slices.Contains(mm.Directions, "client-to-server") && mm.Result != "" {
			root("result", name, "client-request", modern, mm.Result, vmeth.Result)
		} else if lm, ok := lookupMethod(legacy.m, name); ok {
			root("result", name, "client-request", legacy, lm.Result, vmeth.Result)
		} else {
			t.fail("%s: client request %s exists neither in %s nor in %s", legacyRevisions[r], name, modern.m.Revision, legacy.m.Revision)
		}
	}
	for _, name := range msgs.ServerNotifications {
		if _, skip := notServed["server-notification "+name]; skip {
			continue
		}
		vmeth, _ := lookupMethod(vm, name)
		if mm, ok := lookupMethod(modern.m, name); ok && slices.Contains(mm.Directions, "server-to-client") {
			root("notification", name, "server-notification", modern, mm.Message, vmeth.Message)
		} else if lm, ok := lookupMethod(legacy.m, name); ok {
			root("notification", name, "server-notification", legacy, lm.Message, vmeth.Message)
		} else {
			t.fail("%s: server notification %s exists neither in %s nor in %s", legacyRevisions[r], name, modern.m.Revision, legacy.m.Revision)
		}
	}
	for _, name := range msgs.ServerRequests {
		if _, skip := notServed["server-request "+name]; skip {
			continue
		}
		vmeth, _ := lookupMethod(vm, name)
		lm, ok := lookupMethod(legacy.m, name)
		if !ok {
			t.fail("%s: server request %s does not exist in %s", legacyRevisions[r], name, legacy.m.Revision)
			continue
		}
		root("request", name, "server-request", legacy, lm.Message, vmeth.Message)
	}
	root("error", "", "", modern, errorVariant(modern.m), errorVariant(vm))
}

// typ returns the ltype of a Go declaration, through aliases.
func (t *legacyTables) typ(side *legacySide, name string) *ltype {
	d := resolveDecl(side.m, name)
	if d == nil {
		return nil
	}
	k := side.pkg + "." + d.Name
	if lt, ok := t.types[k]; ok {
		return lt
	}
	lt := &ltype{side: side, decl: d, declared: map[string]revSet{}, recurse: map[string]revSet{}, branches: map[string]revSet{}, brecurse: map[string]revSet{}, vOnly: map[string]revSet{}}
	t.types[k] = lt
	return lt
}

// resolveDecl follows aliases to the declaration behind a name.
func resolveDecl(m *Model, name string) *Decl {
	for i := 0; i < 8; i++ {
		d := m.Decls[name]
		if d == nil {
			return nil
		}
		if d.Kind != DAlias {
			return d
		}
		name = d.Target.Name
	}
	return nil
}

// shape is a type reference classified for alignment.
type shape struct {
	kind string // struct, union, list, map, raw, enum, string, int, float, bool, scalars
	decl *Decl  // struct, union, enum, scalars; list/map when named
	elem TypeRef
	raw  RawMode
}

func shapeOf(m *Model, tr TypeRef) shape {
	switch tr.Kind {
	case KString:
		return shape{kind: "string"}
	case KInt:
		return shape{kind: "int"}
	case KFloat:
		return shape{kind: "float"}
	case KBool:
		return shape{kind: "bool"}
	case KSlice:
		return shape{kind: "list", elem: *tr.Elem}
	case KMap:
		return shape{kind: "map", elem: *tr.Elem}
	case KRaw:
		return shape{kind: "raw", raw: tr.Raw}
	}
	d := resolveDecl(m, tr.Name)
	if d == nil {
		return shape{kind: "missing"}
	}
	switch d.Kind {
	case DStruct:
		return shape{kind: "struct", decl: d}
	case DUnion:
		return shape{kind: "union", decl: d}
	case DEnum:
		return shape{kind: "enum", decl: d}
	case DString:
		return shape{kind: "string", decl: d}
	case DScalarUnion:
		return shape{kind: "scalars", decl: d}
	case DRaw:
		return shape{kind: "raw", decl: d, raw: d.Target.Raw}
	case DMap:
		return shape{kind: "map", decl: d, elem: *d.Target.Elem}
	case DList:
		return shape{kind: "list", decl: d, elem: *d.Target.Elem}
	}
	return shape{kind: "missing"}
}

func (s shape) String() string {
	if s.decl != nil {
		return s.kind + " " + s.decl.Name
	}
	if s.kind == "list" || s.kind == "map" {
		return s.kind + " of " + refString(s.elem)
	}
	return s.kind
}

func refString(tr TypeRef) string {
	switch tr.Kind {
	case KNamed:
		return tr.Name
	case KSlice:
		return "[]" + refString(*tr.Elem)
	case KMap:
		return "map[" + refString(*tr.Elem) + "]"
	case KRaw:
		return fmt.Sprintf("raw%d", tr.Raw)
	}
	return fmt.Sprintf("k%d", tr.Kind)
}

// rawObjectish reports raw modes that only hold objects.
func rawObjectish(m RawMode) bool { return m == RawObject || m == RawJSONObject }

// walk aligns the Go type gt with V's type vt at one position in revision
// r, records what V declares, and reports whether the Go value is walked
// into there (false: copied as it is).
func (t *legacyTables) walk(side *legacySide, gt TypeRef, vm *Model, vt TypeRef, r int, path string, ctx walkCtx) bool {
	gs, vs := shapeOf(side.m, gt), shapeOf(vm, vt)
	if gs.kind == "missing" || vs.kind == "missing" {
		t.fail("%s: undeclared type (Go %s, V %s)", path, refString(gt), refString(vt))
		return false
	}
	if gs.decl != nil {
		if rule, ok := verbatimTypes[gs.decl.Name]; ok {
			t.rules["type "+gs.decl.Name] = rule
			return false
		}
	}
	switch gs.kind {
	case "struct":
		switch vs.kind {
		case "struct":
			return t.walkStruct(side, gs.decl, vm, vs.decl, r, path, ctx)
		case "union":
			b := t.matchOne(side, gs.decl, vm, vs.decl, path)
			if b == nil {
				return false
			}
			return t.walkStruct(side, gs.decl, vm, b, r, path, ctx)
		case "raw":
			if !rawObjectish(vs.raw) && vs.raw != RawAny && vs.raw != RawJSONValue {
				t.fail("%s: Go %s is an object, V has raw %d", path, gs, vs.raw)
			}
			// V leaves the object free-form: everything is kept.
			return false
		case "map":
			return false // an object of V's open members: the members are kept
		}
	case "union":
		switch vs.kind {
		case "union", "struct":
			return t.walkUnion(side, gs.decl, vm, vs, r, path, ctx)
		case "raw":
			return false
		}
	case "list":
		if vs.kind == "list" {
			return t.walk(side, gs.elem, vm, vs.elem, r, path+"[]", walkCtx{root: ctx.root})
		}
		if vs.kind == "raw" {
			return false
		}
	case "map":
		switch vs.kind {
		case "map":
			return t.walk(side, gs.elem, vm, vs.elem, r, path+"{}", walkCtx{root: ctx.root})
		case "raw":
			return false
		case "struct":
			if len(vs.decl.Fields) == 0 {
				return false
			}
		}
	case "raw":
		switch vs.kind {
		case "raw":
			wide := (gs.raw == RawAny || gs.raw == RawJSONValue || gs.raw == RawJSONArray) && rawObjectish(vs.raw)
			if wide {
				t.fail("%s: Go holds any JSON value (raw %d), V only an object: needs a rule", path, gs.raw)
			}
			return false
		case "struct":
			if rawObjectish(gs.raw) && !hasRequired(vs.decl) {
				return false
			}
		case "map":
			if rawObjectish(gs.raw) {
				return false
			}
		}
	case "enum":
		switch vs.kind {
		case "enum":
			var extra []string
			for _, v := range gs.decl.Values {
				if !slices.Contains(vs.decl.Values, v) {
					extra = append(extra, v)
				}
			}
			if len(extra) > 0 {
				t.fail("%s: enum %s has values %v that V's %s lacks: needs a rule", path, gs.decl.Name, extra, vs.decl.Name)
			}
			return false
		case "string":
			return false
		}
	case "string":
		if vs.kind == "string" {
			return false
		}
	case "int":
		if vs.kind == "int" || vs.kind == "float" {
			return false
		}
	case "float", "bool":
		if vs.kind == gs.kind {
			return false
		}
	case "scalars":
		if vs.kind == "scalars" {
			for _, k := range gs.decl.Kinds {
				if !slices.Contains(vs.decl.Kinds, k) && !(k == "integer" && slices.Contains(vs.decl.Kinds, "number")) {
					t.fail("%s: %s can be %s, V's %s cannot", path, gs.decl.Name, k, vs.decl.Name)
				}
			}
			return false
		}
	}
	t.fail("%s: Go %s does not fit V %s", path, gs, vs)
	return false
}

func hasRequired(d *Decl) bool {
	for _, f := range d.Fields {
		if f.Required {
			return true
		}
	}
	return false
}

func fieldOf(d *Decl, name string) *Field {
	for _, f := range d.Fields {
		if f.JSONName == name {
			return f
		}
	}
	return nil
}

// walkStruct aligns two objects member by member.
func (t *legacyTables) walkStruct(side *legacySide, gd *Decl, vm *Model, vd *Decl, r int, path string, ctx walkCtx) bool {
	lt := t.typ(side, gd.Name)
	memo := fmt.Sprintf("%s|%d|%s|%v|%v", lt.key(), r, vd.Name, ctx.resultRoot, ctx.messageRoot)
	if t.memo[memo] {
		return true
	}
	t.memo[memo] = true
	lt.reached |= 1 << r
	var declared, walked []string
	for _, f := range gd.Fields {
		fpath := path + "." + f.JSONName
		vf := fieldOf(vd, f.JSONName)
		if vf == nil && ctx.messageRoot && (f.JSONName == "jsonrpc" || f.JSONName == "id") {
			declared = append(declared, f.JSONName) // V's JSONRPCRequest/JSONRPCNotification declares it
			continue
		}
		if vf == nil {
			if rule, ok := memberRules[gd.Name+"."+f.JSONName]; ok && f.Const != nil {
				t.rules["member "+gd.Name+"."+f.JSONName] = rule
				declared = append(declared, f.JSONName) // left alone: the rule keeps it out
				continue
			}
			switch {
			case f.Required && ctx.resultRoot && envelopeMembers[f.JSONName]:
				k := lt.key()
				if !slices.Contains(t.envelope[k], f.JSONName) {
					t.envelope[k] = append(t.envelope[k], f.JSONName)
					sort.Strings(t.envelope[k])
				}
				t.rules["envelope "+f.JSONName] = legacyRule{"H2", "the result envelope: removed from the top level of the encoded result"}
			case f.Required:
				t.fail("%s: required by %s.%s, not declared by V, and no rule covers it", fpath, side.pkg, gd.Name)
			case f.Const != nil:
				t.fail("%s: optional const member not declared by V; generated code cannot clear it: needs a rule in memberRules", fpath)
			}
			continue
		}
		declared = append(declared, f.JSONName)
		if vf.Required && !f.Required {
			t.gap(lt.key(), f.JSONName, r)
		}
		if f.Const != nil || vf.Const != nil {
			if f.Const == nil || vf.Const == nil || *f.Const != *vf.Const {
				t.fail("%s: const %v in Go, %v in V", fpath, f.Const, vf.Const)
			}
			continue
		}
		if rule, ok := memberRules[gd.Name+"."+f.JSONName]; ok {
			// The walk would refuse the member's width; the hand rule
			// decides what is kept. Walk nothing inside.
			t.rules["member "+gd.Name+"."+f.JSONName] = rule
			continue
		}
		if t.walk(side, f.Type, vm, vf.Type, r, fpath, walkCtx{root: ctx.root}) {
			walked = append(walked, f.JSONName)
		}
	}
	var vOnly []string
	for _, vf := range vd.Fields {
		if fieldOf(gd, vf.JSONName) != nil {
			continue
		}
		if vf.Required {
			t.fail("%s.%s: required by V (%s), absent from Go %s.%s", path, vf.JSONName, vd.Name, side.pkg, gd.Name)
		}
		vOnly = append(vOnly, vf.JSONName)
	}
	for _, n := range vOnly {
		lt.vOnly[n] |= 1 << r
	}
	for _, f := range declared {
		lt.declared[f] |= 1 << r
	}
	for _, f := range walked {
		lt.recurse[f] |= 1 << r
	}
	t.consistent(lt, r, path, "declares "+strings.Join(declared, ",")+"; walks "+strings.Join(walked, ","))
	return true
}

// consistent checks that every position of lt in revision r agrees.
func (t *legacyTables) consistent(lt *ltype, r int, path, sig string) {
	switch lt.sig[r] {
	case "":
		lt.sig[r], lt.where[r] = sig, path
	case sig:
	default:
		t.fail("%s.%s is sent at two positions of %s that differ: %s (%s) and %s (%s); one zero function cannot serve both",
			lt.side.pkg, lt.decl.Name, legacyRevisions[r], lt.where[r], lt.sig[r], path, sig)
	}
}

func (t *legacyTables) gap(typeKey, member string, r int) {
	for i := range t.gaps {
		if t.gaps[i].Type == typeKey && t.gaps[i].Member == member {
			t.gaps[i].Revs |= 1 << r
			return
		}
	}
	t.gaps = append(t.gaps, requiredGap{Type: typeKey, Member: member, Revs: 1 << r})
}

// branch is one alternative at a union position: a variant of a model's
// union, or the one object of a non-union position.
type branch struct {
	name     string // Go/V type name of the branch
	jsonKind byte
	consts   []VariantConst
	required []string
	fields   []string
	decl     *Decl // the struct, nil for arrays
	elem     TypeRef
	// sub lists, for each member holding an object, that object's member
	// names: required members one level down ("items.anyOf") tell
	// branches apart where the top level does not.
	sub map[string][]string
}

func branchesOf(m *Model, s shape) []branch {
	if s.kind == "struct" {
		return []branch{structBranch(m, s.decl)}
	}
	var out []branch
	for _, v := range s.decl.Variants {
		d := resolveDecl(m, v.GoName)
		b := branch{name: v.GoName, jsonKind: v.JSONKind, consts: v.Consts, required: v.Required}
		if d != nil && d.Kind == DStruct {
			b.decl = d
			b.fields, b.sub = memberNames(m, d)
		}
		if d != nil && d.Kind == DList {
			b.elem = *d.Target.Elem
		}
		out = append(out, b)
	}
	return out
}

// structBranch describes a struct as a union branch, its consts and
// required enums being its discriminators, as classify computes them.
func structBranch(m *Model, d *Decl) branch {
	b := branch{name: d.Name, jsonKind: '{', decl: d}
	b.fields, b.sub = memberNames(m, d)
	for _, f := range d.Fields {
		if f.Required {
			b.required = append(b.required, f.JSONName)
		}
		if f.Const != nil && !f.Const.IsInt {
			b.consts = append(b.consts, VariantConst{Key: f.JSONName, Values: []string{f.Const.Str}, Required: f.Required})
		}
	}
	return b
}

// memberNames lists a struct's members, and those of its object members.
func memberNames(m *Model, d *Decl) ([]string, map[string][]string) {
	var names []string
	sub := map[string][]string{}
	for _, f := range d.Fields {
		names = append(names, f.JSONName)
		if f.Type.Kind == KNamed {
			if sd := resolveDecl(m, f.Type.Name); sd != nil && sd.Kind == DStruct {
				for _, sf := range sd.Fields {
					sub[f.JSONName] = append(sub[f.JSONName], sf.JSONName)
				}
			}
		}
	}
	return names, sub
}

// hasMember reports whether a branch has the member name, or for "a.b" the
// member b inside its object member a.
func (b branch) hasMember(name string) bool {
	if outer, inner, ok := strings.Cut(name, "."); ok {
		return slices.Contains(b.sub[outer], inner)
	}
	return slices.Contains(b.fields, name)
}

// constsOf returns the discriminator values of key, and whether the key is
// one.
func constsOf(b branch, key string) (VariantConst, bool) {
	for _, c := range b.consts {
		if c.Key == key {
			return c, true
		}
	}
	return VariantConst{}, false
}

// matches reports whether a value of Go branch g is always a value of V
// branch v: same JSON kind, consts that agree, and required members each
// side has.
func matches(g, v branch) bool {
	if g.jsonKind != v.jsonKind {
		return false
	}
	if g.jsonKind == '[' {
		return true
	}
	for _, gc := range g.consts {
		vc, ok := constsOf(v, gc.Key)
		switch {
		case ok:
			for _, x := range gc.Values {
				if !slices.Contains(vc.Values, x) {
					return false
				}
			}
		case gc.Required:
			// A discriminator V's branch does not have tells another kind
			// of value, unless V declares the member as a plain string.
			if !slices.Contains(v.fields, gc.Key) {
				return false
			}
		}
	}
	for _, vc := range v.consts {
		if _, ok := constsOf(g, vc.Key); !ok && vc.Required {
			return false
		}
	}
	for _, req := range v.required {
		if !g.hasMember(req) {
			return false
		}
	}
	for _, req := range g.required {
		if !v.hasMember(req) {
			return false
		}
	}
	return true
}

// matchOne finds V's branch for a Go struct at a union position of V.
func (t *legacyTables) matchOne(side *legacySide, gd *Decl, vm *Model, vu *Decl, path string) *Decl {
	g := structBranch(side.m, gd)
	var found []branch
	for _, b := range branchesOf(vm, shape{kind: "union", decl: vu}) {
		if matches(g, b) {
			found = append(found, b)
		}
	}
	if len(found) != 1 {
		t.fail("%s: Go %s.%s matches %d branches of V's %s", path, side.pkg, gd.Name, len(found), vu.Name)
		return nil
	}
	return found[0].decl
}

// walkUnion aligns a Go union with V's union (or single object) at one
// position.
func (t *legacyTables) walkUnion(side *legacySide, gd *Decl, vm *Model, vs shape, r int, path string, ctx walkCtx) bool {
	lt := t.typ(side, gd.Name)
	vname := vs.decl.Name
	memo := fmt.Sprintf("%s|%d|%s", lt.key(), r, vname)
	if t.memo[memo] {
		return true
	}
	t.memo[memo] = true
	lt.reached |= 1 << r
	gbs := branchesOf(side.m, shape{kind: "union", decl: gd})
	vbs := branchesOf(vm, vs)
	used := make([]bool, len(vbs))
	var have, walked []string
	for _, g := range gbs {
		var found []int
		for i, v := range vbs {
			if matches(g, v) {
				found = append(found, i)
			}
		}
		bpath := path + "<" + g.name + ">"
		switch len(found) {
		case 0:
			continue // V cannot carry this branch: the fallback rule decides
		case 1:
		default:
			var names []string
			for _, i := range found {
				names = append(names, vbs[i].name)
			}
			t.fail("%s: Go branch %s matches several branches of V's %s: %v", bpath, g.name, vname, names)
			continue
		}
		v := vbs[found[0]]
		used[found[0]] = true
		have = append(have, g.name)
		var in bool
		if g.jsonKind == '[' {
			in = t.walk(side, g.elem, vm, v.elem, r, bpath+"[]", walkCtx{root: ctx.root})
		} else {
			in = t.walkStruct(side, g.decl, vm, v.decl, r, bpath, walkCtx{root: ctx.root})
		}
		if in {
			walked = append(walked, g.name)
		}
	}
	for i, v := range vbs {
		if !used[i] {
			t.fail("%s: branch %s of V's %s has no counterpart in Go %s.%s", path, v.name, vname, side.pkg, gd.Name)
		}
	}
	for _, b := range have {
		lt.branches[b] |= 1 << r
	}
	for _, b := range walked {
		lt.brecurse[b] |= 1 << r
	}
	t.consistent(lt, r, path, "branches "+strings.Join(have, ",")+"; walks "+strings.Join(walked, ","))
	return true
}

// computeWork marks the types whose zero function changes something in
// some revision: a member cleared, a branch V lacks, or work below.
func (t *legacyTables) computeWork() {
	for changed := true; changed; {
		changed = false
		for _, lt := range t.types {
			if lt.work {
				continue
			}
			if t.needsWork(lt) {
				lt.work = true
				changed = true
			}
		}
	}
}

func (t *legacyTables) needsWork(lt *ltype) bool {
	switch lt.decl.Kind {
	case DStruct:
		if len(lt.vOnly) > 0 {
			return true
		}
		for _, f := range lt.decl.Fields {
			if clearable(f) && lt.reached&^lt.declared[f.JSONName] != 0 {
				return true
			}
			if lt.recurse[f.JSONName] != 0 && t.refWork(lt.side, f.Type) {
				return true
			}
		}
	case DUnion:
		for _, v := range lt.decl.Variants {
			if lt.reached&^lt.branches[v.GoName] != 0 {
				return true
			}
			if lt.brecurse[v.GoName] != 0 && t.refWork(lt.side, TypeRef{Kind: KNamed, Name: v.GoName}) {
				return true
			}
		}
	}
	return false
}

// clearable reports members the zero functions can clear: optional and not
// const.
func clearable(f *Field) bool { return !f.Required && f.Const == nil }

// refWork reports whether walking into a value of tr can change it.
func (t *legacyTables) refWork(side *legacySide, tr TypeRef) bool {
	s := shapeOf(side.m, tr)
	switch s.kind {
	case "struct", "union":
		lt := t.types[side.pkg+"."+s.decl.Name]
		return lt != nil && lt.work
	case "list", "map":
		return t.refWork(side, s.elem)
	}
	return false
}

// ---- §3.7 item 6: legacy client messages decode with 2025-11-25 types ----

// compatRoots checks every client message of revision r against the
// 2025-11-25 types: requests and notifications to the server, and the
// results of the server's requests.
func (t *legacyTables) compatRoots(r int, vm *Model, lm *Model) {
	msgs := messagesOf(vm)
	check := func(kind, method, vName, lName string, message bool) {
		path := fmt.Sprintf("%s client %s %s", legacyRevisions[r], kind, method)
		if vName == "" || lName == "" {
			t.fail("%s: no %s type to check against %s", path, legacyRevisions[r], lm.Revision)
			return
		}
		t.compat(vm, TypeRef{Kind: KNamed, Name: vName}, lm, TypeRef{Kind: KNamed, Name: lName}, path, message)
	}
	for _, name := range msgs.ClientRequests {
		vmeth, _ := lookupMethod(vm, name)
		lmeth, ok := lookupMethod(lm, name)
		if !ok {
			t.fail("%s: client request %s does not exist in %s", legacyRevisions[r], name, lm.Revision)
			continue
		}
		check("request", name, vmeth.Message, lmeth.Message, true)
	}
	for _, name := range msgs.ClientNotifications {
		vmeth, _ := lookupMethod(vm, name)
		lmeth, ok := lookupMethod(lm, name)
		if !ok {
			t.fail("%s: client notification %s does not exist in %s", legacyRevisions[r], name, lm.Revision)
			continue
		}
		check("notification", name, vmeth.Message, lmeth.Message, true)
	}
	for _, name := range msgs.ServerRequests {
		vmeth, _ := lookupMethod(vm, name)
		lmeth, ok := lookupMethod(lm, name)
		if !ok {
			t.fail("%s: server request %s does not exist in %s", legacyRevisions[r], name, lm.Revision)
			continue
		}
		check("result of", name, vmeth.Result, lmeth.Result, false)
	}
}

// compat checks that every value of V's type vt decodes as L's type lt:
// each member V declares exists in L with a compatible type, L requires
// nothing V leaves optional, and each branch of V has one in L.
func (t *legacyTables) compat(vm *Model, vt TypeRef, lm *Model, lt TypeRef, path string, message bool) {
	vs, ls := shapeOf(vm, vt), shapeOf(lm, lt)
	if vs.kind == "missing" || ls.kind == "missing" {
		t.fail("%s: undeclared type (V %s, 2025-11-25 %s)", path, refString(vt), refString(lt))
		return
	}
	key := path + "|" + vs.String() + "|" + ls.String()
	if vs.decl != nil && ls.decl != nil {
		key = vs.decl.Name + "|" + ls.decl.Name + fmt.Sprint(message) + vm.Revision
	}
	if t.compatSeen[key] {
		return
	}
	t.compatSeen[key] = true
	if ls.kind == "raw" {
		if rawObjectish(ls.raw) && vs.kind != "struct" && vs.kind != "map" && !(vs.kind == "raw" && rawObjectish(vs.raw)) {
			t.fail("%s: V %s does not decode as the raw object of 2025-11-25", path, vs)
		}
		return
	}
	switch vs.kind {
	case "struct":
		switch ls.kind {
		case "struct":
			t.compatStruct(vm, vs.decl, lm, ls.decl, path, message)
			return
		case "union":
			g := structBranch(vm, vs.decl)
			var found []branch
			for _, b := range branchesOf(lm, ls) {
				if matches(g, b) {
					found = append(found, b)
				}
			}
			if len(found) != 1 {
				t.fail("%s: V's %s matches %d branches of 2025-11-25's %s", path, vs.decl.Name, len(found), ls.decl.Name)
				return
			}
			t.compatStruct(vm, vs.decl, lm, found[0].decl, path, message)
			return
		case "map":
			return
		}
	case "union":
		var lbs []branch
		if ls.kind == "union" || ls.kind == "struct" {
			lbs = branchesOf(lm, ls)
		}
		if lbs == nil {
			break
		}
		for _, v := range branchesOf(vm, vs) {
			var found []branch
			for _, l := range lbs {
				if matches(v, l) {
					found = append(found, l)
				}
			}
			bpath := path + "<" + v.name + ">"
			if len(found) != 1 {
				t.fail("%s: V's branch %s matches %d branches of 2025-11-25's %s", bpath, v.name, len(found), ls)
				continue
			}
			if v.jsonKind == '[' {
				t.compat(vm, v.elem, lm, found[0].elem, bpath+"[]", false)
			} else {
				t.compatStruct(vm, v.decl, lm, found[0].decl, bpath, false)
			}
		}
		return
	case "list":
		if ls.kind == "list" {
			t.compat(vm, vs.elem, lm, ls.elem, path+"[]", false)
			return
		}
	case "map":
		switch ls.kind {
		case "map":
			t.compat(vm, vs.elem, lm, ls.elem, path+"{}", false)
			return
		case "struct":
			if !hasRequired(ls.decl) {
				return
			}
		}
	case "raw":
		switch ls.kind {
		case "struct":
			if rawObjectish(vs.raw) && !hasRequired(ls.decl) {
				return // a free-form object decodes into a struct that requires nothing
			}
		case "map":
			if rawObjectish(vs.raw) {
				return
			}
		}
	case "enum":
		switch ls.kind {
		case "enum":
			for _, v := range vs.decl.Values {
				if !slices.Contains(ls.decl.Values, v) {
					t.fail("%s: V's enum value %q is not in 2025-11-25's %s", path, v, ls.decl.Name)
				}
			}
			return
		case "string":
			return
		}
	case "string":
		if ls.kind == "string" {
			return
		}
	case "int":
		if ls.kind == "int" || ls.kind == "float" {
			return
		}
	case "float", "bool":
		if ls.kind == vs.kind {
			return
		}
	case "scalars":
		if ls.kind == "scalars" {
			for _, k := range vs.decl.Kinds {
				if !slices.Contains(ls.decl.Kinds, k) {
					t.fail("%s: V's %s can be %s, 2025-11-25's %s cannot", path, vs.decl.Name, k, ls.decl.Name)
				}
			}
			return
		}
	}
	t.fail("%s: V %s does not decode as 2025-11-25 %s", path, vs, ls)
}

func (t *legacyTables) compatStruct(vm *Model, vd *Decl, lm *Model, ld *Decl, path string, message bool) {
	for _, vf := range vd.Fields {
		fpath := path + "." + vf.JSONName
		lf := fieldOf(ld, vf.JSONName)
		if lf == nil {
			t.fail("%s: declared by V (%s), not by 2025-11-25's %s: its value would be lost", fpath, vd.Name, ld.Name)
			continue
		}
		if vf.Const != nil || lf.Const != nil {
			if vf.Const == nil || lf.Const == nil || *vf.Const != *lf.Const {
				t.fail("%s: const %v in V, %v in 2025-11-25", fpath, vf.Const, lf.Const)
			}
			continue
		}
		t.compat(vm, vf.Type, lm, lf.Type, fpath, false)
	}
	for _, lf := range ld.Fields {
		if !lf.Required {
			continue
		}
		if message && (lf.JSONName == "jsonrpc" || lf.JSONName == "id") {
			continue // V's JSON-RPC envelope requires them too
		}
		vf := fieldOf(vd, lf.JSONName)
		switch {
		case vf == nil:
			t.fail("%s.%s: required by 2025-11-25's %s, not declared by V (%s)", path, lf.JSONName, ld.Name, vd.Name)
		case !vf.Required:
			t.fail("%s.%s: required by 2025-11-25's %s, optional in V (%s)", path, lf.JSONName, ld.Name, vd.Name)
		}
	}
}
