package server_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The layers of the module's server side (docs/architecture.md): what
// each package may import of the module. A package not listed may import
// anything of the module but is never imported by a listed one unless
// allowed here.
const module = "github.com/mcpwire/mcpwire/"

var layers = map[string][]string{
	// The core: the generated types, token info, its own internals. It
	// imports no era and no transport.
	"server": {"protocol", "auth", "server/internal/jsonline", "server/internal/sealed", "server/internal/strset", "server/internal/validate",
		"server/internal/slogdata"},
	// Below the core: they import nothing of the module but the types.
	"server/internal/validate": {},
	"server/internal/sealed":   {},
	"server/internal/jsonline": {},
	"server/internal/strset":   {},
	"server/internal/legacy":   {"protocol", "protocol/mcp20251125"},
	"internal/netquota":        {},
	"server/internal/slogdata": {"protocol"},
	// Beside the core, on its public API only.
	"server/typed":      {"protocol", "server"},
	"server/requestlog": {"protocol", "server"},
	// The transports' mechanics, on the core.
	"server/internal/httpwire":  {"auth", "server", "server/internal/jsonline"},
	"server/internal/stdiowire": {"protocol", "server", "server/internal/jsonline"},
	// The legacy era, on the core (its Adapter) and the mechanics.
	"server/legacy": {"protocol", "protocol/mcp20251125", "server", "server/internal/httpwire", "server/internal/jsonline",
		"server/internal/legacy", "server/internal/stdiowire", "server/internal/validate", "internal/netquota"},
	// The transports, on top: what a user calls.
	"server/streamhttp": {"protocol", "auth", "server", "server/legacy", "server/internal/httpwire"},
	"server/stdio":      {"protocol", "server", "server/legacy", "server/internal/stdiowire"},
}

// maxCoreLines bounds the core's non-test, non-blank lines (issue 21).
const maxCoreLines = 6000

// legacyWords are identifiers of the legacy era, which the core's
// non-test code never declares or uses (issue 21: the core knows no era
// but its own).
var legacyWords = regexp.MustCompile(`(?i)session|eventid|batch|bridge|initialize|legacy|mcp20251125`)

// repoRoot is the module's root, from server/.
const repoRoot = ".."

func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(repoRoot, dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			out = append(out, filepath.Join(repoRoot, dir, n))
		}
	}
	return out
}

// TestLayers fails when a package of the server side imports a package of
// the module that its layer does not allow: the core never imports an era
// or a transport, the mechanics never import the era, and so on.
func TestLayers(t *testing.T) {
	dirs := make([]string, 0, len(layers))
	for d := range layers {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		allowed := map[string]bool{}
		for _, a := range layers[dir] {
			allowed[a] = true
		}
		files := goFiles(t, dir)
		if len(files) == 0 {
			t.Errorf("%s: no Go files", dir)
		}
		for _, f := range files {
			pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range pf.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				rel, ours := strings.CutPrefix(p, module)
				if ours && !allowed[rel] {
					t.Errorf("%s imports %s, which its layer does not allow (docs/architecture.md)", filepath.Base(f), rel)
				}
			}
		}
	}
}

// TestCoreSize fails when the core grows past maxCoreLines non-blank
// lines of non-test code.
func TestCoreSize(t *testing.T) {
	n := 0
	for _, f := range goFiles(t, "server") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(line) != "" {
				n++
			}
		}
	}
	if n > maxCoreLines {
		t.Errorf("server/ has %d non-blank non-test lines, more than %d: put what is not the core in its own package (docs/architecture.md)", n, maxCoreLines)
	}
	t.Logf("server/: %d non-blank non-test lines (at most %d)", n, maxCoreLines)
}

// TestCoreKnowsNoLegacy fails when the core's non-test code names an
// identifier of the legacy era: sessions, event ids, batches, the input
// bridge, initialize. The legacy era is package legacy's.
func TestCoreKnowsNoLegacy(t *testing.T) {
	for _, f := range goFiles(t, "server") {
		fset := token.NewFileSet()
		pf, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(pf, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && legacyWords.MatchString(id.Name) {
				t.Errorf("%s: identifier %s of the legacy era in the core", fset.Position(id.Pos()), id.Name)
			}
			return true
		})
	}
}
