package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// secret is the content of the file outside the allowed directories;
// no answer may ever hold it.
const secret = "TOPSECRET-outside"

// tree is a test layout: root and root2 are allowed, out is not.
//
//	root/a.txt               "alpha\nbeta\ngamma\n"
//	root/sub/b.txt           "bravo\n"
//	root/sub/deep/c.md       "charlie\n"
//	root/linkfile   -> out/secret.txt
//	root/linkdir    -> out
//	root/chain1     -> chain2 -> linkfile
//	root/inlink     -> sub     (a symlink that stays inside)
//	root2/d.txt              "delta\n"
//	out/secret.txt           secret
type tree struct {
	root, root2, out string
}

func newTree(t *testing.T) tree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := tree{root: filepath.Join(base, "root"), root2: filepath.Join(base, "root2"), out: filepath.Join(base, "out")}
	for _, d := range []string{tr.root + "/sub/deep", tr.root2, tr.out} {
		mustOK(t, os.MkdirAll(d, 0o755))
	}
	for name, text := range map[string]string{
		tr.root + "/a.txt": "alpha\nbeta\ngamma\n", tr.root + "/sub/b.txt": "bravo\n", tr.root + "/sub/deep/c.md": "charlie\n",
		tr.root2 + "/d.txt": "delta\n", tr.out + "/secret.txt": secret,
	} {
		mustOK(t, os.WriteFile(name, []byte(text), 0o644))
	}
	for link, target := range map[string]string{
		"linkfile": filepath.Join(tr.out, "secret.txt"), "linkdir": tr.out, "chain1": "chain2", "chain2": "linkfile", "inlink": "sub",
	} {
		mustOK(t, os.Symlink(target, filepath.Join(tr.root, link)))
	}
	return tr
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// newClient serves the tree's two roots with lim and returns a client.
func newClient(t *testing.T, tr tree, lim limits) *servertest.Client {
	t.Helper()
	return servertest.New(newTestServer(t, tr, lim))
}

func newTestServer(t *testing.T, tr tree, lim limits) *server.Server {
	t.Helper()
	f, err := newFS([]string{tr.root, tr.root2}, lim)
	mustOK(t, err)
	t.Cleanup(func() { _ = f.Close() })
	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), f)
	mustOK(t, err)
	return s
}

// call calls a tool that must succeed and decodes its structuredContent
// into out (when not nil).
func call(t *testing.T, c *servertest.Client, name string, args map[string]any, out any) *protocol.CallToolResult {
	t.Helper()
	res, err := c.CallTool(context.Background(), name, args)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if res.IsError != nil && *res.IsError {
		t.Fatalf("%s %v: tool error %s", name, args, text(res))
	}
	if out != nil {
		mustOK(t, json.Unmarshal(res.StructuredContent, out))
	}
	return res
}

// callFails calls a tool that must answer with a tool execution error
// (R-TOOL-09) and returns its text.
func callFails(t *testing.T, c *servertest.Client, name string, args map[string]any) string {
	t.Helper()
	res, err := c.CallTool(context.Background(), name, args)
	if err != nil {
		t.Fatalf("%s %v: want a tool error result, got the protocol error %v", name, args, err)
	}
	if res.IsError == nil || !*res.IsError {
		t.Fatalf("%s %v: want isError, got %s", name, args, text(res))
	}
	return text(res)
}

// text is every text block of res, joined; other blocks as their JSON.
func text(res *protocol.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.Value.(*protocol.TextContent); ok {
			parts = append(parts, tc.Text)
		} else {
			b, _ := json.Marshal(c)
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}
