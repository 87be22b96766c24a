package legacy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The era decision (docs/dual-era.md §1): every row of the HTTP POST table
// (§1.4), every mixed-signal pairing (§1.5), the GET and DELETE rows
// (§1.7) and the stdio rows (§1.8), each on the modes it concerns. Rows
// that need a live session are in session_http_test.go and
// stdio_legacy_test.go.

// Bodies of the era tests.
const (
	modernMetaJSON = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	legacyInit     = `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`
)

// modernCall is a valid 2026-07-28 tools/call of the counting tool.
var modernCall = EraBody(1, "tools/call", `{"_meta":`+modernMetaJSON+`,"name":"count","arguments":{}}`)

// eraFixture is the fixture server serving eras, with a tool that counts
// its calls: a refusal must never run it.
func eraFixture(t testing.TB, eras legacy.Eras, opts ...any) (*server.Server, *atomic.Int64) {
	t.Helper()
	s := Fixture(t, append([]any{Eras(eras)}, opts...)...)
	var n atomic.Int64
	AddTool(t, s, `{"name":"count","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		n.Add(1)
		return server.TextResult("counted"), nil
	})
	return s, &n
}

// eraCase is one row: a request and the exact answer on the listed modes.
type eraCase struct {
	name   string // the row (§1.4, §1.5, §1.7) and what it checks
	modes  []legacy.Eras
	verb   string // POST when empty
	body   string
	hdr    []string
	status int
	code   int64  // JSON-RPC error code; 0 for a result or no body
	id     string // the echoed id, raw JSON; "" for none
	empty  bool   // no body (202, 204)
	msg    string // a substring of the error message
	calls  int64  // runs of the counting tool
	check  func(t *testing.T, rec *httptest.ResponseRecorder, w *Wire)
}

var (
	both       = []legacy.Eras{legacy.ErasBoth}
	modernOnly = []legacy.Eras{legacy.ErasModern}
	legacyOnly = []legacy.Eras{legacy.ErasLegacy}
	dualModes  = []legacy.Eras{legacy.ErasBoth, legacy.ErasLegacy}
	allModes   = []legacy.Eras{legacy.ErasModern, legacy.ErasBoth, legacy.ErasLegacy}
)

func runEraCase(t *testing.T, c eraCase) {
	for _, mode := range c.modes {
		t.Run(mode.String(), func(t *testing.T) {
			s, n := eraFixture(t, mode)
			verb := c.verb
			if verb == "" {
				verb = http.MethodPost
			}
			rec := EraRequest(t, Handler(s, streamhttp.Options{}), verb, c.body, c.hdr...)
			if rec.Code != c.status {
				t.Errorf("status %d, want %d; body %s", rec.Code, c.status, rec.Body.Bytes())
			}
			if sid := rec.Header().Get(legacy.HeaderSessionID); sid != "" {
				t.Errorf("a refusal or a stateless answer carries Mcp-Session-Id %q", sid)
			}
			if got := n.Load(); got != c.calls {
				t.Errorf("the counting tool ran %d times, want %d", got, c.calls)
			}
			if c.empty {
				if rec.Body.Len() != 0 {
					t.Errorf("body %q, want none", rec.Body.Bytes())
				}
				return
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			w := DecodeWire(t, rec.Body.Bytes())
			if got := w.Code(); got != c.code {
				t.Errorf("code %d, want %d; body %s", got, c.code, rec.Body.Bytes())
			}
			if c.code == 0 && w.Result == nil {
				t.Errorf("want a result, got %s", rec.Body.Bytes())
			}
			if mode == legacy.ErasLegacy && c.code <= -32020 && c.code >= -32099 {
				t.Errorf("§1.9: ErasLegacy answered with the 2026-07-28 code %d", c.code)
			}
			if got := w.Id(); got != c.id {
				t.Errorf("id %q, want %q (\"\" = absent); body %s", got, c.id, rec.Body.Bytes())
			}
			if c.msg != "" && (w.Error == nil || !strings.Contains(w.Error.Message, c.msg)) {
				t.Errorf("message does not contain %q: %s", c.msg, rec.Body.Bytes())
			}
			if c.check != nil {
				c.check(t, rec, w)
			}
		})
	}
}

// supported checks data.supported.
func supported(want ...string) func(t *testing.T, _ *httptest.ResponseRecorder, w *Wire) {
	return func(t *testing.T, _ *httptest.ResponseRecorder, w *Wire) {
		t.Helper()
		got, _ := w.Data(t)["supported"].([]any)
		var gs []string
		for _, v := range got {
			s, _ := v.(string)
			gs = append(gs, s)
		}
		if !slices.Equal(gs, want) {
			t.Errorf("data.supported %v, want %v", gs, want)
		}
	}
}

var advertisedBoth = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// TestEraPOST is the POST decision table of docs/dual-era.md §1.4, row by
// row, and the mixed-signal pairings of §1.5 (issue 10's list first), on
// every mode each row concerns. Rows needing a live session are in
// TestSessionRows.
func TestEraPOST(t *testing.T) {
	initBody := EraBody(1, "initialize", legacyInit)
	cases := []eraCase{
		// P1
		{name: "P1 invalid JSON", modes: allModes, body: `{"jsonrpc":`, status: 400, code: protocol.CodeParseError},
		{name: "P1 invalid JSON with a session id and a modern header", modes: dualModes, body: `{nope`, hdr: []string{legacy.HeaderSessionID, "x", server.HeaderProtocolVersion, "2026-07-28"}, status: 400, code: protocol.CodeParseError},
		{name: "P1 invalid JSON array", modes: dualModes, body: `[1,`, status: 400, code: protocol.CodeParseError},

		// §1.5 pairing 1: a modern header on a legacy-shaped body (M3).
		{name: "M3 §1.5 modern header on initialize is -32601 naming what is advertised (R-VER-05)", modes: both, body: initBody,
			hdr: []string{server.HeaderProtocolVersion, "2026-07-28"}, status: 404, code: protocol.CodeMethodNotFoundError, id: "1", check: supported(advertisedBoth...)},
		{name: "M3 §1.5 modern header on ping", modes: both, body: EraBody(2, "ping", ""), hdr: []string{server.HeaderProtocolVersion, "2026-07-28"}, status: 404, code: protocol.CodeMethodNotFoundError, id: "2"},
		{name: "M3 §1.5 modern header on logging/setLevel", modes: both, body: EraBody(3, "logging/setLevel", `{"level":"info"}`), hdr: []string{server.HeaderProtocolVersion, "2026-07-28"}, status: 404, code: protocol.CodeMethodNotFoundError, id: "3"},
		// §1.5 pairing 2 (and 8): a modern header on a modern method without _meta, the peer PR's hole.
		{name: "M3 §1.5 modern header, tools/list without _meta is -32602 (R-META-01)", modes: both, body: EraBody(4, "tools/list", `{}`), hdr: []string{server.HeaderProtocolVersion, "2026-07-28"}, status: 400, code: protocol.CodeInvalidParamsError, id: "4"},
		{name: "M3 §1.5 modern headers, tools/call without _meta never runs the tool", modes: both, body: EraBody(5, "tools/call", `{"name":"count"}`),
			hdr: []string{server.HeaderProtocolVersion, "2026-07-28", server.HeaderMethod, "tools/call", server.HeaderName, "count"}, status: 400, code: protocol.CodeInvalidParamsError, id: "5"},
		{name: "M3 unknown header version, legacy body is -32602", modes: both, body: EraBody(6, "tools/list", ""), hdr: []string{server.HeaderProtocolVersion, "v999"}, status: 400, code: protocol.CodeInvalidParamsError, id: "6"},
		{name: "M3 §1.5 modern header on a batch", modes: both, body: `[` + EraBody(7, "tools/list", "") + `]`, hdr: []string{server.HeaderProtocolVersion, "2026-07-28"}, status: 400, code: protocol.CodeInvalidRequestError},
		{name: "M3 a valid modern call is served", modes: both, body: modernCall,
			hdr: []string{server.HeaderProtocolVersion, "2026-07-28", server.HeaderMethod, "tools/call", server.HeaderName, "count"}, status: 200, id: "1", calls: 1,
			check: func(t *testing.T, _ *httptest.ResponseRecorder, w *Wire) {
				if w.Result["resultType"] != "complete" {
					t.Errorf("a modern result without resultType: %s", w.Raw)
				}
			}},
		{name: "M3 a response with a modern header goes to the modern pipeline (today's answer)", modes: both, body: `{"jsonrpc":"2.0","id":1,"result":{}}`, hdr: []string{server.HeaderProtocolVersion, "2026-07-28"}, status: 400, code: protocol.CodeInvalidRequestError, id: "1"},

		// §1.5 pairing 3: a session id on a modern request.
		{name: "M1 §1.5 session id with a modern header and _meta is -32020, not looked up", modes: both, body: modernCall,
			hdr: []string{legacy.HeaderSessionID, "abc", server.HeaderProtocolVersion, "2026-07-28", server.HeaderMethod, "tools/call", server.HeaderName, "count"}, status: 400, code: protocol.CodeHeaderMismatchError, id: "1", msg: legacy.MsgSessionNotModern},
		{name: "M1 R-HTTP-17 session id on a modern request is ignored under ErasModern", modes: modernOnly, body: modernCall,
			hdr: []string{legacy.HeaderSessionID, "abc", server.HeaderProtocolVersion, "2026-07-28", server.HeaderMethod, "tools/call", server.HeaderName, "count"}, status: 200, id: "1", calls: 1},
		{name: "M1 session id with a modern header on a legacy body", modes: both, body: EraBody(8, "tools/list", ""),
			hdr: []string{legacy.HeaderSessionID, "abc", server.HeaderProtocolVersion, "2026-07-28"}, status: 400, code: protocol.CodeHeaderMismatchError, id: "8"},
		{name: "M1 §1.5 a repeated MCP-Protocol-Version with a session id is -32020 (INVALID is modern)", modes: both, body: EraBody(9, "tools/list", ""),
			hdr: []string{legacy.HeaderSessionID, "abc", server.HeaderProtocolVersion, "2025-11-25", server.HeaderProtocolVersion, "2025-11-25"}, status: 400, code: protocol.CodeHeaderMismatchError, id: "9"},
		{name: "M1 a header with a control character is INVALID", modes: both, body: EraBody(10, "tools/list", ""),
			hdr: []string{legacy.HeaderSessionID, "abc", server.HeaderProtocolVersion, "2025-11-25\x01"}, status: 400, code: protocol.CodeHeaderMismatchError, id: "10"},
		{name: "M1 the session id is never looked up: an unknown one is still -32020", modes: both, body: modernCall,
			hdr: []string{legacy.HeaderSessionID, "never-issued", server.HeaderProtocolVersion, "2026-07-28", server.HeaderMethod, "tools/call", server.HeaderName, "count"}, status: 400, code: protocol.CodeHeaderMismatchError, id: "1"},
		{name: "M2 §1.5 session id, no header, modern _meta", modes: both, body: modernCall, hdr: []string{legacy.HeaderSessionID, "abc"},
			status: 400, code: protocol.CodeHeaderMismatchError, id: "1", msg: legacy.MsgSessionNotModern},
		{name: "M2 session id, a legacy header, modern _meta", modes: both, body: modernCall, hdr: []string{legacy.HeaderSessionID, "abc", server.HeaderProtocolVersion, "2025-11-25"},
			status: 400, code: protocol.CodeHeaderMismatchError, id: "1"},

		// §1.5 pairings 5-7, 9: modern _meta without a modern header (M4).
		{name: "M4 §1.5 a legacy version in modern _meta, with a matching header, is -32022", modes: both,
			body: EraBody(11, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}`),
			hdr:  []string{server.HeaderProtocolVersion, "2025-11-25", server.HeaderMethod, "tools/list"}, status: 400, code: protocol.CodeUnsupportedProtocolVersionError, id: "11",
			msg: "2025-11-25 is served only after initialize",
			check: func(t *testing.T, rec *httptest.ResponseRecorder, w *Wire) {
				supported(advertisedBoth...)(t, rec, w)
				if w.Data(t)["requested"] != "2025-11-25" {
					t.Errorf("data.requested: %s", w.Raw)
				}
			}},
		{name: "M4 §1.5 the same without a header is -32020 (R-HDR-01)", modes: both,
			body:   EraBody(12, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}`),
			status: 400, code: protocol.CodeHeaderMismatchError, id: "12", msg: "Missing MCP-Protocol-Version"},
		{name: "M4 modern _meta, no header", modes: both, body: modernCall, status: 400, code: protocol.CodeHeaderMismatchError, id: "1", msg: "Missing MCP-Protocol-Version"},
		{name: "M4 §1.5 modern _meta 2026-07-28 with a legacy header is -32020", modes: both, body: modernCall,
			hdr: []string{server.HeaderProtocolVersion, "2025-06-18", server.HeaderMethod, "tools/call", server.HeaderName, "count"}, status: 400, code: protocol.CodeHeaderMismatchError, id: "1", msg: "does not match"},
		{name: "M4 §1.5 _meta with clientCapabilities only is -32602 (step 3 before 4)", modes: both,
			body: EraBody(13, "tools/list", `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`), status: 400, code: protocol.CodeInvalidParamsError, id: "13"},

		// M5: ErasModern is today's server.
		{name: "M5 R-VER-05 initialize under ErasModern names 2026-07-28 only", modes: modernOnly, body: initBody, status: 404, code: protocol.CodeMethodNotFoundError, id: "1", check: supported("2026-07-28")},
		{name: "M5 tools/list without _meta under ErasModern", modes: modernOnly, body: EraBody(14, "tools/list", ""), status: 400, code: protocol.CodeInvalidParamsError, id: "14"},
		{name: "M5 ping under ErasModern", modes: modernOnly, body: EraBody(15, "ping", ""), status: 404, code: protocol.CodeMethodNotFoundError, id: "15"},

		// E1: ErasLegacy refuses anything modern with -32600, never -3202x (§1.9).
		{name: "E1 a modern request under ErasLegacy", modes: legacyOnly, body: modernCall,
			hdr: []string{server.HeaderProtocolVersion, "2026-07-28", server.HeaderMethod, "tools/call", server.HeaderName, "count"}, status: 400, code: protocol.CodeInvalidRequestError, id: "1", msg: "serves MCP 2024-11-05 to 2025-11-25"},
		{name: "E1 modern _meta without a header under ErasLegacy", modes: legacyOnly, body: modernCall, status: 400, code: protocol.CodeInvalidRequestError, id: "1"},
		{name: "E1 server/discover under ErasLegacy", modes: legacyOnly, body: EraBody(16, "server/discover", `{"_meta":`+modernMetaJSON+`}`),
			hdr: []string{server.HeaderProtocolVersion, "2026-07-28"}, status: 400, code: protocol.CodeInvalidRequestError, id: "16"},
		{name: "E1 a modern header with a session id under ErasLegacy", modes: legacyOnly, body: EraBody(17, "tools/list", ""),
			hdr: []string{legacy.HeaderSessionID, "abc", server.HeaderProtocolVersion, "2026-07-28"}, status: 400, code: protocol.CodeInvalidRequestError, id: "17"},

		// A1-A6: legacy messages without a session id.
		{name: "A2 ping without a session is {} exactly", modes: dualModes, body: EraBody(18, "ping", ""), status: 200, id: "18",
			check: func(t *testing.T, _ *httptest.ResponseRecorder, w *Wire) {
				if string(w.Members["result"]) != "{}" {
					t.Errorf("ping result %s, want {}", w.Members["result"])
				}
			}},
		{name: "A2 ping with a legacy header", modes: dualModes, body: EraBody("p", "ping", `{}`), hdr: []string{server.HeaderProtocolVersion, "2025-06-18"}, status: 200, id: `"p"`},
		{name: "A3 a request without a session", modes: dualModes, body: EraBody(19, "tools/list", ""), status: 400, code: protocol.CodeInvalidRequestError, id: "19", msg: "Mcp-Session-Id header is required"},
		{name: "A3 tools/call without a session never runs the tool", modes: dualModes, body: EraBody(20, "tools/call", `{"name":"count"}`), hdr: []string{server.HeaderProtocolVersion, "2025-11-25"}, status: 400, code: protocol.CodeInvalidRequestError, id: "20"},
		{name: "A3 server/discover without _meta", modes: dualModes, body: EraBody(21, "server/discover", ""), status: 400, code: protocol.CodeInvalidRequestError, id: "21"},
		{name: "A4 notifications/initialized without a session", modes: dualModes, body: EraNote("notifications/initialized", ""), status: 400, code: protocol.CodeInvalidRequestError},
		{name: "A4 notifications/progress without a session", modes: dualModes, body: EraNote("notifications/progress", `{"progressToken":1,"progress":1}`), status: 400, code: protocol.CodeInvalidRequestError},
		{name: "A4 notifications/roots/list_changed without a session", modes: dualModes, body: EraNote("notifications/roots/list_changed", ""), status: 400, code: protocol.CodeInvalidRequestError},
		{name: "A5 notifications/cancelled without a session is accepted", modes: dualModes, body: EraNote("notifications/cancelled", `{"requestId":1}`), status: 202, empty: true},
		{name: "A5 an unknown notification is accepted", modes: dualModes, body: EraNote("notifications/whatever", ""), status: 202, empty: true},
		{name: "A6 a response without a session", modes: dualModes, body: `{"jsonrpc":"2.0","id":1,"result":{}}`, status: 400, code: protocol.CodeInvalidRequestError},
		{name: "A6 an error response without a session", modes: dualModes, body: `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`, status: 400, code: protocol.CodeInvalidRequestError},
		{name: "A6 a batch without a session", modes: dualModes, body: `[` + EraBody(22, "tools/list", "") + `]`, status: 400, code: protocol.CodeInvalidRequestError},

		// S6 also applies without a session (A1-A3).
		{name: "S6 Mcp-Method that does not match, on ping", modes: dualModes, body: EraBody(23, "ping", ""), hdr: []string{server.HeaderMethod, "tools/list"}, status: 400, code: protocol.CodeInvalidRequestError, id: "23", msg: "Mcp-Method"},
		{name: "S6 Mcp-Method repeated, on initialize", modes: dualModes, body: initBody, hdr: []string{server.HeaderMethod, "initialize", server.HeaderMethod, "initialize"}, status: 400, code: protocol.CodeInvalidRequestError, id: "1"},
		{name: "S6 a matching Mcp-Method is fine", modes: dualModes, body: EraBody(24, "ping", ""), hdr: []string{server.HeaderMethod, "ping"}, status: 200, id: "24"},

		// S1-S3 that need no live session.
		{name: "S1 initialize with a session id mints nothing", modes: dualModes, body: initBody, hdr: []string{legacy.HeaderSessionID, "attacker-chosen"}, status: 400, code: protocol.CodeInvalidRequestError, id: "1", msg: legacy.MsgInitializeWithSID},
		{name: "S2 an unknown session", modes: dualModes, body: EraBody(25, "tools/list", ""), hdr: []string{legacy.HeaderSessionID, "never-issued"}, status: 404, code: protocol.CodeInvalidRequestError, id: "25", msg: "Session not found"},
		{name: "S2 an over-long session id", modes: dualModes, body: EraBody(26, "tools/list", ""), hdr: []string{legacy.HeaderSessionID, strings.Repeat("a", 10<<10)}, status: 404, code: protocol.CodeInvalidRequestError, id: "26"},
		{name: "S2 a notification in an unknown session has no id", modes: dualModes, body: EraNote("notifications/initialized", ""), hdr: []string{legacy.HeaderSessionID, "never-issued"}, status: 404, code: protocol.CodeInvalidRequestError},
		{name: "S3 a repeated session id", modes: dualModes, body: EraBody(27, "tools/list", ""), hdr: []string{legacy.HeaderSessionID, "a", legacy.HeaderSessionID, "b"}, status: 400, code: protocol.CodeInvalidRequestError, id: "27", msg: legacy.MsgSessionRepeated},

		// The probe is strict (§1.2; corpus rows era/case-variant modern key, era/duplicate _meta).
		{name: "§1.2 a case variant of a modern _meta key is malformed", modes: dualModes, body: EraBody(28, "tools/list", `{"_meta":{"io.modelcontextprotocol/ProtocolVersion":"2026-07-28"}}`),
			hdr: []string{legacy.HeaderSessionID, "abc"}, status: 400, code: protocol.CodeInvalidRequestError, id: "28", msg: "only in case"},
		{name: "§1.2 a case variant of _meta is malformed", modes: dualModes, body: EraBody(29, "tools/list", `{"_Meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`),
			status: 400, code: protocol.CodeInvalidRequestError, id: "29", msg: "only in case"},
		{name: "§1.2 an escaped _meta key is read as _meta", modes: both, body: EraBody(30, "tools/list", `{"\u005fmeta":`+modernMetaJSON+`}`),
			hdr: []string{legacy.HeaderSessionID, "abc"}, status: 400, code: protocol.CodeHeaderMismatchError, id: "30"},
		{name: "§1.2 a duplicate _meta is malformed", modes: dualModes, body: EraBody(31, "tools/list", `{"_meta":{},"_meta":`+modernMetaJSON+`}`),
			hdr: []string{legacy.HeaderSessionID, "abc"}, status: 400, code: protocol.CodeInvalidRequestError, id: "31"},
		{name: "§1.2 clientInfo alone does not make a body modern", modes: dualModes, body: EraBody(32, "tools/list", `{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}}`),
			status: 400, code: protocol.CodeInvalidRequestError, id: "32", msg: "Mcp-Session-Id header is required"},
		{name: "§1.2 a request carrying result is malformed", modes: dualModes, body: `{"jsonrpc":"2.0","id":33,"method":"ping","result":{}}`, status: 400, code: protocol.CodeInvalidRequestError, id: "33"},
		{name: "§1.2 not a JSON-RPC message", modes: dualModes, body: `{"jsonrpc":"1.0","id":34,"method":"ping"}`, status: 400, code: protocol.CodeInvalidRequestError, id: "34"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runEraCase(t, c) })
	}
}

// TestEraNarrowedVersions checks that a legacy version left out of
// LegacyConfig.Versions is an OTHER header (§1.2): the modern pipeline
// answers it, and it is not advertised.
func TestEraNarrowedVersions(t *testing.T) {
	s, n := eraFixture(t, legacy.ErasBoth, Legacy(legacy.Config{Versions: []string{"2025-06-18", "2025-11-25"}}))
	h := Handler(s, streamhttp.Options{})
	rec := EraRequest(t, h, http.MethodPost, EraBody(1, "tools/list", ""), server.HeaderProtocolVersion, "2025-03-26")
	w := DecodeWire(t, rec.Body.Bytes())
	if rec.Code != 400 || w.Code() != protocol.CodeInvalidParamsError {
		t.Errorf("a narrowed-out version header: %d %s, want 400 -32602 (the modern pipeline)", rec.Code, rec.Body.Bytes())
	}
	rec = EraRequest(t, h, http.MethodPost, EraBody(2, "initialize", legacyInit), server.HeaderProtocolVersion, "2026-07-28")
	supported("2026-07-28", "2025-11-25", "2025-06-18")(t, rec, DecodeWire(t, rec.Body.Bytes()))
	if n.Load() != 0 {
		t.Error("a tool ran")
	}
	for _, bad := range [][]string{{"2026-07-28"}, {"2025-11-25", "2025-11-25"}, {"1.0"}} {
		if _, err := NewWithEras(protocol.Implementation{Name: "x", Version: "1"}, Eras(legacy.ErasBoth), Legacy(legacy.Config{Versions: bad})); err == nil {
			t.Errorf("LegacyConfig.Versions %v accepted", bad)
		}
	}
	if _, err := NewWithEras(protocol.Implementation{Name: "x", Version: "1"}, Eras(legacy.Eras(7))); err == nil {
		t.Error("an unknown Eras accepted")
	}
}

// TestEraDiscover checks the two version lists (§1.1): server/discover
// lists the advertised versions, and -32022 uses modernVersions for the
// check but the advertised list for data.supported.
func TestEraDiscover(t *testing.T) {
	for _, c := range []struct {
		mode legacy.Eras
		want []string
	}{{legacy.ErasModern, []string{"2026-07-28"}}, {legacy.ErasBoth, advertisedBoth}} {
		t.Run(c.mode.String(), func(t *testing.T) {
			s, _ := eraFixture(t, c.mode)
			h := Handler(s, streamhttp.Options{})
			w := Call(t, h, 1, protocol.MethodServerDiscover, Params(nil))
			got, _ := w.Result["supportedVersions"].([]any)
			if len(got) != len(c.want) {
				t.Fatalf("supportedVersions %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("supportedVersions %v, want %v", got, c.want)
				}
			}
			// A version no era serves: -32022 with the advertised list.
			body := Rpc(2, protocol.MethodToolsList, WithMeta(M{KeyVersion: "1999-01-01", KeyCaps: M{}}, nil))
			rec := Post(t, h, body, nil)
			w = DecodeWire(t, rec.Body.Bytes())
			if rec.Code != 400 || w.Code() != protocol.CodeUnsupportedProtocolVersionError {
				t.Fatalf("%d %s", rec.Code, rec.Body.Bytes())
			}
			supported(c.want...)(t, nil, w)
			if w.Error.Message != "Unsupported protocol version" {
				t.Errorf("message %q", w.Error.Message)
			}
		})
	}
}

// TestEraGetDelete is the GET and DELETE table of §1.7 (rows that need no
// live session) and the verbs' order of checks: 405 for an unknown verb,
// then Host and Origin (403, §4.7) for every verb.
func TestEraGetDelete(t *testing.T) {
	allow := func(want string) func(t *testing.T, rec *httptest.ResponseRecorder, _ *Wire) {
		return func(t *testing.T, rec *httptest.ResponseRecorder, _ *Wire) {
			if got := rec.Header().Get("Allow"); got != want {
				t.Errorf("Allow %q, want %q", got, want)
			}
		}
	}
	var cases []eraCase
	for _, verb := range []string{http.MethodGet, http.MethodDelete} {
		cases = append(cases,
			eraCase{name: "R-HTTP-16 " + verb + " under ErasModern is 405", modes: modernOnly, verb: verb, status: 405, code: protocol.CodeInvalidRequestError, check: allow("POST")},
			eraCase{name: "R-HTTP-16 " + verb + " with a session id under ErasModern is 405 (the id is ignored)", modes: modernOnly, verb: verb, hdr: []string{legacy.HeaderSessionID, "abc"}, status: 405, code: protocol.CodeInvalidRequestError, check: allow("POST")},
			eraCase{name: "G1/D1 " + verb + " without a session id is 405", modes: both, verb: verb, status: 405, code: protocol.CodeInvalidRequestError, check: allow("GET, POST, DELETE")},
			eraCase{name: "G1 §1.5 a modern " + verb + " is 405", modes: both, verb: verb, hdr: []string{server.HeaderProtocolVersion, "2026-07-28"}, status: 405, code: protocol.CodeInvalidRequestError},
			eraCase{name: "G1'/D1' " + verb + " without a session id under ErasLegacy is 400", modes: legacyOnly, verb: verb, status: 400, code: protocol.CodeInvalidRequestError, msg: "Mcp-Session-Id header is required"},
			eraCase{name: "G2/D2 §1.5 " + verb + " with a session id and a modern header is -32020", modes: both, verb: verb, hdr: []string{legacy.HeaderSessionID, "abc", server.HeaderProtocolVersion, "2026-07-28"}, status: 400, code: protocol.CodeHeaderMismatchError},
			eraCase{name: "G2/D2 " + verb + " with a session id and a modern header under ErasLegacy is E1", modes: legacyOnly, verb: verb, hdr: []string{legacy.HeaderSessionID, "abc", server.HeaderProtocolVersion, "2026-07-28"}, status: 400, code: protocol.CodeInvalidRequestError},
			eraCase{name: "G3/D3 " + verb + " of an unknown session is 404", modes: dualModes, verb: verb, hdr: []string{legacy.HeaderSessionID, "never-issued"}, status: 404, code: protocol.CodeInvalidRequestError},
			eraCase{name: "G3/D3 " + verb + " with a repeated session id is 400", modes: dualModes, verb: verb, hdr: []string{legacy.HeaderSessionID, "a", legacy.HeaderSessionID, "b"}, status: 400, code: protocol.CodeInvalidRequestError},
			eraCase{name: "§4.7 " + verb + " with a foreign Origin is 403", modes: dualModes, verb: verb, hdr: []string{legacy.HeaderSessionID, "abc", "Origin", "http://evil.example.com"}, status: 403, code: protocol.CodeInvalidRequestError},
		)
	}
	cases = append(cases,
		eraCase{name: "§4.5 an unknown verb is 405 with the dual Allow", modes: dualModes, verb: http.MethodPut, status: 405, code: protocol.CodeInvalidRequestError, check: allow("GET, POST, DELETE")},
		eraCase{name: "§4.5 an unknown verb under ErasModern", modes: modernOnly, verb: http.MethodPut, status: 405, code: protocol.CodeInvalidRequestError, check: allow("POST")},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runEraCase(t, c) })
	}
	// A foreign Host on GET, before anything else (§4.7).
	s, _ := eraFixture(t, legacy.ErasBoth)
	r := httptest.NewRequest(http.MethodGet, "/mcp", nil)
	r.Host = "evil.example.com"
	r.Header.Set(legacy.HeaderSessionID, "abc")
	rec := httptest.NewRecorder()
	Handler(s, streamhttp.Options{}).ServeHTTP(rec, r)
	if rec.Code != 403 {
		t.Errorf("GET with a foreign Host: %d, want 403", rec.Code)
	}
}

// TestEraStdio is the stdio table of §1.8 for the rows that need no
// session: T1, T2, T3, T6, T7, T7', T10, T11', T12 (the rows with a session
// are in stdio_legacy_test.go).
func TestEraStdio(t *testing.T) {
	type line struct {
		send string
		code int64 // 0: a result; -1: no answer at all
		id   string
		msg  string
		res  func(t *testing.T, w *Wire)
	}
	run := func(t *testing.T, mode legacy.Eras, lines []line) {
		s, _ := eraFixture(t, mode)
		ss := StartStdio(t, s)
		for _, l := range lines {
			ss.Send(l.send)
			if l.code == -1 {
				continue
			}
			w := ss.Recv()
			if w.Code() != l.code || w.Id() != l.id {
				t.Errorf("%s: got %s, want code %d id %q", l.send, w.Raw, l.code, l.id)
			}
			if l.msg != "" && (w.Error == nil || !strings.Contains(w.Error.Message, l.msg)) {
				t.Errorf("%s: message does not contain %q: %s", l.send, l.msg, w.Raw)
			}
			if l.res != nil {
				l.res(t, w)
			}
		}
		// Nothing else was written: a ping answered last proves the
		// silent lines stayed silent.
		ss.Send(EraBody("last", "ping", ""))
		if mode == legacy.ErasModern {
			if w := ss.Recv(); w.Id() != `"last"` {
				t.Errorf("an unexpected line: %s", w.Raw)
			}
		} else if w := ss.Recv(); w.Id() != `"last"` || string(w.Members["result"]) != "{}" {
			t.Errorf("an unexpected line: %s", w.Raw)
		}
	}
	modernList := EraBody(1, "tools/list", `{"_meta":`+modernMetaJSON+`}`)
	t.Run("both", func(t *testing.T) {
		run(t, legacy.ErasBoth, []line{
			{send: `{"jsonrpc":`, code: protocol.CodeParseError}, // T1
			{send: modernList, id: "1", res: func(t *testing.T, w *Wire) { // T2: stateless, modern envelope
				if w.Result["resultType"] != "complete" {
					t.Errorf("T2 modern result without resultType: %s", w.Raw)
				}
			}},
			{send: EraBody(2, "ping", ""), id: "2", res: func(t *testing.T, w *Wire) { // T6
				if string(w.Members["result"]) != "{}" {
					t.Errorf("T6 ping result %s", w.Members["result"])
				}
			}},
			{send: EraBody(3, "tools/list", ""), code: protocol.CodeInvalidParamsError, id: "3", msg: "or send initialize first"}, // T7
			{send: EraBody(4, "logging/setLevel", `{"level":"info"}`), code: protocol.CodeInvalidParamsError, id: "4"},            // T7
			{send: `{"jsonrpc":"2.0","id":5,"result":{}}`, code: protocol.CodeInvalidRequestError},                                // T10: no id (it is not our request's)
			{send: EraNote("notifications/initialized", ""), code: -1},                                                            // T11'
			{send: EraNote("notifications/cancelled", `{"requestId":99}`), code: -1},                                              // T11'
			{send: `[` + EraBody(6, "tools/list", "") + `]`, code: protocol.CodeInvalidRequestError},                              // T12
			{send: EraBody(7, "tools/list", `{"_meta":{"io.modelcontextprotocol/ProtocolVersion":"x"}}`), code: protocol.CodeInvalidRequestError, id: "7"},
		})
	})
	t.Run("legacy", func(t *testing.T) {
		run(t, legacy.ErasLegacy, []line{
			{send: modernList, code: protocol.CodeInvalidRequestError, id: "1", msg: "send initialize first"},                      // T7'
			{send: EraBody(2, "server/discover", `{"_meta":`+modernMetaJSON+`}`), code: protocol.CodeMethodNotFoundError, id: "2"}, // T7'
			{send: EraBody(3, "server/discover", ""), code: protocol.CodeMethodNotFoundError, id: "3"},                             // T7'
			{send: EraBody(4, "tools/list", ""), code: protocol.CodeInvalidRequestError, id: "4"},                                  // T7'
			{send: EraNote("notifications/tools/list_changed", `{"_meta":`+modernMetaJSON+`}`), code: -1},                          // a modern notification
			{send: EraBody(5, "ping", ""), id: "5"},                                                                                // T6
		})
	})
	t.Run("modern", func(t *testing.T) {
		run(t, legacy.ErasModern, []line{
			{send: EraBody(1, "initialize", legacyInit), code: protocol.CodeMethodNotFoundError, id: "1", res: func(t *testing.T, w *Wire) { // T3
				supported("2026-07-28")(t, nil, w)
			}},
		})
	})
}

// TestProbeMeta checks the bm probe on its own (§1.2).
func TestProbeMeta(t *testing.T) {
	for _, c := range []struct {
		params string
		modern bool
		bad    bool
	}{
		{``, false, false},
		{`{}`, false, false},
		{`{"_meta":5}`, false, false},
		{`{"_meta":{"progressToken":1}}`, false, false},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}`, true, false},
		{`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`, true, false},
		{`{"a":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}}`, false, false},
		{`{"a":"}\"","_meta":{"x":[1,{"y":"]"}],"io.modelcontextprotocol/clientCapabilities":{}}}`, true, false},
		{` { "_meta" : { "io.modelcontextprotocol\/protocolVersion" : "x" } } `, true, false},
		{`{"_META":{}}`, false, true},
		{`{"_meta":{"IO.modelcontextprotocol/protocolversion":"x"}}`, false, true},
		{`{"_meta":{"io.modelcontextprotocol/clientinfo":{}}}`, false, false},
	} {
		modern, bad := legacy.ProbeMeta([]byte(c.params))
		if modern != c.modern || (bad != "") != c.bad {
			t.Errorf("legacy.ProbeMeta(%s) = %v, %q; want %v, bad %v", c.params, modern, bad, c.modern, c.bad)
		}
	}
	if !bytes.Equal([]byte(legacy.JSONKey([]byte(`"a\u0062"`))), []byte("ab")) {
		t.Error("legacy.JSONKey does not unescape")
	}
}
