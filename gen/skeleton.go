package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/atombender/go-jsonschema/pkg/generator"
	"github.com/atombender/go-jsonschema/pkg/schemas"
)

// skeleton is go-jsonschema's own rendering of the schema as Go structs
// (models only): for each struct it declares, the JSON member names of its
// fields. The layer checks its model against it, so that a member that
// go-jsonschema sees is never silently missing here, and the places where
// the two differ on purpose are known.
type skeleton struct {
	structs map[string][]string // Go type name → sorted JSON member names
	names   []string            // every type name go-jsonschema declared
}

// runGoJSONSchema runs go-jsonschema in models-only mode on the schema.
func runGoJSONSchema(s *schemas.Schema, pkg string) (*skeleton, []string, error) {
	var warnings []string
	g, err := generator.New(generator.Config{
		DefaultPackageName: pkg,
		DefaultOutputName:  "skeleton.go",
		OnlyModels:         true,
		Tags:               []string{"json"},
		DisableOmitEmpty:   true,
		DisableOmitZero:    true,
		Warner:             func(w string) { warnings = append(warnings, w) },
	})
	if err != nil {
		return nil, nil, fmt.Errorf("go-jsonschema: %w", err)
	}
	if err := g.AddFile("schema.json", s); err != nil {
		return nil, nil, fmt.Errorf("go-jsonschema: %w", err)
	}
	srcs, err := g.Sources()
	if err != nil {
		return nil, nil, fmt.Errorf("go-jsonschema: %w", err)
	}
	sk := &skeleton{structs: map[string][]string{}}
	fset := token.NewFileSet()
	keys := make([]string, 0, len(srcs))
	for k := range srcs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, err := parser.ParseFile(fset, k, srcs[k], 0)
		if err != nil {
			return nil, nil, fmt.Errorf("go-jsonschema output: %w", err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				sk.names = append(sk.names, ts.Name.Name)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				var members []string
				for _, fld := range st.Fields.List {
					if fld.Tag == nil {
						continue // e.g. the untagged AdditionalProperties field
					}
					tag, _ := strconv.Unquote(fld.Tag.Value)
					name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
					if name != "" && name != "-" {
						members = append(members, name)
					}
				}
				sort.Strings(members)
				sk.structs[ts.Name.Name] = members
			}
		}
	}
	sort.Strings(sk.names)
	return sk, warnings, nil
}

// crossCheck compares every struct the model declares for a definition
// with go-jsonschema's struct for it. go-jsonschema sometimes renames a
// definition (NotificationParams_1) when an inline type took the name
// first; the struct under any of those names with the same members counts.
func crossCheck(m *Model, sk *skeleton, defPath string) (checked int, err error) {
	for _, n := range m.Order {
		d := m.Decls[n]
		if d.Kind != DStruct || d.Origin != defPath+n {
			continue
		}
		var ours []string
		for _, f := range d.Fields {
			ours = append(ours, f.JSONName)
		}
		sort.Strings(ours)
		found, compared := false, false
		for _, cand := range []string{n, n + "_1", n + "_2"} {
			theirs, ok := sk.structs[cand]
			if !ok {
				continue
			}
			compared = true
			if slices.Equal(ours, theirs) {
				found = true
				break
			}
		}
		if !compared {
			continue // go-jsonschema made no struct of it (an allOf it cannot merge)
		}
		if !found {
			return checked, fmt.Errorf("%s: members %v differ from go-jsonschema's %v", n, ours, sk.structs[n])
		}
		checked++
	}
	return checked, nil
}
