package server

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpwire/mcpwire/protocol"
)

// Helpers of the legacy-session tests: a fixture with one of each thing a
// legacy client uses, and validation of every server message against the
// schema.json of the session's revision (from MCP_SPEC_DIR; skipped
// without it).

// legacyRevs are the legacy revisions, newest first.
var legacyRevs = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// legacyFixture is the era fixture under mode, with the tools and
// resources the transcripts call: a structured tool, a logging tool, a
// progress tool, a tool that waits for its context, content a revision
// may lack (audio, a resource link), a tool that requires an extension
// (H5), a completion handler and a watched resource.
type legacyFixture struct {
	*Server
	calls   *countCalls
	started chan string
}

type countCalls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *countCalls) add(name string) {
	c.mu.Lock()
	c.n[name]++
	c.mu.Unlock()
}

func (c *countCalls) get(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

func newLegacyFixture(t testing.TB, mode Eras, opts ...Option) *legacyFixture {
	t.Helper()
	complete := WithCompletion(func(_ context.Context, _ *Request, p *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
		return &protocol.CompleteResult{Completion: protocol.CompleteResultCompletion{Values: []string{p.Argument.Value + "-1", p.Argument.Value + "-2"}}}, nil
	})
	s, _ := eraFixture(t, mode, append([]Option{complete}, opts...)...)
	f := &legacyFixture{Server: s, calls: &countCalls{n: map[string]int{}}, started: make(chan string, 10)}
	type point struct {
		X int `json:"x"`
	}
	if err := AddTypedTool(s, protocol.Tool{Name: "structured"}, func(context.Context, *Request, struct{}) (point, error) {
		f.calls.add("structured")
		return point{X: 7}, nil
	}); err != nil {
		t.Fatal(err)
	}
	addTool(t, s, `{"name":"logs","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		f.calls.add("logs")
		r.Log(ctx, protocol.LoggingLevelDebug, "t", json.RawMessage(`"debug line"`))
		r.Log(ctx, protocol.LoggingLevelInfo, "t", json.RawMessage(`"info line"`))
		return TextResult("level=" + levelOf(r) + " version=" + r.ProtocolVersion() + " legacy=" + boolText(r.Legacy())), nil
	})
	addTool(t, s, `{"name":"progress","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		for i := 1; i <= 3; i++ {
			r.Progress(ctx, float64(i), 3, "step")
		}
		return TextResult("done"), nil
	})
	wait := func(ctx context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		f.started <- r.ID.String()
		select {
		case <-ctx.Done():
			f.calls.add("wait cancelled")
			return TextResult("cancelled"), nil
		case <-time.After(10 * time.Second):
			return TextResult("waited"), nil
		}
	}
	addTool(t, s, `{"name":"wait","inputSchema":{"type":"object"}}`, wait)
	addTool(t, s, `{"name":"waitpoll","inputSchema":{"type":"object"}}`, wait, AllowPolling()) // on a worker of its own (2025-11-25)
	addTool(t, s, `{"name":"media","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{
			Audio("AAAA", "audio/wav"),
			{Value: &protocol.ResourceLink{URI: "file:///a.txt", Name: "a"}},
		}}, nil
	})
	addTool(t, s, `{"name":"caps","inputSchema":{"type":"object"}}`, func(_ context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		b, _ := protocol.Marshal(ptr(r.ClientCapabilities()))
		info, _ := r.ClientInfo()
		return TextResult(string(b) + " " + info.Name), nil
	})
	if err := s.AddTool(toolDef(t, `{"name":"tasky","inputSchema":{"type":"object"}}`), func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		f.calls.add("tasky")
		return TextResult("task"), nil
	}, notesTool()); err != nil {
		t.Fatal(err)
	}
	addResource(t, s, protocol.Resource{URI: "test://watched-resource", Name: "watched"},
		func(_ context.Context, _ *Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return TextContents(uri, "text/plain", "watched"), nil
		})
	return f
}

func levelOf(r *Request) string {
	if r.Meta.LogLevel == nil {
		return "unset"
	}
	return string(*r.Meta.LogLevel)
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// initParams is the params of a legacy initialize for rev with caps.
func initParams(rev, caps string) string {
	if caps == "" {
		caps = "{}"
	}
	return `{"protocolVersion":"` + rev + `","capabilities":` + caps + `,"clientInfo":{"name":"legacy-test","version":"1"}}`
}

// schemaFor loads the schema.json of a legacy revision, formats dropped
// (draft-07 asserts them, and fixture URIs are not the projection's to
// change), or returns nil without MCP_SPEC_DIR.
func schemaFor(t testing.TB, rev string) *jsonschema.Compiler {
	t.Helper()
	dir := os.Getenv("MCP_SPEC_DIR")
	if dir == "" {
		return nil
	}
	schemaCache.Lock()
	defer schemaCache.Unlock()
	if c, ok := schemaCache.m[rev]; ok {
		return c
	}
	data, err := os.ReadFile(filepath.Join(dir, "schema", rev, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	dropSchemaFormats(doc)
	c := jsonschema.NewCompiler()
	if err := c.AddResource("file:///"+rev+".json", doc); err != nil {
		t.Fatal(err)
	}
	schemaCache.m[rev] = c
	return c
}

var schemaCache = struct {
	sync.Mutex
	m map[string]*jsonschema.Compiler
}{m: map[string]*jsonschema.Compiler{}}

func dropSchemaFormats(x any) {
	switch v := x.(type) {
	case map[string]any:
		if _, ok := v["format"].(string); ok {
			delete(v, "format")
		}
		for _, c := range v {
			dropSchemaFormats(c)
		}
	case []any:
		for _, c := range v {
			dropSchemaFormats(c)
		}
	}
}

// resultDefs names the result definition of each legacy method.
var resultDefs = map[string]string{
	"initialize": "InitializeResult", "tools/list": "ListToolsResult", "tools/call": "CallToolResult",
	"prompts/list": "ListPromptsResult", "prompts/get": "GetPromptResult", "resources/list": "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult", "resources/read": "ReadResourceResult",
	"completion/complete": "CompleteResult",
}

// requestDefs names the definition of each server-to-client request (the
// input bridge).
var requestDefs = map[string]string{
	"elicitation/create": "ElicitRequest", "sampling/createMessage": "CreateMessageRequest", "roots/list": "ListRootsRequest",
}

// notificationDefs names the definition of each server notification.
var notificationDefs = map[string]string{
	"notifications/cancelled": "CancelledNotification",
	"notifications/progress":  "ProgressNotification", "notifications/message": "LoggingMessageNotification",
	"notifications/tools/list_changed": "ToolListChangedNotification", "notifications/prompts/list_changed": "PromptListChangedNotification",
	"notifications/resources/list_changed": "ResourceListChangedNotification", "notifications/resources/updated": "ResourceUpdatedNotification",
}

// checkLegacyMessage validates one message the server sent in a session
// of rev: against JSONRPCMessage, and its result (method is the request's)
// or the notification against its definition. Every legacy message lacks
// the 2026-07-28 envelope: resultType, ttlMs, cacheScope and
// io.modelcontextprotocol/serverInfo.
func checkLegacyMessage(t testing.TB, rev string, msg []byte, method string) {
	t.Helper()
	for _, modern := range []string{`"resultType"`, `"ttlMs"`, `"cacheScope"`, `io.modelcontextprotocol/serverInfo`, `subscriptionId`} {
		if bytes.Contains(msg, []byte(modern)) {
			t.Errorf("%s: a legacy message carries %s: %s", rev, modern, msg)
		}
	}
	c := schemaFor(t, rev)
	if c == nil {
		return
	}
	prefix := "#/definitions/"
	if rev == "2025-11-25" {
		prefix = "#/$defs/"
	}
	validate := func(def string, data []byte) {
		t.Helper()
		sch, err := c.Compile("file:///" + rev + ".json" + prefix + def)
		if err != nil {
			t.Fatalf("compile %s: %v", def, err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("not JSON: %s", data)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: %s does not validate: %v\n%s", rev, def, err, msg)
		}
	}
	validate("JSONRPCMessage", msg)
	var env struct {
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(msg, &env)
	switch {
	case env.Method != "" && bytes.Contains(msg, []byte(`"id":`)) && requestDefs[env.Method] != "":
		validate(requestDefs[env.Method], msg)
	case env.Method != "":
		if def := notificationDefs[env.Method]; def != "" {
			validate(def, msg)
		} else {
			t.Errorf("%s: an unexpected notification %s", rev, msg)
		}
	case env.Result != nil:
		if def := resultDefs[method]; def != "" {
			validate(def, env.Result)
		}
	}
}

// legacyStdio drives ServeStdio as a legacy client of rev: every line the
// server writes is validated for rev.
type legacyStdio struct {
	t   testing.TB
	ss  *session
	rev string
	// answer answers a server-to-client request (the input bridge) read
	// while call waits: the line it returns is sent ("" sends nothing).
	// Without it such a request fails the test.
	answer func(req *wire) string
	asked  []*wire // the server-to-client requests read so far
}

func startLegacyStdio(t testing.TB, s *Server, rev string) *legacyStdio {
	ss := startStdio(t, s)
	ss.bridge = true
	return &legacyStdio{t: t, ss: ss, rev: rev}
}

// call sends a request and returns its response and the notifications
// written before it.
func (c *legacyStdio) call(id any, method, params string) (*wire, []*wire) {
	c.t.Helper()
	c.ss.send(eraBody(id, method, params))
	want, _ := json.Marshal(id)
	var notes []*wire
	for {
		w := c.ss.recv()
		checkLegacyMessage(c.t, c.rev, w.raw, method)
		if w.method() != "" && w.hasID() {
			c.asked = append(c.asked, w)
			if c.answer == nil {
				c.t.Fatalf("an unexpected server-to-client request %s", w.raw)
			}
			if line := c.answer(w); line != "" {
				c.ss.send(line)
			}
			continue
		}
		if w.method() != "" {
			notes = append(notes, w)
			continue
		}
		if w.id() != string(want) {
			c.t.Fatalf("response %s while waiting for id %s", w.raw, want)
		}
		return w, notes
	}
}

// note sends a notification.
func (c *legacyStdio) note(method, params string) {
	c.t.Helper()
	c.ss.send(eraNote(method, params))
}

// next returns the next message the server writes, validated.
func (c *legacyStdio) next() *wire {
	c.t.Helper()
	w := c.ss.recv()
	checkLegacyMessage(c.t, c.rev, w.raw, "")
	return w
}

// open sends initialize and notifications/initialized, and returns the
// initialize result.
func (c *legacyStdio) open(caps string) *wire {
	c.t.Helper()
	w, _ := c.call(0, "initialize", initParams(c.rev, caps))
	if w.Error != nil {
		c.t.Fatalf("initialize: %s", w.raw)
	}
	c.note("notifications/initialized", "")
	return w
}

// text is the first text block of a tools/call result.
func resultText(t testing.TB, w *wire) string {
	t.Helper()
	if w.Error != nil {
		t.Fatalf("an error: %s", w.raw)
	}
	return w.text(t, 0)
}

// hasMember reports whether the JSON object at path (member names) in a
// message has member name.
func hasMember(w *wire, name string, path ...string) bool {
	var v any = w.Result
	for _, p := range path {
		m, _ := v.(M)
		v = m[p]
	}
	m, _ := v.(M)
	_, ok := m[name]
	return ok
}

// contains reports whether s holds every one of subs.
func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
