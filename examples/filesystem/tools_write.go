package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpwire/mcpwire/server"
)

type writeIn struct {
	Path    string `json:"path" jsonschema:"the file to create or replace; its directory must exist"`
	Content string `json:"content" jsonschema:"the file's new content"`
}

type writeOut struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes" jsonschema:"bytes written"`
}

func (f *fsys) writeFile(_ context.Context, _ *server.Request, in writeIn) (writeOut, error) {
	d, rel, err := f.resolve(in.Path)
	if err != nil {
		return writeOut{}, err
	}
	if err := f.replace(d, rel, in.Path, []byte(in.Content), os.O_CREATE); err != nil {
		return writeOut{}, err
	}
	return writeOut{Path: d.abs(rel), Bytes: len(in.Content)}, nil
}

type edit struct {
	OldText string `json:"oldText" jsonschema:"text that occurs exactly once in the file"`
	NewText string `json:"newText" jsonschema:"what replaces it"`
}

type editIn struct {
	Path   string `json:"path" jsonschema:"the text file to edit"`
	Edits  []edit `json:"edits" jsonschema:"replacements (-max-edits at most), applied in order, each to the result of the one before"`
	DryRun bool   `json:"dryRun,omitempty" jsonschema:"only show the diff; the file is left as it is"`
}

type editOut struct {
	Path    string `json:"path"`
	Diff    string `json:"diff" jsonschema:"the change as a unified diff"`
	Written bool   `json:"written" jsonschema:"false for a dry run"`
}

func (f *fsys) editFile(ctx context.Context, _ *server.Request, in editIn) (editOut, error) {
	if len(in.Edits) > f.lim.MaxEdits {
		return editOut{}, fmt.Errorf("%d edits, more than the limit of %d (-max-edits): nothing was written", len(in.Edits), f.lim.MaxEdits)
	}
	b, err := f.readFile(in.Path, f.lim.MaxReadBytes, false, false)
	if err != nil {
		return editOut{}, err
	}
	if !isText(b) {
		return editOut{}, fmt.Errorf("path %q is not a UTF-8 text file", in.Path)
	}
	old, text := string(b), string(b)
	for i, e := range in.Edits {
		if err := ctx.Err(); err != nil {
			return editOut{}, fmt.Errorf("edit %d: %w: nothing was written", i+1, err)
		}
		if n := strings.Count(text, e.OldText); e.OldText == "" || n != 1 {
			return editOut{}, fmt.Errorf("edit %d: oldText occurs %d times in %q, not exactly once: nothing was written", i+1, n, in.Path)
		}
		text = strings.Replace(text, e.OldText, e.NewText, 1)
	}
	d, rel, _ := f.resolve(in.Path)
	out := editOut{Path: d.abs(rel), Diff: unifiedDiff(d.abs(rel), old, text)}
	if in.DryRun {
		return out, nil
	}
	if err := f.replace(d, rel, in.Path, []byte(text), 0); err != nil {
		return editOut{}, err
	}
	out.Written = true
	return out, nil
}

type mkdirOut struct {
	Path string `json:"path"`
}

func (f *fsys) createDirectory(_ context.Context, _ *server.Request, in pathIn) (mkdirOut, error) {
	d, rel, err := f.resolve(in.Path)
	if err != nil {
		return mkdirOut{}, err
	}
	if err := d.root.MkdirAll(rel, 0o755); err != nil {
		return mkdirOut{}, f.pathError(in.Path, err)
	}
	return mkdirOut{Path: d.abs(rel)}, nil
}

type moveIn struct {
	Source      string `json:"source" jsonschema:"the file or directory to move"`
	Destination string `json:"destination" jsonschema:"its new path, in the same allowed directory; it must not exist"`
}

type moveOut struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
}

func (f *fsys) moveFile(_ context.Context, _ *server.Request, in moveIn) (moveOut, error) {
	sd, srel, err := f.resolve(in.Source)
	if err != nil {
		return moveOut{}, err
	}
	dd, drel, err := f.resolve(in.Destination)
	if err != nil {
		return moveOut{}, err
	}
	// Stat, not Lstat: a symlink leading outside is refused as a source
	// too, although moving the link itself would stay inside; so is a
	// destination whose parent leads outside.
	if info, err := sd.root.Stat(srel); err != nil {
		return moveOut{}, f.pathError(in.Source, err)
	} else if info.Mode().IsRegular() && links(info) > 1 {
		return moveOut{}, fmt.Errorf("source %q: %w", in.Source, errLinked)
	}
	if _, err := dd.root.Stat(filepath.Dir(drel)); err != nil {
		return moveOut{}, f.pathError(in.Destination, err)
	}
	if _, err := dd.root.Lstat(drel); err == nil {
		return moveOut{}, fmt.Errorf("destination %q exists: move_file does not replace", in.Destination)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return moveOut{}, f.pathError(in.Destination, err)
	}
	if sd != dd {
		return moveOut{}, fmt.Errorf("source %q and destination %q are in different allowed directories (%s, %s): move_file moves within one", in.Source, in.Destination, sd.path, dd.path)
	}
	if err := sd.root.Rename(srel, drel); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) && errors.Is(le.Err, f.escape) {
			return moveOut{}, f.pathError(in.Destination, le.Err)
		}
		return moveOut{}, fmt.Errorf("moving %q to %q: %w", in.Source, in.Destination, err)
	}
	return moveOut{Source: sd.abs(srel), Destination: dd.abs(drel)}, nil
}
