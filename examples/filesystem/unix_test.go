//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFIFORefused (FS-1): a FIFO inside a root, with no writer, is
// refused at once by every reader, instead of blocking the call and its
// OS thread in open(2). Tool errors are isError results (R-TOOL-09); the
// template answers Resource not found, like for any non-file.
func TestFIFORefused(t *testing.T) {
	tr := newTree(t)
	fifo := filepath.Join(tr.root, "fifo")
	mustOK(t, syscall.Mkfifo(fifo, 0o644))
	t.Cleanup(func() { // a regression left an open(2) blocked: release it
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = w.Close()
		}
	})
	c := newClient(t, tr, defaultLimits())
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"read_text_file", map[string]any{"path": "fifo"}},
		{"read_media_file", map[string]any{"path": "fifo"}},
		{"edit_file", map[string]any{"path": "fifo", "edits": []map[string]any{{"oldText": "a", "newText": "b"}}}},
		{"list_directory", map[string]any{"path": "fifo"}},
		{"write_file", map[string]any{"path": "fifo", "content": "x"}},
	} {
		prompt(t, tc.tool, func() {
			if msg := callFails(t, c, tc.tool, tc.args); !strings.HasPrefix(tc.tool, "list_") && tc.tool != "write_file" && !strings.Contains(msg, "not a regular file") {
				t.Errorf("%s: %s, want not a regular file", tc.tool, msg)
			}
		})
	}
	prompt(t, "read_multiple_files", func() {
		var out filesOut
		call(t, c, "read_multiple_files", map[string]any{"paths": []string{"fifo", "a.txt"}}, &out)
		if len(out.Files) != 2 || !strings.Contains(out.Files[0].Error, "not a regular file") || out.Files[1].Content == "" {
			t.Errorf("read_multiple_files: %+v", out.Files)
		}
	})
	prompt(t, "search_content", func() {
		var out searchContentOut
		call(t, c, "search_content", map[string]any{"path": ".", "query": "alpha"}, &out)
		if len(out.Matches) != 1 {
			t.Errorf("search_content: %+v", out)
		}
	})
	prompt(t, "resources/read", func() {
		_, err := c.ReadResource(context.Background(), fileURI(fifo))
		if err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("resources/read of a FIFO: %v, want Resource not found", err)
		}
	})
}

// TestHardLinkNotChanged (FS-6): a file with another hard link, which
// may be outside the allowed directories (os.Root cannot see it), is not
// written, edited or moved; reading it still works (see the README's
// Confinement).
func TestHardLinkNotChanged(t *testing.T) {
	tr := newTree(t)
	hard := filepath.Join(tr.root, "hard")
	mustOK(t, os.Link(filepath.Join(tr.out, "secret.txt"), hard))
	c := newClient(t, tr, defaultLimits())
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "hard", "content": "OVERWRITTEN"}},
		{"edit_file", map[string]any{"path": "hard", "edits": []map[string]any{{"oldText": "TOP", "newText": "BOTTOM"}}}},
		{"move_file", map[string]any{"source": "hard", "destination": "moved"}},
	} {
		if msg := callFails(t, c, tc.tool, tc.args); !strings.Contains(msg, "has other hard links") {
			t.Errorf("%s of a hard link: %s", tc.tool, msg)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(tr.out, "secret.txt")); string(b) != secret {
		t.Errorf("the outside file is now %q", b)
	}
	if _, err := os.Lstat(hard); err != nil {
		t.Errorf("the link was moved: %v", err)
	}
}
