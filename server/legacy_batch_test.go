package server

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// JSON-RPC batches in 2025-03-26 sessions (docs/dual-era.md §2.8; rows
// batch/* and "bridge/batch of responses outside 2025-03-26" of §10.4),
// on Streamable HTTP and stdio. L0326/basic/index.mdx#batching: a server
// MUST support receiving batches; L0326/basic/lifecycle.mdx: initialize
// MUST NOT be part of a batch.

// batchRow is one row: the batch, and the answer on both transports.
type batchRow struct {
	name  string
	rev   string   // the session's revision (default 2025-03-26)
	batch string   // the body / line
	hdr   []string // HTTP headers
	// status is the HTTP status; code the -32600 of a refused batch (0:
	// an array or nothing); ids the ids of the array's responses, in
	// order, with their codes (0: a result).
	status int
	code   int64
	ids    []string
	codes  []int64
}

func batchRows() []batchRow {
	req := func(id int, method string) string { return eraBody(id, method, "") }
	many := make([]string, 65)
	for i := range many {
		many[i] = req(100+i, "ping")
	}
	modern := eraBody(3, "tools/call", `{"_meta":`+modernMetaJSON+`,"name":"count","arguments":{}}`)
	return []batchRow{
		{name: "batch/two requests", batch: "[" + req(1, "tools/list") + "," + req(2, "prompts/list") + "]",
			status: 200, ids: []string{"1", "2"}, codes: []int64{0, 0}},
		{name: "batch/notifications only", batch: "[" + eraNote("notifications/initialized", "") + "," + eraNote("notifications/cancelled", `{"requestId":77}`) + "]",
			status: 202},
		{name: "batch/empty", batch: "[]", status: 400, code: protocol.CodeInvalidRequestError},
		{name: "batch/with initialize", batch: "[" + req(1, "tools/list") + "," + eraBody(2, "initialize", initParams("2025-03-26", "")) + "]",
			status: 400, code: protocol.CodeInvalidRequestError},
		{name: "batch/requests and responses mixed", batch: "[" + req(1, "tools/list") + `,{"jsonrpc":"2.0","id":"mcpwire-x","result":{}}]`,
			status: 400, code: protocol.CodeInvalidRequestError},
		{name: "batch/element with modern _meta", batch: "[" + req(1, "tools/list") + "," + modern + "]",
			status: 400, code: protocol.CodeInvalidRequestError},
		{name: "batch/too many", batch: "[" + strings.Join(many, ",") + "]", status: 400, code: protocol.CodeInvalidRequestError},
		{name: "batch/64 elements", batch: "[" + strings.Join(many[:64], ",") + "]", status: 200,
			ids: func() []string {
				var out []string
				for i := range 64 {
					out = append(out, strconv.Itoa(100+i))
				}
				return out
			}(), codes: make([]int64, 64)},
		{name: "batch/in a 2025-11-25 session", rev: "2025-11-25", batch: "[" + req(1, "tools/list") + "]",
			status: 400, code: protocol.CodeInvalidRequestError},
		{name: "bridge/batch of responses outside 2025-03-26", rev: "2025-11-25", batch: `[{"jsonrpc":"2.0","id":"mcpwire-x","result":{}}]`,
			status: 400, code: protocol.CodeInvalidRequestError},
		{name: "batch/with Mcp-Method", batch: "[" + req(1, "tools/list") + "]", hdr: []string{HeaderMethod, "tools/list"},
			status: 400, code: protocol.CodeInvalidRequestError},
		{name: "batch/an invalid element", batch: "[" + req(1, "tools/list") + `,{"jsonrpc":"2.0","id":9}]`,
			status: 200, ids: []string{"1", "9"}, codes: []int64{0, protocol.CodeInvalidRequestError}},
		{name: "batch/element errors stay in the array", batch: "[" + req(1, "nope/nope") + "," + eraBody(2, "tools/call", `{"name":"count"}`) + "]",
			status: 200, ids: []string{"1", "2"}, codes: []int64{protocol.CodeMethodNotFoundError, 0}},
		{name: "batch/responses to no outstanding request", batch: `[{"jsonrpc":"2.0","id":"mcpwire-x","result":{}}]`,
			status: 400, code: protocol.CodeInvalidRequestError},
	}
}

// checkBatchArray checks an answer array against the row.
func checkBatchArray(t *testing.T, row batchRow, body []byte) {
	t.Helper()
	var arr []json.RawMessage
	if err := json.Unmarshal(body, &arr); err != nil {
		t.Fatalf("%s: not an array: %s", row.name, body)
	}
	if len(arr) != len(row.ids) {
		t.Fatalf("%s: %d responses, want %d: %s", row.name, len(arr), len(row.ids), body)
	}
	for i, raw := range arr {
		w := decodeWire(t, raw)
		if w.id() != row.ids[i] || w.code() != row.codes[i] {
			t.Errorf("%s: response %d is %s, want id %s code %d", row.name, i, raw, row.ids[i], row.codes[i])
		}
		checkLegacyMessage(t, "2025-03-26", raw, "")
	}
}

func TestHTTPLegacyBatch(t *testing.T) {
	f := newLegacyFixture(t, ErasBoth)
	h := f.Handler(HTTPOptions{})
	sessions := map[string]*legacyHTTP{}
	for _, rev := range []string{"2025-03-26", "2025-11-25"} {
		c := newLegacyHTTP(t, h, rev)
		c.open("{}")
		sessions[rev] = c
	}
	for _, row := range batchRows() {
		t.Run(row.name, func(t *testing.T) {
			rev := row.rev
			if rev == "" {
				rev = "2025-03-26"
			}
			rec := sessions[rev].send(http.MethodPost, row.batch, row.hdr...)
			if rec.Code != row.status {
				t.Fatalf("%d %s, want %d", rec.Code, rec.Body.Bytes(), row.status)
			}
			switch {
			case row.code != 0:
				w := single(t, rec)
				if w.code() != row.code || w.hasID() && w.id() != "null" {
					t.Errorf("want %d without id: %s", row.code, w.raw)
				}
			case row.status == 202:
				if rec.Body.Len() != 0 {
					t.Errorf("202 with a body: %s", rec.Body.Bytes())
				}
			default:
				if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				checkBatchArray(t, row, rec.Body.Bytes())
			}
		})
	}
	// A longer MaxBatch admits more; a shorter one refuses less.
	f2 := newLegacyFixture(t, ErasBoth, WithLegacy(LegacyConfig{MaxBatch: 2}))
	c := newLegacyHTTP(t, f2.Handler(HTTPOptions{}), "2025-03-26")
	c.open("{}")
	three := "[" + eraBody(1, "ping", "") + "," + eraBody(2, "ping", "") + "," + eraBody(3, "ping", "") + "]"
	if rec := c.send(http.MethodPost, three); rec.Code != 400 || !strings.Contains(rec.Body.String(), "batch of 3 messages, more than 2") {
		t.Errorf("MaxBatch 2: %d %s", rec.Code, rec.Body.Bytes())
	}
}

func TestStdioLegacyBatch(t *testing.T) {
	for _, row := range batchRows() {
		if len(row.hdr) > 0 {
			continue // no headers on stdio
		}
		t.Run(row.name, func(t *testing.T) {
			rev := row.rev
			if rev == "" {
				rev = "2025-03-26"
			}
			f := newLegacyFixture(t, ErasBoth)
			c := startLegacyStdio(t, f.Server, rev)
			c.open("{}")
			c.ss.send(row.batch)
			var got []string
			if row.status == 200 {
				got = []string{(<-c.ss.lines)} // the array, after the last response
			} else {
				// Refusals are written by the read loop, before it reads
				// the ping that follows; nothing else may come first.
				c.ss.send(eraBody("after", "ping", ""))
				for l := range c.ss.lines {
					if strings.Contains(l, `"id":"after"`) {
						break
					}
					got = append(got, l)
				}
			}
			if strings.Contains(row.name, "responses to no outstanding") {
				row.code, row.status = 0, 202 // stdio drops them (counted as bad, T9)
			}
			switch {
			case row.code != 0:
				if len(got) != 1 {
					t.Fatalf("want one line: %q", got)
				}
				w := decodeWire(t, []byte(got[0]))
				if w.code() != row.code {
					t.Errorf("want %d: %s", row.code, got[0])
				}
			case row.status == 202:
				if len(got) != 0 {
					t.Errorf("want nothing: %q", got)
				}
			default:
				if len(got) != 1 {
					t.Fatalf("want one line holding the array: %q", got)
				}
				checkBatchArray(t, row, []byte(got[0]))
			}
		})
	}
}

// A batch element that asks for input (§2.8: the answer becomes SSE, each
// message its own event; the stream ends after the last response).
func TestHTTPLegacyBatchBridge(t *testing.T) {
	f := newLegacyFixture(t, ErasBoth)
	addMRTRFixtures(t, f.Server)
	c := newBridgeHTTP(t, f.Server, "2025-03-26")
	st := c.stream("[" + eraBody(1, "tools/call", `{"name":"test_input_required_result_sampling"}`) + "," + eraBody(2, "ping", "") + "]")
	req := st.next()
	if req.method() != "sampling/createMessage" {
		t.Fatalf("want sampling/createMessage: %s", req.raw)
	}
	if code, _ := c.answer(scriptedAnswer(req)); code != 202 {
		t.Fatalf("answer: %d", code)
	}
	// A batch of responses is the bridge's too: all accepted (a repeat
	// counts as accepted) is 202.
	if code, _ := c.answer("[" + scriptedAnswer(req) + "]"); code != 202 {
		t.Errorf("a batch repeating the answer: %d", code)
	}
	got := map[string]*wire{}
	for w := st.next(); w != nil; w = st.next() {
		got[w.id()] = w
	}
	if len(got) != 2 || got["2"] == nil || got["1"] == nil || !strings.Contains(resultText(t, got["1"]), "test-model") {
		t.Errorf("the responses as events: %v", got)
	}
}
