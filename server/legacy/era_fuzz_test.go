package legacy_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server"
)

// Fuzzing of the dual era (docs/dual-era.md §10.3): FuzzHTTPDual and
// FuzzStdioDual run a WithEras(ErasBoth) server on the seeds of
// FuzzHTTPHandler and FuzzStdio plus legacy ones (initialize, session
// requests with a live session id put for a placeholder, GET and DELETE),
// with the properties every answer of either era has. FuzzHTTPHandler and
// FuzzStdio keep their exact ErasModern oracles, and get the legacy seeds
// too (testdata/fuzz/http/legacy-*.json, testdata/fuzz/stdio/legacy-*.jsonl).

// fzDualSeed is one seed file of ../testdata/fuzz/dual: a request to a
// dual-era server. Session is the Mcp-Session-Id value ("" for none, lines
// for repeated values), where ${SID}, ${SID_UNINIT}, ${SID_0326} and
// ${SID_GUESS} stand for a live 2025-11-25 session, one not initialized
// yet, a live 2025-03-26 one and an id never issued. Version, Method and
// Name are as in FuzzHTTPHandler ("" mirrored from the body, "\x00" none).
type fzDualSeed struct {
	Verb    uint8           `json:"verb"`
	Session string          `json:"session"`
	Version string          `json:"version"`
	Method  string          `json:"method"`
	Name    string          `json:"name"`
	Body    json.RawMessage `json:"body"`
}

// fzDualVerbs are the verbs FuzzHTTPDual's first argument picks.
var fzDualVerbs = [8]string{http.MethodPost, http.MethodPost, http.MethodPost, http.MethodPost, http.MethodGet, http.MethodDelete, http.MethodGet, http.MethodDelete}

func fzDualSeeds(f *testing.F) []fzDualSeed {
	seeds := FzJSONSeeds(f, "dual", func(s *fzDualSeed) *json.RawMessage { return &s.Body })
	// FuzzHTTPHandler's seeds, as POSTs without a session.
	for _, s := range FzHTTPSeeds(f) {
		seeds = append(seeds, fzDualSeed{Version: s.Version, Method: s.Method, Name: s.Name, Body: s.Body})
	}
	return seeds
}

// FuzzHTTPDual fuzzes the body, the verb and the era headers of a request
// to an ErasBoth handler. Properties: the answer comes within 10 s; its
// status is one of the transport's; 202 and 204 have no body; any other
// body is one JSON-RPC message (or an event stream of them ending with
// the response, or of notifications only for a GET stream) with an
// emittable code; -32700 has no id and status 400; -32020 and -32022 come
// with 400 (-32021 may be a method error of a session, with 200, §1.6), 404 with -32601 or -32600, 503 and 429
// with Retry-After; a request's answer echoes its id; Mcp-Session-Id
// appears only on the result of an initialize sent without one (R-HTTP-17
// for everything else); and a POST without a session id whose
// MCP-Protocol-Version is one value that is not a legacy version is
// answered exactly as ErasModern answers it (row M3).
func FuzzHTTPDual(f *testing.F) {
	for _, s := range fzDualSeeds(f) {
		f.Add(s.Verb, []byte(s.Body), s.Session, s.Version, s.Method, s.Name)
	}
	both := FzServer(f, Eras(legacy.ErasBoth), server.WithMaxStreamLifetime(50*time.Millisecond))
	h := Handler(both, streamhttp.Options{MaxBodyBytes: FzMaxBody})
	modern := Handler(FzServer(f), streamhttp.Options{MaxBodyBytes: FzMaxBody})
	f.Fuzz(func(t *testing.T, verb uint8, body []byte, session, version, method, name string) {
		httpVerb := fzDualVerbs[verb&7]
		hdr := http.Header{}
		mirrored := Mirror(body)
		FzHeaderArg(hdr, server.HeaderProtocolVersion, version, mirrored.Values(server.HeaderProtocolVersion))
		FzHeaderArg(hdr, server.HeaderMethod, method, mirrored.Values(server.HeaderMethod))
		FzHeaderArg(hdr, server.HeaderName, name, mirrored.Values(server.HeaderName))
		if session != "" {
			hdr[legacy.HeaderSessionID] = strings.Split(fzSessions(t, h, session), "\n")
		}
		hdr.Set("Content-Type", "application/json")
		hdr.Set("Accept", "application/json, text/event-stream")
		serve := func(h http.Handler) (*httptest.ResponseRecorder, bool) {
			r := httptest.NewRequest(httpVerb, "/mcp", bytes.NewReader(body))
			r.Host = Loopback
			r.Header = hdr.Clone()
			rec := FzServe(t, h, r)
			return rec.ResponseRecorder, rec.Acked.Load()
		}
		resp, acked := serve(h)
		if acked {
			return // a listen stream, ended by the recorder once acknowledged (FuzzHTTPHandler checks them)
		}
		var req mcp20251125.JSONRPCMessage
		isReq := false
		if EraOf(both).LegacyDecode().Unmarshal(body, &req) == nil {
			_, isReq = req.Value.(*mcp20251125.JSONRPCRequest)
		}
		msgs := fzDualAnswer(t, resp, httpVerb)
		if sid := resp.Header().Get(legacy.HeaderSessionID); sid != "" {
			r, _ := req.Value.(*mcp20251125.JSONRPCRequest)
			if r == nil || r.Method != "initialize" || session != "" || httpVerb != http.MethodPost || resp.Code != http.StatusOK || len(msgs) != 1 || !bytes.Contains(msgs[0], []byte(`"result"`)) {
				t.Fatalf("Mcp-Session-Id on an answer that is not the result of an initialize without one: %d %s", resp.Code, resp.Body.Bytes())
			}
			if !SessionIDRE.MatchString(sid) {
				t.Fatalf("minted session id %q", sid)
			}
			EraRequest(t, h, http.MethodDelete, "", legacy.HeaderSessionID, sid) // the per-client limit keeps the store small anyway
		}
		if isReq && len(msgs) > 0 && !slices.Contains([]int{401, 403, 405, 413, 415}, resp.Code) {
			r := req.Value.(*mcp20251125.JSONRPCRequest)
			want, _ := mcp20251125.Marshal(&r.ID)
			var got struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(msgs[len(msgs)-1], &got)
			if httpVerb == http.MethodPost && !SameJSON(got.ID, want) {
				t.Fatalf("answer id %s, request id %s: %s", got.ID, want, resp.Body.Bytes())
			}
		}
		// M3: a modern header and no session id is the modern pipeline.
		hv := hdr.Values(server.HeaderProtocolVersion)
		if httpVerb == http.MethodPost && session == "" && len(hv) == 1 {
			if EraOf(both).VersionHeaderModern(hdr) {
				want, _ := serve(modern)
				if want.Code != resp.Code || !slices.Equal(fzCodes(t, want, httpVerb), fzCodes(t, resp, httpVerb)) {
					t.Fatalf("M3: ErasBoth answered %d %s, ErasModern %d %s", resp.Code, resp.Body.Bytes(), want.Code, want.Body.Bytes())
				}
			}
		}
	})
}

// fzSessions replaces the session placeholders of a fuzzed Mcp-Session-Id
// with sessions made for this input.
func fzSessions(t *testing.T, h http.Handler, v string) string {
	open := func(rev string, ready bool) string {
		rec := EraRequest(t, h, http.MethodPost, EraBody("fz", "initialize", InitParams(rev, "")))
		sid := rec.Header().Get(legacy.HeaderSessionID)
		if sid == "" {
			t.Fatalf("initialize: %d %s", rec.Code, rec.Body.Bytes())
		}
		if ready {
			EraRequest(t, h, http.MethodPost, EraNote("notifications/initialized", ""), legacy.HeaderSessionID, sid)
		}
		return sid
	}
	for p, mk := range map[string]func() string{
		"${SID}":        func() string { return open("2025-11-25", true) },
		"${SID_UNINIT}": func() string { return open("2025-11-25", false) },
		"${SID_0326}":   func() string { return open("2025-03-26", true) },
		"${SID_GUESS}":  func() string { return UnissuedSessionID(t) },
	} {
		if strings.Contains(v, p) {
			v = strings.ReplaceAll(v, p, mk())
		}
	}
	return v
}

// fzDualAnswer checks the form of an answer and returns its messages.
func fzDualAnswer(t *testing.T, resp *httptest.ResponseRecorder, verb string) [][]byte {
	t.Helper()
	switch resp.Code {
	case 200, 400, 401, 403, 404, 405, 413, 415, 429, 500, 503:
	case 202, 204:
		if resp.Body.Len() != 0 {
			t.Fatalf("%d with a body: %q", resp.Code, resp.Body.Bytes())
		}
		return nil
	default:
		t.Fatalf("status %d: %q", resp.Code, resp.Body.Bytes())
	}
	if (resp.Code == 429 || resp.Code == 503) && resp.Header().Get("Retry-After") == "" {
		t.Fatalf("%d without Retry-After", resp.Code)
	}
	msgs, stream := FzAnswerMessages(t, resp, fzDualSSE)
	msgs, batch := fzFlattenBatches(t, msgs)
	for i, m := range msgs {
		v := FzDecodeLoose(t, m)
		last := batch || i == len(msgs)-1 && !(stream && verb == http.MethodGet) // a batch answer holds responses only
		if v.Method != nil {
			if last {
				t.Fatalf("the answer ends with a message that is not a response: %s", resp.Body.Bytes())
			}
			continue
		}
		if !last || (v.Result == nil) == (v.Error == nil) {
			t.Fatalf("a response %s where it cannot be: %s", m, resp.Body.Bytes())
		}
		if v.Error == nil {
			if resp.Code != http.StatusOK {
				t.Fatalf("a result with status %d: %s", resp.Code, m)
			}
			continue
		}
		code := v.Error.Code
		if !EmittableCode(code) && code != -32002 { // -32002: resource not found, legacy (§3.4)
			t.Fatalf("error code %d may not be sent: %s", code, m)
		}
		switch {
		case code == protocol.CodeParseError && (v.ID != nil || resp.Code != http.StatusBadRequest):
			t.Fatalf("-32700 with an id or a status other than 400: %d %s", resp.Code, m)
		case (code == protocol.CodeHeaderMismatchError || code == protocol.CodeUnsupportedProtocolVersionError) && resp.Code != http.StatusBadRequest && !stream:
			t.Fatalf("a 2026-07-28 transport code with %d: %s", resp.Code, m)
		case resp.Code == http.StatusNotFound && code != protocol.CodeMethodNotFoundError && code != protocol.CodeInvalidRequestError:
			t.Fatalf("404 with %d: %s", code, m)
		}
	}
	if len(msgs) == 0 && !(stream && verb == http.MethodGet) {
		t.Fatalf("no message in %q", resp.Body.Bytes())
	}
	return msgs
}

// fzDualSSE splits an event stream into its data: id, retry and event
// lines and comments are allowed, one data line per event.
func fzDualSSE(t *testing.T, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, ev := range bytes.Split(bytes.TrimSuffix(body, []byte("\n\n")), []byte("\n\n")) {
		var data [][]byte
		hasID := false
		for _, line := range bytes.Split(ev, []byte("\n")) {
			hasID = hasID || bytes.HasPrefix(line, []byte("id:"))
			switch {
			case bytes.HasPrefix(line, []byte("data: ")):
				data = append(data, bytes.TrimPrefix(line, []byte("data: ")))
			case len(line) == 0, bytes.HasPrefix(line, []byte(":")), bytes.HasPrefix(line, []byte("id:")), bytes.HasPrefix(line, []byte("retry:")), bytes.HasPrefix(line, []byte("event:")):
			default:
				t.Fatalf("unexpected SSE line %q in %q", line, body)
			}
		}
		switch len(data) {
		case 0:
		case 1:
			if len(data[0]) == 0 && hasID {
				continue // the priming event of a resumable stream (§4.8): an id and empty data
			}
			out = append(out, data[0])
		default:
			t.Fatalf("event with %d data lines: %q", len(data), ev)
		}
	}
	return out
}

// fzCodes are the error codes of an answer's responses (0 for a result).
func fzCodes(t *testing.T, resp *httptest.ResponseRecorder, verb string) []int64 {
	t.Helper()
	var out []int64
	for _, m := range fzDualAnswer(t, resp, verb) {
		var v struct {
			Method *string    `json:"method"`
			Error  *WireError `json:"error"`
		}
		_ = json.Unmarshal(m, &v)
		switch {
		case v.Method != nil:
		case v.Error != nil:
			out = append(out, v.Error.Code)
		default:
			out = append(out, 0)
		}
	}
	return out
}

// FuzzStdioDual runs an ErasBoth ServeStdio over arbitrary input, seeded
// with FuzzStdio's inputs and legacy sessions. Properties: it returns nil
// (the input ends in EOF); stdout holds whole lines, each one JSON-RPC
// message (a batch answer: an array of responses) that is a response, a
// notification or a server-to-client request of the bridge
// (elicitation/create, sampling/createMessage, roots/list), with an
// emittable code; a parse error has no id; there are no more answers
// (lines that are not notifications) than input lines.
func FuzzStdioDual(f *testing.F) {
	for _, file := range FzSeedFiles(f, "stdio", "*.jsonl") {
		f.Add(file.Data)
	}
	s := FzServer(f, Eras(legacy.ErasBoth), server.WithShutdownTimeout(100*time.Millisecond), server.WithMaxStdioLine(FzStdioMaxLine))
	f.Fuzz(func(t *testing.T, input []byte) {
		o, _ := FzServeStdio(t, s, input)
		lines := 0
		for _, seg := range bytes.Split(input, []byte("\n")) {
			if len(bytes.TrimSpace(seg)) > 0 || len(bytes.TrimSuffix(seg, []byte("\r"))) > FzStdioMaxLine { // a blank line over the limit is answered too
				lines++
			}
		}
		if len(o) == 0 {
			return
		}
		if o[len(o)-1] != '\n' {
			t.Fatalf("output does not end with a line end: %q", o)
		}
		answers := 0
		for _, line := range bytes.Split(o[:len(o)-1], []byte("\n")) {
			if len(line) == 0 || bytes.ContainsRune(line, '\r') {
				t.Fatalf("empty line or CR in the output: %q", o)
			}
			elems, notes := [][]byte{line}, 0
			if line[0] == '[' {
				var arr []json.RawMessage
				if err := json.Unmarshal(line, &arr); err != nil || len(arr) == 0 {
					t.Fatalf("an array line that is not a batch answer: %q", line)
				}
				elems = elems[:0]
				for _, e := range arr {
					elems = append(elems, e)
				}
			}
			for _, e := range elems {
				v := FzDecodeLoose(t, e)
				switch {
				case v.Method != nil && v.ID == nil:
					notes++
					continue // a notification
				case v.Method != nil:
					if !slices.Contains([]string{"elicitation/create", "sampling/createMessage", "roots/list"}, *v.Method) {
						t.Fatalf("R-STDIO-03: the server sent the request %q: %s", *v.Method, e)
					}
					continue
				case (v.Result == nil) == (v.Error == nil):
					t.Fatalf("neither a result nor an error: %s", e)
				case v.Error != nil && v.Error.Code == protocol.CodeParseError && v.ID != nil:
					t.Fatalf("R-BASE-07: parse error with an id: %s", e)
				case v.Error != nil && !EmittableCode(v.Error.Code) && v.Error.Code != -32002:
					t.Fatalf("error code %d may not be sent: %s", v.Error.Code, e)
				}
			}
			if notes < len(elems) {
				answers++ // a response, a server request or a batch answer
			}
		}
		if answers > lines {
			t.Fatalf("%d answers to %d lines", answers, lines)
		}
	})
}

// fzFlattenBatches replaces the answer to a JSON-RPC batch (2025-03-26
// sessions, docs/dual-era.md §2.8), a non-empty array of responses, by its
// elements, which are checked as every other message is; batch reports
// one.
func fzFlattenBatches(t *testing.T, msgs [][]byte) (out [][]byte, batch bool) {
	t.Helper()
	for _, m := range msgs {
		if b := bytes.TrimLeft(m, " \t\r\n"); len(b) == 0 || b[0] != '[' {
			out = append(out, m)
			continue
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(m, &elems); err != nil || len(elems) == 0 {
			t.Fatalf("a batch answer that is not a non-empty array (%v): %q", err, m)
		}
		if len(msgs) != 1 {
			t.Fatalf("a batch answer beside other messages: %q", msgs)
		}
		for _, e := range elems {
			out = append(out, e)
		}
		batch = true
	}
	return out, batch
}
