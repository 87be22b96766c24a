package server_test

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

// "arguments": null in a 2026-07-28 tools/call is served exactly as if
// arguments were absent (the one leniency of the decoders, README
// "Strictness"; gen/overrides.go nullAsAbsent: the mcp-go and Go SDK
// clients send it for a nil arguments map), on Streamable HTTP and on
// stdio, on a server of the modern era and on a dual-era one. The answer
// to the null form is byte for byte the answer to the absent form, for
// every outcome absent arguments can have: the handler given {}
// (R-TOOL-09), a tool execution error for a required property (A9), the
// Mcp-Param-* headers compared against no arguments (R-HDR-07), an
// unknown tool, a tool that asks for input (R-MRTR).
func TestCallToolNullArgumentsServedAsAbsent(t *testing.T) {
	call := func(tool, args string) string {
		meta := HostileMeta
		if tool == "ask" {
			meta = HostileElicitMeta
		}
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + meta + `,"name":"` + tool + `"` + args + `}}`
	}
	cases := []struct {
		tool string
		hdr  []string // HTTP only
		want func(t *testing.T, w *Wire)
	}{
		{tool: "args", want: func(t *testing.T, w *Wire) {
			if w.Error != nil || w.Text(t, 0) != "{}" {
				t.Errorf("R-TOOL-09: the handler got %s, want {}", w.Raw)
			}
		}},
		{tool: "echo", want: func(t *testing.T, w *Wire) {
			if !w.IsError() || !strings.Contains(w.Text(t, 0), "Invalid arguments") || !strings.Contains(w.Text(t, 0), "text") {
				t.Errorf("A9: a required property missing is a tool execution error: %s", w.Raw)
			}
		}},
		{tool: "hdr", want: func(t *testing.T, w *Wire) {
			if w.Error != nil || w.Text(t, 0) != "ok" {
				t.Errorf("no header, no argument: %s", w.Raw)
			}
		}},
		{tool: "hdr", hdr: []string{"Mcp-Param-Region", "eu"}, want: func(t *testing.T, w *Wire) {
			if w.Error != nil || w.Text(t, 0) != "ok" {
				t.Errorf("R-HDR-07: the argument absent, its header is not expected: %s", w.Raw)
			}
		}},
		{tool: "nope", want: func(t *testing.T, w *Wire) {
			if w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "nope") {
				t.Errorf("R-TOOL-09: an unknown tool: %s", w.Raw)
			}
		}},
		{tool: "ask", want: func(t *testing.T, w *Wire) {
			if w.Result["resultType"] != "input_required" {
				t.Errorf("R-MRTR: input required: %s", w.Raw)
			}
		}},
	}
	// The input_required result's requestState is sealed afresh for each
	// answer; it is compared as present, not byte for byte.
	comparable := func(b []byte) string {
		var m M
		if json.Unmarshal(b, &m) != nil {
			return string(b)
		}
		if r, ok := m["result"].(M); ok && r["requestState"] != nil {
			r["requestState"] = "sealed"
		}
		out, _ := json.Marshal(m)
		return string(out)
	}
	for _, mode := range []legacy.Eras{legacy.ErasModern, legacy.ErasBoth} {
		t.Run(mode.String(), func(t *testing.T) {
			s := Fixture(t, Eras(mode))
			AddTool(t, s, `{"name":"args","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
				return server.TextResult(string(args)), nil
			})
			h := Handler(s, streamhttp.Options{})
			for _, c := range cases {
				name := c.tool + " " + strings.Join(c.hdr, ": ")
				t.Run("http "+name, func(t *testing.T) {
					mod := func(r *http.Request) {
						for i := 0; i+1 < len(c.hdr); i += 2 {
							r.Header.Set(c.hdr[i], c.hdr[i+1])
						}
					}
					absent := Post(t, h, []byte(call(c.tool, "")), mod)
					null := Post(t, h, []byte(call(c.tool, `,"arguments":null`)), mod)
					if null.Code != absent.Code || comparable(null.Body.Bytes()) != comparable(absent.Body.Bytes()) {
						t.Fatalf("null: %d %s\nabsent: %d %s", null.Code, null.Body.Bytes(), absent.Code, absent.Body.Bytes())
					}
					c.want(t, Single(t, null))
				})
			}
			t.Run("stdio", func(t *testing.T) {
				ss := StartStdio(t, s)
				for _, c := range cases {
					if c.hdr != nil {
						continue
					}
					ss.Send(call(c.tool, ""))
					absent := ss.Recv()
					ss.Send(call(c.tool, `,"arguments":null`))
					null := ss.Recv()
					if comparable(null.Raw) != comparable(absent.Raw) {
						t.Errorf("%s: null: %s\nabsent: %s", c.tool, null.Raw, absent.Raw)
					}
					c.want(t, null)
				}
				// The stream goes on: the null form broke nothing.
				ss.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":` + HostileMeta + `}}`)
				if w := ss.Recv(); w.Error != nil || w.Result["tools"] == nil {
					t.Errorf("tools/list after: %s", w.Raw)
				}
			})
		})
	}
}

// Every other null of these requests stays refused, as the schema has no
// null there: the tool's name, _meta, requestState and inputResponses of
// tools/call, and prompts/get's arguments, which no client sends as null.
// A null arguments is still a member: given twice it is a duplicate.
func TestOtherNullsStayRefused(t *testing.T) {
	cases := []struct {
		name, body string
		hdr        []string
		status     int
		code       int64 // on HTTP
		stdioCode  int64
	}{
		// R-HDR-03: the header cannot carry what the body does not have.
		{"tools/call name null", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + HostileMeta + `,"name":null,"arguments":null}}`, []string{server.HeaderName, "null"}, 400, protocol.CodeHeaderMismatchError, protocol.CodeInvalidParamsError},
		{"tools/call _meta null", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":null,"name":"echo","arguments":null}}`, []string{server.HeaderProtocolVersion, protocol.Revision}, 400, protocol.CodeInvalidParamsError, protocol.CodeInvalidParamsError},
		{"tools/call requestState null", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + HostileMeta + `,"name":"echo","arguments":null,"requestState":null}}`, nil, 400, protocol.CodeInvalidParamsError, protocol.CodeInvalidParamsError},
		{"tools/call inputResponses null", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + HostileMeta + `,"name":"echo","arguments":null,"inputResponses":null}}`, nil, 400, protocol.CodeInvalidParamsError, protocol.CodeInvalidParamsError},
		// R-BASE-07: a duplicate member is an invalid request, as before.
		{"tools/call arguments twice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + HostileMeta + `,"name":"echo","arguments":null,"arguments":{"text":"x"}}}`, nil, 400, protocol.CodeInvalidRequestError, protocol.CodeInvalidRequestError},
		{"prompts/get arguments null", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"_meta":` + HostileMeta + `,"name":"greet","arguments":null}}`, nil, 400, protocol.CodeInvalidParamsError, protocol.CodeInvalidParamsError},
	}
	for _, mode := range []legacy.Eras{legacy.ErasModern, legacy.ErasBoth} {
		s := Fixture(t, Eras(mode))
		h := Handler(s, streamhttp.Options{})
		ss := StartStdio(t, s)
		for _, c := range cases {
			t.Run(mode.String()+" "+c.name, func(t *testing.T) {
				rec := Post(t, h, []byte(c.body), func(r *http.Request) {
					for i := 0; i+1 < len(c.hdr); i += 2 {
						r.Header.Set(c.hdr[i], c.hdr[i+1])
					}
				})
				w := Single(t, rec)
				if rec.Code != c.status || w.Code() != c.code || w.Id() != "1" {
					t.Errorf("HTTP: %d %s, want %d and %d", rec.Code, w.Raw, c.status, c.code)
				}
				ss.Send(c.body)
				if w := ss.Recv(); w.Code() != c.stdioCode || w.Id() != "1" {
					t.Errorf("stdio: %s, want %d", w.Raw, c.stdioCode)
				}
			})
		}
	}
}
