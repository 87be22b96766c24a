package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server/stdio"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// modernMeta is the _meta of a 2026-07-28 request (R-STATE-01: each
// request carries its version and capabilities).
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// TestOverHTTP calls read_text_file over a real socket, as a
// 2026-07-28 client, through the handler main mounts.
func TestOverHTTP(t *testing.T) {
	s := newTestServer(t, newTree(t), defaultLimits())
	hs := httptest.NewServer(streamhttp.Handler(s, streamhttp.Options{}))
	defer hs.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt","head":1},` + modernMeta + `}}`
	req, err := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
	mustOK(t, err)
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "read_text_file"} {
		req.Header.Set(k, v)
	}
	resp, err := hs.Client().Do(req)
	mustOK(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"text":"alpha\n"`) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

// serveStdio runs the server on pipes; send writes a line and returns the
// next line the server writes.
func serveStdio(t *testing.T, tr tree) (send func(line string) string) {
	t.Helper()
	s := newTestServer(t, tr, defaultLimits())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- stdio.Serve(ctx, s, inR, outW, stdio.Options{})
		_ = outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		<-served
	})
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return func(line string) string {
		t.Helper()
		_, err := io.WriteString(inW, line+"\n")
		mustOK(t, err)
		if strings.Contains(line, `"id"`) {
			select {
			case l := <-lines:
				return l
			case <-time.After(10 * time.Second):
				t.Fatal("no answer on stdout within 10 s")
			}
		}
		return ""
	}
}

// TestOverStdio calls list_allowed_directories over stdio (ServeStdio on
// pipes), as a 2026-07-28 client: one line in, one line out.
func TestOverStdio(t *testing.T) {
	tr := newTree(t)
	send := serveStdio(t, tr)
	line := send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_allowed_directories","arguments":{},` + modernMeta + "}}")
	var m struct {
		ID     int `json:"id"`
		Result struct {
			StructuredContent dirsOut `json:"structuredContent"`
		} `json:"result"`
	}
	mustOK(t, json.Unmarshal([]byte(line), &m))
	if m.ID != 7 || len(m.Result.StructuredContent.Directories) != 2 || m.Result.StructuredContent.Directories[0] != tr.root {
		t.Errorf("got %s", line)
	}
}

// TestLegacyStdio: a 2025-06-18 client (initialize) gets the same
// confinement; a resource outside is -32002 in its revision (H6, the
// conversion of the server's resource-not-found), never the content.
func TestLegacyStdio(t *testing.T) {
	tr := newTree(t)
	send := serveStdio(t, tr)
	if l := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); !strings.Contains(l, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize: %s", l)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	l := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"linkfile"}}}`)
	if !strings.Contains(l, `"isError":true`) || !strings.Contains(l, "outside the allowed directories") || strings.Contains(l, secret) {
		t.Errorf("read_text_file linkfile: %s", l)
	}
	l = send(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}`)
	if !strings.Contains(l, `"code":-32002`) || strings.Contains(l, "root:") {
		t.Errorf("resources/read file:///etc/passwd: %s", l)
	}
	l = send(`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"` + fileURI(tr.root+"/sub/b.txt") + `"}}`)
	if !strings.Contains(l, `"text":"bravo\n"`) {
		t.Errorf("resources/read sub/b.txt: %s", l)
	}
}
