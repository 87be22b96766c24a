package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// The example server's timeouts are set, and a slow-loris client that
// never finishes its headers is disconnected after ReadHeaderTimeout.
func TestSlowLoris(t *testing.T) {
	hs := newHTTPServer("127.0.0.1:0", http.NotFoundHandler())
	if hs.ReadHeaderTimeout <= 0 || hs.ReadTimeout <= 0 || hs.IdleTimeout <= 0 {
		t.Fatalf("timeouts not set: %+v", hs)
	}
	hs.ReadHeaderTimeout = 200 * time.Millisecond // the test's, to be quick
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	buf := make([]byte, 512)
	for {
		if _, err := conn.Read(buf); err != nil {
			break // the server closed the connection (after a 408, or at once)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("a client that never finished its headers held the connection for %v", d)
	}
}

// I4: on SIGINT or SIGTERM the example server calls s.Shutdown before the
// http.Server's: an open listen stream ends with its subscriptions/listen
// result (R-SUB-06) instead of being cut.
func TestGracefulShutdown(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := newServer(logger, legacy.ErasBoth, cluster{})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.Handler(streamhttp.Options{}))
	hs := newHTTPServer("127.0.0.1:0", mux)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- serveHTTP(ctx, logger, s.Server, hs, ln, 10*time.Second) }()

	body := `{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true}}}`
	req, _ := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/mcp", strings.NewReader(body))
	req.Host = "127.0.0.1"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "event:") {
		t.Fatalf("listen: %d %q %v", resp.StatusCode, line, err)
	}
	stop()                    // as SIGTERM does
	rest, _ := io.ReadAll(br) // until the server ends the response
	if !strings.Contains(string(rest), `"io.modelcontextprotocol/subscriptionId":"sub-1"},"resultType":"complete"`) {
		t.Errorf("the listen stream ended without its result (R-SUB-06): %q", rest)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serveHTTP: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serveHTTP did not return after the stop")
	}
}

// ---- The legacy fixtures (legacy.go, docs/dual-era.md §10.6), through
// both eras: 2026-07-28 requests over HTTP, and a legacy session over
// stdio and over Streamable HTTP.

// newTestServer is the example server as main builds it, under ErasBoth.
func newTestServer(t *testing.T) *instance {
	t.Helper()
	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), legacy.ErasBoth, cluster{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rpcMsg is one JSON-RPC message of an answer.
type rpcMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// modern sends 2026-07-28 requests to the example over HTTP.
type modern struct {
	t   *testing.T
	url string
}

func newModern(t *testing.T) *modern {
	t.Helper()
	hs := httptest.NewServer(newTestServer(t).Handler(streamhttp.Options{}))
	t.Cleanup(hs.Close)
	return &modern{t: t, url: hs.URL}
}

// modernMeta is the _meta of every request; extra members are added after.
func modernMeta(extra string) string {
	m := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"everything-test","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{}}`
	if extra != "" {
		m += "," + extra
	}
	return `{` + m + `}`
}

// do POSTs one request whose params are the members in params plus _meta,
// and returns every message of the answer (JSON or SSE), the response last.
func (c *modern) do(method, name, params, metaExtra string) []rpcMsg {
	c.t.Helper()
	p := `{"_meta":` + modernMeta(metaExtra)
	if params != "" {
		p += "," + params
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + p + `}}`
	req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	return doHTTP(c.t, req)
}

// toolList is the part of a tools/list result the fixture tests check.
type toolList struct {
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
}

// postInitialize posts a 2025-11-25 initialize request with the given
// client capabilities to url, reads its answer to the end, and returns the
// response (its status and headers).
func postInitialize(t *testing.T, url, capabilities string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+capabilities+`,"clientInfo":{"name":"everything-test","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// doHTTP sends req and reads its answer: one JSON message, or an SSE
// stream of them.
func doHTTP(t *testing.T, req *http.Request) []rpcMsg {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var frames [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(raw), "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok && strings.TrimSpace(d) != "" {
				frames = append(frames, []byte(d))
			}
		}
	} else if len(bytes.TrimSpace(raw)) > 0 {
		frames = append(frames, raw)
	}
	var msgs []rpcMsg
	for _, f := range frames {
		var m rpcMsg
		if err := json.Unmarshal(f, &m); err != nil {
			t.Fatalf("HTTP %d: %v: %s", resp.StatusCode, err, f)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// last returns the final message of an answer, which must be a response.
func last(t *testing.T, msgs []rpcMsg) rpcMsg {
	t.Helper()
	if len(msgs) == 0 {
		t.Fatal("no messages")
	}
	m := msgs[len(msgs)-1]
	if m.Method != "" {
		t.Fatalf("last message is %s, not a response", m.Method)
	}
	return m
}

// toolText returns the text of a tools/call result's only text block,
// and fails if the result is an error or has no text.
func toolText(t *testing.T, m rpcMsg) string {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error %d %s", m.Error.Code, m.Error.Message)
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].Type != "text" {
		t.Fatalf("result %s", m.Result)
	}
	return res.Content[0].Text
}

// askedFor calls tool with the JSON object args, checks that the answer is
// an input_required result whose only input request is a method request,
// and returns that request's key and params and the request state.
func askedFor(t *testing.T, c *modern, tool, args, method string) (key string, params json.RawMessage, state string) {
	t.Helper()
	key, got, params, state := inputRequest(t, last(t, c.do("tools/call", tool, `"name":"`+tool+`","arguments":`+args, "")))
	if got != method {
		t.Fatalf("method %q, want %s", got, method)
	}
	return key, params, state
}

// inputRequest returns the only input request of an input_required result,
// with its key.
func inputRequest(t *testing.T, m rpcMsg) (key string, method string, params json.RawMessage, state string) {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error %d %s", m.Error.Code, m.Error.Message)
	}
	var res struct {
		ResultType    string `json:"resultType"`
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
		RequestState string `json:"requestState"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.ResultType != "input_required" || len(res.InputRequests) != 1 {
		t.Fatalf("want one input request: %s", m.Result)
	}
	for k, v := range res.InputRequests {
		return k, v.Method, v.Params, res.RequestState
	}
	panic("unreachable")
}

// retryParams are the params members of a retry with one input response.
func retryParams(name, args, key, response, state string) string {
	p := `"name":"` + name + `","arguments":` + args + `,"inputResponses":{"` + key + `":` + response + `}`
	if state != "" {
		p += `,"requestState":"` + state + `"`
	}
	return p
}

// jsonEqual fails unless got and want are the same JSON value.
func jsonEqual(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v: %s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// The new fixtures are listed with a description and an object
// inputSchema, as the tools-list scenarios of both requirement sets check
// for every tool (R-TOOL-01; the suite is stricter than the spec on
// description); the watched resource is listed with a name.
func TestLegacyFixturesListed(t *testing.T) {
	c := newModern(t)
	var list toolList
	if err := json.Unmarshal(last(t, c.do("tools/list", "", "", "")).Result, &list); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"test_tool_with_logging":            `{"type":"object","properties":{}}`,
		"test_sampling":                     `{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the model"}},"required":["prompt"]}`,
		"test_elicitation":                  `{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}`,
		"test_elicitation_sep1034_defaults": `{"type":"object","properties":{}}`,
		"test_elicitation_sep1330_enums":    `{"type":"object","properties":{}}`,
		"test_reconnection":                 `{"type":"object","properties":{}}`,
	}
	for _, tool := range list.Tools {
		if tool.Description == "" || len(tool.InputSchema) == 0 {
			t.Errorf("tool %s: description %q, inputSchema %s", tool.Name, tool.Description, tool.InputSchema)
		}
		if w, ok := want[tool.Name]; ok {
			jsonEqual(t, tool.Name, tool.InputSchema, w)
			delete(want, tool.Name)
		}
	}
	for name := range want {
		t.Errorf("tool %s not listed", name)
	}
	var rl struct {
		Resources []struct {
			URI, Name, MIMEType string
		} `json:"resources"`
	}
	if err := json.Unmarshal(last(t, c.do("resources/list", "", "", "")).Result, &rl); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rl.Resources {
		found = found || (r.URI == watchedResource && r.Name != "" && r.MIMEType == "text/plain")
	}
	if !found {
		t.Errorf("%s not listed: %+v", watchedResource, rl.Resources)
	}
}

// wantLogs checks that msgs hold the three info messages of
// test_tool_with_logging, in order, before the response.
func wantLogs(t *testing.T, msgs []rpcMsg) {
	t.Helper()
	var got []string
	for _, m := range msgs[:len(msgs)-1] {
		if m.Method != "notifications/message" {
			continue
		}
		var p struct {
			Level string `json:"level"`
			Data  string `json:"data"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.Level != "info" {
			t.Errorf("level %q", p.Level)
		}
		got = append(got, p.Data)
	}
	if !reflect.DeepEqual(got, logSteps[:]) {
		t.Errorf("logs %q, want %q", got, logSteps)
	}
}

// test_tool_with_logging, modern: the three messages on the call's stream
// when the request sets a log level (R-LOG-04), none without (R-LOG-03).
func TestToolWithLoggingModern(t *testing.T) {
	c := newModern(t)
	msgs := c.do("tools/call", "test_tool_with_logging", `"name":"test_tool_with_logging","arguments":{}`, `"io.modelcontextprotocol/logLevel":"debug"`)
	wantLogs(t, msgs)
	if got := toolText(t, last(t, msgs)); got != "Tool with logging completed." {
		t.Errorf("text %q", got)
	}
	msgs = c.do("tools/call", "test_tool_with_logging", `"name":"test_tool_with_logging","arguments":{}`, "")
	if len(msgs) != 1 {
		t.Errorf("without logLevel: %d messages, want only the response", len(msgs))
	}
}

// test_sampling, modern: one sampling/createMessage input request with the
// prompt as a user message and maxTokens 100 (R-MRTR-03/04); the retry
// with the model's answer completes with "LLM response: <text>".
func TestSamplingModern(t *testing.T) {
	c := newModern(t)
	args := `{"prompt":"What is the capital of France?"}`
	key, params, state := askedFor(t, c, "test_sampling", args, "sampling/createMessage")
	jsonEqual(t, "sampling params", params, samplingParams)
	answer := `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"test-model","stopReason":"endTurn"}`
	m := last(t, c.do("tools/call", "test_sampling", retryParams("test_sampling", args, key, answer, state), ""))
	if got := toolText(t, m); got != "LLM response: Paris" {
		t.Errorf("text %q", got)
	}
	// A call without its required prompt fails the inputSchema check
	// (a tool execution error) before anything is asked.
	if m := last(t, c.do("tools/call", "test_sampling", `"name":"test_sampling","arguments":{}`, "")); m.Error != nil ||
		!strings.Contains(string(m.Result), `"isError":true`) || strings.Contains(string(m.Result), "inputRequests") {
		t.Errorf("no prompt: %s %+v", m.Result, m.Error)
	}
}

// test_elicitation, modern: one form elicitation with the message and a
// schema of two required strings (R-ELIC-03/04); the retry reports the
// action and the content, accepted or declined (R-ELIC-06).
func TestElicitationModern(t *testing.T) {
	c := newModern(t)
	args := `{"message":"Please provide your information"}`
	key, params, state := askedFor(t, c, "test_elicitation", args, "elicitation/create")
	jsonEqual(t, "elicitation params", params, elicitationParams)
	for answer, want := range map[string]string{
		`{"action":"accept","content":{"username":"alice","email":"alice@example.com"}}`: `User response: action=accept, content={"email":"alice@example.com","username":"alice"}`,
		`{"action":"decline"}`: `User response: action=decline, content={}`,
	} {
		m := last(t, c.do("tools/call", "test_elicitation", retryParams("test_elicitation", args, key, answer, state), ""))
		if got := toolText(t, m); got != want {
			t.Errorf("text %q, want %q", got, want)
		}
	}
}

// What the input fixtures ask, the same in both eras: the params of the
// input request (2026-07-28) or of the server-to-client request (legacy).
const (
	samplingParams    = `{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}`
	elicitationParams = `{"message":"Please provide your information","requestedSchema":{"type":"object",` +
		`"properties":{"email":{"type":"string","description":"Your email address"},"username":{"type":"string","description":"Your username"}},"required":["email","username"]}}`
	defaultsSchema = `{"type":"object","properties":{
		"name":{"type":"string","description":"User name","default":"John Doe"},
		"age":{"type":"integer","description":"User age","default":30},
		"score":{"type":"number","description":"User score","default":95.5},
		"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
		"verified":{"type":"boolean","description":"Verification status","default":true}}}`
	enumsSchema = `{"type":"object","properties":{
		"untitledSingle":{"type":"string","description":"Choose an option","enum":["option1","option2","option3"]},
		"titledSingle":{"type":"string","description":"Choose a titled option","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
		"legacyEnum":{"type":"string","description":"Choose a legacy option","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
		"untitledMulti":{"type":"array","description":"Choose several options","items":{"type":"string","enum":["option1","option2","option3"]}},
		"titledMulti":{"type":"array","description":"Choose several titled options","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`
)

// elicitedSchema calls an elicitation tool without arguments and returns
// the requestedSchema of its only input request, with the retry's text
// after answer.
func elicitedSchema(t *testing.T, c *modern, tool, answer string) (json.RawMessage, string) {
	t.Helper()
	key, params, state := askedFor(t, c, tool, `{}`, "elicitation/create")
	var p struct {
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Message == "" {
		t.Fatalf("params %s: %v", params, err)
	}
	text := toolText(t, last(t, c.do("tools/call", tool, retryParams(tool, `{}`, key, answer, state), "")))
	return p.RequestedSchema, text
}

// test_elicitation_sep1034_defaults: a default on a string, an integer, a
// number, an enum (one of its values) and a boolean (R-ELIC-04).
func TestElicitationDefaults(t *testing.T) {
	schema, text := elicitedSchema(t, newModern(t), "test_elicitation_sep1034_defaults",
		`{"action":"accept","content":{"name":"Jane Smith","age":25,"score":88,"status":"inactive","verified":false}}`)
	jsonEqual(t, "requestedSchema", schema, defaultsSchema)
	if want := `User response: action=accept, content={"age":25,"name":"Jane Smith","score":88,"status":"inactive","verified":false}`; text != want {
		t.Errorf("text %q, want %q", text, want)
	}
}

// test_elicitation_sep1330_enums: the five enum shapes, each without the
// members the suite forbids on it (untitled: no oneOf/enumNames; titled
// single: no enum; legacy: enumNames as long as enum; multi: items.enum or
// items.anyOf, not both).
func TestElicitationEnums(t *testing.T) {
	schema, text := elicitedSchema(t, newModern(t), "test_elicitation_sep1330_enums",
		`{"action":"accept","content":{"untitledSingle":"option1","titledSingle":"value2","legacyEnum":"opt3","untitledMulti":["option1","option3"],"titledMulti":["value1"]}}`)
	jsonEqual(t, "requestedSchema", schema, enumsSchema)
	if !strings.HasPrefix(text, "User response: action=accept, content={") || !strings.Contains(text, `"untitledMulti":["option1","option3"]`) {
		t.Errorf("text %q", text)
	}
}

// test_reconnection, modern (no polling in 2026-07-28, R-HTTP-18) answers
// its text, not an error; the watched resource reads as text/plain.
func TestReconnectionAndWatchedModern(t *testing.T) {
	c := newModern(t)
	if got := toolText(t, last(t, c.do("tools/call", "test_reconnection", `"name":"test_reconnection","arguments":{}`, ""))); got != "Reconnection test completed" {
		t.Errorf("text %q", got)
	}
	m := last(t, c.do("resources/read", watchedResource, `"uri":"`+watchedResource+`"`, ""))
	if m.Error != nil {
		t.Fatalf("read: %+v", m.Error)
	}
	jsonEqual(t, "contents", json.RawMessage(gjson(t, m.Result, "contents")), `[{"uri":"test://watched-resource","mimeType":"text/plain","text":"Watched resource content."}]`)
}

// gjson returns the member name of the JSON object raw.
func gjson(t *testing.T, raw json.RawMessage, name string) json.RawMessage {
	t.Helper()
	var o map[string]json.RawMessage
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return o[name]
}

// stdioSession is a legacy session with the example over stdio.
type stdioSession struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan []byte
}

// newStdioSession starts the example on pipes and opens a 2025-11-25
// session: initialize with sampling and elicitation, then initialized.
func newStdioSession(t *testing.T) *stdioSession {
	t.Helper()
	s := newTestServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = s.ServeStdio(ctx, inR, outW)
		_ = outW.Close()
	}()
	ss := &stdioSession{t: t, in: inW, lines: make(chan []byte, 64)}
	go func() {
		defer close(ss.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			ss.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		<-served
	})
	m := ss.call(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{}},"clientInfo":{"name":"everything-test","version":"1"}}`)
	if m.Error != nil || !strings.Contains(string(m.Result), `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s %+v", m.Result, m.Error)
	}
	ss.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return ss
}

func (ss *stdioSession) send(line string) {
	ss.t.Helper()
	if _, err := io.WriteString(ss.in, line+"\n"); err != nil {
		ss.t.Fatal(err)
	}
}

// next returns the next message the server writes.
func (ss *stdioSession) next() rpcMsg {
	ss.t.Helper()
	select {
	case line, ok := <-ss.lines:
		if !ok {
			ss.t.Fatal("the server closed stdout")
		}
		var m rpcMsg
		if err := json.Unmarshal(line, &m); err != nil {
			ss.t.Fatalf("%v: %s", err, line)
		}
		return m
	case <-time.After(10 * time.Second):
		ss.t.Fatal("no message within 10 s")
	}
	panic("unreachable")
}

// call sends a request and returns every message up to its response, the
// response last, in collect (notifications) order.
func (ss *stdioSession) exchange(id int, method, params string) []rpcMsg {
	ss.t.Helper()
	line := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `"`
	if params != "" {
		line += `,"params":` + params
	}
	ss.send(line + "}")
	var msgs []rpcMsg
	for {
		m := ss.next()
		msgs = append(msgs, m)
		if m.Method == "" && string(m.ID) == strconv.Itoa(id) {
			return msgs
		}
	}
}

func (ss *stdioSession) call(id int, method, params string) rpcMsg {
	ss.t.Helper()
	msgs := ss.exchange(id, method, params)
	return msgs[len(msgs)-1]
}

// The fixtures that need no server-to-client request, in a legacy stdio
// session: tools/list describes them (legacy projection of R-TOOL-01);
// test_tool_with_logging sends its three messages after logging/setLevel;
// test_reconnection answers (stdio has no polling); the watched resource
// can be subscribed, read and unsubscribed (L1125 server/resources
// subscriptions).
func TestLegacyStdioFixtures(t *testing.T) {
	ss := newStdioSession(t)
	var list toolList
	if err := json.Unmarshal(ss.call(1, "tools/list", "").Result, &list); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range list.Tools {
		names[tool.Name] = true
		if tool.Description == "" || len(tool.InputSchema) == 0 {
			t.Errorf("tool %s: description %q, inputSchema %s", tool.Name, tool.Description, tool.InputSchema)
		}
	}
	for _, n := range []string{"test_tool_with_logging", "test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums", "test_reconnection"} {
		if !names[n] {
			t.Errorf("%s not listed", n)
		}
	}

	if m := ss.call(2, "logging/setLevel", `{"level":"info"}`); m.Error != nil || string(m.Result) != "{}" {
		t.Fatalf("setLevel: %s %+v", m.Result, m.Error)
	}
	msgs := ss.exchange(3, "tools/call", `{"name":"test_tool_with_logging","arguments":{}}`)
	wantLogs(t, msgs)
	if got := toolText(t, msgs[len(msgs)-1]); got != "Tool with logging completed." {
		t.Errorf("text %q", got)
	}

	if got := toolText(t, ss.call(4, "tools/call", `{"name":"test_reconnection","arguments":{}}`)); got != "Reconnection test completed" {
		t.Errorf("text %q", got)
	}

	for i, method := range []string{"resources/subscribe", "resources/read", "resources/unsubscribe"} {
		m := ss.call(5+i, method, `{"uri":"`+watchedResource+`"}`)
		if m.Error != nil {
			t.Fatalf("%s: %+v", method, m.Error)
		}
		if method == "resources/read" {
			jsonEqual(t, "contents", gjson(t, m.Result, "contents"), `[{"uri":"test://watched-resource","mimeType":"text/plain","text":"Watched resource content."}]`)
		} else if string(m.Result) != "{}" {
			t.Errorf("%s: %s", method, m.Result)
		}
	}
}

// The same over Streamable HTTP, as the suite's tools-call-with-logging
// and resources-subscribe scenarios send it: initialize, initialized, then
// requests with Mcp-Session-Id and MCP-Protocol-Version; the logs arrive on
// the call's SSE stream before its result.
func TestLegacyHTTPFixtures(t *testing.T) {
	hs := httptest.NewServer(newTestServer(t).Handler(streamhttp.Options{}))
	t.Cleanup(hs.Close)
	sid := ""
	post := func(body string) []rpcMsg {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		return doHTTP(t, req)
	}
	resp := postInitialize(t, hs.URL, `{"sampling":{},"elicitation":{}}`)
	if sid = resp.Header.Get("Mcp-Session-Id"); resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if m := last(t, post(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`)); m.Error != nil {
		t.Fatalf("setLevel: %+v", m.Error)
	}
	msgs := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_tool_with_logging","arguments":{}}}`)
	wantLogs(t, msgs)
	if got := toolText(t, last(t, msgs)); got != "Tool with logging completed." {
		t.Errorf("text %q", got)
	}
	for i, method := range []string{"resources/subscribe", "resources/unsubscribe"} {
		m := last(t, post(`{"jsonrpc":"2.0","id":`+strconv.Itoa(3+i)+`,"method":"`+method+`","params":{"uri":"`+watchedResource+`"}}`))
		if m.Error != nil || string(m.Result) != "{}" {
			t.Errorf("%s: %s %+v", method, m.Result, m.Error)
		}
	}
}

// msgNoBridge is the start of the refusal AskInput gives in a legacy
// session until the input bridge (docs/dual-era.md §6) is merged.
const msgNoBridge = "cannot be sent in a legacy session yet"

// The fixtures that ask for input, in a legacy stdio session: the server
// sends the request (sampling/createMessage or elicitation/create, with
// the shape the 2025-11-25 scenarios check), the client answers it, and
// the tool completes with the answer. Until the bridge is merged AskInput
// refuses in a session (-32603) and the test skips; after it, it runs.
func TestLegacyStdioInputFixtures(t *testing.T) {
	cases := []struct {
		tool, args, method, params, answer, want string
	}{
		{"test_sampling", `{"prompt":"What is the capital of France?"}`, "sampling/createMessage", samplingParams,
			`{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"test-model","stopReason":"endTurn"}`, "LLM response: Paris"},
		{"test_elicitation", `{"message":"Please provide your information"}`, "elicitation/create", elicitationParams,
			`{"action":"accept","content":{"username":"alice","email":"alice@example.com"}}`, `User response: action=accept, content={"email":"alice@example.com","username":"alice"}`},
		{"test_elicitation_sep1034_defaults", `{}`, "elicitation/create",
			`{"message":"Please review and update the form fields with defaults","requestedSchema":` + defaultsSchema + `}`,
			`{"action":"accept","content":{"name":"Jane Smith","age":25,"score":88,"status":"inactive","verified":false}}`, `User response: action=accept, content={"age":25,"name":"Jane Smith","score":88,"status":"inactive","verified":false}`},
		{"test_elicitation_sep1330_enums", `{}`, "elicitation/create",
			`{"message":"Please select options from the enum fields","requestedSchema":` + enumsSchema + `}`,
			`{"action":"accept","content":{"untitledSingle":"option1"}}`, `User response: action=accept, content={"untitledSingle":"option1"}`},
	}
	ss := newStdioSession(t)
	for i, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			ss.t = t
			id := 10 + i
			ss.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + c.tool + `","arguments":` + c.args + `}}`)
			asked := false
			for {
				m := ss.next()
				switch {
				case m.Method == c.method && len(m.ID) > 0:
					asked = true
					jsonEqual(t, c.method+" params", m.Params, c.params)
					ss.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + c.answer + `}`)
				case m.Method == "" && string(m.ID) == strconv.Itoa(id):
					if m.Error != nil && strings.Contains(m.Error.Message, msgNoBridge) {
						t.Skipf("needs the input bridge (docs/dual-era.md step 7): %s", m.Error.Message)
					}
					if !asked {
						t.Errorf("the server never sent %s", c.method)
					}
					if got := toolText(t, m); got != c.want {
						t.Errorf("text %q, want %q", got, c.want)
					}
					return
				}
			}
		})
	}
}

// -eras names the three modes by Eras.String; anything else is refused.
func TestParseEras(t *testing.T) {
	for in, want := range map[string]legacy.Eras{"both": legacy.ErasBoth, "modern": legacy.ErasModern, "legacy": legacy.ErasLegacy} {
		if got, err := parseEras(in); err != nil || got != want {
			t.Errorf("%s: %v %v", in, got, err)
		}
	}
	for _, in := range []string{"", "Both", "all"} {
		if _, err := parseEras(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
