package testkit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// initParams is the params of a legacy initialize for rev with caps.
func InitParams(rev, caps string) string {
	if caps == "" {
		caps = "{}"
	}
	return `{"protocolVersion":"` + rev + `","capabilities":` + caps + `,"clientInfo":{"name":"legacy-test","version":"1"}}`
}

// schemaFor loads the schema.json of a legacy revision, formats dropped
// (draft-07 asserts them, and fixture URIs are not the projection's to
// change), or returns nil without MCP_SPEC_DIR.
func SchemaFor(t testing.TB, rev string) *jsonschema.Compiler {
	t.Helper()
	dir := os.Getenv("MCP_SPEC_DIR")
	if dir == "" {
		return nil
	}
	SchemaCache.Lock()
	defer SchemaCache.Unlock()
	if c, ok := SchemaCache.M[rev]; ok {
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
	DropSchemaFormats(doc)
	c := jsonschema.NewCompiler()
	if err := c.AddResource("file:///"+rev+".json", doc); err != nil {
		t.Fatal(err)
	}
	SchemaCache.M[rev] = c
	return c
}

var SchemaCache = struct {
	sync.Mutex
	M map[string]*jsonschema.Compiler
}{M: map[string]*jsonschema.Compiler{}}

func DropSchemaFormats(x any) {
	switch v := x.(type) {
	case map[string]any:
		if _, ok := v["format"].(string); ok {
			delete(v, "format")
		}
		for _, c := range v {
			DropSchemaFormats(c)
		}
	case []any:
		for _, c := range v {
			DropSchemaFormats(c)
		}
	}
}

// resultDefs names the result definition of each legacy method.
var ResultDefs = map[string]string{
	"initialize": "InitializeResult", "tools/list": "ListToolsResult", "tools/call": "CallToolResult",
	"prompts/list": "ListPromptsResult", "prompts/get": "GetPromptResult", "resources/list": "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult", "resources/read": "ReadResourceResult",
	"completion/complete": "CompleteResult",
}

// requestDefs names the definition of each server-to-client request (the
// input bridge).
var RequestDefs = map[string]string{
	"elicitation/create": "ElicitRequest", "sampling/createMessage": "CreateMessageRequest", "roots/list": "ListRootsRequest",
}

// notificationDefs names the definition of each server notification.
var NotificationDefs = map[string]string{
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
func CheckLegacyMessage(t testing.TB, rev string, msg []byte, method string) {
	t.Helper()
	for _, modern := range []string{`"resultType"`, `"ttlMs"`, `"cacheScope"`, `io.modelcontextprotocol/serverInfo`, `subscriptionId`} {
		if bytes.Contains(msg, []byte(modern)) {
			t.Errorf("%s: a legacy message carries %s: %s", rev, modern, msg)
		}
	}
	c := SchemaFor(t, rev)
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
	case env.Method != "" && bytes.Contains(msg, []byte(`"id":`)) && RequestDefs[env.Method] != "":
		validate(RequestDefs[env.Method], msg)
	case env.Method != "":
		if def := NotificationDefs[env.Method]; def != "" {
			validate(def, msg)
		} else {
			t.Errorf("%s: an unexpected notification %s", rev, msg)
		}
	case env.Result != nil:
		if def := ResultDefs[method]; def != "" {
			validate(def, env.Result)
		}
	}
}

// legacyStdio drives ServeStdio as a legacy client of rev: every line the
// server writes is validated for rev.
type LegacyStdio struct {
	T   testing.TB
	Ss  *Session
	Rev string
	// answer answers a server-to-client request (the input bridge) read
	// while call waits: the line it returns is sent ("" sends nothing).
	// Without it such a request fails the test.
	Answer func(req *Wire) string
	Asked  []*Wire // the server-to-client requests read so far
}

func StartLegacyStdio(t testing.TB, s *server.Server, rev string) *LegacyStdio {
	ss := StartStdio(t, s)
	ss.Bridge = true
	return &LegacyStdio{T: t, Ss: ss, Rev: rev}
}

// call sends a request and returns its response and the notifications
// written before it.
func (c *LegacyStdio) Call(id any, method, params string) (*Wire, []*Wire) {
	c.T.Helper()
	c.Ss.Send(EraBody(id, method, params))
	want, _ := json.Marshal(id)
	var notes []*Wire
	for {
		w := c.Ss.Recv()
		CheckLegacyMessage(c.T, c.Rev, w.Raw, method)
		if w.Method() != "" && w.HasID() {
			c.Asked = append(c.Asked, w)
			if c.Answer == nil {
				c.T.Fatalf("an unexpected server-to-client request %s", w.Raw)
			}
			if line := c.Answer(w); line != "" {
				c.Ss.Send(line)
			}
			continue
		}
		if w.Method() != "" {
			notes = append(notes, w)
			continue
		}
		if w.Id() != string(want) {
			c.T.Fatalf("response %s while waiting for id %s", w.Raw, want)
		}
		return w, notes
	}
}

// note sends a notification.
func (c *LegacyStdio) Note(method, params string) {
	c.T.Helper()
	c.Ss.Send(EraNote(method, params))
}

// next returns the next message the server writes, validated.
func (c *LegacyStdio) Next() *Wire {
	c.T.Helper()
	w := c.Ss.Recv()
	CheckLegacyMessage(c.T, c.Rev, w.Raw, "")
	return w
}

// open sends initialize and notifications/initialized, and returns the
// initialize result.
func (c *LegacyStdio) Open(caps string) *Wire {
	c.T.Helper()
	w, _ := c.Call(0, "initialize", InitParams(c.Rev, caps))
	if w.Error != nil {
		c.T.Fatalf("initialize: %s", w.Raw)
	}
	c.Note("notifications/initialized", "")
	return w
}

// text is the first text block of a tools/call result.
func ResultText(t testing.TB, w *Wire) string {
	t.Helper()
	if w.Error != nil {
		t.Fatalf("an error: %s", w.Raw)
	}
	return w.Text(t, 0)
}
