package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

type pathIn struct {
	Path string `json:"path" jsonschema:"a path inside an allowed directory: absolute, or relative to the first one"`
}

type dirsOut struct {
	Directories []string `json:"directories" jsonschema:"the directories this server may read and write, resolved"`
}

func (f *fsys) listAllowed(context.Context, *server.Request, struct{}) (dirsOut, error) {
	return dirsOut{Directories: f.paths()}, nil
}

type entry struct {
	Name string `json:"name"`
	Type string `json:"type" jsonschema:"[FILE], [DIR], [LINK] (a symlink, not followed) or [OTHER]"`
	Size int64  `json:"size" jsonschema:"bytes (a regular file's; 0 for others)"`
}

type listOut struct {
	Path      string  `json:"path"`
	Entries   []entry `json:"entries"`
	Truncated bool    `json:"truncated,omitempty" jsonschema:"more entries than -max-results; the first are listed"`
}

func (f *fsys) listDirectory(_ context.Context, _ *server.Request, in pathIn) (listOut, error) {
	d, rel, err := f.resolve(in.Path)
	if err != nil {
		return listOut{}, err
	}
	fh, _, err := f.open(d, rel, in.Path)
	if err != nil {
		return listOut{}, err
	}
	defer fh.Close()
	es, err := fh.ReadDir(f.lim.MaxResults + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return listOut{}, f.pathError(in.Path, err)
	}
	out := listOut{Path: d.abs(rel), Entries: []entry{}}
	for _, e := range es {
		if len(out.Entries) == f.lim.MaxResults {
			out.Truncated = true
			break
		}
		out.Entries = append(out.Entries, entryOf(e))
	}
	slices.SortFunc(out.Entries, func(a, b entry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// entryOf describes a directory entry without following a symlink.
func entryOf(e fs.DirEntry) entry {
	en := entry{Name: e.Name(), Type: kind(e.Type())}
	if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
		en.Size = info.Size()
	}
	return en
}

type treeIn struct {
	Path     string `json:"path" jsonschema:"the directory at the top of the tree"`
	MaxDepth int    `json:"maxDepth,omitempty" jsonschema:"levels to descend (1: the children only); 0 or more than -max-tree-depth means -max-tree-depth"`
}

type treeEntry struct {
	Path  string `json:"path" jsonschema:"relative to the top, with / between names"`
	Type  string `json:"type" jsonschema:"[FILE], [DIR], [LINK] or [OTHER]"`
	Size  int64  `json:"size"`
	Depth int    `json:"depth" jsonschema:"1 for a child of the top"`
}

type treeOut struct {
	Path      string      `json:"path"`
	Entries   []treeEntry `json:"entries" jsonschema:"depth first, in lexical order"`
	Truncated bool        `json:"truncated,omitempty" jsonschema:"more entries than -max-tree-entries"`
}

func (f *fsys) directoryTree(ctx context.Context, _ *server.Request, in treeIn) (treeOut, error) {
	depth := f.lim.MaxTreeDepth
	if in.MaxDepth > 0 && in.MaxDepth < depth {
		depth = in.MaxDepth
	}
	out := treeOut{Entries: []treeEntry{}}
	top, trunc, err := f.walk(ctx, in.Path, depth, f.lim.MaxTreeEntries, func(v visit) error {
		en := entryOf(v.e)
		out.Entries = append(out.Entries, treeEntry{Path: v.sub, Type: en.Type, Size: en.Size, Depth: v.depth})
		return nil
	})
	out.Path, out.Truncated = top, trunc
	return out, err
}

type readTextIn struct {
	Path string `json:"path" jsonschema:"the text file to read"`
	Head int    `json:"head,omitempty" jsonschema:"only the first this many lines"`
	Tail int    `json:"tail,omitempty" jsonschema:"only the last this many lines"`
}

func (f *fsys) readTextFile(_ context.Context, _ *server.Request, in readTextIn) (*protocol.CallToolResult, error) {
	if in.Head < 0 || in.Tail < 0 || (in.Head > 0 && in.Tail > 0) {
		return nil, errors.New("head and tail are positive, and at most one of them is given")
	}
	b, err := f.readFile(in.Path, f.lim.MaxReadBytes, in.Head > 0 || in.Tail > 0, in.Tail > 0)
	if err != nil {
		return nil, err
	}
	if !isText(b) {
		return nil, fmt.Errorf("path %q is not a UTF-8 text file: use read_media_file", in.Path)
	}
	text := string(b)
	switch {
	case in.Head > 0:
		text = headLines(b, in.Head)
	case in.Tail > 0:
		lines := strings.SplitAfter(text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		text = strings.Join(lines[max(0, len(lines)-in.Tail):], "")
	}
	return server.TextResult(text), nil
}

// headLines is the first n lines of b.
func headLines(b []byte, n int) string {
	var sb strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	for i := 0; i < n && sc.Scan(); i++ {
		sb.WriteString(sc.Text() + "\n")
	}
	return sb.String()
}

func (f *fsys) readMediaFile(_ context.Context, _ *server.Request, in pathIn) (*protocol.CallToolResult, error) {
	b, err := f.readFile(in.Path, f.lim.MaxReadBytes, false, false)
	if err != nil {
		return nil, err
	}
	mt := mimeType(in.Path, b)
	var c protocol.ContentBlock
	switch {
	case strings.HasPrefix(mt, "image/"):
		c = server.ImageBytes(b, mt)
	case strings.HasPrefix(mt, "audio/"):
		c = server.Audio(base64.StdEncoding.EncodeToString(b), mt)
	default:
		d, rel, _ := f.resolve(in.Path)
		c = server.EmbeddedBlob(fileURI(d.abs(rel)), mt, b)
	}
	return &protocol.CallToolResult{Content: []protocol.ContentBlock{c}}, nil
}

type pathsIn struct {
	Paths []string `json:"paths" jsonschema:"the text files to read (-max-read-bytes in all); one that cannot be read says why"`
}

type fileText struct {
	Path    string `json:"path"`
	Content string `json:"content,omitempty"`
	Error   string `json:"error,omitempty" jsonschema:"why this file was not read"`
}

type filesOut struct {
	Files []fileText `json:"files"`
}

func (f *fsys) readMultipleFiles(_ context.Context, _ *server.Request, in pathsIn) (filesOut, error) {
	if len(in.Paths) > f.lim.MaxResults {
		return filesOut{}, fmt.Errorf("%d paths, more than the limit of %d (-max-results)", len(in.Paths), f.lim.MaxResults)
	}
	out := filesOut{Files: []fileText{}}
	left := f.lim.MaxReadBytes // for all the files together
	for _, p := range in.Paths {
		b, err := f.readFile(p, left, false, false)
		left -= int64(len(b))
		var oe *outsideError
		switch {
		case errors.As(err, &oe), errors.Is(err, errNUL):
			return filesOut{}, err // a refused path fails the call: the others are not read
		case err != nil:
			out.Files = append(out.Files, fileText{Path: p, Error: err.Error()})
		case !isText(b):
			out.Files = append(out.Files, fileText{Path: p, Error: "not a UTF-8 text file: use read_media_file"})
		default:
			out.Files = append(out.Files, fileText{Path: p, Content: string(b)})
		}
	}
	return out, nil
}

type infoOut struct {
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	Mode    string    `json:"mode" jsonschema:"type and permissions, as ls -l shows them"`
	ModTime time.Time `json:"modTime"`
	IsDir   bool      `json:"isDir"`
}

func (f *fsys) getFileInfo(_ context.Context, _ *server.Request, in pathIn) (infoOut, error) {
	d, rel, info, err := f.stat(in.Path)
	if err != nil {
		return infoOut{}, err
	}
	return infoOut{Path: d.abs(rel), Size: info.Size(), Mode: info.Mode().String(), ModTime: info.ModTime().UTC(), IsDir: info.IsDir()}, nil
}
