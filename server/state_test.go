package server_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

var stateRE = regexp.MustCompile(`"requestState":"[^"]*"`)

// normalise hides the sealed state bytes, which differ on every seal.
func normalise(b []byte) string {
	return stateRE.ReplaceAllString(string(b), `"requestState":"<sealed>"`)
}

// TestStateless checks R-STATE-01/02/03: two Servers configured alike
// answer an interleaved sequence identically, whatever came before on
// either, and a retry may go to the other instance.
func TestStateless(t *testing.T) {
	keys := server.WithStateKeys(stateKey(7, "shared"))
	a, b := Fixture(t, keys, server.WithCompletion(CompleteAll)), Fixture(t, keys, server.WithCompletion(CompleteAll))
	ha, hb := Handler(a, streamhttp.Options{}), Handler(b, streamhttp.Options{})
	elicit := Meta(KeyCaps, M{"elicitation": M{}})
	old := M{KeyVersion: "2025-11-25", KeyCaps: M{"elicitation": M{}}}
	seq := [][]byte{
		Rpc(1, protocol.MethodServerDiscover, Params(nil)),
		Rpc(2, protocol.MethodToolsCall, WithMeta(elicit, M{"name": "ask"})),
		Rpc(3, protocol.MethodToolsCall, Params(M{"name": "ask"})), // same tool, no elicitation declared: -32021
		Rpc(4, protocol.MethodServerDiscover, WithMeta(old, nil)),
		Rpc(5, protocol.MethodToolsList, Params(nil)),
		Rpc(6, protocol.MethodToolsCall, WithMeta(Meta(KeyLogLevel, "debug", "progressToken", "x"), M{"name": "echo", "arguments": M{"text": "hi"}})),
		Rpc("7", protocol.MethodToolsCall, Params(M{"name": "missing"})),
		Rpc(8, protocol.MethodResourcesRead, Params(M{"uri": "users://ann/profile"})),
		Rpc(9, protocol.MethodPromptsGet, Params(M{"name": "greet", "arguments": M{"who": "B"}})),
		Rpc(10, protocol.MethodCompletionComplete, Params(completeParams)),
		Rpc(11, protocol.MethodToolsCall, WithMeta(elicit, M{"name": "ask"})),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`), // names no request: on stdio a real id would race
		Rpc(12, "initialize", M{"protocolVersion": "2025-11-25"}),
	}
	type answer struct {
		status int
		ctype  string
		body   string
	}
	serve := func(h http.Handler, body []byte) answer {
		rec := Post(t, h, body, nil)
		return answer{rec.Code, rec.Header().Get("Content-Type"), normalise(rec.Body.Bytes())}
	}
	// A serves the sequence in order; B serves it reversed, then
	// interleaved with A.
	var onA, onB []answer
	for _, body := range seq {
		onA = append(onA, serve(ha, body))
	}
	onB = make([]answer, len(seq))
	for i := len(seq) - 1; i >= 0; i-- {
		onB[i] = serve(hb, seq[i])
	}
	for i := range seq {
		if onA[i] != onB[i] {
			t.Errorf("R-STATE-01: request %d answered differently:\nA: %+v\nB: %+v", i, onA[i], onB[i])
		}
	}
	for i, body := range seq {
		h := ha
		if i%2 == 1 {
			h = hb
		}
		if got := serve(h, body); got != onA[i] {
			t.Errorf("R-STATE-01: interleaved request %d: %+v, want %+v", i, got, onA[i])
		}
	}
	if !strings.Contains(onA[2].body, "-32021") || !strings.Contains(onA[1].body, "input_required") {
		t.Errorf("R-META-02: capabilities were carried between requests: %s / %s", onA[1].body, onA[2].body)
	}

	// R-STATE-03: the retry of A's input_required goes to B.
	w := Call(t, ha, 20, protocol.MethodToolsCall, WithMeta(elicit, M{"name": "ask"}))
	retry := Rpc(21, protocol.MethodToolsCall, WithMeta(elicit, M{"name": "ask", "requestState": w.Result["requestState"], "inputResponses": Accepted}))
	if ra, rb := serve(ha, retry), serve(hb, retry); ra != rb || !strings.Contains(rb.body, "hello") {
		t.Errorf("R-STATE-03: retry on A %+v, on B %+v", ra, rb)
	}

	// The same over stdio: one stream to A, one process per line on B.
	var lines []string
	for _, body := range seq {
		lines = append(lines, string(body))
	}
	byID := func(ws []*Wire) []string {
		var out []string
		for _, w := range ws {
			out = append(out, normalise(w.Raw))
		}
		slices.Sort(out)
		return out
	}
	streamA := byID(Stdio(t, a, lines...))
	var perLine []*Wire
	for _, l := range lines {
		perLine = append(perLine, Stdio(t, b, l)...)
	}
	if !slices.Equal(streamA, byID(perLine)) {
		t.Errorf("R-STATE-01: stdio stream and per-line answers differ:\n%v\n%v", streamA, byID(perLine))
	}
}
