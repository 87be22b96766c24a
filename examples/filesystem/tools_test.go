package main

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

func TestListAllowedDirectories(t *testing.T) {
	tr := newTree(t)
	var out dirsOut
	call(t, newClient(t, tr, defaultLimits()), "list_allowed_directories", map[string]any{}, &out)
	if !slices.Equal(out.Directories, []string{tr.root, tr.root2}) {
		t.Errorf("got %v", out.Directories)
	}
}

// TestListDirectory: entries sorted, typed, sized, bounded; a symlink is
// listed as [LINK] without being followed.
func TestListDirectory(t *testing.T) {
	tr := newTree(t)
	var out listOut
	res := call(t, newClient(t, tr, defaultLimits()), "list_directory", map[string]any{"path": "."}, &out)
	got := map[string]entry{}
	var names []string
	for _, e := range out.Entries {
		got[e.Name] = e
		names = append(names, e.Name)
	}
	if !slices.IsSorted(names) || len(names) != 7 {
		t.Errorf("names %v", names)
	}
	if got["a.txt"] != (entry{"a.txt", "[FILE]", 17}) || got["sub"].Type != "[DIR]" || got["linkdir"].Type != "[LINK]" {
		t.Errorf("entries %+v", out.Entries)
	}
	// R-TOOL-07: the structured content is also the text block.
	if text(res) != string(res.StructuredContent) {
		t.Errorf("text %q, structured %s", text(res), res.StructuredContent)
	}
	lim := defaultLimits()
	lim.MaxResults = 2
	call(t, newClient(t, tr, lim), "list_directory", map[string]any{"path": tr.root}, &out)
	if len(out.Entries) != 2 || !out.Truncated {
		t.Errorf("with -max-results 2: %+v", out)
	}
	// The second root, by its absolute path.
	call(t, newClient(t, tr, defaultLimits()), "list_directory", map[string]any{"path": tr.root2}, &out)
	if len(out.Entries) != 1 || out.Entries[0].Name != "d.txt" || out.Path != tr.root2 {
		t.Errorf("root2: %+v", out)
	}
}

func TestDirectoryTree(t *testing.T) {
	tr := newTree(t)
	c := newClient(t, tr, defaultLimits())
	var out treeOut
	call(t, c, "directory_tree", map[string]any{"path": "sub"}, &out)
	want := []treeEntry{{"b.txt", "[FILE]", 6, 1}, {"deep", "[DIR]", 0, 1}, {"deep/c.md", "[FILE]", 8, 2}}
	if !slices.Equal(out.Entries, want) || out.Path != filepath.Join(tr.root, "sub") || out.Truncated {
		t.Errorf("got %+v", out)
	}
	call(t, c, "directory_tree", map[string]any{"path": "sub", "maxDepth": 1}, &out)
	if len(out.Entries) != 2 {
		t.Errorf("maxDepth 1: %+v", out.Entries)
	}
	// A symlink to a directory inside is listed, not descended.
	call(t, c, "directory_tree", map[string]any{"path": "."}, &out)
	for _, e := range out.Entries {
		if strings.HasPrefix(e.Path, "inlink/") || strings.HasPrefix(e.Path, "linkdir/") {
			t.Errorf("followed a symlink: %+v", e)
		}
	}
	lim := defaultLimits()
	lim.MaxTreeEntries, lim.MaxTreeDepth = 3, 1
	call(t, newClient(t, tr, lim), "directory_tree", map[string]any{"path": ".", "maxDepth": 5}, &out)
	if len(out.Entries) != 3 || !out.Truncated || slices.ContainsFunc(out.Entries, func(e treeEntry) bool { return e.Depth > 1 }) {
		t.Errorf("-max-tree-entries 3 -max-tree-depth 1: %+v", out)
	}
}

func TestReadTextFile(t *testing.T) {
	tr := newTree(t)
	c := newClient(t, tr, defaultLimits())
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "a.txt"}, "alpha\nbeta\ngamma\n"},
		{map[string]any{"path": "a.txt", "head": 2}, "alpha\nbeta\n"},
		{map[string]any{"path": "a.txt", "tail": 1}, "gamma\n"},
		{map[string]any{"path": "a.txt", "tail": 9}, "alpha\nbeta\ngamma\n"},
		{map[string]any{"path": "inlink/b.txt"}, "bravo\n"},
		{map[string]any{"path": filepath.Join(tr.root2, "d.txt")}, "delta\n"},
	} {
		if got := text(call(t, c, "read_text_file", tc.args, nil)); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
	if msg := callFails(t, c, "read_text_file", map[string]any{"path": "a.txt", "head": 1, "tail": 1}); !strings.Contains(msg, "at most one") {
		t.Errorf("head and tail: %q", msg)
	}
	if msg := callFails(t, c, "read_text_file", map[string]any{"path": "missing.txt"}); !strings.Contains(msg, `"missing.txt"`) || !strings.Contains(msg, "no such file") {
		t.Errorf("missing: %q", msg)
	}
	lim := defaultLimits()
	lim.MaxReadBytes = 8
	c = newClient(t, tr, lim)
	if msg := callFails(t, c, "read_text_file", map[string]any{"path": "a.txt"}); !strings.Contains(msg, "-max-read-bytes") {
		t.Errorf("over the limit: %q", msg)
	}
	// With tail, the last -max-read-bytes bytes are read.
	if got := text(call(t, c, "read_text_file", map[string]any{"path": "a.txt", "tail": 1}, nil)); got != "gamma\n" {
		t.Errorf("tail over the limit: %q", got)
	}
}

// TestMalformedArguments: arguments that fail the input schema are
// refused before the handler runs. The server makes this a tool
// execution error naming the argument (server/doc.go, order of checks,
// step 8; the spec has examples both ways, A9 of spec-requirements.md),
// so the model can correct itself.
func TestMalformedArguments(t *testing.T) {
	c := newClient(t, newTree(t), defaultLimits())
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_text_file", map[string]any{"path": 7}, "path"},
		{"read_text_file", map[string]any{}, "path"},
		{"search_content", map[string]any{"path": ".", "query": "a", "mode": "glob"}, "mode"},
		{"move_file", map[string]any{"source": "a.txt"}, "destination"},
	} {
		if msg := callFails(t, c, tc.tool, tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%s %v: %q does not name %s", tc.tool, tc.args, msg, tc.want)
		}
	}
}

func TestReadMediaFile(t *testing.T) {
	tr := newTree(t)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	mustOK(t, os.WriteFile(filepath.Join(tr.root, "pic.png"), png, 0o644))
	mustOK(t, os.WriteFile(filepath.Join(tr.root, "noext"), png, 0o644))
	mustOK(t, os.WriteFile(filepath.Join(tr.root, "sound.wav"), []byte("RIFF\x00\x00\x00\x00WAVE"), 0o644))
	mustOK(t, os.WriteFile(filepath.Join(tr.root, "data.bin"), []byte{0, 1, 2, 3}, 0o644))
	c := newClient(t, tr, defaultLimits())
	for _, name := range []string{"pic.png", "noext"} {
		img, ok := call(t, c, "read_media_file", map[string]any{"path": name}, nil).Content[0].Value.(*protocol.ImageContent)
		if !ok || img.MIMEType != "image/png" || img.Data != base64.StdEncoding.EncodeToString(png) {
			t.Errorf("%s: %+v", name, img)
		}
	}
	if a, ok := call(t, c, "read_media_file", map[string]any{"path": "sound.wav"}, nil).Content[0].Value.(*protocol.AudioContent); !ok || !strings.HasPrefix(a.MIMEType, "audio/") {
		t.Errorf("wav: %+v", a)
	}
	// R-RSRC-08: binary is base64 in a blob.
	er, ok := call(t, c, "read_media_file", map[string]any{"path": "data.bin"}, nil).Content[0].Value.(*protocol.EmbeddedResource)
	if !ok {
		t.Fatal("data.bin: not an embedded resource")
	}
	if b, ok := er.Resource.Value.(*protocol.BlobResourceContents); !ok || b.Blob != "AAECAw==" || b.URI != "file://"+filepath.ToSlash(filepath.Join(tr.root, "data.bin")) {
		t.Errorf("data.bin: %+v", er.Resource.Value)
	}
}

func TestReadMultipleFiles(t *testing.T) {
	tr := newTree(t)
	var out filesOut
	call(t, newClient(t, tr, defaultLimits()), "read_multiple_files", map[string]any{"paths": []string{"a.txt", "missing", "sub/b.txt"}}, &out)
	if len(out.Files) != 3 || out.Files[0].Content != "alpha\nbeta\ngamma\n" || !strings.Contains(out.Files[1].Error, "no such file") || out.Files[2].Content != "bravo\n" {
		t.Errorf("got %+v", out)
	}
	lim := defaultLimits()
	lim.MaxReadBytes = 20 // a.txt (17) fits, then 3 bytes are left
	call(t, newClient(t, tr, lim), "read_multiple_files", map[string]any{"paths": []string{"a.txt", "sub/b.txt"}}, &out)
	if out.Files[0].Content == "" || !strings.Contains(out.Files[1].Error, "-max-read-bytes") {
		t.Errorf("-max-read-bytes 20 for both: %+v", out)
	}
	lim = defaultLimits()
	lim.MaxResults = 1
	if msg := callFails(t, newClient(t, tr, lim), "read_multiple_files", map[string]any{"paths": []string{"a.txt", "sub/b.txt"}}); !strings.Contains(msg, "-max-results") {
		t.Errorf("over the limit: %q", msg)
	}
}

func TestGetFileInfo(t *testing.T) {
	tr := newTree(t)
	c := newClient(t, tr, defaultLimits())
	var out infoOut
	call(t, c, "get_file_info", map[string]any{"path": "a.txt"}, &out)
	want, err := os.Stat(filepath.Join(tr.root, "a.txt"))
	mustOK(t, err)
	if out.Size != 17 || out.IsDir || out.Mode != want.Mode().String() || !out.ModTime.Equal(want.ModTime()) || out.Path != filepath.Join(tr.root, "a.txt") {
		t.Errorf("a.txt: %+v", out)
	}
	call(t, c, "get_file_info", map[string]any{"path": "inlink"}, &out)
	if !out.IsDir {
		t.Errorf("inlink (a symlink to sub): %+v", out)
	}
}

func TestSearchFiles(t *testing.T) {
	tr := newTree(t)
	c := newClient(t, tr, defaultLimits())
	var out searchFilesOut
	call(t, c, "search_files", map[string]any{"path": ".", "pattern": "*.txt"}, &out)
	want := []string{filepath.Join(tr.root, "a.txt"), filepath.Join(tr.root, "sub/b.txt")}
	if !slices.Equal(out.Matches, want) || out.Truncated {
		t.Errorf("*.txt: %+v", out)
	}
	call(t, c, "search_files", map[string]any{"path": ".", "pattern": "sub/*/*.md"}, &out)
	if !slices.Equal(out.Matches, []string{filepath.Join(tr.root, "sub/deep/c.md")}) {
		t.Errorf("sub/*/*.md: %+v", out)
	}
	if msg := callFails(t, c, "search_files", map[string]any{"path": ".", "pattern": "["}); !strings.Contains(msg, "pattern") {
		t.Errorf("bad pattern: %q", msg)
	}
	lim := defaultLimits()
	lim.MaxResults = 1
	call(t, newClient(t, tr, lim), "search_files", map[string]any{"path": ".", "pattern": "*"}, &out)
	if len(out.Matches) != 1 || !out.Truncated {
		t.Errorf("-max-results 1: %+v", out)
	}
	lim = defaultLimits()
	lim.MaxWalkEntries = 2
	call(t, newClient(t, tr, lim), "search_files", map[string]any{"path": ".", "pattern": "*"}, &out)
	if len(out.Matches) != 2 || !out.Truncated {
		t.Errorf("-max-walk-entries 2: %+v", out)
	}
}

func TestSearchContent(t *testing.T) {
	tr := newTree(t)
	mustOK(t, os.WriteFile(filepath.Join(tr.root, "bin.dat"), []byte("beta\x00"), 0o644))
	c := newClient(t, tr, defaultLimits())
	var out searchContentOut
	call(t, c, "search_content", map[string]any{"path": ".", "query": "eta"}, &out)
	if len(out.Matches) != 1 || out.Matches[0] != (contentMatch{filepath.Join(tr.root, "a.txt"), 2, "beta"}) || out.FilesSearched != 3 {
		t.Errorf("substring: %+v", out)
	}
	call(t, c, "search_content", map[string]any{"path": ".", "query": "^(b|c)[a-z]+o$", "mode": "regexp"}, &out)
	if len(out.Matches) != 1 || out.Matches[0].Text != "bravo" {
		t.Errorf("regexp: %+v", out)
	}
	call(t, c, "search_content", map[string]any{"path": ".", "query": "CHARLIE", "ignoreCase": true, "filePattern": "*.md"}, &out)
	if len(out.Matches) != 1 || out.Matches[0].Line != 1 {
		t.Errorf("ignoreCase and filePattern: %+v", out)
	}
	call(t, c, "search_content", map[string]any{"path": "a.txt", "query": "a"}, &out)
	if len(out.Matches) != 3 {
		t.Errorf("one file: %+v", out)
	}
	if msg := callFails(t, c, "search_content", map[string]any{"path": ".", "query": "(", "mode": "regexp"}); !strings.Contains(msg, "query") {
		t.Errorf("bad regexp: %q", msg)
	}
	lim := defaultLimits()
	lim.MaxResults = 2
	call(t, newClient(t, tr, lim), "search_content", map[string]any{"path": ".", "query": "a"}, &out)
	if len(out.Matches) != 2 || !out.Truncated {
		t.Errorf("-max-results 2: %+v", out)
	}
	call(t, newClient(t, tr, lim), "search_content", map[string]any{"path": "a.txt", "query": "a"}, &out)
	if len(out.Matches) != 2 || !out.Truncated {
		t.Errorf("one file, -max-results 2: %+v", out)
	}
	lim = defaultLimits()
	lim.MaxSearchBytes = 20
	call(t, newClient(t, tr, lim), "search_content", map[string]any{"path": ".", "query": "a"}, &out)
	if out.FilesSearched != 1 || !out.Truncated {
		t.Errorf("-max-search-bytes 20: %+v", out)
	}
}

func TestWriteEditCreateMove(t *testing.T) {
	tr := newTree(t)
	c := newClient(t, tr, defaultLimits())
	var w writeOut
	call(t, c, "write_file", map[string]any{"path": "new.txt", "content": "one\ntwo\nthree\n"}, &w)
	if w.Bytes != 14 || w.Path != filepath.Join(tr.root, "new.txt") {
		t.Errorf("write: %+v", w)
	}
	var e editOut
	call(t, c, "edit_file", map[string]any{"path": "new.txt", "dryRun": true, "edits": []map[string]string{{"oldText": "two", "newText": "2"}}}, &e)
	wantDiff := "--- " + w.Path + "\n+++ " + w.Path + "\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
	if e.Diff != wantDiff || e.Written {
		t.Errorf("dry run: %+v\nwant diff %q", e, wantDiff)
	}
	if b, _ := os.ReadFile(w.Path); string(b) != "one\ntwo\nthree\n" {
		t.Errorf("the dry run wrote: %q", b)
	}
	call(t, c, "edit_file", map[string]any{"path": "new.txt", "edits": []map[string]string{{"oldText": "two", "newText": "2"}, {"oldText": "2\nthree", "newText": "3"}}}, &e)
	if b, _ := os.ReadFile(w.Path); string(b) != "one\n3\n" || !e.Written {
		t.Errorf("edited: %q %+v", b, e)
	}
	if msg := callFails(t, c, "edit_file", map[string]any{"path": "a.txt", "edits": []map[string]string{{"oldText": "a", "newText": "A"}}}); !strings.Contains(msg, "not exactly once") {
		t.Errorf("ambiguous edit: %q", msg)
	}
	var m mkdirOut
	call(t, c, "create_directory", map[string]any{"path": "x/y/z"}, &m)
	call(t, c, "create_directory", map[string]any{"path": "x/y/z"}, &m) // idempotent
	if info, err := os.Stat(filepath.Join(tr.root, "x/y/z")); err != nil || !info.IsDir() {
		t.Errorf("create_directory: %v", err)
	}
	var mv moveOut
	call(t, c, "move_file", map[string]any{"source": "new.txt", "destination": "x/y/z/moved.txt"}, &mv)
	if _, err := os.Stat(filepath.Join(tr.root, "x/y/z/moved.txt")); err != nil || mv.Destination != filepath.Join(tr.root, "x/y/z/moved.txt") {
		t.Errorf("move: %+v %v", mv, err)
	}
	if msg := callFails(t, c, "move_file", map[string]any{"source": "a.txt", "destination": "sub/b.txt"}); !strings.Contains(msg, "exists") {
		t.Errorf("existing destination: %q", msg)
	}
	if b, _ := os.ReadFile(filepath.Join(tr.root, "sub/b.txt")); string(b) != "bravo\n" {
		t.Errorf("the existing destination changed: %q", b)
	}
	if msg := callFails(t, c, "move_file", map[string]any{"source": "a.txt", "destination": filepath.Join(tr.root2, "a.txt")}); !strings.Contains(msg, "different allowed directories") {
		t.Errorf("across roots: %q", msg)
	}
}

// TestAnnotations: the hints say what each tool does (R-TOOL-05).
func TestAnnotations(t *testing.T) {
	tools, err := newClient(t, newTree(t), defaultLimits()).ListTools(context.Background())
	mustOK(t, err)
	type hints struct{ readOnly, destructive, idempotent bool }
	want := map[string]hints{
		"write_file": {false, true, true}, "edit_file": {false, true, false}, "create_directory": {false, false, true}, "move_file": {false, true, false},
	}
	if len(tools) != 13 {
		t.Errorf("%d tools", len(tools))
	}
	for _, tl := range tools {
		a := tl.Annotations
		w, writes := want[tl.Name]
		if !writes {
			w = hints{readOnly: true}
		}
		got := hints{*a.ReadOnlyHint, a.DestructiveHint != nil && *a.DestructiveHint, a.IdempotentHint != nil && *a.IdempotentHint}
		if got != w || *a.OpenWorldHint {
			t.Errorf("%s: %+v, want %+v", tl.Name, got, w)
		}
		if tl.Name == "search_content" && !strings.Contains(string(mustJSON(t, tl.InputSchema)), `"enum":["substring","regexp"]`) {
			t.Errorf("search_content: mode has no enum")
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := protocol.Marshal(v)
	mustOK(t, err)
	return b
}
