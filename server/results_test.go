package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestResultHelpers sends each helper's result through tools/call and
// checks the wire form (tools.mdx: content blocks, isError, structured
// content with its text copy).
func TestResultHelpers(t *testing.T) {
	s := NewServer(t)
	png := []byte{0x89, 'P', 'N', 'G', 0, 0xff}
	results := map[string]func() (*protocol.CallToolResult, error){
		"error": func() (*protocol.CallToolResult, error) { return server.ErrorResult("disk full"), nil },
		"image": func() (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{Content: []protocol.ContentBlock{server.ImageBytes(png, "image/png")}}, nil
		},
		"blob": func() (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{Content: []protocol.ContentBlock{server.EmbeddedBlob("file:///a.png", "image/png", png), server.EmbeddedBlob("file:///b", "", nil)}}, nil
		},
		"link": func() (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{Content: []protocol.ContentBlock{server.ResourceLink("file:///a.txt", "a.txt", "text/plain"), server.ResourceLink("file:///b", "b", "")}}, nil
		},
		"structured": func() (*protocol.CallToolResult, error) {
			return server.StructuredResult(struct {
				City  string  `json:"city"`
				TempC float64 `json:"tempC"`
			}{"Oslo", -3.5})
		},
	}
	for name, f := range results {
		AddTool(t, s, `{"name":"`+name+`","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) { return f() })
	}
	AddTool(t, s, `{"name":"typed","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}`,
		func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return server.StructuredResult(map[string]int{"n": 7})
		})
	h := Handler(s, streamhttp.Options{})
	content := func(t *testing.T, name string) (*Wire, string) {
		t.Helper()
		w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": name}))
		if w.Error != nil {
			t.Fatalf("%s", w.Raw)
		}
		b, _ := json.Marshal(w.Result["content"])
		return w, string(b)
	}
	t.Run("ErrorResult", func(t *testing.T) {
		w, _ := content(t, "error")
		if !w.IsError() || w.Text(t, 0) != "disk full" {
			t.Errorf("%s", w.Raw)
		}
	})
	t.Run("ImageBytes encodes base64", func(t *testing.T) {
		_, c := content(t, "image")
		if c != `[{"data":"iVBORwD/","mimeType":"image/png","type":"image"}]` {
			t.Errorf("%s", c)
		}
	})
	t.Run("EmbeddedBlob", func(t *testing.T) {
		_, c := content(t, "blob")
		want := `[{"resource":{"blob":"iVBORwD/","mimeType":"image/png","uri":"file:///a.png"},"type":"resource"},{"resource":{"blob":"","uri":"file:///b"},"type":"resource"}]`
		if c != want {
			t.Errorf("%s\nwant %s", c, want)
		}
	})
	t.Run("ResourceLink", func(t *testing.T) {
		_, c := content(t, "link")
		want := `[{"mimeType":"text/plain","name":"a.txt","type":"resource_link","uri":"file:///a.txt"},{"name":"b","type":"resource_link","uri":"file:///b"}]`
		if c != want {
			t.Errorf("%s\nwant %s", c, want)
		}
	})
	t.Run("StructuredResult has its text copy", func(t *testing.T) {
		w, _ := content(t, "structured")
		sc, _ := json.Marshal(w.Result["structuredContent"])
		if string(sc) != `{"city":"Oslo","tempC":-3.5}` || w.Text(t, 0) != `{"city":"Oslo","tempC":-3.5}` {
			t.Errorf("%s", w.Raw)
		}
	})
	t.Run("StructuredResult meets an outputSchema", func(t *testing.T) {
		w, _ := content(t, "typed")
		if w.IsError() || w.Text(t, 0) != `{"n":7}` {
			t.Errorf("%s", w.Raw)
		}
	})
}

// TestStructuredResultNotObject: structuredContent must be an object; the
// error names the type.
func TestStructuredResultNotObject(t *testing.T) {
	for _, v := range []any{[]int{1}, "x", 3, nil, func() {}} {
		if res, err := server.StructuredResult(v); err == nil {
			t.Errorf("%T: no error, %+v", v, res)
		} else if !strings.Contains(err.Error(), "StructuredResult") {
			t.Errorf("%T: %v", v, err)
		}
	}
}

// TestPtr checks the pointer helper for optional fields.
func TestPtr(t *testing.T) {
	p := server.Ptr("Weather")
	q := server.Ptr("Weather")
	if *p != "Weather" || p == q {
		t.Errorf("Ptr: %v %v", p, q)
	}
	d := protocol.Tool{Name: "w", Title: server.Ptr("Weather")}
	if *d.Title != "Weather" {
		t.Error(d.Title)
	}
}
