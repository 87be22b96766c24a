package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// specRevisions are the upstream schema revisions, oldest first.
var specRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "draft"}

// readSpec returns the upstream schema.json of rev from $MCP_SPEC_DIR,
// skipping the test when the variable is unset.
func readSpec(t *testing.T, rev string) []byte {
	t.Helper()
	dir := os.Getenv("MCP_SPEC_DIR")
	if dir == "" {
		t.Skip("MCP_SPEC_DIR is not set; set it to a checkout of the MCP specification " +
			"containing schema/<rev>/schema.json, e.g. MCP_SPEC_DIR=/work/shared/mcp-spec go test ./tools/schemadiff/")
	}
	data, err := os.ReadFile(filepath.Join(dir, "schema", rev, "schema.json"))
	if err != nil {
		t.Fatalf("MCP_SPEC_DIR=%s: %v", dir, err)
	}
	return data
}

// mustDiff runs Diff and fails the test on error.
func mustDiff(t *testing.T, oldSchema, newSchema string) Report {
	t.Helper()
	r, err := Diff([]byte(oldSchema), []byte(newSchema))
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	return r
}

// findChange returns the TypeChange for typ, failing the test if absent.
func findChange(t *testing.T, r Report, typ string) TypeChange {
	t.Helper()
	for _, tc := range r.Changed {
		if tc.Type == typ {
			return tc
		}
	}
	t.Fatalf("no member changes reported for %s; report:\n%s", typ, r)
	return TypeChange{}
}

// methodNames returns the names of ms.
func methodNames(ms []Method) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

// hasCode reports whether cs contains code defined by def.
func hasCode(cs []ErrorCode, code int64, def string) bool {
	for _, c := range cs {
		if c.Code == code && slices.Contains(c.Defs, def) {
			return true
		}
	}
	return false
}

// hasLine reports whether text contains line as a complete line.
func hasLine(text, line string) bool {
	return slices.Contains(strings.Split(text, "\n"), line)
}

// TestSpec20251125To20260728 checks the headline changes between the 2025-11-25 and 2026-07-28 revisions in both the structured report and its text.
func TestSpec20251125To20260728(t *testing.T) {
	oldData := readSpec(t, "2025-11-25")
	newData := readSpec(t, "2026-07-28")
	r, err := Diff(oldData, newData)
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	text := r.String()

	for _, typ := range []string{"DiscoverRequest", "InputRequiredResult", "SubscriptionsListenRequest", "HeaderMismatchError"} {
		if !slices.Contains(r.TypesAdded, typ) {
			t.Errorf("TypesAdded missing %s: %v", typ, r.TypesAdded)
		}
		if !hasLine(text, "  + "+typ) {
			t.Errorf("text missing line %q", "  + "+typ)
		}
	}
	for _, typ := range []string{"InitializeRequest", "PingRequest"} {
		if !slices.Contains(r.TypesRemoved, typ) {
			t.Errorf("TypesRemoved missing %s: %v", typ, r.TypesRemoved)
		}
		if !hasLine(text, "  - "+typ) {
			t.Errorf("text missing line %q", "  - "+typ)
		}
	}

	res := findChange(t, r, "Result")
	want := Member{Name: "resultType", Type: "string", Required: true}
	if !slices.Contains(res.Added, want) {
		t.Errorf("Result.Added = %+v, want it to contain %+v", res.Added, want)
	}
	if !strings.Contains(text, "  Result:\n    + resultType string (required)\n") {
		t.Errorf("text missing Result resultType addition")
	}

	for _, m := range []string{"initialize", "ping"} {
		if !slices.Contains(methodNames(r.MethodsRemoved), m) {
			t.Errorf("MethodsRemoved missing %s: %v", m, methodNames(r.MethodsRemoved))
		}
	}
	if !hasLine(text, "  - initialize (InitializeRequest)") || !hasLine(text, "  - ping (PingRequest)") {
		t.Errorf("text missing removed initialize/ping method lines")
	}
	added := slices.IndexFunc(r.MethodsAdded, func(m Method) bool { return m.Name == "server/discover" })
	if added < 0 || !reflect.DeepEqual(r.MethodsAdded[added].Defs, []string{"DiscoverRequest"}) {
		t.Errorf("MethodsAdded = %+v, want server/discover carried by DiscoverRequest", r.MethodsAdded)
	}
	if !hasLine(text, "  + server/discover (DiscoverRequest)") {
		t.Errorf("text missing server/discover line")
	}

	if !hasCode(r.ErrorCodesAdded, -32020, "HeaderMismatchError") {
		t.Errorf("ErrorCodesAdded = %+v, want -32020 HeaderMismatchError", r.ErrorCodesAdded)
	}
	if !hasLine(text, "  + -32020 HeaderMismatchError") {
		t.Errorf("text missing -32020 line")
	}
	// The standard JSON-RPC codes become named definitions in 2026-07-28.
	if !hasCode(r.ErrorCodesAdded, -32700, "ParseError") {
		t.Errorf("ErrorCodesAdded = %+v, want -32700 ParseError", r.ErrorCodesAdded)
	}
	// The URL-elicitation error code lives inside an allOf branch.
	if !hasCode(r.ErrorCodesRemoved, -32042, "URLElicitationRequiredError") {
		t.Errorf("ErrorCodesRemoved = %+v, want -32042 URLElicitationRequiredError", r.ErrorCodesRemoved)
	}
	if t.Failed() {
		t.Logf("report:\n%s", text)
	}
}

// TestSpecSelfDiffIsEmpty checks that every upstream revision diffed against itself yields an empty report.
func TestSpecSelfDiffIsEmpty(t *testing.T) {
	for _, rev := range specRevisions {
		t.Run(rev, func(t *testing.T) {
			data := readSpec(t, rev)
			r, err := Diff(data, data)
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if !r.IsEmpty() {
				t.Errorf("self-diff of %s is not empty:\n%s", rev, r)
			}
			assertNoChangeLines(t, r.String())
		})
	}
}

// assertNoChangeLines fails if the text report lists any difference.
func assertNoChangeLines(t *testing.T, text string) {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "+") || strings.HasPrefix(trimmed, "-") || strings.HasPrefix(trimmed, "~") {
			t.Errorf("unexpected change line %q in empty report:\n%s", l, text)
		}
	}
}

// TestSpecConsecutivePairs diffs every consecutive pair of upstream revisions.
func TestSpecConsecutivePairs(t *testing.T) {
	for i := 0; i+1 < len(specRevisions); i++ {
		oldRev, newRev := specRevisions[i], specRevisions[i+1]
		t.Run(oldRev+"_to_"+newRev, func(t *testing.T) {
			r, err := Diff(readSpec(t, oldRev), readSpec(t, newRev))
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if r.String() == "" {
				t.Fatal("empty text report")
			}
		})
	}
}

// TestSpecDeterministic checks that repeated diffs of real revisions render identically.
func TestSpecDeterministic(t *testing.T) {
	oldData := readSpec(t, "2025-06-18")
	newData := readSpec(t, "2026-07-28")
	var first string
	for i := range 5 {
		r, err := Diff(oldData, newData)
		if err != nil {
			t.Fatalf("Diff: %v", err)
		}
		var buf bytes.Buffer
		if _, err := r.WriteTo(&buf); err != nil {
			t.Fatalf("WriteTo: %v", err)
		}
		if i == 0 {
			first = buf.String()
			continue
		}
		if buf.String() != first {
			t.Fatalf("run %d produced different output", i)
		}
	}
}

// inlineOld and inlineNew are small 2020-12 schemas exercising every kind of
// member change.
const (
	inlineOld = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$defs": {
    "Gone": {"type": "object", "properties": {"x": {"type": "string"}}},
    "Error": {
      "type": "object",
      "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
      "required": ["code", "message"]
    },
    "Thing": {
      "type": "object",
      "properties": {
        "count": {"type": "integer"},
        "name": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "old": {"type": "boolean"},
        "mode": {"enum": ["a", "b"]},
        "nested": {"type": "object", "properties": {"deep": {"type": "string"}}}
      },
      "required": ["name"]
    },
    "PingRequest": {
      "type": "object",
      "properties": {"method": {"const": "ping", "type": "string"}},
      "required": ["method"]
    },
    "Union": {"anyOf": [{"$ref": "#/$defs/Thing"}, {"$ref": "#/$defs/Gone"}]},
    "Level": {"type": "string", "enum": ["debug", "info"]}
  }
}`
	inlineNew = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$defs": {
    "Error": {
      "type": "object",
      "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
      "required": ["code", "message"]
    },
    "Thing": {
      "type": "object",
      "properties": {
        "count": {"type": "number"},
        "name": {"type": "string"},
        "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}},
        "mode": {"enum": ["a", "b", "c"]},
        "extra": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "nested": {"type": "object", "properties": {"deep": {"type": "string"}}, "required": ["deep"]}
      },
      "required": ["count"]
    },
    "Tag": {"type": "string"},
    "DiscoverRequest": {
      "type": "object",
      "properties": {"method": {"const": "server/discover", "type": "string"}},
      "required": ["method"]
    },
    "MismatchError": {
      "type": "object",
      "properties": {
        "error": {
          "allOf": [
            {"$ref": "#/$defs/Error"},
            {"type": "object", "properties": {"code": {"const": -32020, "type": "integer"}}, "required": ["code"]}
          ]
        }
      },
      "required": ["error"]
    },
    "Union": {"anyOf": [{"$ref": "#/$defs/Thing"}, {"$ref": "#/$defs/Tag"}]},
    "Level": {"type": "string", "enum": ["debug", "info", "warning"]}
  }
}`
)

// TestInlineMemberChanges covers added, removed, retyped and required-ness-changed members, union variants, shapes, methods and error codes on inline 2020-12 schemas.
func TestInlineMemberChanges(t *testing.T) {
	r := mustDiff(t, inlineOld, inlineNew)
	tc := findChange(t, r, "Thing")

	wantAdded := []Member{{Name: "extra", Type: "anyOf[string|integer]"}}
	if !reflect.DeepEqual(tc.Added, wantAdded) {
		t.Errorf("Added = %+v, want %+v", tc.Added, wantAdded)
	}
	wantRemoved := []Member{{Name: "old", Type: "boolean"}}
	if !reflect.DeepEqual(tc.Removed, wantRemoved) {
		t.Errorf("Removed = %+v, want %+v", tc.Removed, wantRemoved)
	}
	wantRetyped := []MemberTypeChange{
		{Name: "count", Old: "integer", New: "number"},
		{Name: "mode", Old: "enum [a b]", New: "enum [a b c]"},
		{Name: "tags", Old: "array of string", New: "array of Tag"},
	}
	if !reflect.DeepEqual(tc.Retyped, wantRetyped) {
		t.Errorf("Retyped = %+v, want %+v", tc.Retyped, wantRetyped)
	}
	wantReq := []RequiredChange{
		{Name: "count", OldRequired: false, NewRequired: true},
		{Name: "name", OldRequired: true, NewRequired: false},
		{Name: "nested.deep", OldRequired: false, NewRequired: true},
	}
	if !reflect.DeepEqual(tc.Requiredness, wantReq) {
		t.Errorf("Requiredness = %+v, want %+v", tc.Requiredness, wantReq)
	}

	text := r.String()
	for _, line := range []string{
		"  Thing:",
		"    + extra anyOf[string|integer] (optional)",
		"    - old boolean (optional)",
		"    ~ count: integer -> number",
		"    ~ count: optional -> required",
		"    ~ name: required -> optional",
		"    ~ tags: array of string -> array of Tag",
		"  Union:",
		"    + variant Tag",
		"    - variant Gone",
		"  Level:",
		"    ~ (shape): enum [debug info] -> enum [debug info warning]",
		"  + server/discover (DiscoverRequest)",
		"  - ping (PingRequest)",
		"  + -32020 MismatchError",
	} {
		if !hasLine(text, line) {
			t.Errorf("text missing line %q", line)
		}
	}

	if want := []string{"DiscoverRequest", "MismatchError", "Tag"}; !reflect.DeepEqual(r.TypesAdded, want) {
		t.Errorf("TypesAdded = %v, want %v", r.TypesAdded, want)
	}
	if want := []string{"Gone", "PingRequest"}; !reflect.DeepEqual(r.TypesRemoved, want) {
		t.Errorf("TypesRemoved = %v, want %v", r.TypesRemoved, want)
	}
	if t.Failed() {
		t.Logf("report:\n%s", text)
	}
}

// TestInlineDraft07Definitions covers draft-07 schemas that use "definitions".
func TestInlineDraft07Definitions(t *testing.T) {
	oldSchema := `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "definitions": {
    "Request": {"type": "object", "properties": {"method": {"type": "string"}}, "required": ["method"]},
    "InitializeRequest": {
      "type": "object",
      "properties": {
        "method": {"const": "initialize", "type": "string"},
        "params": {"$ref": "#/definitions/Params"}
      },
      "required": ["method", "params"]
    },
    "Params": {"type": "object", "properties": {"version": {"type": "string"}}}
  }
}`
	newSchema := `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "definitions": {
    "Request": {"type": "object", "properties": {"method": {"type": "string"}}, "required": ["method"]},
    "InitializeRequest": {
      "type": "object",
      "properties": {
        "method": {"const": "initialize", "type": "string"},
        "params": {"$ref": "#/definitions/Params"}
      },
      "required": ["method"]
    },
    "Params": {"type": "object", "properties": {"version": {"type": ["string", "integer"]}}},
    "ParseError": {"type": "object", "properties": {"code": {"const": -32700, "type": "integer"}}}
  }
}`
	r := mustDiff(t, oldSchema, newSchema)
	if want := []string{"ParseError"}; !reflect.DeepEqual(r.TypesAdded, want) {
		t.Errorf("TypesAdded = %v, want %v", r.TypesAdded, want)
	}
	initReq := findChange(t, r, "InitializeRequest")
	if want := []RequiredChange{{Name: "params", OldRequired: true}}; !reflect.DeepEqual(initReq.Requiredness, want) {
		t.Errorf("InitializeRequest.Requiredness = %+v, want %+v", initReq.Requiredness, want)
	}
	params := findChange(t, r, "Params")
	if want := []MemberTypeChange{{Name: "version", Old: "string", New: "string|integer"}}; !reflect.DeepEqual(params.Retyped, want) {
		t.Errorf("Params.Retyped = %+v, want %+v", params.Retyped, want)
	}
	if want := []ErrorCode{{Code: -32700, Defs: []string{"ParseError"}}}; !reflect.DeepEqual(r.ErrorCodesAdded, want) {
		t.Errorf("ErrorCodesAdded = %+v, want %+v", r.ErrorCodesAdded, want)
	}
	if len(r.MethodsAdded)+len(r.MethodsRemoved) != 0 {
		t.Errorf("unexpected method changes: +%v -%v", r.MethodsAdded, r.MethodsRemoved)
	}
}

// TestInlineAllOfFlattening covers merging of allOf branches, at the top level and inside a member.
func TestInlineAllOfFlattening(t *testing.T) {
	// A top-level allOf of two $refs (as in 2025-11-25's GetTaskResult) is
	// compared by its merged members; a member allOf[Error, {code const}]
	// is compared through its merged nested members.
	oldSchema := `{
  "$defs": {
    "Result": {"type": "object", "properties": {"_meta": {"type": "object"}}},
    "Task": {"type": "object", "properties": {"taskId": {"type": "string"}}, "required": ["taskId"]},
    "GetTaskResult": {"allOf": [{"$ref": "#/$defs/Result"}, {"$ref": "#/$defs/Task"}]},
    "Error": {"type": "object", "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}, "required": ["code", "message"]},
    "SomeError": {
      "type": "object",
      "properties": {
        "error": {"allOf": [{"$ref": "#/$defs/Error"}, {"properties": {"code": {"const": -32042, "type": "integer"}}}]}
      }
    }
  }
}`
	newSchema := strings.NewReplacer(
		`"required": ["taskId"]`, `"required": ["taskId", "status"]`,
		`"taskId": {"type": "string"}`, `"taskId": {"type": "string"}, "status": {"type": "string"}`,
		`-32042`, `-32043`,
	).Replace(oldSchema)

	r := mustDiff(t, oldSchema, newSchema)
	gtr := findChange(t, r, "GetTaskResult")
	if want := []Member{{Name: "status", Type: "string", Required: true}}; !reflect.DeepEqual(gtr.Added, want) {
		t.Errorf("GetTaskResult.Added = %+v, want %+v", gtr.Added, want)
	}
	se := findChange(t, r, "SomeError")
	if want := []MemberTypeChange{{Name: "error.code", Old: "const -32042", New: "const -32043"}}; !reflect.DeepEqual(se.Retyped, want) {
		t.Errorf("SomeError.Retyped = %+v, want %+v", se.Retyped, want)
	}
	if !hasCode(r.ErrorCodesAdded, -32043, "SomeError") || !hasCode(r.ErrorCodesRemoved, -32042, "SomeError") {
		t.Errorf("error codes: +%+v -%+v, want +-32043 and --32042 on SomeError", r.ErrorCodesAdded, r.ErrorCodesRemoved)
	}

	// The merged members of a type built from allOf include every branch.
	m, err := Parse([]byte(oldSchema))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	got := sortedKeys(m.Types["GetTaskResult"].Members)
	if want := []string{"_meta", "taskId"}; !reflect.DeepEqual(got, want) {
		t.Errorf("GetTaskResult members = %v, want %v", got, want)
	}
	if mem := m.Types["SomeError"].Members["error.message"]; mem.Type != "string" || !mem.Required {
		t.Errorf("SomeError error.message = %+v, want required string merged from Error", mem)
	}
}

// TestInlineSelfDiffIsEmpty checks that an inline schema diffed against itself yields an empty report.
func TestInlineSelfDiffIsEmpty(t *testing.T) {
	for _, s := range []string{inlineOld, inlineNew} {
		r := mustDiff(t, s, s)
		if !r.IsEmpty() {
			t.Errorf("self-diff not empty:\n%s", r)
		}
		assertNoChangeLines(t, r.String())
	}
}

// TestInlineDeterministic checks that repeated diffs of inline schemas render identically.
func TestInlineDeterministic(t *testing.T) {
	first := mustDiff(t, inlineOld, inlineNew).String()
	for i := range 20 {
		if got := mustDiff(t, inlineOld, inlineNew).String(); got != first {
			t.Fatalf("run %d differs:\n%s\nvs\n%s", i, got, first)
		}
	}
}

// TestCyclicRefsTerminate checks that cyclic allOf references are merged without looping forever.
func TestCyclicRefsTerminate(t *testing.T) {
	s := `{"$defs": {
  "A": {"allOf": [{"$ref": "#/$defs/B"}], "properties": {"a": {"type": "string"}}},
  "B": {"allOf": [{"$ref": "#/$defs/A"}], "properties": {"b": {"type": "string"}}},
  "Self": {"allOf": [{"$ref": "#/$defs/Self"}]}
}}`
	m, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if _, ok := m.Types["A"].Members["b"]; !ok {
		t.Errorf("A members = %v, want b merged from B", m.Types["A"].Members)
	}
}

// TestInvalidInput checks that malformed input on either side yields an error, not a panic.
func TestInvalidInput(t *testing.T) {
	valid := `{"$defs": {"A": {"type": "string"}}}`
	for _, tt := range []struct{ name, input string }{
		{"empty", ""},
		{"truncated", `{"$defs": {`},
		{"not JSON", `not json`},
		{"trailing data", valid + ` {}`},
		{"array", `[]`},
		{"no definitions", `{"type": "object"}`},
		{"defs not object", `{"$defs": [1, 2]}`},
		{"definitions not object", `{"definitions": "x"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Diff([]byte(tt.input), []byte(valid)); err == nil || !strings.HasPrefix(err.Error(), "old schema:") {
				t.Errorf("Diff(invalid, valid) error = %v, want old schema error", err)
			}
			if _, err := Diff([]byte(valid), []byte(tt.input)); err == nil || !strings.HasPrefix(err.Error(), "new schema:") {
				t.Errorf("Diff(valid, invalid) error = %v, want new schema error", err)
			}
		})
	}
}

// TestOddButValidSchemas checks boolean schemas, non-local refs, tuple items and arrays of inline objects.
func TestOddButValidSchemas(t *testing.T) {
	// Boolean schemas, non-string required entries, non-local refs and
	// tuple items must not panic.
	s := `{"$defs": {
  "T": true,
  "F": {"type": "object", "properties": {
    "b": false,
    "r": {"$ref": "other.json#/X"},
    "tuple": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
    "arr": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}}
  }, "required": [1, "b"]}
}}`
	m, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	f := m.Types["F"].Members
	for name, want := range map[string]string{
		"b":       "any",
		"r":       "other.json#/X",
		"tuple":   "array of tuple[string, integer]",
		"arr":     "array of object",
		"arr[].k": "string",
	} {
		if got := f[name].Type; got != want {
			t.Errorf("member %s type = %q, want %q", name, got, want)
		}
	}
	if !f["b"].Required {
		t.Errorf("member b should be required")
	}
}

// TestRun checks the command-line behaviour: exit codes, stdout and stderr.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	oldPath := filepath.Join(dir, "old.json")
	newPath := filepath.Join(dir, "new.json")
	badPath := filepath.Join(dir, "bad.json")
	for path, content := range map[string]string{oldPath: inlineOld, newPath: inlineNew, badPath: `{"$defs":`} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"ok", []string{oldPath, newPath}, 0, "  + server/discover (DiscoverRequest)", ""},
		{"no args", nil, exitUsage, "", "usage: schemadiff OLD.json NEW.json"},
		{"one arg", []string{oldPath}, exitUsage, "", "expected 2 arguments"},
		{"three args", []string{oldPath, newPath, newPath}, exitUsage, "", "expected 2 arguments"},
		{"missing file", []string{filepath.Join(dir, "nope.json"), newPath}, exitUsage, "", "nope.json"},
		{"invalid old", []string{badPath, newPath}, exitUsage, "", "bad.json: invalid JSON"},
		{"invalid new", []string{oldPath, badPath}, exitUsage, "", "bad.json: invalid JSON"},
		{"unknown flag", []string{"-x", oldPath, newPath}, exitUsage, "", "flag provided but not defined"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr: %s)", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout = %q, want it to contain %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.wantStderr)
			}
			if tt.wantCode != 0 && stdout.Len() != 0 {
				t.Errorf("unexpected stdout on failure: %q", stdout.String())
			}
		})
	}
}

// TestRunPinned diffs the two pinned revisions by name: the same report as
// from their files, and a pin whose file does not verify is refused.
func TestRunPinned(t *testing.T) {
	want, err := Diff(readSpec(t, "2025-11-25"), readSpec(t, "2026-07-28"))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-pinned", "2025-11-25", "2026-07-28"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	if stdout.String() != want.String() {
		t.Errorf("-pinned report differs from the files' report:\n%s", stdout.String())
	}
	if !hasLine(stdout.String(), "  - initialize (InitializeRequest)") {
		t.Errorf("report lacks the removed initialize method:\n%s", stdout.String())
	}

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unpinned revision", []string{"-pinned", "2023-01-01", "2026-07-28"}, `no pin for revision "2023-01-01"`},
		{"a file name", []string{"-pinned", "old.json", "2026-07-28"}, `no pin for revision "old.json"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tt.want) || stdout.Len() != 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout.String(), stderr.String(), exitUsage, tt.want)
			}
		})
	}

	// The 2026-07-28 file where 2025-11-25 belongs: the hash check refuses it.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "schema", "2025-11-25"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "schema", "2025-11-25", "schema.json"), readSpec(t, "2026-07-28"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCP_SPEC_DIR", dir)
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"-pinned", "2025-11-25", "2026-07-28"}, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "sha256 mismatch") {
		t.Errorf("exit %d, stderr %q; want %d and a sha256 mismatch", code, stderr.String(), exitUsage)
	}
}
