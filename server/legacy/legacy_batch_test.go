package legacy_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
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
	req := func(id int, method string) string { return EraBody(id, method, "") }
	many := make([]string, 65)
	for i := range many {
		many[i] = req(100+i, "ping")
	}
	modern := EraBody(3, "tools/call", `{"_meta":`+modernMetaJSON+`,"name":"count","arguments":{}}`)
	return []batchRow{
		{name: "batch/two requests", batch: "[" + req(1, "tools/list") + "," + req(2, "prompts/list") + "]",
			status: 200, ids: []string{"1", "2"}, codes: []int64{0, 0}},
		{name: "batch/notifications only", batch: "[" + EraNote("notifications/initialized", "") + "," + EraNote("notifications/cancelled", `{"requestId":77}`) + "]",
			status: 202},
		{name: "batch/empty", batch: "[]", status: 400, code: protocol.CodeInvalidRequestError},
		{name: "batch/with initialize", batch: "[" + req(1, "tools/list") + "," + EraBody(2, "initialize", InitParams("2025-03-26", "")) + "]",
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
		{name: "batch/with Mcp-Method", batch: "[" + req(1, "tools/list") + "]", hdr: []string{server.HeaderMethod, "tools/list"},
			status: 400, code: protocol.CodeInvalidRequestError},
		{name: "batch/an invalid element", batch: "[" + req(1, "tools/list") + `,{"jsonrpc":"2.0","id":9}]`,
			status: 200, ids: []string{"1", "9"}, codes: []int64{0, protocol.CodeInvalidRequestError}},
		{name: "batch/element errors stay in the array", batch: "[" + req(1, "nope/nope") + "," + EraBody(2, "tools/call", `{"name":"count"}`) + "]",
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
		w := DecodeWire(t, raw)
		if w.Id() != row.ids[i] || w.Code() != row.codes[i] {
			t.Errorf("%s: response %d is %s, want id %s code %d", row.name, i, raw, row.ids[i], row.codes[i])
		}
		CheckLegacyMessage(t, "2025-03-26", raw, "")
	}
}

func TestHTTPLegacyBatch(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth)
	h := Handler(f.Server, streamhttp.Options{})
	sessions := map[string]*LegacyHTTP{}
	for _, rev := range []string{"2025-03-26", "2025-11-25"} {
		c := NewLegacyHTTP(t, h, rev)
		c.Open("{}")
		sessions[rev] = c
	}
	for _, row := range batchRows() {
		t.Run(row.name, func(t *testing.T) {
			rev := row.rev
			if rev == "" {
				rev = "2025-03-26"
			}
			rec := sessions[rev].Send(http.MethodPost, row.batch, row.hdr...)
			if rec.Code != row.status {
				t.Fatalf("%d %s, want %d", rec.Code, rec.Body.Bytes(), row.status)
			}
			switch {
			case row.code != 0:
				w := Single(t, rec)
				if w.Code() != row.code || w.HasID() && w.Id() != "null" {
					t.Errorf("want %d without id: %s", row.code, w.Raw)
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
	f2 := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{MaxBatch: 2}))
	c := NewLegacyHTTP(t, Handler(f2.Server, streamhttp.Options{}), "2025-03-26")
	c.Open("{}")
	three := "[" + EraBody(1, "ping", "") + "," + EraBody(2, "ping", "") + "," + EraBody(3, "ping", "") + "]"
	if rec := c.Send(http.MethodPost, three); rec.Code != 400 || !strings.Contains(rec.Body.String(), "batch of 3 messages, more than 2") {
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
			f := newLegacyFixture(t, legacy.ErasBoth)
			c := StartLegacyStdio(t, f.Server, rev)
			c.Open("{}")
			c.Ss.Send(row.batch)
			var got []string
			if row.status == 200 {
				got = []string{(<-c.Ss.Lines)} // the array, after the last response
			} else {
				// Refusals are written by the read loop, before it reads
				// the ping that follows; nothing else may come first.
				c.Ss.Send(EraBody("after", "ping", ""))
				for l := range c.Ss.Lines {
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
				w := DecodeWire(t, []byte(got[0]))
				if w.Code() != row.code {
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
	f := newLegacyFixture(t, legacy.ErasBoth)
	addMRTRFixtures(t, f.Server)
	c := newBridgeHTTP(t, f.Server, "2025-03-26")
	st := c.stream("[" + EraBody(1, "tools/call", `{"name":"test_input_required_result_sampling"}`) + "," + EraBody(2, "ping", "") + "]")
	req := st.next()
	if req.Method() != "sampling/createMessage" {
		t.Fatalf("want sampling/createMessage: %s", req.Raw)
	}
	if code, _ := c.answer(scriptedAnswer(req)); code != 202 {
		t.Fatalf("answer: %d", code)
	}
	// A batch of responses is the bridge's too: all accepted (a repeat
	// counts as accepted) is 202.
	if code, _ := c.answer("[" + scriptedAnswer(req) + "]"); code != 202 {
		t.Errorf("a batch repeating the answer: %d", code)
	}
	got := map[string]*Wire{}
	for w := st.next(); w != nil; w = st.next() {
		got[w.Id()] = w
	}
	if len(got) != 2 || got["2"] == nil || got["1"] == nil || !strings.Contains(ResultText(t, got["1"]), "test-model") {
		t.Errorf("the responses as events: %v", got)
	}
}
