package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// prompt runs fn and fails the test if it has not returned within 5 s,
// so that a regression that blocks fails instead of hanging the run.
func prompt(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no answer within 5 s", what)
	}
}

// TestSearchQueryBounds (FS-5): a query longer than -max-query-bytes is
// refused in either mode, and so is a regexp whose program is larger
// than -max-regexp-insts, each with a tool error naming the limit
// (R-TOOL-09), before any file is read.
func TestSearchQueryBounds(t *testing.T) {
	tr := newTree(t)
	c := newClient(t, tr, defaultLimits())
	long := strings.Repeat("q", 4097)
	for _, mode := range []string{"substring", "regexp"} {
		if msg := callFails(t, c, "search_content", map[string]any{"path": ".", "query": long, "mode": mode}); !strings.Contains(msg, "-max-query-bytes") {
			t.Errorf("%s query of 4097 bytes: %s", mode, msg)
		}
	}
	big := "(abcdefgh|ijklmnop){1000}" // 25 bytes, tens of thousands of instructions
	if msg := callFails(t, c, "search_content", map[string]any{"path": ".", "query": big, "mode": "regexp"}); !strings.Contains(msg, "-max-regexp-insts") {
		t.Errorf("regexp %s: %s", big, msg)
	}
	var out searchContentOut
	call(t, c, "search_content", map[string]any{"path": ".", "query": "^(alpha|beta)$", "mode": "regexp"}, &out)
	if len(out.Matches) != 2 {
		t.Errorf("a small regexp: %+v", out)
	}
}

// TestSearchCancelled (FS-5): once the request's context ends, a search
// stops between lines, even inside one large file.
func TestSearchCancelled(t *testing.T) {
	tr := newTree(t)
	mustOK(t, os.WriteFile(filepath.Join(tr.root, "big.txt"), []byte(strings.Repeat("needle\n", 100_000)), 0o644))
	f, err := newFS([]string{tr.root}, defaultLimits())
	mustOK(t, err)
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, p := range []string{"big.txt", "."} {
		out, err := f.searchContent(ctx, nil, searchContentIn{Path: p, Query: "needle"})
		if err == nil || len(out.Matches) > 0 {
			t.Errorf("search of %s with a cancelled context: %d matches, err %v; want none and an error", p, len(out.Matches), err)
		}
	}
}

// TestWalkDepthBound (FS-2): the searches descend -max-walk-depth levels
// at most and say truncated when they left a directory unvisited there;
// a path argument deeper than -max-path-depth is refused, so no tool
// builds a deeper tree.
func TestWalkDepthBound(t *testing.T) {
	tr := newTree(t)
	deep := filepath.Join(tr.root, "x", strings.Repeat("d/", 9))
	mustOK(t, os.MkdirAll(deep, 0o755))
	mustOK(t, os.WriteFile(filepath.Join(deep, "zz.txt"), []byte("needle\n"), 0o644))
	lim := defaultLimits()
	lim.MaxWalkDepth = 4
	c := newClient(t, tr, lim)
	var sf searchFilesOut
	call(t, c, "search_files", map[string]any{"path": "x", "pattern": "zz.txt"}, &sf)
	if len(sf.Matches) != 0 || !sf.Truncated {
		t.Errorf("search_files below -max-walk-depth: %+v, want no match and truncated", sf)
	}
	var sc searchContentOut
	call(t, c, "search_content", map[string]any{"path": "x", "query": "needle"}, &sc)
	if len(sc.Matches) != 0 || !sc.Truncated {
		t.Errorf("search_content below -max-walk-depth: %+v, want no match and truncated", sc)
	}
	var near searchFilesOut
	call(t, c, "search_files", map[string]any{"path": "x/d/d/d/d/d/d", "pattern": "zz.txt"}, &near)
	if len(near.Matches) != 1 || near.Truncated {
		t.Errorf("search_files from nearer: %+v, want the match", near)
	}
	c = newClient(t, tr, defaultLimits())
	tooDeep := strings.Repeat("e/", 65)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"create_directory", map[string]any{"path": tooDeep}},
		{"write_file", map[string]any{"path": filepath.Join(tr.root, tooDeep, "f"), "content": "x"}},
		{"move_file", map[string]any{"source": "a.txt", "destination": tooDeep + "a.txt"}},
	} {
		if msg := callFails(t, c, tc.tool, tc.args); !strings.Contains(msg, "-max-path-depth") {
			t.Errorf("%s of a path 65 names deep: %s", tc.tool, msg)
		}
	}
	call(t, c, "create_directory", map[string]any{"path": strings.Repeat("e/", 64)}, nil)
}

// TestSearchBytesCountBinary (FS-3): -max-search-bytes counts every byte
// search_content reads, binary files included, and no file is read past
// what is left of it.
func TestSearchBytesCountBinary(t *testing.T) {
	tr := newTree(t)
	bin := filepath.Join(tr.root, "bin")
	mustOK(t, os.Mkdir(bin, 0o755))
	for _, name := range []string{"b1.bin", "b2.bin", "b3.bin"} {
		mustOK(t, os.WriteFile(filepath.Join(bin, name), append([]byte{0}, make([]byte, 399)...), 0o644))
	}
	mustOK(t, os.WriteFile(filepath.Join(bin, "z.txt"), []byte("needle\n"), 0o644))
	lim := defaultLimits()
	lim.MaxSearchBytes = 1000
	c := newClient(t, tr, lim)
	var out searchContentOut
	call(t, c, "search_content", map[string]any{"path": "bin", "query": "needle"}, &out)
	if len(out.Matches) != 0 || !out.Truncated {
		t.Errorf("1200 binary bytes before the match, budget 1000: %+v, want truncated and no match", out)
	}
	if out.BytesRead != 800 {
		t.Errorf("bytesRead %d, want 800 (two files; the third is more than what is left)", out.BytesRead)
	}
}

// TestEditBounds (FS-4): edit_file refuses more than -max-edits edits,
// naming the limit, and stops between edits once its context ends;
// neither writes anything.
func TestEditBounds(t *testing.T) {
	tr := newTree(t)
	c := newClient(t, tr, defaultLimits())
	edits := make([]map[string]any, 101)
	for i := range edits {
		edits[i] = map[string]any{"oldText": "alpha", "newText": "alpha"}
	}
	if msg := callFails(t, c, "edit_file", map[string]any{"path": "a.txt", "edits": edits}); !strings.Contains(msg, "-max-edits") {
		t.Errorf("101 edits: %s", msg)
	}
	f, err := newFS([]string{tr.root}, defaultLimits())
	mustOK(t, err)
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.editFile(ctx, nil, editIn{Path: "a.txt", Edits: []edit{{OldText: "alpha", NewText: "omega"}}}); err == nil {
		t.Error("edit_file with a cancelled context succeeded")
	}
	if b, _ := os.ReadFile(filepath.Join(tr.root, "a.txt")); string(b) != "alpha\nbeta\ngamma\n" {
		t.Errorf("a.txt is now %q", b)
	}
}

// TestSearchMatchWork (FS-5, after the review): the matching work of one
// search (line bytes times the query's weight) is bounded, checked before
// each line, since one line's match cannot be interrupted: a long line
// past the budget is not matched, and the call is a tool error naming
// the flag.
func TestSearchMatchWork(t *testing.T) {
	tr := newTree(t)
	mustOK(t, os.WriteFile(filepath.Join(tr.root, "long.txt"), []byte("x"+strings.Repeat("a", 200_000)+"needle\n"), 0o644))
	lim := defaultLimits()
	lim.MaxMatchWork = 1_000_000 // a 200 KB line times a regexp of a few instructions is over it
	c := newClient(t, tr, lim)
	if msg := callFails(t, c, "search_content", map[string]any{"path": "long.txt", "query": "ne+dle", "mode": "regexp"}); !strings.Contains(msg, "-max-match-work") {
		t.Errorf("over the match budget: %q, want a tool error naming -max-match-work", msg)
	}
	c = newClient(t, tr, defaultLimits())
	var out searchContentOut
	call(t, c, "search_content", map[string]any{"path": "long.txt", "query": "ne+dle", "mode": "regexp"}, &out)
	if len(out.Matches) != 1 || out.Truncated {
		t.Errorf("within the default budget: %+v, want the match", out)
	}
}

// hostileLines is a file of 2,000 lines of 1,000 "a"s (2 MB), on which
// "(?:a?){500}z" (1,003 instructions, every one alive on every byte)
// cost about 6.5 s of CPU within the former budget of 10⁹ byte ×
// instruction units (issue 26, B5).
func hostileLines() []byte {
	return []byte(strings.Repeat(strings.Repeat("a", 1000)+"\n", 2000))
}

// TestSearchContentHostileRegexp (issue 26, B5): with the default
// limits, that search is a tool error naming -max-match-work, not a
// result after seconds of CPU: at 64 units a byte for each of its 1,003
// instructions, the default budget of 2.5×10⁸ units covers under 4 KB of
// its lines (BenchmarkSearchContentWorst measures the CPU).
func TestSearchContentHostileRegexp(t *testing.T) {
	tr := newTree(t)
	mustOK(t, os.WriteFile(filepath.Join(tr.root, "big.txt"), hostileLines(), 0o644))
	c := newClient(t, tr, defaultLimits())
	msg := callFails(t, c, "search_content", map[string]any{"path": "big.txt", "query": "(?:a?){500}z", "mode": "regexp"})
	if !strings.Contains(msg, "-max-match-work") || !strings.Contains(msg, "line 4 of") {
		t.Errorf("hostile regexp: %q, want the budget's tool error at line 4", msg)
	}
}
