package legacy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// specDir returns $MCP_SPEC_DIR or skips.
func specDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("MCP_SPEC_DIR")
	if dir == "" {
		t.Skip("MCP_SPEC_DIR is not set: point it at a folder laid out like the upstream specification repository, e.g. MCP_SPEC_DIR=../shared/mcp-spec")
	}
	return dir
}

// revSchema validates JSON against the definitions of one revision's
// schema.json, compiled with santhosh-tekuri/jsonschema.
type revSchema struct {
	rev    Rev
	prefix string // "#/definitions/" or "#/$defs/"
	url    string
	mu     sync.Mutex
	c      *jsonschema.Compiler
	defs   map[string]*jsonschema.Schema
}

var (
	schemasMu sync.Mutex
	schemas   = map[schemaKey]*revSchema{}
)

type schemaKey struct {
	rev       Rev
	noFormats bool
}

// schemaOf loads (once) the schema of revision r from MCP_SPEC_DIR.
func schemaOf(t testing.TB, r Rev) *revSchema { return loadSchema(t, schemaKey{rev: r}) }

// schemaWithoutFormats is the schema of r with its format keywords
// removed. santhosh-tekuri/jsonschema asserts formats for draft-07 (the
// revisions before 2025-11-25), where the draft leaves it to the
// validator; values that come from the server's own data (a resource URI
// such as "u" is not a valid "uri") are not the projection's to change.
// The fuzz test, which makes such values up, validates with this one.
func schemaWithoutFormats(t testing.TB, r Rev) *revSchema {
	return loadSchema(t, schemaKey{rev: r, noFormats: true})
}

func loadSchema(t testing.TB, key schemaKey) *revSchema {
	t.Helper()
	r := key.rev
	dir := specDir(t)
	schemasMu.Lock()
	defer schemasMu.Unlock()
	if s := schemas[key]; s != nil {
		return s
	}
	file := filepath.Join(dir, "schema", r.String(), "schema.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if key.noFormats {
		dropFormats(doc)
	}
	s := &revSchema{rev: r, url: "file:///mcp-spec/" + r.String() + "/schema.json", c: jsonschema.NewCompiler(), defs: map[string]*jsonschema.Schema{}}
	if err := s.c.AddResource(s.url, doc); err != nil {
		t.Fatal(err)
	}
	closed, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if key.noFormats {
		dropFormats(closed)
	}
	for _, key := range []string{"definitions", "$defs"} {
		if defs, ok := closed.(map[string]any)[key].(map[string]any); ok {
			for name, d := range defs {
				closeSchema(d, name)
			}
		}
	}
	if err := s.c.AddResource(s.closedURL(), closed); err != nil {
		t.Fatal(err)
	}
	var probe struct {
		Defs json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		t.Fatal(err)
	}
	s.prefix = "#/definitions/"
	if probe.Defs != nil {
		s.prefix = "#/$defs/"
	}
	schemas[key] = s
	return s
}

// dropFormats removes every format keyword (a string-valued "format"; a
// property named format holds a schema object and stays).
func dropFormats(x any) {
	switch v := x.(type) {
	case map[string]any:
		if _, ok := v["format"].(string); ok {
			delete(v, "format")
		}
		for _, c := range v {
			dropFormats(c)
		}
	case []any:
		for _, c := range v {
			dropFormats(c)
		}
	}
}

func (s *revSchema) closedURL() string {
	return strings.TrimSuffix(s.url, "schema.json") + "closed.json"
}

// closeSchema makes every object schema under x that declares properties
// closed (additionalProperties: false) unless it says otherwise, except
// inside tool schemas, which are JSON Schema copied verbatim (H1). A value
// valid against the closed schema has no member the revision does not
// declare: what the zero pass must achieve for values without undeclared
// (Extra) members, such as the specification's examples.
func closeSchema(x any, path string) {
	m, ok := x.(map[string]any)
	if !ok {
		return
	}
	if path == "Tool/properties/inputSchema" || path == "Tool/properties/outputSchema" {
		return
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if _, set := m["additionalProperties"]; !set {
			m["additionalProperties"] = false
		}
		for k, v := range props {
			closeSchema(v, path+"/properties/"+k)
		}
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok {
		closeSchema(ap, path+"/additionalProperties")
	}
	closeSchema(m["items"], path+"/items")
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if xs, ok := m[key].([]any); ok {
			for i, v := range xs {
				closeSchema(v, fmt.Sprintf("%s/%s/%d", path, key, i))
			}
		}
	}
}

// validateClosed checks data against the closed form of the definition
// at ref (a definition name, or a JSON pointer below one).
func (s *revSchema) validateClosed(ref string, data []byte) error {
	key := "closed:" + ref
	s.mu.Lock()
	sch := s.defs[key]
	if sch == nil {
		var err error
		sch, err = s.c.Compile(s.closedURL() + s.prefix + ref)
		if err != nil {
			s.mu.Unlock()
			return fmt.Errorf("compile closed %s: %w", ref, err)
		}
		s.defs[key] = sch
	}
	s.mu.Unlock()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(inst)
}

// validate checks data against the definition def.
func (s *revSchema) validate(def string, data []byte) error {
	s.mu.Lock()
	sch := s.defs[def]
	if sch == nil {
		var err error
		sch, err = s.c.Compile(s.url + s.prefix + def)
		if err != nil {
			s.mu.Unlock()
			return fmt.Errorf("compile %s: %w", def, err)
		}
		s.defs[def] = sch
	}
	s.mu.Unlock()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(inst)
}

// checkMessage validates a whole JSON-RPC message of revision r against
// JSONRPCMessage and, when def is not empty, its payload (the result, or
// the message itself for requests and notifications) against def, and
// with closed against the closed form of def too (no undeclared member);
// for 2025-11-25 it also decodes strictly with package mcp20251125, as
// method says (a result when result is true).
func checkMessage(t testing.TB, r Rev, msg []byte, def, method string, result, closed bool) error {
	t.Helper()
	return checkWith(t, schemaOf(t, r), msg, def, method, result, closed)
}

// checkWith is checkMessage with a given schema.
func checkWith(t testing.TB, s *revSchema, msg []byte, def, method string, result, closed bool) error {
	t.Helper()
	r := s.rev
	if err := s.validate("JSONRPCMessage", msg); err != nil {
		return fmt.Errorf("%s JSONRPCMessage: %v", r, err)
	}
	payload := msg
	if result {
		var env struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(msg, &env); err != nil || env.Result == nil {
			return fmt.Errorf("not a result response: %s", msg)
		}
		payload = env.Result
	}
	if def != "" {
		if err := s.validate(def, payload); err != nil {
			return fmt.Errorf("%s %s: %v", r, def, err)
		}
		if closed {
			ref, part := def, payload
			if !result {
				// The message definitions of older revisions leave jsonrpc
				// and id to JSONRPCRequest/JSONRPCNotification: check the
				// params.
				var env struct {
					Params json.RawMessage `json:"params"`
				}
				_ = json.Unmarshal(msg, &env)
				ref, part = def+"/properties/params", env.Params
			}
			if part != nil {
				if err := s.validateClosed(ref, part); err != nil {
					return fmt.Errorf("%s %s (closed: a member the revision does not declare): %v", r, ref, err)
				}
			}
		}
	}
	if r == Rev20251125 && method != "" {
		info, ok := mcp20251125.LookupMethod(method)
		if !ok {
			return fmt.Errorf("mcp20251125 has no method %s", method)
		}
		var v any
		if result {
			v = info.NewResult()
		} else {
			v = info.NewMessage()
		}
		if err := mcp20251125.Unmarshal(payload, v); err != nil {
			return fmt.Errorf("mcp20251125 strict decode of %s: %v", method, err)
		}
	}
	return nil
}

// response wraps a result as a JSON-RPC response with id 1.
func response(result []byte) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"result":` + string(result) + `}`)
}

// resultDefs maps the methods whose results the tests project to the
// result definition, which every legacy revision names alike.
var resultDefs = map[string]string{
	"tools/call":               "CallToolResult",
	"tools/list":               "ListToolsResult",
	"prompts/get":              "GetPromptResult",
	"prompts/list":             "ListPromptsResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"completion/complete":      "CompleteResult",
	"initialize":               "InitializeResult",
}

// notificationDefs maps notification methods to their definitions.
var notificationDefs = map[string]string{
	"notifications/progress":               "ProgressNotification",
	"notifications/message":                "LoggingMessageNotification",
	"notifications/cancelled":              "CancelledNotification",
	"notifications/resources/updated":      "ResourceUpdatedNotification",
	"notifications/tools/list_changed":     "ToolListChangedNotification",
	"notifications/prompts/list_changed":   "PromptListChangedNotification",
	"notifications/resources/list_changed": "ResourceListChangedNotification",
}

// requestDefs maps server request methods to their definitions.
var requestDefs = map[string]string{
	"elicitation/create":     "ElicitRequest",
	"sampling/createMessage": "CreateMessageRequest",
	"roots/list":             "ListRootsRequest",
}

// methodOf reads the method of a message.
func methodOf(msg []byte) string {
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(msg, &m)
	return m.Method
}

// shorten cuts long JSON for messages.
func shorten(b []byte) string {
	s := string(b)
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return strings.ReplaceAll(s, "\n", " ")
}

// The closed schemas catch what the zero pass removes: the modern
// encoding of a tool with title and icons, or of a text block with _meta,
// is refused for 2024-11-05 (while the open schema accepts it), and its
// projection is accepted.
func TestClosedSchemaBites(t *testing.T) {
	s := schemaOf(t, Rev20241105)
	for def, body := range map[string]string{
		"ListToolsResult": `{"tools":[{"name":"t","title":"T","icons":[{"src":"https://x/i.png"}],"inputSchema":{"type":"object"}}]}`,
		"CallToolResult":  `{"content":[{"type":"text","text":"x","_meta":{"k":1}}]}`,
	} {
		if err := s.validate(def, []byte(body)); err != nil {
			t.Errorf("open %s refused %s: %v", def, body, err)
		}
		if err := s.validateClosed(def, []byte(body)); err == nil {
			t.Errorf("closed %s accepted %s", def, body)
		}
	}
}
