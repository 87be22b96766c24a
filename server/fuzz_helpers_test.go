package server_test

import (
	"bytes"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
)

// Shared helpers of the fuzzers: reading seed files and running
// ServeStdio over one input.

// fzSeedLines adds each seed file of ../testdata/fuzz/dir matching glob
// as a string argument, without its final line end, followed by the
// arguments rest.
func fzSeedLines(f *testing.F, dir, glob string, rest ...any) {
	f.Helper()
	for _, file := range FzSeedFiles(f, dir, glob) {
		f.Add(append([]any{string(bytes.TrimSuffix(file.Data, []byte("\n")))}, rest...)...)
	}
}
