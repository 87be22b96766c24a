package main

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// An extension schema (ext-tasks) carries its own copies of the core
// definitions it uses. Its package is generated like protoc treats an
// import: a definition structurally equal (extcompare.go) to the core
// definition of the same name is not emitted; members of that type refer
// to the core package's type (protocol.Tool). Only the extension's own
// definitions, and the inline types they declare, are emitted. A same-named
// definition that differs makes generation fail with the definition and the
// first differing JSON pointer, unless extOverrides says why the extension
// may define its own.

// ExtConfig is what GenerateExt needs beyond Config: the core package the
// extension's shared definitions map onto.
type ExtConfig struct {
	Extension   string // extension name, e.g. "tasks" (keys extOverrides)
	CoreImport  string // import path of the core package
	CorePackage string // its package name, the qualifier of mapped types
	// Overrides are the same-named definitions the extension may define
	// differently, with the reason; nil means extOverrides[Extension].
	Overrides map[string]string
	// Rules are the schema rules (ext_rules.go) applied to the extension
	// schema before anything reads it, with the reason; nil means
	// extRules[Extension].
	Rules map[string]string
}

// ExtReport says what became of each definition of the extension schema.
type ExtReport struct {
	// Mapped are definitions equal to the core's: not emitted, referred to
	// as CorePackage.Name.
	Mapped []string
	// Emitted are the extension's own definitions (no core definition of
	// that name), emitted into the package.
	Emitted []string
	// Overridden are same-named definitions that differ from the core's,
	// emitted by an override (definition → reason).
	Overridden map[string]string
	// Demoted are definitions equal to the core's that refer to a
	// definition that is not mapped, so they are emitted too.
	Demoted []string
	// Pulled are inline types of mapped definitions that the core package
	// names differently, emitted because an own type uses them.
	Pulled []string
	// Rewritten counts, per schema rule, the places of the schema it
	// rewrote (ext_rules.go).
	Rewritten map[string]int
}

// mapDefinitions decides, from the two schemas' definitions, which
// extension definitions are mapped onto the core.
func mapDefinitions(ext, core map[string]any, overrides map[string]string) (*ExtReport, error) {
	r := &ExtReport{Overridden: map[string]string{}}
	names := slices.Sorted(maps.Keys(ext))
	mapped := map[string]bool{}
	var problems []string
	for _, n := range names {
		c, inCore := core[n]
		reason, overridden := overrides[n]
		if !inCore {
			if overridden {
				problems = append(problems, fmt.Sprintf("override for %s: the core has no definition of that name; drop the entry", n))
			}
			r.Emitted = append(r.Emitted, n)
			continue
		}
		diff := firstDifference(stripAnnotations(ext[n]), stripAnnotations(c), "#/$defs/"+pointerEscape(n))
		switch {
		case diff == "" && overridden:
			problems = append(problems, fmt.Sprintf("override for %s: the definition is structurally equal to the core's; drop the entry", n))
		case diff == "":
			mapped[n] = true
		case overridden:
			r.Overridden[n] = reason
		default:
			problems = append(problems, fmt.Sprintf("definition %s differs from the core definition of that name at %s (make them equal, or add an override with its reason in gen/ext_overrides.go)", n, diff))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("extension definitions do not map onto the core:\n  %s", strings.Join(problems, "\n  "))
	}
	// A mapped definition must refer only to mapped definitions: the core
	// type refers to the core's types.
	for changed := true; changed; {
		changed = false
		for _, n := range names {
			if !mapped[n] {
				continue
			}
			for _, dep := range localRefs(ext[n]) {
				if !mapped[dep] {
					delete(mapped, n)
					r.Demoted = append(r.Demoted, n)
					changed = true
					break
				}
			}
		}
	}
	for _, n := range names {
		if mapped[n] {
			r.Mapped = append(r.Mapped, n)
		}
	}
	sort.Strings(r.Demoted)
	return r, nil
}

// ownerDef returns the definition a declaration comes from: the first
// segment of its origin below the definitions path.
func ownerDef(origin, defPath string) string {
	rest := strings.TrimPrefix(origin, defPath)
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[:i]
	}
	return rest
}

// mapOntoCore removes from m (the extension's model) every declaration of a
// mapped definition, and rewrites references to them as core references
// (KNamed "protocol.Name"). core is the core package's model.
func mapOntoCore(m, core *Model, defPath string, r *ExtReport, cfg ExtConfig) error {
	mapped := map[string]bool{}
	for _, n := range r.Mapped {
		mapped[n] = true
	}
	keep := map[string]bool{}
	var queue []string
	for _, n := range m.Order {
		if !mapped[ownerDef(m.Decls[n].Origin, defPath)] {
			keep[n] = true
			queue = append(queue, n)
		}
	}
	foreign := map[string]bool{}
	var pulled []string
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, ref := range declRefs(m.Decls[n]) {
			if keep[ref] || foreign[ref] {
				continue
			}
			if cd := core.Decls[ref]; cd != nil && sameShape(cd, m.Decls[ref]) {
				foreign[ref] = true
				continue
			}
			keep[ref] = true
			pulled = append(pulled, ref)
			queue = append(queue, ref)
		}
	}
	sort.Strings(pulled)
	r.Pulled = pulled
	qualify := func(t *TypeRef) {
		for ; t != nil; t = t.Elem {
			if t.Kind == KNamed && foreign[t.Name] {
				t.Name = cfg.CorePackage + "." + t.Name
			}
		}
	}
	var order []string
	for _, n := range m.Order {
		if !keep[n] {
			delete(m.Decls, n)
			continue
		}
		order = append(order, n)
		d := m.Decls[n]
		for _, f := range d.Fields {
			qualify(&f.Type)
		}
		qualify(&d.Target)
		for _, v := range d.Variants {
			if foreign[v.Type.Name] {
				return fmt.Errorf("%s: union %s has the core type %s as a branch; a union of the extension package cannot hold a core type", d.Origin, d.Name, v.Type.Name)
			}
		}
	}
	m.Order = order
	var methods []Method
	for _, meth := range m.Methods {
		if !keep[meth.Message] {
			continue
		}
		for _, p := range []*string{&meth.Params, &meth.Result} {
			if foreign[*p] {
				*p = cfg.CorePackage + "." + *p
			}
		}
		methods = append(methods, meth)
	}
	m.Methods = methods
	var codes []ErrorCode
	for _, c := range m.ErrorCodes {
		if keep[c.Name] {
			codes = append(codes, c)
		}
	}
	m.ErrorCodes = codes
	relinkDocs(m, core, cfg.CorePackage)
	return nil
}

// sameShape reports whether a core declaration can stand for an inline
// declaration of the extension's model that has its name: the same kind,
// and for enums the same values, for structs and unions the same members
// (name, required) or branch count.
func sameShape(core, ext *Decl) bool {
	if core.Kind != ext.Kind || !slices.Equal(core.Values, ext.Values) || len(core.Variants) != len(ext.Variants) || len(core.Fields) != len(ext.Fields) {
		return false
	}
	for i, f := range core.Fields {
		if f.JSONName != ext.Fields[i].JSONName || f.Required != ext.Fields[i].Required {
			return false
		}
	}
	return true
}

// declRefs lists the declarations d refers to by name.
func declRefs(d *Decl) []string {
	var out []string
	add := func(t TypeRef) {
		for p := &t; p != nil; p = p.Elem {
			if p.Kind == KNamed {
				out = append(out, p.Name)
			}
		}
	}
	for _, f := range d.Fields {
		add(f.Type)
	}
	add(d.Target)
	for _, v := range d.Variants {
		add(v.Type)
	}
	return out
}

// goDocLinkRE is a Go doc link as linkDocs writes it: [Name] or [Name.Field].
var goDocLinkRE = regexp.MustCompile(`\[([A-Z][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_]+)?)\]`)

// relinkDocs points the doc links of the kept declarations at the core
// package where the target moved there ([protocol.Tool]), and turns links
// to types neither package has into plain text.
func relinkDocs(m, core *Model, pkg string) {
	fix := func(s string) string {
		return goDocLinkRE.ReplaceAllStringFunc(s, func(link string) string {
			g := goDocLinkRE.FindStringSubmatch(link)
			switch {
			case m.Decls[g[1]] != nil:
				return link
			case core.Decls[g[1]] != nil:
				return "[" + pkg + "." + g[1] + g[2] + "]"
			}
			return g[1] + g[2]
		})
	}
	for _, n := range m.Order {
		d := m.Decls[n]
		d.Doc = fix(d.Doc)
		for _, f := range d.Fields {
			f.Doc = fix(f.Doc)
		}
	}
}

// GenerateExt generates the package of an extension schema whose shared
// definitions map onto the core package generated from coreSchema.
func GenerateExt(extSchema, coreSchema []byte, cfg Config, ec ExtConfig) (*Result, *ExtReport, error) {
	rules := ec.Rules
	if rules == nil {
		rules = extRules[ec.Extension]
	}
	extSchema, rewritten, err := applySchemaRules(extSchema, rules)
	if err != nil {
		return nil, nil, fmt.Errorf("extension schema: %w", err)
	}
	extDefs, err := rawDefinitions(extSchema)
	if err != nil {
		return nil, nil, fmt.Errorf("extension schema: %w", err)
	}
	coreDefs, err := rawDefinitions(coreSchema)
	if err != nil {
		return nil, nil, fmt.Errorf("core schema: %w", err)
	}
	overrides := ec.Overrides
	if overrides == nil {
		overrides = extOverrides[ec.Extension]
	}
	report, err := mapDefinitions(extDefs, coreDefs, overrides)
	if err != nil {
		return nil, nil, err
	}
	report.Rewritten = rewritten
	cs, coreDefPath, err := parseSchema(coreSchema)
	if err != nil {
		return nil, nil, fmt.Errorf("core schema: %w", err)
	}
	core, err := buildModel(cs, coreDefPath)
	if err != nil {
		return nil, nil, fmt.Errorf("core schema: %w", err)
	}
	cfg.ext = &extEmit{cfg: ec, report: report, core: core}
	res, err := Generate(extSchema, cfg)
	if err != nil {
		return nil, nil, err
	}
	return res, report, nil
}
