package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Regression tests for what go-jsonschema v0.24.1 gets wrong on this schema
// (see ../shared/docs/go-jsonschema-findings.md). Each test first shows the
// core's own behaviour where it can be observed (its models-only rendering,
// kept as Result.Skeleton), then what the layer makes of it. The decoding
// side of each case is tested in protocol/regress_test.go.

// go-jsonschema renames the NotificationParams definition to
// NotificationParams_1 because an inline params object took the name
// first; the layer keeps every definition's exact name.
func TestRegressionExactNames(t *testing.T) {
	res := pinned(t)
	// The core's own rendering still has the rename; if an upgrade fixes
	// it, this fails so the findings can be re-checked.
	if !slices.Contains(res.Skeleton.names, "NotificationParams_1") {
		t.Error("go-jsonschema no longer renames NotificationParams to NotificationParams_1: re-check the findings for this version")
	}
	s, _, err := parseSchema(mustPinnedSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Definitions) != 155 {
		t.Fatalf("%d definitions, want 155", len(s.Definitions))
	}
	for name := range s.Definitions {
		if _, ok := res.Model.Decls[name]; !ok {
			t.Errorf("definition %s has no Go type of the same name", name)
		}
	}
	for _, n := range res.Model.Order {
		if strings.Contains(n, "_") {
			t.Errorf("type %s has an underscore suffix", n)
		}
	}
}

func mustPinnedSchema(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(specDir(t), "schema", "2026-07-28", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// go-jsonschema turns the 15 anyOf definitions into interface{} and
// RequestId/ProgressToken into int. Here every union is a typed union and
// the ids are string-or-integer types.
func TestRegressionNoUntypedUnions(t *testing.T) {
	res := pinned(t)
	unions := []string{"ClientRequest", "ContentBlock", "ElicitRequestParams", "EnumSchema", "InputRequest", "InputResponse",
		"JSONRPCMessage", "JSONRPCResponse", "MultiSelectEnumSchema", "PrimitiveSchemaDefinition",
		"SamplingMessageContentBlock", "ServerNotification", "ServerResult", "SingleSelectEnumSchema"}
	for _, n := range unions {
		d := res.Model.Decls[n]
		if d == nil || d.Kind != DUnion || len(d.Variants) < 2 {
			t.Errorf("%s is not a typed union: %+v", n, d)
		}
	}
	if d := res.Model.Decls["JSONValue"]; d == nil || d.Kind != DRaw {
		t.Errorf("JSONValue should be validated raw JSON")
	}
	for _, n := range []string{"RequestId", "ProgressToken"} {
		d := res.Model.Decls[n]
		if d == nil || d.Kind != DScalarUnion || !slices.Equal(d.Kinds, []string{"string", "integer"}) {
			t.Errorf("%s: %+v, want a string|integer union", n, d)
		}
	}
	src := string(res.Files["types_gen.go"])
	for _, bad := range []string{"interface{}", " any\n", "RequestId int"} {
		if strings.Contains(src, bad) {
			t.Errorf("types_gen.go contains %q", bad)
		}
	}
}

// go-jsonschema's raw output references SamplingMessageContent_5 and
// CreateMessageResultContent_5 without declaring them (the array branch of
// an inline union). Here the array branch is a declared list variant.
func TestRegressionArrayBranch(t *testing.T) {
	res := pinned(t)
	for _, n := range []string{"SamplingMessageContent", "CreateMessageResultContent"} {
		d := res.Model.Decls[n]
		if d == nil || d.Kind != DUnion {
			t.Fatalf("%s: %+v", n, d)
		}
		var list *Variant
		for _, v := range d.Variants {
			if v.JSONKind == '[' {
				list = v
			}
		}
		if list == nil || res.Model.Decls[list.GoName] == nil || res.Model.Decls[list.GoName].Kind != DList {
			t.Errorf("%s has no declared list variant", n)
		}
	}
}

// go-jsonschema's allOf merge writes into the shared Error definition, so
// two error types end up with HeaderMismatchError's code and the wrong data
// type. The layer flattens by copy: each error keeps its own code and data.
func TestRegressionAllOfErrors(t *testing.T) {
	res := pinned(t)
	want := map[string]int64{"HeaderMismatchErrorError": -32020, "MissingRequiredClientCapabilityErrorError": -32021, "UnsupportedProtocolVersionErrorError": -32022}
	for n, code := range want {
		d := res.Model.Decls[n]
		if d == nil {
			t.Fatalf("no %s", n)
		}
		got, ok := constCode(d)
		if !ok || got != code {
			t.Errorf("%s code = %d, want %d", n, got, code)
		}
	}
	data := func(n string) []string {
		for _, f := range res.Model.Decls[n].Fields {
			if f.JSONName == "data" {
				var names []string
				for _, g := range res.Model.Decls[f.Type.Name].Fields {
					names = append(names, g.JSONName)
				}
				return names
			}
		}
		return nil
	}
	if got := data("MissingRequiredClientCapabilityErrorError"); !slices.Equal(got, []string{"requiredCapabilities"}) {
		t.Errorf("MissingRequiredClientCapabilityError data members %v", got)
	}
	if got := data("UnsupportedProtocolVersionErrorError"); !slices.Equal(got, []string{"requested", "supported"}) {
		t.Errorf("UnsupportedProtocolVersionError data members %v", got)
	}
	var codes []int64
	for _, c := range res.Model.ErrorCodes {
		codes = append(codes, c.Code)
	}
	if !slices.Equal(codes, []int64{-32700, -32603, -32602, -32601, -32600, -32022, -32021, -32020}) {
		t.Errorf("error codes %v", codes)
	}
}

// go-jsonschema leaves the field for additionalProperties: {} untagged and
// drops undeclared members; here every struct keeps them in Extra.
func TestRegressionOpenObjects(t *testing.T) {
	res := pinned(t)
	for _, n := range []string{"Result", "ToolInputSchema", "ToolOutputSchema", "RequestMetaObject", "MetaObject", "TextContent"} {
		if d := res.Model.Decls[n]; d == nil || d.Kind != DStruct || d.Closed {
			t.Errorf("%s should be an open struct: %+v", n, d)
		}
	}
	if !strings.Contains(string(res.Files["types_gen.go"]), "Extra Members") {
		t.Error("no Extra field emitted")
	}
}

// The method table comes from the schema.
func TestMethodTable(t *testing.T) {
	res := pinned(t)
	byName := map[string]Method{}
	for _, m := range res.Model.Methods {
		byName[m.Name] = m
	}
	call := byName["tools/call"]
	if call.Message != "CallToolRequest" || call.Params != "CallToolRequestParams" || call.Result != "CallToolResult" || !slices.Equal(call.Directions, []string{"client-to-server"}) {
		t.Errorf("tools/call: %+v", call)
	}
	if m := byName["notifications/cancelled"]; !m.Notification || !slices.Contains(m.Directions, "client-to-server") || !slices.Contains(m.Directions, "server-to-client") {
		t.Errorf("notifications/cancelled: %+v", m)
	}
	if m := byName["elicitation/create"]; m.Result != "ElicitResult" || !slices.Equal(m.Directions, []string{"server-to-client"}) {
		t.Errorf("elicitation/create: %+v", m)
	}
	for _, gone := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe"} {
		if _, ok := byName[gone]; ok {
			t.Errorf("%s is not a method of 2026-07-28", gone)
		}
	}
	if len(res.Model.Methods) != 21 {
		t.Errorf("%d methods, want 21", len(res.Model.Methods))
	}
}

func TestGoIdent(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"_meta", "Meta"}, {"mimeType", "MIMEType"}, {"id", "ID"}, {"uri", "URI"}, {"websiteUrl", "WebsiteURL"},
		{"jsonrpc", "JSONRPC"}, {"ttlMs", "TTLMs"}, {"$schema", "Schema"}, {"io.modelcontextprotocol/protocolVersion", "IoModelcontextprotocolProtocolVersion"},
		{"tools/list_changed", "ToolsListChanged"}, {"resultType", "ResultType"}, {"x-mcp-header", "XMcpHeader"},
	} {
		if got := goIdent(c.in); got != c.want {
			t.Errorf("goIdent(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := goFieldName("io.modelcontextprotocol/subscriptionId"); got != "SubscriptionID" {
		t.Errorf("goFieldName = %q", got)
	}
}

// A union whose branches no input can tell apart is refused, not emitted
// as an untyped value.
func TestRefusesUnclassifiableUnion(t *testing.T) {
	schema := `{"$defs":{
		"A":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]},
		"B":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"integer"}},"required":["x"]},
		"U":{"anyOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/B"}]}}}`
	_, err := Generate([]byte(schema), Config{Package: "p", Revision: "test"})
	if err == nil || !strings.Contains(err.Error(), "cannot classify union") {
		t.Fatalf("err = %v, want a refusal to classify U", err)
	}
	_, err = Generate([]byte(`{"$defs":{"U":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"$ref":"#/$defs/X"}]}}}`), Config{Package: "p"})
	if err == nil {
		t.Fatal("a $ref to a missing definition was accepted")
	}
}

// TestCLI runs the command on a small schema with a closed object and runs
// a test inside the generated package: an undeclared member is rejected
// there, kept in an open object, and a union chooses by discriminator.
func TestCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a package; skipped with -short")
	}
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "schema.json")
	const schema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{
		"Closed":{"description":"A closed object.","type":"object","additionalProperties":false,"properties":{"name":{"type":"string"}},"required":["name"]},
		"Open":{"type":"object","properties":{"name":{"type":"string"}}},
		"Cat":{"type":"object","properties":{"kind":{"const":"cat"},"lives":{"type":"integer","minimum":0}},"required":["kind"]},
		"Dog":{"type":"object","properties":{"kind":{"const":"dog"}},"required":["kind"]},
		"Pet":{"anyOf":[{"$ref":"#/$defs/Cat"},{"$ref":"#/$defs/Dog"}]}}}`
	if err := os.WriteFile(schemaFile, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "mod", "pets")
	if err := run([]string{"-schema", schemaFile, "-package", "pets", "-out", out}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mod", "go.mod"), []byte("module pets.test\n\ngo 1.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const test = `package pets

import "testing"

func TestPets(t *testing.T) {
	var c Closed
	err := Unmarshal([]byte(` + "`" + `{"name":"x","extra":1}` + "`" + `), &c)
	if de, ok := AsDecodeError(err); !ok || de.Kind != KindUnknown || de.Path != "extra" {
		t.Fatalf("closed: %v", err)
	}
	var o Open
	if err := Unmarshal([]byte(` + "`" + `{"name":"x","extra":1}` + "`" + `), &o); err != nil || len(o.Extra) != 1 {
		t.Fatalf("open: %v %v", err, o.Extra)
	}
	var p Pet
	if err := Unmarshal([]byte(` + "`" + `{"kind":"dog"}` + "`" + `), &p); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Value.(*Dog); !ok {
		t.Fatalf("got %T", p.Value)
	}
	err = Unmarshal([]byte(` + "`" + `{"kind":"cat","lives":-1}` + "`" + `), &p)
	if de, ok := AsDecodeError(err); !ok || de.Kind != KindRange || de.Path != "lives" {
		t.Fatalf("minimum: %v", err)
	}
	b, err := Marshal(&Cat{})
	if err != nil || string(b) != ` + "`" + `{"kind":"cat"}` + "`" + ` {
		t.Fatalf("const not written: %s %v", b, err)
	}
}
`
	if err := os.WriteFile(filepath.Join(out, "pets_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "./...")
	cmd.Dir = filepath.Join(dir, "mod")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test in the generated package: %v\n%s", err, b)
	}
}
