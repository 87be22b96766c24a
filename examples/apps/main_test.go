package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/ext/apps"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/servertest"
)

var uiClient = servertest.WithCapabilities(protocol.ClientCapabilities{Extensions: map[string]protocol.JSONObject{
	apps.ExtensionID: protocol.JSONObject(`{"mimeTypes":["` + apps.MIMEType + `"]}`),
}})

// The port's tool and resource: get-time linked to the view, answering
// with the clock's time as text and structuredContent; the view read with
// the MCP Apps MIME type, holding the elements of the original's view.
func TestGetTimeApp(t *testing.T) {
	at := time.Date(2026, 1, 26, 9, 30, 15, 250_000_000, time.FixedZone("x", 3600))
	s, err := newServer(func() time.Time { return at })
	if err != nil {
		t.Fatal(err)
	}
	c := servertest.New(s, uiClient)
	ctx := context.Background()
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name != "get-time" || tools[0].Title == nil || *tools[0].Title != "Get Time" || tools[0].OutputSchema == nil {
		t.Fatalf("tools = %+v", tools)
	}
	meta, err := protocol.Marshal(tools[0].Meta)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"ui":{"resourceUri":"ui://get-time/mcp-app.html"},"ui/resourceUri":"ui://get-time/mcp-app.html"}`; string(meta) != want {
		t.Errorf("_meta = %s, want %s", meta, want)
	}
	res, err := c.CallTool(ctx, "get-time", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	const want = "2026-01-26T08:30:15.250Z"
	var sc struct{ Time string }
	if err := json.Unmarshal(res.StructuredContent, &sc); err != nil || sc.Time != want {
		t.Errorf("structuredContent %s, want time %s", res.StructuredContent, want)
	}
	if tc, ok := res.Content[0].Value.(*protocol.TextContent); !ok || tc.Text != want {
		t.Errorf("content %+v, want the text %s", res.Content, want)
	}
	read, err := c.ReadResource(ctx, resourceURI)
	if err != nil {
		t.Fatal(err)
	}
	tc, ok := read.Contents[0].Value.(*protocol.TextResourceContents)
	if !ok || tc.MIMEType == nil || *tc.MIMEType != apps.MIMEType || tc.Text != viewHTML {
		t.Fatalf("contents %+v", read.Contents)
	}
	for _, id := range []string{"server-time", "get-time-btn", "message-text", "send-message-btn", "log-text", "send-log-btn", "link-url", "open-link-btn"} {
		if !strings.Contains(viewHTML, `id="`+id+`"`) {
			t.Errorf("the view lacks #%s", id)
		}
	}
}

// run refuses stray arguments and unknown flags.
func TestRunUsage(t *testing.T) {
	if err := run(context.Background(), []string{"extra"}); err == nil {
		t.Error("stray argument accepted")
	}
	if err := run(context.Background(), []string{"-nosuch"}); err == nil {
		t.Error("unknown flag accepted")
	}
}

// TestHTTPServerTimeouts: the HTTP server has the limits the other
// examples have (README, limits: example server timeouts).
func TestHTTPServerTimeouts(t *testing.T) {
	hs := newHTTPServer(http.NotFoundHandler())
	if hs.ReadHeaderTimeout != 10*time.Second || hs.ReadTimeout != 60*time.Second || hs.IdleTimeout != 120*time.Second || hs.WriteTimeout != 0 {
		t.Errorf("timeouts: read header %v, read %v, idle %v, write %v; want 10s, 60s, 120s, none", hs.ReadHeaderTimeout, hs.ReadTimeout, hs.IdleTimeout, hs.WriteTimeout)
	}
}
