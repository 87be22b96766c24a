// Command gen generates the strict Go types of the MCP schema.
//
// Each generated package of this module comes from a revision pinned in
// ../schema (the table is in targets.go):
//
//	go run ./gen                      # protocol/ from schema.Current (2026-07-28)
//	go run ./gen -rev 2025-11-25      # protocol/mcp20251125 from schema.Legacy
//	go run ./gen -rev all             # every generated package
//	go run ./gen -check               # fail if any generated package is stale
//	go run ./gen -check -rev 2025-11-25
//	go run ./gen -legacy              # server/internal/legacy/tables_gen.go
//	go run ./gen -check -legacy       # only that file
//	go run ./gen -ext tasks           # ext/tasks/taskproto from the ext-tasks pin
//	go run ./gen -check -ext tasks    # only that package
//	go run ./gen -ext apps            # ext/apps/appsproto from the ext-apps (npm package) pin
//
// -legacy derives, from the five pinned revisions 2024-11-05 … 2026-07-28,
// the tables with which server/internal/legacy projects protocol values
// onto each legacy revision (see gen/legacy.go); -check and -rev all cover
// that file too. -ext generates the package of a pinned extension schema,
// its copies of core definitions mapped onto the core package (see
// extension.go); -check and -rev all cover it too.
//
// The schema is read from $MCP_SPEC_DIR or from the verified download cache.
// go generate ./... runs the first two and -ext tasks through the
// //go:generate lines of protocol/doc.go, protocol/mcp20251125/doc.go and
// ext/tasks/taskproto/doc.go; gen finds the module root
// from whichever folder it runs in. With -schema it generates from any
// schema file into any folder:
//
//	go run ./gen -schema FILE -package NAME -out DIR [-rev REV]
//
// See gen/README.md for the mapping rules.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/schema"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// job is one package to generate: the schema, its configuration and the
// folder it goes to.
type job struct {
	data []byte
	cfg  Config
	dir  string
}

func run(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	rev := fs.String("rev", "", `pinned revision to generate, or "all" (default `+schema.Current+`, with -check all); with -schema, the revision stamped into the headers (default: the schema file's folder name)`)
	schemaFile := fs.String("schema", "", "generate from this schema file instead of a pinned revision (needs -out)")
	pkg := fs.String("package", "", "Go package name, with -schema only (default protocol)")
	outDir := fs.String("out", "", "output folder (default: the package's folder in this module)")
	check := fs.Bool("check", false, "do not write; fail if the files on disk differ from what would be written")
	legacy := fs.Bool("legacy", false, "generate (or with -check, check) only the legacy projection tables, "+legacyDir+"/"+legacyFile)
	ext := fs.String("ext", "", "generate (or with -check, check) only the package of this pinned extension, e.g. "+schema.ExtTasks)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *ext != "" {
		if *rev != "" || *schemaFile != "" || *pkg != "" || *legacy {
			return errors.New("-ext takes no -rev, -schema, -package or -legacy: the package comes from the extension's pin and its core target")
		}
		t, err := lookupExtTarget(*ext)
		if err != nil {
			return err
		}
		stale, err := runExt([]extTarget{t}, *outDir, *check, true)
		return staleError(stale, err)
	}
	var jobs []job
	var stale []string
	all := *schemaFile == "" && (*rev == "all" || (*rev == "" && *check))
	withLegacy := *legacy || all
	if *legacy {
		if *rev != "" || *schemaFile != "" || *pkg != "" {
			return errors.New("-legacy takes no -rev, -schema or -package: the tables come from every pinned revision")
		}
	} else {
		var err error
		if jobs, err = plan(*rev, *schemaFile, *pkg, *outDir, *check); err != nil {
			return err
		}
	}
	if withLegacy {
		if *outDir != "" && !*legacy {
			return errors.New("-out names one folder: use it with a single -rev, or with -legacy")
		}
		s, err := runLegacy(*outDir, *check)
		if err != nil {
			return err
		}
		stale = append(stale, s...)
	}
	for _, j := range jobs {
		res, err := Generate(j.data, j.cfg)
		if err != nil {
			return fmt.Errorf("%s: %w", j.cfg.Revision, err)
		}
		if *check {
			stale = append(stale, staleFiles(j.dir, res.Files)...)
		} else if err := writeFiles(j.dir, res.Files); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "gen: %s → %s (package %s): %d types, %d methods, %d error codes; %d structs cross-checked with go-jsonschema\n",
			j.cfg.Revision, j.dir, j.cfg.Package, len(res.Model.Order), len(res.Model.Methods), len(res.Model.ErrorCodes), res.CrossChecked)
	}
	if all && !*legacy { // -out was refused above (withLegacy)
		s, err := runExt(extTargets, "", *check, false)
		if err != nil {
			return err
		}
		stale = append(stale, s...)
	}
	return staleError(stale, nil)
}

// staleError turns the stale files into the error -check reports.
func staleError(stale []string, err error) error {
	if err != nil {
		return err
	}
	if len(stale) > 0 {
		return fmt.Errorf("stale generated files (regenerate with go generate ./... or make generate):\n%s", strings.Join(stale, "\n"))
	}
	return nil
}

// runExt generates the extension packages (into dir, default their folder
// in this module), or with check compares them with the files there. With
// list it prints which definitions were mapped, emitted and overridden.
func runExt(ts []extTarget, dir string, check, list bool) ([]string, error) {
	var stale []string
	for _, t := range ts {
		res, report, src, err := t.generate(context.Background())
		if err != nil {
			return nil, err
		}
		out := dir
		if out == "" {
			root, err := moduleRoot()
			if err != nil {
				return nil, err
			}
			out = filepath.Join(root, filepath.FromSlash(t.Dir))
		}
		fmt.Fprintf(os.Stderr, "gen: extension %s (%s, from %s) → %s (package %s): %d types, %d methods; %s\n",
			t.Extension, res.Model.Revision, src.Kind, out, t.Package, len(res.Model.Order), len(res.Model.Methods), report.summary())
		if list {
			fmt.Fprintf(os.Stderr, "gen:   mapped onto %s: %s\n", t.Core.Package, strings.Join(report.Mapped, " "))
			fmt.Fprintf(os.Stderr, "gen:   emitted: %s\n", strings.Join(report.Emitted, " "))
			for _, n := range slices.Sorted(maps.Keys(report.Overridden)) {
				fmt.Fprintf(os.Stderr, "gen:   overridden: %s (%s)\n", n, report.Overridden[n])
			}
		}
		if check {
			stale = append(stale, staleFiles(out, res.Files)...)
		} else if err := writeFiles(out, res.Files); err != nil {
			return nil, err
		}
	}
	return stale, nil
}

// runLegacy generates the legacy projection tables into dir (default: their
// folder in this module), or with check compares them with the file there.
func runLegacy(dir string, check bool) ([]string, error) {
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return nil, err
		}
		dir = filepath.Join(root, filepath.FromSlash(legacyDir))
	}
	in, err := loadLegacyInput(context.Background())
	if err != nil {
		return nil, err
	}
	files, t, err := generateLegacy(in)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "gen: legacy tables → %s: %d types, %d roots, %d revisions\n", dir, len(t.types), len(t.roots), len(legacyRevisions))
	if check {
		return staleFiles(dir, files), nil
	}
	return nil, writeFiles(dir, files)
}

// plan turns the flags into jobs.
func plan(rev, schemaFile, pkg, outDir string, check bool) ([]job, error) {
	if schemaFile != "" {
		if outDir == "" {
			return nil, errors.New("-schema needs -out (the packages of this module are generated from their pins with -rev)")
		}
		b, err := os.ReadFile(schemaFile)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		cfg := Config{Package: pkg, Revision: rev, SHA256: hex.EncodeToString(sum[:]),
			Commit: "unknown (generated from " + filepath.Base(schemaFile) + ")"}
		if cfg.Package == "" {
			cfg.Package = "protocol"
		}
		if cfg.Revision == "" {
			cfg.Revision = filepath.Base(filepath.Dir(schemaFile))
		}
		return []job{{data: b, cfg: cfg, dir: outDir}}, nil
	}
	if pkg != "" {
		return nil, errors.New("-package applies to -schema only: the package of a pinned revision is fixed in gen/targets.go")
	}
	var chosen []target
	switch {
	case rev == "all" || (rev == "" && check):
		chosen = targets
	case rev == "":
		chosen = targets[:1]
	default:
		t, err := lookupTarget(rev)
		if err != nil {
			return nil, err
		}
		chosen = []target{t}
	}
	if outDir != "" && len(chosen) > 1 {
		return nil, errors.New("-out names one folder: use it with a single -rev")
	}
	root := ""
	if outDir == "" {
		r, err := moduleRoot()
		if err != nil {
			return nil, err
		}
		root = r
	}
	var jobs []job
	for _, t := range chosen {
		data, cfg, src, err := t.load(context.Background())
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "gen: schema %s from %s (%s)\n", t.Revision, src.Location, src.Kind)
		dir := outDir
		if dir == "" {
			dir = filepath.Join(root, filepath.FromSlash(t.Dir))
		}
		jobs = append(jobs, job{data: data, cfg: cfg, dir: dir})
	}
	return jobs, nil
}

// writeFiles writes the generated files into dir.
func writeFiles(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, n := range sortedNames(files) {
		if err := os.WriteFile(filepath.Join(dir, n), files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// staleFiles compares the generated files with dir: a file that differs
// (with its first differing line), is missing, or is a *_gen.go file the
// generator no longer produces.
func staleFiles(dir string, files map[string][]byte) []string {
	var stale []string
	for _, n := range sortedNames(files) {
		path := filepath.Join(dir, n)
		old, err := os.ReadFile(path)
		switch {
		case err != nil:
			stale = append(stale, fmt.Sprintf("%s: %v", path, err))
		case string(old) != string(files[n]):
			stale = append(stale, fmt.Sprintf("%s: %s", path, firstDiff(old, files[n])))
		}
	}
	onDisk, _ := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	for _, p := range onDisk {
		if _, ok := files[filepath.Base(p)]; !ok {
			stale = append(stale, p+": not produced by the generator any more; delete it")
		}
	}
	return stale
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// firstDiff describes the first line where got (on disk) and want
// (generated) differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("first difference at line %d:\n- on disk:   %q\n+ generated: %q", i+1, gl, wl)
		}
	}
	return "files differ"
}
