package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The flags refuse combinations that would be ambiguous.
func TestRunFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-rev", "2024-11-05"}, `no generated package for revision "2024-11-05"`},
		{[]string{"-package", "x"}, "-package applies to -schema only"},
		{[]string{"-rev", "all", "-out", t.TempDir()}, "-out names one folder"},
		{[]string{"-check", "-out", t.TempDir()}, "-out names one folder"},
		{[]string{"-schema", "x.json"}, "-schema needs -out"},
		{[]string{"stray"}, "unexpected arguments"},
	} {
		err := run(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run(%q) = %v, want an error containing %q", c.args, err, c.want)
		}
	}
}

// -schema writes any schema into any folder; -check then finds it
// current, and reports a changed, a missing and an orphaned file.
func TestRunSchemaAndCheck(t *testing.T) {
	file := filepath.Join(specDir(t), "schema", "2025-11-25", "schema.json")
	out := t.TempDir()
	args := []string{"-schema", file, "-package", "legacy", "-out", out}
	if err := run(args); err != nil {
		t.Fatal(err)
	}
	types, err := os.ReadFile(filepath.Join(out, "types_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\npackage legacy\n", "// Revision: 2025-11-25\n", "// Commit: unknown (generated from schema.json)\n"} {
		if !strings.Contains(string(types), want) {
			t.Errorf("types_gen.go lacks %q", want)
		}
	}
	check := append(args, "-check")
	if err := run(check); err != nil {
		t.Fatalf("-check right after writing: %v", err)
	}
	if err := os.WriteFile(filepath.Join(out, "errors_gen.go"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(out, "methods_gen.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "gone_gen.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err = run(check)
	if err == nil {
		t.Fatal("-check accepted a changed folder")
	}
	for _, want := range []string{
		"errors_gen.go: first difference at line 1:",
		`- on disk:   "changed"`,
		"methods_gen.go: open",
		"gone_gen.go: not produced by the generator any more",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("-check error lacks %q:\n%v", want, err)
		}
	}
}

func TestModFilePath(t *testing.T) {
	for in, want := range map[string]string{
		"module github.com/mcpwire/mcpwire\n\ngo 1.26\n": "github.com/mcpwire/mcpwire",
		"// c\nmodule \"example.com/x\"\n":               "example.com/x",
		"modulex y\n":                                    "",
		"go 1.26\n":                                      "",
	} {
		if got := modFilePath([]byte(in)); got != want {
			t.Errorf("modFilePath(%q) = %q, want %q", in, got, want)
		}
	}
}
