package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// readExtTasks returns the ext-tasks schema from $MCP_SPEC_DIR/ext-tasks,
// as -pinned ext-tasks reads it (readPinned: the pin's path, its sha256
// verified).
func readExtTasks(t *testing.T) []byte {
	t.Helper()
	if os.Getenv("MCP_SPEC_DIR") == "" {
		t.Skip("MCP_SPEC_DIR is not set")
	}
	data, err := readPinned("ext-tasks")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// An extension schema diffs like a revision: against itself nothing, and
// a changed copy shows its types, members, union branches and methods,
// in the anyOf forms ext-tasks writes (nullable integers, const unions).
func TestExtTasksDiff(t *testing.T) {
	old := readExtTasks(t)
	same, err := Diff(old, old)
	if err != nil {
		t.Fatal(err)
	}
	if !same.IsEmpty() {
		t.Errorf("self-diff of ext-tasks is not empty:\n%s", same)
	}
	var doc map[string]any
	if err := json.Unmarshal(old, &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	working := defs["WorkingTask"].(map[string]any)
	working["properties"].(map[string]any)["ttlMs"] = map[string]any{"type": "integer"}
	working["properties"].(map[string]any)["progress"] = map[string]any{"type": "number"}
	status := defs["TaskStatus"].(map[string]any)
	status["anyOf"] = append(status["anyOf"].([]any), map[string]any{"type": "string", "const": "paused"})
	pause, err := json.Marshal(defs["CancelTaskRequest"])
	if err != nil {
		t.Fatal(err)
	}
	var p any
	if err := json.Unmarshal(bytes.ReplaceAll(pause, []byte("tasks/cancel"), []byte("tasks/pause")), &p); err != nil {
		t.Fatal(err)
	}
	defs["PauseTaskRequest"] = p
	delete(defs, "TaskSubscriptionAcknowledgedNotifications")
	changed, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Diff(old, changed)
	if err != nil {
		t.Fatal(err)
	}
	out := r.String()
	for _, want := range []string{
		"  + PauseTaskRequest",
		"  - TaskSubscriptionAcknowledgedNotifications",
		"    ~ ttlMs: anyOf[integer|null] -> integer",
		"    + progress number (optional)",
		`    + variant const "paused"`,
		"  + tasks/pause (PauseTaskRequest)",
	} {
		if !hasLine(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// -pinned takes an extension as ext-<name>, loaded and verified from its
// pin.
func TestRunPinnedExtension(t *testing.T) {
	readExtTasks(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-pinned", "ext-tasks", "ext-tasks"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "types added (0)") {
		t.Errorf("self-diff of the pinned extension:\n%s", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"-pinned", "2026-07-28", "ext-tasks"}, &stdout, &stderr); code != 0 || !hasLine(stdout.String(), "  + DetailedTask") {
		t.Errorf("exit %d, stderr %q; want the extension's own types added:\n%s", code, stderr.String(), stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"-pinned", "ext-nosuch", "ext-tasks"}, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), `no pin for extension "nosuch"`) {
		t.Errorf("exit %d, stderr %q; want %d and the unknown extension named", code, stderr.String(), exitUsage)
	}
}
