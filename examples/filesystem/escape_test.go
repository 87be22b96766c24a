package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// escapes are paths that leave the allowed directories, each in its own
// way, for the tree of newTree.
func escapes(tr tree) []struct{ name, path string } {
	return []struct{ name, path string }{
		{"dotdot", "../out/secret.txt"},
		{"etc-passwd", "/etc/passwd"},
		{"absolute-outside", filepath.Join(tr.out, "secret.txt")},
		{"absolute-with-dotdot", tr.root + "/../out/secret.txt"},
		{"symlink-file", "linkfile"},
		{"symlink-dir", "linkdir"},
		{"symlink-dir-child", "linkdir/secret.txt"},
		{"symlink-chain", "chain1"},
		{"a-dotdot-dotdot", "sub/../../out/secret.txt"},
		{"symlink-inside-then-dotdot", "inlink/../../out/secret.txt"},
		{"nul", "a.txt\x00/../../out/secret.txt"},
	}
}

// pathTools builds, for each tool that takes a path, its arguments with
// that path in it.
var pathTools = []struct {
	tool string
	args func(p string) map[string]any
}{
	{"list_directory", func(p string) map[string]any { return map[string]any{"path": p} }},
	{"directory_tree", func(p string) map[string]any { return map[string]any{"path": p} }},
	{"read_text_file", func(p string) map[string]any { return map[string]any{"path": p} }},
	{"read_text_file-tail", func(p string) map[string]any { return map[string]any{"path": p, "tail": 1} }},
	{"read_media_file", func(p string) map[string]any { return map[string]any{"path": p} }},
	{"read_multiple_files", func(p string) map[string]any { return map[string]any{"paths": []string{"a.txt", p}} }},
	{"get_file_info", func(p string) map[string]any { return map[string]any{"path": p} }},
	{"search_files", func(p string) map[string]any { return map[string]any{"path": p, "pattern": "*"} }},
	{"search_content", func(p string) map[string]any { return map[string]any{"path": p, "query": "TOP"} }},
	{"write_file", func(p string) map[string]any { return map[string]any{"path": p, "content": "overwritten"} }},
	{"edit_file", func(p string) map[string]any {
		return map[string]any{"path": p, "edits": []map[string]string{{"oldText": "TOPSECRET", "newText": "edited"}}}
	}},
	{"edit_file-dry", func(p string) map[string]any {
		return map[string]any{"path": p, "dryRun": true, "edits": []map[string]string{{"oldText": "TOPSECRET", "newText": "edited"}}}
	}},
	{"create_directory", func(p string) map[string]any { return map[string]any{"path": p + "/newdir"} }},
	{"move_file", func(p string) map[string]any { return map[string]any{"source": p, "destination": "moved"} }},
	{"move_file-destination", func(p string) map[string]any { return map[string]any{"source": "a.txt", "destination": p + "-moved"} }},
}

// TestEscapesRefused calls every path-taking tool with every escape: each
// is a tool execution error (isError, R-TOOL-09) that names the path and
// says it is outside the allowed directories (R-TOOL-10: access control),
// and neither the secret outside nor anything outside changes.
func TestEscapesRefused(t *testing.T) {
	tr := newTree(t)
	c := newClient(t, tr, defaultLimits())
	for _, pt := range pathTools {
		for _, e := range escapes(tr) {
			t.Run(pt.tool+"/"+e.name, func(t *testing.T) {
				p := e.path
				if pt.tool == "move_file-destination" && e.name != "nul" {
					// The destination does not exist: os.Root must refuse
					// creating it through the escape.
					p = strings.TrimSuffix(p, "/secret.txt") + "/new"
				}
				args := pt.args(p)
				if pt.tool == "move_file-destination" {
					args["destination"] = p
				}
				msg := callFails(t, c, toolName(pt.tool), args)
				want := "outside the allowed directories"
				if e.name == "nul" {
					want = "NUL byte"
				}
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
				if !strings.Contains(msg, strconv.Quote(pathNamed(pt.tool, p))) && e.name != "nul" {
					t.Errorf("error %q does not name the path %q", msg, p)
				}
				if strings.Contains(msg, secret) {
					t.Errorf("the secret leaked: %q", msg)
				}
			})
		}
	}
	checkOutsideUntouched(t, tr)
	if b, err := os.ReadFile(filepath.Join(tr.root, "a.txt")); err != nil || string(b) != "alpha\nbeta\ngamma\n" {
		t.Errorf("root/a.txt changed: %q %v", b, err)
	}
}

// toolName is the tool of a pathTools row: its name up to a "-".
func toolName(row string) string {
	name, _, _ := strings.Cut(row, "-")
	return name
}

// pathNamed is the path the tool's error names for the escape p.
func pathNamed(tool, p string) string {
	if tool == "create_directory" {
		return p + "/newdir"
	}
	return p
}

// checkOutsideUntouched fails when the directory outside holds anything
// but the secret file, unchanged.
func checkOutsideUntouched(t *testing.T, tr tree) {
	t.Helper()
	es, err := os.ReadDir(tr.out)
	mustOK(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"secret.txt"}) {
		t.Errorf("outside now holds %v", names)
	}
	if b, err := os.ReadFile(filepath.Join(tr.out, "secret.txt")); err != nil || string(b) != secret {
		t.Errorf("outside/secret.txt changed: %q %v", b, err)
	}
}

// TestNoCreateThroughSymlinkedParent: write_file, create_directory and
// move_file cannot create an entry outside through a symlinked parent
// directory that points outside (linkdir -> out), even when what they
// create does not exist yet.
func TestNoCreateThroughSymlinkedParent(t *testing.T) {
	tr := newTree(t)
	c := newClient(t, tr, defaultLimits())
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "linkdir/created.txt", "content": "x"}},
		{"write_file", map[string]any{"path": filepath.Join(tr.root, "linkdir", "created.txt"), "content": "x"}},
		{"create_directory", map[string]any{"path": "linkdir/created/deeper"}},
		{"move_file", map[string]any{"source": "a.txt", "destination": "linkdir/created.txt"}},
		{"move_file", map[string]any{"source": "sub", "destination": "linkdir/created"}},
		{"edit_file", map[string]any{"path": "linkdir/secret.txt", "edits": []map[string]string{{"oldText": "TOP", "newText": "x"}}, "dryRun": true}},
	} {
		if msg := callFails(t, c, tc.tool, tc.args); !strings.Contains(msg, "outside the allowed directories") {
			t.Errorf("%s %v: %q", tc.tool, tc.args, msg)
		}
	}
	checkOutsideUntouched(t, tr)
	if _, err := os.Stat(filepath.Join(tr.root, "a.txt")); err != nil {
		t.Errorf("the source of a refused move is gone: %v", err)
	}
}
