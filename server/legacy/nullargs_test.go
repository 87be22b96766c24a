package legacy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// nullArgsCase is a legacy tools/call whose answer is the same with
// "arguments": null as without arguments.
type nullArgsCase struct {
	tool string
	hdr  []string // HTTP only
	want func(t *testing.T, status int, w *Wire)
}

var nullArgsCases = []nullArgsCase{
	{tool: "args", want: func(t *testing.T, _ int, w *Wire) {
		if w.Error != nil || w.Text(t, 0) != "{}" {
			t.Errorf("the handler got %s, want {}", w.Raw)
		}
	}},
	{tool: "echo", want: func(t *testing.T, _ int, w *Wire) {
		if !w.IsError() || !strings.Contains(w.Text(t, 0), "Invalid arguments") {
			t.Errorf("a required property missing is a tool execution error: %s", w.Raw)
		}
	}},
	{tool: "count", want: func(t *testing.T, _ int, w *Wire) {
		if w.Error != nil || w.Text(t, 0) != "counted" {
			t.Errorf("count: %s", w.Raw)
		}
	}},
	// S7: a Mcp-Param-* header present must match its argument; with no
	// argument it cannot, a -32600 of the transport (400).
	{tool: "hdr", hdr: []string{"Mcp-Param-Region", "eu"}, want: func(t *testing.T, status int, w *Wire) {
		if status != 400 || w.Code() != protocol.CodeInvalidRequestError {
			t.Errorf("S7: %d %s", status, w.Raw)
		}
	}},
	{tool: "nope", want: func(t *testing.T, _ int, w *Wire) {
		if w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "nope") {
			t.Errorf("an unknown tool: %s", w.Raw)
		}
	}},
	// H5: a tool that requires an extension is refused before its
	// arguments are looked at.
	{tool: "tasky", want: func(t *testing.T, _ int, w *Wire) {
		if w.Error == nil {
			t.Errorf("H5: %s", w.Raw)
		}
	}},
}

func addArgsTool(t *testing.T, s *server.Server) {
	AddTool(t, s, `{"name":"args","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult(string(args)), nil
	})
}

// withArgs returns legacy tools/call params naming tool, with args
// appended ("" for none).
func withArgs(tool, args string) string { return `{"name":"` + tool + `"` + args + `}` }

// A legacy session's tools/call with "arguments": null is served exactly
// as one without arguments (gen/overrides.go nullAsAbsent: the mcp-go and
// Go SDK clients send it for a nil arguments map), in every legacy
// revision, over Streamable HTTP and stdio, on a dual-era server and a
// legacy-only one: the answer is byte for byte the same (L5 decodes both
// alike; L9's header check, L10's validation and the handler see no
// arguments, the handler {}).
func TestLegacyCallToolNullArgumentsServedAsAbsent(t *testing.T) {
	for _, mode := range []legacy.Eras{legacy.ErasBoth, legacy.ErasLegacy} {
		for _, rev := range legacyRevs {
			t.Run(mode.String()+" "+rev, func(t *testing.T) {
				f := newLegacyFixture(t, mode)
				addArgsTool(t, f.Server)
				t.Run("http", func(t *testing.T) {
					c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), rev)
					c.Open(`{}`)
					for i, tc := range nullArgsCases {
						absent, _, ra := c.Call(i, "tools/call", withArgs(tc.tool, ""), tc.hdr...)
						null, _, rn := c.Call(i, "tools/call", withArgs(tc.tool, `,"arguments":null`), tc.hdr...)
						if rn.Code != ra.Code || string(null.Raw) != string(absent.Raw) {
							t.Errorf("%s: null: %d %s\nabsent: %d %s", tc.tool, rn.Code, null.Raw, ra.Code, absent.Raw)
						}
						tc.want(t, rn.Code, null)
					}
				})
				t.Run("stdio", func(t *testing.T) {
					c := StartLegacyStdio(t, f.Server, rev)
					c.Open(`{}`)
					for i, tc := range nullArgsCases {
						if tc.hdr != nil {
							continue
						}
						absent, _ := c.Call(i, "tools/call", withArgs(tc.tool, ""))
						null, _ := c.Call(i, "tools/call", withArgs(tc.tool, `,"arguments":null`))
						if string(null.Raw) != string(absent.Raw) {
							t.Errorf("%s: null: %s\nabsent: %s", tc.tool, null.Raw, absent.Raw)
						}
						tc.want(t, 200, null)
					}
				})
			})
		}
	}
}

// In a legacy session every other null stays refused with -32602 (200
// on HTTP, as a session's method errors are, §1.6): the tool's name,
// _meta and task of tools/call, the progress token, and prompts/get's
// arguments; a null arguments given twice is a duplicate member, as
// before (-32600, 400).
func TestLegacyOtherNullsStayRefused(t *testing.T) {
	cases := []struct {
		name, method, params string
		status               int
		code                 int64
	}{
		{"name null", "tools/call", `{"name":null,"arguments":null}`, 200, protocol.CodeInvalidParamsError},
		{"_meta null", "tools/call", `{"name":"count","arguments":null,"_meta":null}`, 200, protocol.CodeInvalidParamsError},
		{"progressToken null", "tools/call", `{"name":"count","arguments":null,"_meta":{"progressToken":null}}`, 200, protocol.CodeInvalidParamsError},
		{"task null", "tools/call", `{"name":"count","arguments":null,"task":null}`, 200, protocol.CodeInvalidParamsError},
		{"prompts/get arguments null", "prompts/get", `{"name":"greet","arguments":null}`, 200, protocol.CodeInvalidParamsError},
		// A duplicate member is not a message at all: -32600, 400 (§1.6).
		{"arguments twice", "tools/call", `{"name":"count","arguments":null,"arguments":{}}`, 400, protocol.CodeInvalidRequestError},
	}
	for _, rev := range legacyRevs {
		t.Run(rev, func(t *testing.T) {
			f := newLegacyFixture(t, legacy.ErasBoth)
			c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), rev)
			c.Open(`{}`)
			sc := StartLegacyStdio(t, f.Server, rev)
			sc.Open(`{}`)
			n := f.calls.get("count")
			for i, tc := range cases {
				w, _, rec := c.Call(i, tc.method, tc.params)
				if rec.Code != tc.status || w.Code() != tc.code {
					t.Errorf("HTTP %s: %d %s, want %d and %d", tc.name, rec.Code, w.Raw, tc.status, tc.code)
				}
				if w, _ := sc.Call(i, tc.method, tc.params); w.Code() != tc.code {
					t.Errorf("stdio %s: %s, want %d", tc.name, w.Raw, tc.code)
				}
			}
			if f.calls.get("count") != n {
				t.Errorf("the tool ran")
			}
		})
	}
}

// In a 2025-03-26 batch, an element with "arguments": null is served as
// the same element without arguments.
func TestLegacyBatchNullArguments(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth)
	addArgsTool(t, f.Server)
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-03-26")
	c.Open("{}")
	batch := func(args string) []byte {
		rec := c.Send(http.MethodPost, "["+EraBody(1, "tools/call", withArgs("args", args))+","+EraBody(2, "tools/call", withArgs("echo", args))+"]")
		if rec.Code != 200 {
			t.Fatalf("batch: %d %s", rec.Code, rec.Body.Bytes())
		}
		return rec.Body.Bytes()
	}
	null, absent := batch(`,"arguments":null`), batch("")
	if string(null) != string(absent) {
		t.Errorf("null: %s\nabsent: %s", null, absent)
	}
	var answers []json.RawMessage
	if err := json.Unmarshal(null, &answers); err != nil || len(answers) != 2 {
		t.Fatalf("batch answer %s: %v", null, err)
	}
	for _, a := range answers {
		CheckLegacyMessage(t, "2025-03-26", a, "")
		w := DecodeWire(t, a)
		switch w.Id() {
		case "1":
			if w.Text(t, 0) != "{}" {
				t.Errorf("args: %s", w.Raw)
			}
		case "2":
			if !w.IsError() {
				t.Errorf("echo without text: %s", w.Raw)
			}
		}
	}
}
