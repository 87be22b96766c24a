// Command gen generates the strict Go types of the MCP schema.
//
// With no flags it regenerates ../protocol (or ./protocol, from the module
// root) from the pinned revision, reading the schema from $MCP_SPEC_DIR or
// from the download cache. With -schema it generates from any schema file:
//
//	go run ./gen -schema FILE -package NAME -out DIR
//
// See gen/README.md for the mapping rules.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
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

func run(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	schemaFile := fs.String("schema", "", "schema file to generate from (default: the pinned revision)")
	pkg := fs.String("package", "protocol", "Go package name")
	outDir := fs.String("out", "", "output folder (default: the protocol folder of this module)")
	revision := fs.String("revision", "", "revision to stamp in headers with -schema (default: the schema file's folder name)")
	check := fs.Bool("check", false, "do not write; fail if the files on disk differ")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var (
		data []byte
		cfg  = Config{Package: *pkg}
	)
	if *schemaFile != "" {
		b, err := os.ReadFile(*schemaFile)
		if err != nil {
			return err
		}
		data = b
		sum := sha256.Sum256(b)
		cfg.SHA256 = hex.EncodeToString(sum[:])
		cfg.Revision = *revision
		if cfg.Revision == "" {
			cfg.Revision = filepath.Base(filepath.Dir(*schemaFile))
		}
		cfg.Commit = "unknown (generated from " + filepath.Base(*schemaFile) + ")"
	} else {
		pin, err := schema.Lookup(schema.Current)
		if err != nil {
			return err
		}
		b, src, err := schema.Load(context.Background(), pin, schema.Options{})
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "gen: schema %s from %s (%s)\n", pin.Revision, src.Location, src.Kind)
		data = b
		cfg.Revision, cfg.Commit, cfg.SHA256 = pin.Revision, pin.Commit, pin.SHA256
	}
	if *outDir == "" {
		dir, err := protocolDir()
		if err != nil {
			return err
		}
		*outDir = dir
	}
	res, err := Generate(data, cfg)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(res.Files))
	for n := range res.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	var stale []string
	for _, n := range names {
		path := filepath.Join(*outDir, n)
		if *check {
			old, err := os.ReadFile(path)
			if err != nil || string(old) != string(res.Files[n]) {
				stale = append(stale, path)
			}
			continue
		}
		if err := os.MkdirAll(*outDir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, res.Files[n], 0o644); err != nil {
			return err
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("stale generated files (run go generate ./...): %s", strings.Join(stale, ", "))
	}
	fmt.Fprintf(os.Stderr, "gen: %d types, %d methods, %d error codes; %d structs cross-checked with go-jsonschema\n",
		len(res.Model.Order), len(res.Model.Methods), len(res.Model.ErrorCodes), res.CrossChecked)
	return nil
}

// protocolDir finds the protocol folder: the current folder when go
// generate runs there, else ./protocol from the module root.
func protocolDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if filepath.Base(wd) == "protocol" {
		return wd, nil
	}
	if _, err := os.Stat(filepath.Join(wd, "go.mod")); err == nil {
		return filepath.Join(wd, "protocol"), nil
	}
	return "", fmt.Errorf("run from the module root or the protocol folder, or pass -out")
}
