package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// errNUL refuses a path with a NUL byte, which no system call takes.
var errNUL = errors.New("contains a NUL byte")

// errNotFile refuses to read what is not a regular file.
var errNotFile = errors.New("not a regular file")

// errLinked refuses to change a file that another name shares: os.Root
// cannot tell whether that name is inside the allowed directories.
var errLinked = errors.New("has other hard links: refusing to change it")

// errTooLarge refuses to read a file larger than what is left to read.
var errTooLarge = errors.New("more than the limit")

// dir is one allowed directory: its resolved absolute path and the
// os.Root every file operation under it goes through.
type dir struct {
	path string
	root *os.Root
}

// fsys is the set of allowed directories. Every path a client gives is
// turned into a (dir, relative path) pair by resolve and then opened
// through that dir's os.Root, which refuses, at the system-call level,
// any path that leaves the root: "..", an absolute path, or a symlink
// (anywhere on the path) leading outside.
type fsys struct {
	dirs []dir
	// escape is the error os.Root wraps when a path leaves the root. The
	// os package does not export it; newFS obtains it by asking a root
	// for "..", so that refusals are told apart with errors.Is, not by
	// their text.
	escape error
	lim    limits
}

// newFS resolves each directory (filepath.Abs, then EvalSymlinks, so that
// a root given through a symlink is the directory itself) and opens it
// as an os.Root.
func newFS(paths []string, lim limits) (*fsys, error) {
	if len(paths) == 0 {
		return nil, errors.New("at least one allowed directory is needed")
	}
	f := &fsys{lim: lim}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("allowed directory %q: %w", p, err)
		}
		if abs, err = filepath.EvalSymlinks(abs); err != nil {
			return nil, fmt.Errorf("allowed directory %q: %w", p, err)
		}
		r, err := os.OpenRoot(abs)
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("allowed directory %q: %w", p, err)
		}
		f.dirs = append(f.dirs, dir{path: abs, root: r})
	}
	_, err := f.dirs[0].root.Stat("..")
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		_ = f.Close()
		return nil, fmt.Errorf("os.Root let %q reach its parent (%v): refusing to serve", f.dirs[0].path, err)
	}
	f.escape = pe.Err
	return f, nil
}

// Close closes every root.
func (f *fsys) Close() error {
	var errs []error
	for _, d := range f.dirs {
		errs = append(errs, d.root.Close())
	}
	return errors.Join(errs...)
}

// resolve maps a client's path to the dir it belongs to and the path
// relative to it, at most -max-path-depth names deep. An absolute path goes to the innermost dir that holds
// it lexically; one that no dir holds is made relative to the first dir
// (it then starts with ".." and os.Root refuses it). A relative path is
// relative to the first dir. resolve itself refuses only a NUL byte:
// confinement is os.Root's job.
func (f *fsys) resolve(p string) (*dir, string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return nil, "", fmt.Errorf("path %q: %w", p, errNUL)
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		if p == "" {
			p = "."
		}
		return f.bounded(&f.dirs[0], p)
	}
	p = filepath.Clean(p)
	best := -1
	for i, d := range f.dirs {
		if inside(d.path, p) && (best < 0 || len(d.path) > len(f.dirs[best].path)) {
			best = i
		}
	}
	if best < 0 {
		best = 0
	}
	rel, err := filepath.Rel(f.dirs[best].path, p)
	if err != nil {
		return nil, "", fmt.Errorf("path %q: %w", p, err)
	}
	return f.bounded(&f.dirs[best], rel)
}

// bounded refuses a path of more than -max-path-depth names below its
// dir: a deeper tree would make every walk of it quadratic.
func (f *fsys) bounded(d *dir, rel string) (*dir, string, error) {
	if n := strings.Count(filepath.Clean(rel), string(filepath.Separator)) + 1; n > f.lim.MaxPathDepth {
		return nil, "", fmt.Errorf("path %q: %d names deep, more than the limit of %d (-max-path-depth)", d.abs(rel), n, f.lim.MaxPathDepth)
	}
	return d, rel, nil
}

// inside reports whether p is root or lexically under it.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// pathError rewrites err, from an operation on the client's path p, for
// the model: a refusal of os.Root names p and says it is outside the
// allowed directories; any other *fs.PathError names p instead of the
// relative path.
func (f *fsys) pathError(p string, err error) error {
	if errors.Is(err, f.escape) {
		return &outsideError{path: p, dirs: f.paths()}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("path %q: %w", p, pe.Err)
	}
	return fmt.Errorf("path %q: %w", p, err)
}

// paths lists the allowed directories.
func (f *fsys) paths() []string {
	out := make([]string, len(f.dirs))
	for i, d := range f.dirs {
		out[i] = d.path
	}
	return out
}

// abs is the absolute path of rel in d, for display and file:// URIs.
func (d *dir) abs(rel string) string { return filepath.Join(d.path, rel) }

// fileURI is the file:// URI of an absolute path.
func fileURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// outside is what a refused path's error says.
const outside = "outside the allowed directories"

// outsideError is a path that os.Root refused because it leaves the
// allowed directories.
type outsideError struct {
	path string
	dirs []string
}

func (e *outsideError) Error() string {
	return fmt.Sprintf("path %q is %s (%s)", e.path, outside, strings.Join(e.dirs, ", "))
}
