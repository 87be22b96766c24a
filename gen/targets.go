package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpwire/mcpwire/schema"
)

// modulePath is the module the targets belong to.
const modulePath = "github.com/mcpwire/mcpwire"

// A target is a pinned revision and the package of this module generated
// from it.
type target struct {
	Revision string // a revision pinned in ../schema
	Package  string // Go package name
	Dir      string // slash-separated folder, from the module root
}

// targets are the generated packages of this module, the default first.
// go generate runs one per package (the //go:generate line of its doc.go
// passes -rev); -check checks them all.
var targets = []target{
	{Revision: schema.Current, Package: "protocol", Dir: "protocol"},
	{Revision: schema.Legacy, Package: "mcp20251125", Dir: "protocol/mcp20251125"},
}

// The legacy projection tables are a target of their own: not a package
// generated from one pin, but one file of package legacy derived from all
// five (gen -legacy, see legacy.go). legacyDir is its folder from the
// module root, legacyFile the file; its doc.go runs
// "go run ../../../gen -legacy".
const (
	legacyDir  = "server/internal/legacy"
	legacyFile = "tables_gen.go"
)

// lookupTarget returns the target of a revision.
func lookupTarget(rev string) (target, error) {
	var revs []string
	for _, t := range targets {
		if t.Revision == rev {
			return t, nil
		}
		revs = append(revs, t.Revision)
	}
	return target{}, fmt.Errorf("no generated package for revision %q (generated: %s; to generate another schema use -schema FILE -out DIR)",
		rev, strings.Join(revs, ", "))
}

// load reads the target's pinned schema (from $MCP_SPEC_DIR or the verified
// download cache, see schema.Load) and returns it with the generator
// configuration that stamps the pin into the headers.
func (t target) load(ctx context.Context) ([]byte, Config, schema.Source, error) {
	pin, err := schema.Lookup(t.Revision)
	if err != nil {
		return nil, Config{}, schema.Source{}, err
	}
	data, src, err := schema.Load(ctx, pin, schema.Options{})
	if err != nil {
		return nil, Config{}, schema.Source{}, err
	}
	cfg := Config{Package: t.Package, Revision: pin.Revision, Commit: pin.Commit, SHA256: pin.SHA256, CheckOverrides: true}
	return data, cfg, src, nil
}

// moduleRoot finds the root of this module from the current folder: go
// generate runs gen in the package's folder, make from the root.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			if p := modFilePath(data); p != modulePath {
				return "", fmt.Errorf("%s is module %q, not %s: run inside %s or pass -out", filepath.Join(dir, "go.mod"), p, modulePath, modulePath)
			}
			return dir, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the current folder: run inside %s or pass -out", modulePath)
		}
		dir = parent
	}
}

// modFilePath returns the module path a go.mod declares.
func modFilePath(gomod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
