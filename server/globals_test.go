package server_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/server"
	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// The project's standards forbid package-level mutable state: a lock, a
// once, a pool or an atomic at package level is shared by every Server of
// the process (the tasks extension's enabling lock was one). This checks
// the sources of this package, of the packages beside it, of redisstore
// and of the extensions.
func TestNoPackageLevelSyncState(t *testing.T) {
	for _, dir := range []string{".", "internal/validate", "internal/httpwire", "internal/stdiowire", "internal/jsonline", "legacy", "streamhttp", "stdio", "typed", "requestlog", "../redisstore", "../ext/tasks"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			path := filepath.Join(dir, name)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			syncNames := map[string]bool{} // local names of sync and sync/atomic
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if p != "sync" && p != "sync/atomic" {
					continue
				}
				local := p[strings.LastIndex(p, "/")+1:]
				if imp.Name != nil {
					local = imp.Name.Name
				}
				syncNames[local] = true
			}
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				ast.Inspect(g, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if x, ok := sel.X.(*ast.Ident); ok && syncNames[x.Name] {
						t.Errorf("%s: package-level variable of %s.%s: mutable state shared by every Server", fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
					}
					return true
				})
			}
		}
	}
}

// Tools that require an extension, registered from many goroutines on
// several servers at once, add the extension once per server
// (ToolExtensionOptions.IfAbsent; run with -race), and every one of them
// then requires it (H5, R-VER-04).
func TestToolExtensionAddedOnceConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	servers := make([]*server.Server, 4)
	for i := range servers {
		servers[i] = NewServer(t)
	}
	for _, s := range servers {
		for j := range 8 {
			wg.Go(func() {
				def := ToolDef(t, `{"name":"t`+strconv.Itoa(j)+`","inputSchema":{"type":"object"}}`)
				if err := s.AddTool(def, TextTool("ok"), NotesTool()); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	for _, s := range servers {
		if !s.HasExtension(NotesID) {
			t.Fatal("the extension was not added")
		}
		h := Handler(s, streamhttp.Options{})
		for j := range 8 {
			name := "t" + strconv.Itoa(j)
			if w := tcall(t, h, "tools/call", Params(M{"name": name, "arguments": M{}}), nil); w.Code() != -32021 {
				t.Errorf("%s without the extension declared: %s, want -32021", name, w.Raw)
			}
			if w := tcall(t, h, "tools/call", tparams(notesCaps, M{"name": name, "arguments": M{}}), nil); w.Text(t, 0) != "ok" {
				t.Errorf("%s with the extension declared: %s", name, w.Raw)
			}
		}
	}
}
