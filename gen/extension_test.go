package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/schema"
)

// A small core schema and an extension schema that copies three of its
// definitions, for the mapping rules without the real schemas.
const extTestCore = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {
  "Result": {"type": "object", "properties": {"_meta": {"type": "object", "additionalProperties": {}}, "resultType": {"type": "string"}}, "required": ["resultType"]},
  "Error": {"description": "An error.", "type": "object", "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}, "required": ["code", "message"]},
  "Wrap": {"type": "object", "properties": {"error": {"$ref": "#/$defs/Error"}, "title": {"type": "string"}}}
}}`

// extTestDefs are the extension's own definitions.
const extTestOwn = `
  "Job": {"description": "A job; see {@link Error} and {@link JobResult}.", "type": "object", "properties": {"id": {"type": "string"}, "error": {"$ref": "#/$defs/Error"}, "wrap": {"$ref": "#/$defs/Wrap"}}, "required": ["id"]},
  "JobResult": {"allOf": [{"$ref": "#/$defs/Result"}, {"type": "object", "properties": {"job": {"$ref": "#/$defs/Job"}}, "required": ["job"]}]}`

// extTestSchema returns the extension schema with the core definitions
// copied, each replaced by repl[name] when given.
func extTestSchema(t *testing.T, repl map[string]string, extra string) []byte {
	t.Helper()
	var core struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(extTestCore), &core); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, n := range []string{"Error", "Result", "Wrap"} {
		def := string(core.Defs[n])
		if r, ok := repl[n]; ok {
			def = r
		}
		parts = append(parts, `"`+n+`": `+def)
	}
	return []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {` + strings.Join(parts, ",\n") + "," + extTestOwn + extra + "}}")
}

func extTestConfig(overrides map[string]string) (Config, ExtConfig) {
	if overrides == nil {
		overrides = map[string]string{}
	}
	return Config{Package: "jobproto", Revision: "draft", Commit: "test", SHA256: "test", Source: "example.test/ext-jobs schema/draft/schema.json"},
		ExtConfig{Extension: "jobs", CoreImport: "example.test/core", CorePackage: "protocol", Overrides: overrides}
}

// Equal copies are mapped (a description-only difference included) and
// not emitted; members of their types refer to the core package; doc links
// to them point there.
func TestExtMapsEqualDefinitions(t *testing.T) {
	ext := extTestSchema(t, map[string]string{
		// The same Error with another description and member order.
		"Error": `{"required": ["code", "message"], "properties": {"message": {"type": "string", "description": "Why."}, "code": {"type": "integer"}}, "type": "object", "description": "Another text."}`,
	}, "")
	cfg, ec := extTestConfig(nil)
	res, r, err := GenerateExt(ext, []byte(extTestCore), cfg, ec)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Error", "Result", "Wrap"}; !slices.Equal(r.Mapped, want) {
		t.Errorf("Mapped = %v, want %v", r.Mapped, want)
	}
	if want := []string{"Job", "JobResult"}; !slices.Equal(r.Emitted, want) {
		t.Errorf("Emitted = %v, want %v", r.Emitted, want)
	}
	if len(r.Overridden) > 0 || len(r.Demoted) > 0 || len(r.Pulled) > 0 {
		t.Errorf("Overridden %v, Demoted %v, Pulled %v; want none", r.Overridden, r.Demoted, r.Pulled)
	}
	m := res.Model
	if want := []string{"Job", "JobResult"}; !slices.Equal(m.Order, want) {
		t.Errorf("declarations = %v, want %v", m.Order, want)
	}
	types := string(res.Files["types_gen.go"])
	for _, want := range []string{"Error *protocol.Error", "Wrap *protocol.Wrap", "Meta json.RawMessage", "Job Job", `"example.test/core"`, "see [protocol.Error] and [JobResult]"} {
		if !strings.Contains(types, want) {
			t.Errorf("types_gen.go lacks %q", want)
		}
	}
	for _, unwanted := range []string{"type Error ", "type Wrap ", "type Result "} {
		if strings.Contains(types, unwanted) {
			t.Errorf("types_gen.go declares %q", unwanted)
		}
	}
	codec := string(res.Files["json_gen.go"])
	for _, want := range []string{"decodeForeign(d, p", "encodeForeign(e, v.Error)"} {
		if !strings.Contains(codec, want) {
			t.Errorf("json_gen.go lacks %q", want)
		}
	}
	if _, ok := res.Files["foreign_gen.go"]; !ok {
		t.Error("no foreign_gen.go")
	}
}

// A same-named definition that differs fails generation, naming the
// definition and the first differing JSON pointer; a member named like an
// annotation keyword ("title") is compared.
func TestExtRefusesDifferentDefinition(t *testing.T) {
	for _, c := range []struct {
		name, def, want string
	}{
		{"Error", `{"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}}, "required": ["code", "message"]}`,
			`definition Error differs from the core definition of that name at #/$defs/Error/properties/code/type: "string" in the extension, "integer" in the core`},
		{"Error", `{"type": "object", "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}, "required": ["code"]}`,
			"at #/$defs/Error/required: 1 elements in the extension, 2 in the core"},
		{"Wrap", `{"type": "object", "properties": {"error": {"$ref": "#/$defs/Error"}, "title": {"type": "integer"}}}`,
			"definition Wrap differs from the core definition of that name at #/$defs/Wrap/properties/title/type"},
		{"Result", `{"type": "object", "properties": {"_meta": {"type": "object", "additionalProperties": {}}, "resultType": {"type": "string"}}, "required": ["resultType"], "additionalProperties": false}`,
			"at #/$defs/Result/additionalProperties: only in the extension"},
	} {
		cfg, ec := extTestConfig(nil)
		_, _, err := GenerateExt(extTestSchema(t, map[string]string{c.name: c.def}, ""), []byte(extTestCore), cfg, ec)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "gen/ext_overrides.go") {
			t.Errorf("%s changed: error = %v, want it to contain %q and name the override table", c.name, err, c.want)
		}
	}
}

// An override lets a differing definition be the extension's own; a
// mapped definition that refers to it is emitted too (Wrap refers to
// Error), and stale overrides fail.
func TestExtOverrides(t *testing.T) {
	differs := map[string]string{"Error": `{"type": "object", "properties": {"code": {"type": "integer"}, "message": {"type": "string"}, "data": {}}, "required": ["code", "message"]}`}
	cfg, ec := extTestConfig(map[string]string{"Error": "the extension adds data"})
	res, r, err := GenerateExt(extTestSchema(t, differs, ""), []byte(extTestCore), cfg, ec)
	if err != nil {
		t.Fatal(err)
	}
	if r.Overridden["Error"] != "the extension adds data" || !slices.Equal(r.Mapped, []string{"Result"}) || !slices.Equal(r.Demoted, []string{"Wrap"}) {
		t.Errorf("report = %+v; want Error overridden, Wrap demoted, Result mapped", r)
	}
	types := string(res.Files["types_gen.go"])
	for _, want := range []string{"type Error struct", "type Wrap struct", "Error *Error"} {
		if !strings.Contains(types, want) {
			t.Errorf("types_gen.go lacks %q", want)
		}
	}
	for overrides, want := range map[string]map[string]string{
		"structurally equal to the core's; drop the entry": {"Result": "stale"},
		"the core has no definition of that name":          {"Job": "not a copy"},
	} {
		cfg, ec := extTestConfig(want)
		_, _, err := GenerateExt(extTestSchema(t, nil, ""), []byte(extTestCore), cfg, ec)
		if err == nil || !strings.Contains(err.Error(), overrides) {
			t.Errorf("overrides %v: error = %v, want %q", want, err, overrides)
		}
	}
}

// A union of the extension cannot hold a core type: the sealed interface
// is this package's.
func TestExtRefusesCoreUnionBranch(t *testing.T) {
	extra := `,
  "Outcome": {"anyOf": [{"$ref": "#/$defs/Error"}, {"$ref": "#/$defs/Job"}]}`
	cfg, ec := extTestConfig(nil)
	_, _, err := GenerateExt(extTestSchema(t, nil, extra), []byte(extTestCore), cfg, ec)
	if err == nil || !strings.Contains(err.Error(), "union Outcome has the core type Error as a branch") {
		t.Errorf("error = %v, want the core branch refused", err)
	}
}

func TestStripAnnotations(t *testing.T) {
	var a, b any
	_ = json.Unmarshal([]byte(`{"title": "T", "description": "d", "properties": {"title": {"type": "string", "description": "x"}, "description": {"type": "string"}}, "items": [{"$comment": "c", "type": "integer"}], "examples": [1]}`), &a)
	_ = json.Unmarshal([]byte(`{"properties": {"title": {"type": "string"}, "description": {"type": "string"}}, "items": [{"type": "integer"}]}`), &b)
	if d := firstDifference(stripAnnotations(a), stripAnnotations(b), "#"); d != "" {
		t.Errorf("difference %s, want none", d)
	}
	_ = json.Unmarshal([]byte(`{"properties": {"description": {"type": "string"}}, "items": [{"type": "integer"}]}`), &b)
	if d := firstDifference(stripAnnotations(a), stripAnnotations(b), "#"); d != "#/properties/title: only in the extension" {
		t.Errorf("difference %q, want the property title", d)
	}
	if got := pointerEscape("io.modelcontextprotocol/x~y"); got != "io.modelcontextprotocol~1x~0y" {
		t.Errorf("pointerEscape = %q", got)
	}
}

// extGenerated generates an extension target from its pins, as go generate
// does.
func extGenerated(t *testing.T, tg extTarget) (*Result, *ExtReport) {
	t.Helper()
	specDir(t)
	res, r, _, err := tg.generate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res, r
}

// The extension table, its doc.go lines, and the package as checked in.
func TestExtTargets(t *testing.T) {
	want := []extTarget{
		{Extension: schema.ExtTasks, Package: "taskproto", Dir: "ext/tasks/taskproto", Core: targets[0]},
		{Extension: schema.ExtApps, Package: "appsproto", Dir: "ext/apps/appsproto", Core: targets[0]},
	}
	if !slices.Equal(extTargets, want) {
		t.Fatalf("extTargets = %+v, want %+v", extTargets, want)
	}
	for _, tg := range extTargets {
		if _, err := schema.LookupExtension(tg.Extension); err != nil {
			t.Errorf("%s: %v", tg.Dir, err)
		}
		doc, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(tg.Dir), "doc.go"))
		if err != nil {
			t.Fatal(err)
		}
		line := "//go:generate go run " + strings.Repeat("../", strings.Count(tg.Dir, "/")+1) + "gen -ext " + tg.Extension
		if !slices.Contains(strings.Split(string(doc), "\n"), line) {
			t.Errorf("%s/doc.go lacks the line %q", tg.Dir, line)
		}
		if !strings.Contains(string(doc), "\npackage "+tg.Package+"\n") {
			t.Errorf("%s/doc.go is not package %s", tg.Dir, tg.Package)
		}
	}
	if _, err := lookupExtTarget("nosuch"); err == nil {
		t.Error("lookupExtTarget(nosuch) succeeded")
	}
}

// TestExtGenerated fails when an extension package differs from what the
// generator produces (regenerate with go generate ./...); it also checks
// determinism, the headers, and the tasks mapping as the pins give it.
func TestExtGenerated(t *testing.T) {
	for _, tg := range extTargets {
		t.Run(tg.Extension, func(t *testing.T) {
			res, r := extGenerated(t, tg)
			for _, s := range staleFiles(filepath.Join("..", filepath.FromSlash(tg.Dir)), res.Files) {
				t.Errorf("stale (regenerate with go generate ./...): %s", s)
			}
			again, _ := extGenerated(t, tg)
			for n := range res.Files {
				if !bytes.Equal(res.Files[n], again.Files[n]) {
					t.Errorf("%s differs between two runs", n)
				}
			}
			pin, err := schema.LookupExtension(tg.Extension)
			if err != nil {
				t.Fatal(err)
			}
			for n, src := range res.Files {
				if first, _, _ := strings.Cut(string(src), "\n"); first != "// Code generated by github.com/mcpwire/mcpwire/gen. DO NOT EDIT." {
					t.Errorf("%s: first line %q", n, first)
				}
				if strings.HasPrefix(n, "runtime_") {
					continue
				}
				source, commit := pin.Repository+" "+pin.Path, pin.Commit
				if pin.Package != "" { // a package pin: the headers name the package and the file in it
					source = pin.Repository + " (" + pin.Package + ") " + pin.PackagePath
					commit = "none (package " + pin.Package + ", sha256 " + pin.PackageSHA256 + ")"
				}
				for _, want := range []string{"Source: " + source, "Revision: " + pin.Revision, "Commit: " + commit, "SHA-256: " + pin.SHA256} {
					if !strings.Contains(string(src), want) {
						t.Errorf("%s: header lacks %q", n, want)
					}
				}
			}
			t.Logf("mapped %d: %v", len(r.Mapped), r.Mapped)
			t.Logf("emitted %d: %v", len(r.Emitted), r.Emitted)
			if tg.Extension != schema.ExtTasks {
				return
			}
			own := []string{"CancelTaskRequest", "CancelTaskResult", "CancelledTask", "CompletedTask", "CreateTaskResult", "DetailedTask", "FailedTask",
				"GetTaskRequest", "GetTaskResult", "InputRequiredTask", "Task", "TaskStatus", "TaskStatusNotification", "TaskStatusNotificationParams",
				"TaskSubscriptionAcknowledgedNotifications", "TaskSubscriptionNotifications", "TasksExtensionCapability", "UpdateTaskRequest", "UpdateTaskResult", "WorkingTask"}
			if !slices.Equal(r.Emitted, own) {
				t.Errorf("Emitted = %v, want %v", r.Emitted, own)
			}
			if len(r.Mapped) != 56 || len(r.Overridden) != 0 || len(r.Demoted) != 0 || len(r.Pulled) != 0 {
				t.Errorf("report = %+v; want 56 mapped and nothing else", r)
			}
			for _, n := range []string{"Result", "Error", "RequestId", "InputRequests", "InputResponses", "JSONRPCRequest", "NotificationParams"} {
				if !slices.Contains(r.Mapped, n) {
					t.Errorf("%s is not mapped", n)
				}
				if res.Model.Decls[n] != nil {
					t.Errorf("%s is declared in the extension package", n)
				}
			}
		})
	}
}

// The real ext-tasks schema with its copy of Result changed fails
// generation, naming Result and the pointer.
func TestExtTasksRefusesChangedCopy(t *testing.T) {
	specDir(t)
	pin, err := schema.LookupExtension(schema.ExtTasks)
	if err != nil {
		t.Fatal(err)
	}
	data, _, err := schema.Load(context.Background(), pin, schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	core, _, _, err := targets[0].load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	res := doc["$defs"].(map[string]any)["Result"].(map[string]any)
	res["required"] = []any{}
	changed, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Package: "taskproto", Revision: "draft", Commit: "test", SHA256: "test"}
	ec := ExtConfig{Extension: schema.ExtTasks, CoreImport: modulePath + "/protocol", CorePackage: "protocol"}
	_, _, err = GenerateExt(changed, core, cfg, ec)
	if err == nil || !strings.Contains(err.Error(), "definition Result differs from the core definition of that name at #/$defs/Result/required") {
		t.Errorf("error = %v, want Result refused at #/$defs/Result/required", err)
	}
}

func TestRunExtFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-ext", "nosuch"}, `no generated package for extension "nosuch"`},
		{[]string{"-ext", "tasks", "-rev", "all"}, "-ext takes no -rev"},
		{[]string{"-ext", "tasks", "-legacy"}, "-ext takes no"},
	} {
		if err := run(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run(%q) = %v, want an error containing %q", c.args, err, c.want)
		}
	}
	specDir(t)
	out := t.TempDir()
	if err := run([]string{"-ext", "tasks", "-out", out}); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-ext", "tasks", "-out", out, "-check"}); err != nil {
		t.Errorf("-check after generating: %v", err)
	}
	if err := os.WriteFile(filepath.Join(out, "types_gen.go"), []byte("package taskproto\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-ext", "tasks", "-out", out, "-check"}); err == nil || !strings.Contains(err.Error(), "types_gen.go") {
		t.Errorf("-check of a changed file: %v, want it named", err)
	}
}

// An inline type of a mapped definition that an own definition shares
// (an enum the two name alike) but that the core names differently is
// emitted, not referred to: the core's Mode is another enum.
func TestExtPullsInlineTypes(t *testing.T) {
	const core = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {
  "Mode": {"type": "string", "enum": ["x", "y"]},
  "Wrap": {"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", "b"]}}}
}}`
	const ext = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {
  "Wrap": {"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", "b"]}}},
  "Zed": {"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", "b"]}, "wrap": {"$ref": "#/$defs/Wrap"}}}
}}`
	cfg, ec := extTestConfig(nil)
	res, r, err := GenerateExt([]byte(ext), []byte(core), cfg, ec)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Mapped, []string{"Wrap"}) || !slices.Equal(r.Pulled, []string{"Mode"}) {
		t.Errorf("report = %+v, want Wrap mapped and Mode pulled", r)
	}
	types := string(res.Files["types_gen.go"])
	for _, want := range []string{"type Mode string", "Mode *Mode", "Wrap *protocol.Wrap"} {
		if !strings.Contains(types, want) {
			t.Errorf("types_gen.go lacks %q", want)
		}
	}
}
