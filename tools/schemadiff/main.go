// Command schemadiff prints the API-level difference between two MCP
// JSON-schema revisions: types added and removed, changed members of common
// types, methods added and removed, and error codes added and removed.
//
// Usage:
//
//	go run ./tools/schemadiff OLD.json NEW.json
//
// The report goes to stdout and the exit status is 0. Bad usage or an
// unreadable or invalid input file prints a message to stderr and exits
// with status 2.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
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
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: schemadiff OLD.json NEW.json")
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
	oldPath, newPath := fs.Arg(0), fs.Arg(1)
	oldData, err := os.ReadFile(oldPath)
	if err != nil {
		fmt.Fprintf(stderr, "schemadiff: %v\n", err)
		return exitUsage
	}
	newData, err := os.ReadFile(newPath)
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
