package server

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
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
	keys := WithStateKeys(stateKey(7, "shared"))
	a, b := fixture(t, keys, WithCompletion(completeAll)), fixture(t, keys, WithCompletion(completeAll))
	ha, hb := a.Handler(HTTPOptions{}), b.Handler(HTTPOptions{})
	elicit := meta(keyCaps, M{"elicitation": M{}})
	old := M{keyVersion: "2025-11-25", keyCaps: M{"elicitation": M{}}}
	seq := [][]byte{
		rpc(1, protocol.MethodServerDiscover, params(nil)),
		rpc(2, protocol.MethodToolsCall, withMeta(elicit, M{"name": "ask"})),
		rpc(3, protocol.MethodToolsCall, params(M{"name": "ask"})), // same tool, no elicitation declared: -32021
		rpc(4, protocol.MethodServerDiscover, withMeta(old, nil)),
		rpc(5, protocol.MethodToolsList, params(nil)),
		rpc(6, protocol.MethodToolsCall, withMeta(meta(keyLogLevel, "debug", "progressToken", "x"), M{"name": "echo", "arguments": M{"text": "hi"}})),
		rpc("7", protocol.MethodToolsCall, params(M{"name": "missing"})),
		rpc(8, protocol.MethodResourcesRead, params(M{"uri": "users://ann/profile"})),
		rpc(9, protocol.MethodPromptsGet, params(M{"name": "greet", "arguments": M{"who": "B"}})),
		rpc(10, protocol.MethodCompletionComplete, params(completeParams)),
		rpc(11, protocol.MethodToolsCall, withMeta(elicit, M{"name": "ask"})),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`), // names no request: on stdio a real id would race
		rpc(12, "initialize", M{"protocolVersion": "2025-11-25"}),
	}
	type answer struct {
		status int
		ctype  string
		body   string
	}
	serve := func(h http.Handler, body []byte) answer {
		rec := post(t, h, body, nil)
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
	w := call(t, ha, 20, protocol.MethodToolsCall, withMeta(elicit, M{"name": "ask"}))
	retry := rpc(21, protocol.MethodToolsCall, withMeta(elicit, M{"name": "ask", "requestState": w.Result["requestState"], "inputResponses": accepted}))
	if ra, rb := serve(ha, retry), serve(hb, retry); ra != rb || !strings.Contains(rb.body, "hello") {
		t.Errorf("R-STATE-03: retry on A %+v, on B %+v", ra, rb)
	}

	// The same over stdio: one stream to A, one process per line on B.
	var lines []string
	for _, body := range seq {
		lines = append(lines, string(body))
	}
	byID := func(ws []*wire) []string {
		var out []string
		for _, w := range ws {
			out = append(out, normalise(w.raw))
		}
		slices.Sort(out)
		return out
	}
	streamA := byID(stdio(t, a, lines...))
	var perLine []*wire
	for _, l := range lines {
		perLine = append(perLine, stdio(t, b, l)...)
	}
	if !slices.Equal(streamA, byID(perLine)) {
		t.Errorf("R-STATE-01: stdio stream and per-line answers differ:\n%v\n%v", streamA, byID(perLine))
	}
}
