// Command schemadiff prints the API-level difference between two MCP
// JSON-schema revisions: types added and removed, changed members of common
// types, methods added and removed, and error codes added and removed.
//
// Usage:
//
//	go run ./tools/schemadiff OLD.json NEW.json
//	go run ./tools/schemadiff -pinned OLDREV NEWREV
//
// With -pinned the arguments are revisions pinned in ../../schema (such as
// 2025-11-25 and 2026-07-28, see "make diff-legacy") or pinned extensions
// named ext-<name> (ext-tasks), loaded the way the generator loads them:
// from $MCP_SPEC_DIR or the download cache, with the pinned sha256
// verified.
//
// Extension schemas diff like the core's: "make diff OLD=… NEW=…" with two
// ext-tasks schema.json files reports the extension's types, members and
// methods added, removed and changed, its copies of core definitions
// included.
//
// The report goes to stdout and the exit status is 0. Bad usage or an
// unreadable, unverified or invalid input prints a message to stderr and
// exits with status 2.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpwire/mcpwire/schema"
)

// exitUsage is the exit status for bad usage and unreadable or invalid
// input.
const exitUsage = 2

// main runs the command and exits with the status run returns.
func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the testable body of main: it parses args, diffs the two files and
// writes the report to stdout, returning the process exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schemadiff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pinned := fs.Bool("pinned", false, "the arguments are pinned revisions or ext-<name> extensions (see package schema), not files")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: schemadiff OLD.json NEW.json")
		fmt.Fprintln(stderr, "       schemadiff -pinned OLDREV NEWREV   (a revision, or ext-<name> for a pinned extension)")
		fmt.Fprintln(stderr, "Prints the API-level difference between two MCP JSON-schema revisions.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() != 2 {
		fmt.Fprintf(stderr, "schemadiff: expected 2 arguments (OLD.json NEW.json), got %d\n", fs.NArg())
		fs.Usage()
		return exitUsage
	}
	read := readFile
	if *pinned {
		read = readPinned
	}
	oldPath, newPath := fs.Arg(0), fs.Arg(1)
	oldData, err := read(oldPath)
	if err != nil {
		fmt.Fprintf(stderr, "schemadiff: %v\n", err)
		return exitUsage
	}
	newData, err := read(newPath)
	if err != nil {
		fmt.Fprintf(stderr, "schemadiff: %v\n", err)
		return exitUsage
	}
	oldModel, err := Parse(oldData)
	if err != nil {
		fmt.Fprintf(stderr, "schemadiff: %s: %v\n", oldPath, err)
		return exitUsage
	}
	newModel, err := Parse(newData)
	if err != nil {
		fmt.Fprintf(stderr, "schemadiff: %s: %v\n", newPath, err)
		return exitUsage
	}
	if _, err := Compare(oldModel, newModel).WriteTo(stdout); err != nil {
		fmt.Fprintf(stderr, "schemadiff: writing report: %v\n", err)
		return 1
	}
	return 0
}

// readFile reads a schema file.
func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

// readPinned loads the schema of a pinned revision, or of a pinned
// extension named ext-<name>, and verifies its hash.
func readPinned(rev string) ([]byte, error) {
	lookup := schema.Lookup
	if name, ok := strings.CutPrefix(rev, "ext-"); ok {
		rev, lookup = name, schema.LookupExtension
	}
	pin, err := lookup(rev)
	if err != nil {
		return nil, err
	}
	data, _, err := schema.Load(context.Background(), pin, schema.Options{})
	return data, err
}
