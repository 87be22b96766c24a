package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// fileTemplate is the URI template of every file under the allowed
// directories: file:///{+path}, path being the absolute path without its
// first slash.
const fileTemplate = "file:///{+path}"

// addResources registers the file:// template and each allowed directory
// as a resource of its own.
func (f *fsys) addResources(s *server.Server) error {
	err := s.AddResourceTemplate(protocol.ResourceTemplate{
		URITemplate: fileTemplate,
		Name:        "file",
		Description: server.Ptr("A file or directory under the allowed directories: text, a blob, or a directory's listing"),
	}, func(_ context.Context, _ *server.Request, _ string, vars map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return f.readResource("/" + vars["path"])
	})
	if err != nil {
		return err
	}
	for _, d := range f.dirs {
		err := s.AddResource(protocol.Resource{URI: fileURI(d.path), Name: filepath.Base(d.path), MIMEType: server.Ptr("text/plain"),
			Description: server.Ptr("An allowed directory: its listing")},
			func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
				return f.readResource(d.path)
			})
		if err != nil {
			return err
		}
	}
	return nil
}

// readResource reads the absolute path p through its root. A path that
// is outside the roots or does not exist is server.ErrNotFound, so that
// a client cannot tell the two apart, and learns nothing of a file
// outside; a file larger than -max-read-bytes is an internal error.
func (f *fsys) readResource(p string) ([]protocol.ReadResourceResultContentsElem, error) {
	d, rel, info, err := f.stat(p)
	if err != nil {
		return nil, notFound(err)
	}
	uri := fileURI(d.abs(rel))
	if info.IsDir() {
		return f.dirListing(d, rel, uri)
	}
	b, err := f.readFile(p, f.lim.MaxReadBytes, false, false)
	if err != nil {
		return nil, notFound(err)
	}
	mt := mimeType(p, b)
	if isText(b) {
		if !strings.HasPrefix(mt, "text/") && !strings.Contains(mt, "json") && !strings.Contains(mt, "xml") {
			mt = "text/plain; charset=utf-8"
		}
		return server.TextContents(uri, mt, string(b)), nil
	}
	return server.BlobContents(uri, mt, base64.StdEncoding.EncodeToString(b)), nil
}

// dirListing is a directory's entries, one a line: [DIR] name or
// [FILE] name (size bytes), at most -max-results of them.
func (f *fsys) dirListing(d *dir, rel, uri string) ([]protocol.ReadResourceResultContentsElem, error) {
	fh, _, err := f.open(d, rel, uri)
	if err != nil {
		return nil, notFound(err)
	}
	defer fh.Close()
	es, err := fh.ReadDir(f.lim.MaxResults + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("listing %s: %w", uri, err)
	}
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var sb strings.Builder
	more := len(es) > f.lim.MaxResults
	es = es[:min(len(es), f.lim.MaxResults)]
	for _, e := range es {
		en := entryOf(e)
		if en.Type == "[FILE]" {
			fmt.Fprintf(&sb, "%s %s (%d bytes)\n", en.Type, en.Name, en.Size)
		} else {
			fmt.Fprintf(&sb, "%s %s\n", en.Type, en.Name)
		}
	}
	if more {
		sb.WriteString("… more entries than -max-results\n")
	}
	return server.TextContents(uri, "text/plain; charset=utf-8", sb.String()), nil
}

// notFound turns a refusal or a missing file into server.ErrNotFound;
// other errors stay.
func notFound(err error) error {
	var oe *outsideError
	if errors.As(err, &oe) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNUL) || errors.Is(err, errNotFile) {
		return server.ErrNotFound
	}
	return err
}
