package streamhttp_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// FuzzHTTPBody posts arbitrary bodies (with headers mirrored from the body
// where it can be read) and checks the invariants of every answer: a known
// status, one JSON-RPC message with jsonrpc 2.0, an emittable error code
// (R-BASE-12..14), an id only of the request's type, and 202 with no body
// only for notifications. The seeds run with go test.
func FuzzHTTPBody(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `1`, `"x"`, `[]`, `{}`, `[{}]`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":null}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":null,"io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"server/discover"}`,
		`{"jsonrpc":"2.0","ID":1,"id":1,"method":"server/discover"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"\ud800"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"hdr","arguments":{"count":1e400}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"ask","requestState":"AQAAAAE"}}`,
		`{"jsonrpc":"2.0","id":9223372036854775807,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":9223372036854775808,"method":"server/discover"}`,
		`{"jsonrpc":"2.0","id":-1,"method":"resources/read","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"uri":""}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`,
		"\xef\xbb\xbf{}",
		strings.Repeat("[", 200) + strings.Repeat("]", 200),
	} {
		f.Add([]byte(seed))
	}
	// A listen request the fuzzer builds ends after a short lifetime
	// instead of holding the fuzz worker for an hour.
	s := Fixture(f, server.WithCompletion(CompleteAll), server.WithMaxStreamLifetime(20*time.Millisecond))
	h := Handler(s, streamhttp.Options{MaxBodyBytes: 1 << 16})
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := Post(t, h, body, nil)
		switch rec.Code {
		case http.StatusAccepted:
			if rec.Body.Len() != 0 {
				t.Fatalf("202 with a body: %q", rec.Body.Bytes())
			}
			return
		case http.StatusOK, http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusInternalServerError:
		default:
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		var msgs []*Wire
		if rec.Header().Get("Content-Type") == "text/event-stream" {
			msgs = SseMessages(t, rec.Body.Bytes())
		} else {
			msgs = []*Wire{Single(t, rec)}
		}
		last := msgs[len(msgs)-1]
		CheckCode(t, last.Code())
		if last.Error == nil && last.Result == nil {
			t.Fatalf("neither result nor error: %s", last.Raw)
		}
		if last.Error != nil && last.Error.Code == protocol.CodeParseError && last.HasID() {
			t.Fatalf("R-BASE-07: parse error with an id: %s", last.Raw)
		}
		if id := last.Id(); id != "" && id[0] != '"' && strings.ContainsAny(id, ".eE{[tfn") {
			t.Fatalf("R-BASE-04: id of the wrong kind: %s", last.Raw)
		}
	})
}
