package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// stat resolves p and stats it through its root, following a final
// symlink (which must stay inside the root).
func (f *fsys) stat(p string) (*dir, string, fs.FileInfo, error) {
	d, rel, err := f.resolve(p)
	if err != nil {
		return nil, "", nil, err
	}
	info, err := d.root.Stat(rel)
	if err != nil {
		return nil, "", nil, f.pathError(p, err)
	}
	return d, rel, info, nil
}

// open opens rel in d for reading (openFile).
func (f *fsys) open(d *dir, rel, p string) (*os.File, fs.FileInfo, error) {
	return f.openFile(d, rel, p, os.O_RDONLY, 0)
}

// openFile opens rel in d with flag (and perm, for a file it creates)
// without blocking (O_NONBLOCK: a FIFO without a peer, or a device, would
// otherwise hold the call and its OS thread forever) and stats the opened
// file, so that what the caller checks is what it reads or writes. p is
// the client's path, for errors.
func (f *fsys) openFile(d *dir, rel, p string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	fh, err := d.root.OpenFile(rel, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, nil, f.pathError(p, err)
	}
	info, err := fh.Stat()
	if err != nil {
		_ = fh.Close()
		return nil, nil, f.pathError(p, err)
	}
	return fh, info, nil
}

// readFile reads the regular file p, at most max bytes from its start,
// or from its end when fromEnd. It refuses a larger file unless partial.
func (f *fsys) readFile(p string, max int64, partial, fromEnd bool) ([]byte, error) {
	d, rel, err := f.resolve(p)
	if err != nil {
		return nil, err
	}
	fh, info, err := f.open(d, rel, p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("path %q: %w", p, errNotFile)
	}
	if info.Size() > max && !partial {
		return nil, fmt.Errorf("path %q: %d bytes, %w of %d (-max-read-bytes)", p, info.Size(), errTooLarge, max)
	}
	if fromEnd && info.Size() > max {
		if _, err := fh.Seek(info.Size()-max, io.SeekStart); err != nil {
			return nil, f.pathError(p, err)
		}
	}
	b, err := io.ReadAll(io.LimitReader(fh, max))
	if err != nil {
		return nil, f.pathError(p, err)
	}
	return b, nil
}

// isText reports whether b looks like text: valid UTF-8 without NUL.
func isText(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			return false
		}
	}
	return utf8.Valid(b)
}

// mimeType guesses the MIME type of a file from its name, then from its
// first bytes.
func mimeType(name string, b []byte) string {
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		return t
	}
	return http.DetectContentType(b)
}

// kind is the [FILE]/[DIR] tag of an entry.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "[DIR]"
	case m&fs.ModeSymlink != 0:
		return "[LINK]"
	case m.IsRegular():
		return "[FILE]"
	}
	return "[OTHER]"
}

// visit is one entry of a walk.
type visit struct {
	d     *dir
	rel   string // relative to d
	sub   string // relative to the top of the walk, with / between names
	depth int    // 1 for a child of the top
	e     fs.DirEntry
}

// walk visits the tree under the directory p (depth-first, lexical
// order, symlinks listed but not followed) through its root, calling fn
// with each entry until fn returns fs.SkipAll or an error, or after max
// entries (truncated is then true); it descends depth levels at most.
// It returns the absolute path of p. It stops when ctx ends.
func (f *fsys) walk(ctx context.Context, p string, depth, max int, fn func(visit) error) (top string, truncated bool, err error) {
	d, rel, info, err := f.stat(p)
	if err != nil {
		return "", false, err
	}
	if !info.IsDir() {
		return "", false, fmt.Errorf("path %q is not a directory", p)
	}
	n := 0
	start := filepath.ToSlash(filepath.Clean(rel))
	err = fs.WalkDir(d.root.FS(), start, func(path string, e fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err() // the request was cancelled
		}
		if err != nil || path == start {
			return nil // an unreadable entry is left out, the walk goes on
		}
		if n++; n > max {
			truncated = true
			return fs.SkipAll
		}
		sub := strings.TrimPrefix(path, start+"/")
		if start == "." {
			sub = path
		}
		v := visit{d: d, rel: filepath.FromSlash(path), sub: sub, depth: strings.Count(sub, "/") + 1, e: e}
		if err := fn(v); err != nil {
			return err
		}
		if e.IsDir() && depth >= 0 && v.depth >= depth {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return "", truncated, f.pathError(p, err)
	}
	return d.abs(rel), truncated, nil
}
