package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/servertest"
)

// TestFileTemplate reads files through file:///{+path}: text as text,
// binary as a base64 blob (R-RSRC-08), a directory as its listing.
func TestFileTemplate(t *testing.T) {
	tr := newTree(t)
	mustOK(t, os.WriteFile(filepath.Join(tr.root, "data.bin"), []byte{0xff, 0, 1}, 0o644))
	c := newClient(t, tr, defaultLimits())
	ctx := context.Background()
	res, err := c.ReadResource(ctx, fileURI(filepath.Join(tr.root, "a.txt")))
	mustOK(t, err)
	if tc, ok := res.Contents[0].Value.(*protocol.TextResourceContents); !ok || tc.Text != "alpha\nbeta\ngamma\n" || tc.URI != fileURI(filepath.Join(tr.root, "a.txt")) {
		t.Errorf("a.txt: %+v", res.Contents[0].Value)
	}
	res, err = c.ReadResource(ctx, fileURI(filepath.Join(tr.root, "data.bin")))
	mustOK(t, err)
	if b, ok := res.Contents[0].Value.(*protocol.BlobResourceContents); !ok || b.Blob != "/wAB" {
		t.Errorf("data.bin: %+v", res.Contents[0].Value)
	}
	res, err = c.ReadResource(ctx, fileURI(filepath.Join(tr.root2, "d.txt")))
	mustOK(t, err)
	if tc, ok := res.Contents[0].Value.(*protocol.TextResourceContents); !ok || tc.Text != "delta\n" {
		t.Errorf("root2/d.txt: %+v", res.Contents[0].Value)
	}
	res, err = c.ReadResource(ctx, fileURI(filepath.Join(tr.root, "sub")))
	mustOK(t, err)
	if tc, ok := res.Contents[0].Value.(*protocol.TextResourceContents); !ok || tc.Text != "[FILE] b.txt (6 bytes)\n[DIR] deep\n" {
		t.Errorf("sub: %+v", res.Contents[0].Value)
	}
}

// TestFileTemplateEscapes: a URI leading outside the allowed directories
// is the server's resource-not-found error, -32602 with data.uri
// (R-BASE-14: never -32002 under 2026-07-28), never the file's content
// (R-RSRC-09: file:// paths are sanitised against traversal).
func TestFileTemplateEscapes(t *testing.T) {
	tr := newTree(t)
	c := newClient(t, tr, defaultLimits())
	root := "file://" + filepath.ToSlash(tr.root)
	for _, uri := range []string{
		"file:///etc/passwd",
		fileURI(filepath.Join(tr.out, "secret.txt")),
		root + "/../out/secret.txt",
		root + "/%2E%2E/out/secret.txt",
		root + "/linkfile",
		root + "/linkdir/secret.txt",
		root + "/linkdir",
		root + "/chain1",
		root + "/inlink/../../out/secret.txt",
		root + "/a.txt%00/x",
		root + "/missing.txt",
	} {
		res, err := c.ReadResource(context.Background(), uri)
		var se *servertest.Error
		if !errors.As(err, &se) || se.Code != -32602 || se.Message != "Resource not found" {
			t.Errorf("%s: %+v %v, want -32602 Resource not found", uri, res, err)
			continue
		}
		var data struct{ URI string }
		if json.Unmarshal(se.Data, &data) != nil || data.URI != uri {
			t.Errorf("%s: data %s", uri, se.Data)
		}
		if strings.Contains(se.Message+string(se.Data), secret) {
			t.Errorf("%s: the secret leaked", uri)
		}
	}
}

// TestRootsAsResources: each allowed directory is listed, and reads as
// its listing.
func TestRootsAsResources(t *testing.T) {
	tr := newTree(t)
	c := newClient(t, tr, defaultLimits())
	raw, err := c.Do(context.Background(), "resources/list", "", nil)
	mustOK(t, err)
	var list protocol.ListResourcesResult
	mustOK(t, protocol.Unmarshal(raw, &list))
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	if len(uris) != 2 || !strings.Contains(strings.Join(uris, " "), fileURI(tr.root)) || !strings.Contains(strings.Join(uris, " "), fileURI(tr.root2)) {
		t.Errorf("resources %v", uris)
	}
	res, err := c.ReadResource(context.Background(), fileURI(tr.root2))
	mustOK(t, err)
	if tc, ok := res.Contents[0].Value.(*protocol.TextResourceContents); !ok || tc.Text != "[FILE] d.txt (6 bytes)\n" {
		t.Errorf("root2: %+v", res.Contents[0].Value)
	}
	lim := defaultLimits()
	lim.MaxResults = 1
	res, err = newClient(t, tr, lim).ReadResource(context.Background(), fileURI(filepath.Join(tr.root, "sub")))
	mustOK(t, err)
	if tc := res.Contents[0].Value.(*protocol.TextResourceContents); tc.Text != "[FILE] b.txt (6 bytes)\n… more entries than -max-results\n" {
		t.Errorf("sub with -max-results 1: %q", tc.Text)
	}
}
