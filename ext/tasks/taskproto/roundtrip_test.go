package taskproto_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/ext/tasks/taskproto"
	"github.com/mcpwire/mcpwire/protocol"
)

// ext-tasks ships no example files (its repository has the schema only), so
// the round trips run over hand-written messages of every method and every
// task state, and over values built in Go.

// sameJSON compares two JSON texts as values (member order aside).
func sameJSON(t *testing.T, got, want []byte) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("input is not JSON: %v\n%s", err, want)
	}
	return reflect.DeepEqual(g, w)
}

const (
	working   = `{"taskId":"t1","status":"working","statusMessage":"busy","createdAt":"2026-08-01T00:00:00Z","lastUpdatedAt":"2026-08-01T00:00:01Z","ttlMs":60000,"pollIntervalMs":500}`
	inputReq  = `{"taskId":"t1","status":"input_required","createdAt":"2026-08-01T00:00:00Z","lastUpdatedAt":"2026-08-01T00:00:01Z","ttlMs":null,"inputRequests":{"ask":{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}`
	completed = `{"taskId":"t1","status":"completed","createdAt":"2026-08-01T00:00:00Z","lastUpdatedAt":"2026-08-01T00:00:01Z","ttlMs":1000,"result":{"content":[{"type":"text","text":"done"}],"isError":false}}`
	failed    = `{"taskId":"t1","status":"failed","createdAt":"2026-08-01T00:00:00Z","lastUpdatedAt":"2026-08-01T00:00:01Z","ttlMs":1000,"error":{"code":-32603,"message":"boom","data":{"why":"disk"}}}`
	cancelled = `{"taskId":"t1","status":"cancelled","createdAt":"2026-08-01T00:00:00Z","lastUpdatedAt":"2026-08-01T00:00:01Z","ttlMs":0}`
)

// withResult adds the result envelope members to a task object.
func withResult(task string) string {
	return `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},` + task[1:]
}

// withParams makes a task object notification params.
func withParams(task string) string {
	return `{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"},` + task[1:]
}

type roundTrip struct {
	name string
	new  func() any
	json string
	// want is the Go type the decoded union holds, if the value is a union.
	want any
}

func roundTrips() []roundTrip {
	return []roundTrip{
		{"tasks/get", func() any { return new(taskproto.GetTaskRequest) }, `{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"t1"}}`, nil},
		{"tasks/get string id", func() any { return new(taskproto.GetTaskRequest) }, `{"jsonrpc":"2.0","id":"a","method":"tasks/get","params":{"taskId":"t1","_meta":{"k":1}}}`, nil},
		{"tasks/update", func() any { return new(taskproto.UpdateTaskRequest) }, `{"jsonrpc":"2.0","id":8,"method":"tasks/update","params":{"taskId":"t1","inputResponses":{"ask":{"action":"accept","content":{"name":"Ada"}}}}}`, nil},
		{"tasks/cancel", func() any { return new(taskproto.CancelTaskRequest) }, `{"jsonrpc":"2.0","id":9,"method":"tasks/cancel","params":{"taskId":"t1"}}`, nil},
		{"update result", func() any { return new(taskproto.UpdateTaskResult) }, `{"resultType":"complete"}`, nil},
		{"cancel result", func() any { return new(taskproto.CancelTaskResult) }, `{"resultType":"complete","_meta":{"x":true}}`, nil},
		{"create result", func() any { return new(taskproto.CreateTaskResult) }, `{"resultType":"task",` + working[1:], nil},
		{"get result working", func() any { return new(taskproto.GetTaskResult) }, withResult(working), &taskproto.GetTaskResultVariant0{}},
		{"get result input_required", func() any { return new(taskproto.GetTaskResult) }, withResult(inputReq), &taskproto.GetTaskResultVariant1{}},
		{"get result completed", func() any { return new(taskproto.GetTaskResult) }, withResult(completed), &taskproto.GetTaskResultVariant2{}},
		{"get result failed", func() any { return new(taskproto.GetTaskResult) }, withResult(failed), &taskproto.GetTaskResultVariant3{}},
		{"get result cancelled", func() any { return new(taskproto.GetTaskResult) }, withResult(cancelled), &taskproto.GetTaskResultVariant4{}},
		{"detailed working", func() any { return new(taskproto.DetailedTask) }, working, &taskproto.WorkingTask{}},
		{"detailed input_required", func() any { return new(taskproto.DetailedTask) }, inputReq, &taskproto.InputRequiredTask{}},
		{"detailed completed", func() any { return new(taskproto.DetailedTask) }, completed, &taskproto.CompletedTask{}},
		{"detailed failed", func() any { return new(taskproto.DetailedTask) }, failed, &taskproto.FailedTask{}},
		{"detailed cancelled", func() any { return new(taskproto.DetailedTask) }, cancelled, &taskproto.CancelledTask{}},
		{"task", func() any { return new(taskproto.Task) }, `{"taskId":"t2","status":"failed","createdAt":"a","lastUpdatedAt":"b","ttlMs":null,"vendor":{"x":[1,2]}}`, nil},
		{"notification", func() any { return new(taskproto.TaskStatusNotification) }, `{"jsonrpc":"2.0","method":"notifications/tasks","params":` + withParams(failed) + `}`, nil},
		{"notification params", func() any { return new(taskproto.TaskStatusNotificationParams) }, withParams(inputReq), &taskproto.TaskStatusNotificationParamsVariant1{}},
		{"capability", func() any { return new(taskproto.TasksExtensionCapability) }, `{}`, nil},
		{"subscription", func() any { return new(taskproto.TaskSubscriptionNotifications) }, `{"taskIds":["t1","t2"]}`, nil},
		{"subscription acknowledged", func() any { return new(taskproto.TaskSubscriptionAcknowledgedNotifications) }, `{}`, nil},
	}
}

// Every message decodes, picks the right union branch, and encodes back to
// the same JSON value; decoding the output gives the same Go value.
func TestRoundTrip(t *testing.T) {
	for _, c := range roundTrips() {
		t.Run(c.name, func(t *testing.T) {
			v := c.new()
			if err := taskproto.Unmarshal([]byte(c.json), v); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if c.want != nil {
				got := reflect.ValueOf(v).Elem().FieldByName("Value").Interface()
				if reflect.TypeOf(got) != reflect.TypeOf(c.want) {
					t.Fatalf("decoded branch %T, want %T", got, c.want)
				}
			}
			out, err := taskproto.Marshal(v)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if !sameJSON(t, out, []byte(c.json)) {
				t.Errorf("round trip changed the value:\n in: %s\nout: %s", c.json, out)
			}
			again := c.new()
			if err := json.Unmarshal(out, again); err != nil { // through UnmarshalJSON
				t.Fatalf("decode of the output: %v", err)
			}
			if !reflect.DeepEqual(again, v) {
				t.Errorf("second decode differs:\n%#v\n%#v", again, v)
			}
		})
	}
}

// Values built in Go encode with their consts, core-typed members in the
// core's encoding, and null for a nil required nullable member.
func TestEncodeBuiltValues(t *testing.T) {
	ttl := int64(5000)
	res := taskproto.GetTaskResult{Value: &taskproto.GetTaskResultVariant3{
		TaskID: "t9", CreatedAt: "c", LastUpdatedAt: "u", TTLMs: &ttl,
		Error: protocol.Error{Code: -32603, Message: "boom"},
	}}
	out, err := taskproto.Marshal(&res)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"resultType":"complete","taskId":"t9","status":"failed","createdAt":"c","lastUpdatedAt":"u","ttlMs":5000,"error":{"code":-32603,"message":"boom"}}`
	if !sameJSON(t, out, []byte(want)) {
		t.Errorf("got %s\nwant %s", out, want)
	}

	req := taskproto.GetTaskRequest{ID: protocol.StringRequestId("r1"), Params: taskproto.GetTaskRequestParams{TaskID: "t9"}}
	out, err = json.Marshal(req) // through MarshalJSON
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":"r1","method":"tasks/get","params":{"taskId":"t9"}}`; !sameJSON(t, out, []byte(want)) {
		t.Errorf("got %s\nwant %s", out, want)
	}

	out, err = taskproto.Marshal(&taskproto.CancelledTask{TaskID: "t", CreatedAt: "c", LastUpdatedAt: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"taskId":"t","status":"cancelled","createdAt":"c","lastUpdatedAt":"u","ttlMs":null}`; !sameJSON(t, out, []byte(want)) {
		t.Errorf("got %s\nwant %s", out, want)
	}

	if _, err := taskproto.Marshal(&taskproto.Task{TaskID: "t", Status: "paused"}); err == nil {
		t.Error("a status outside TaskStatus encoded")
	}
	if _, err := taskproto.Marshal(&taskproto.DetailedTask{}); err == nil {
		t.Error("a DetailedTask without a value encoded")
	}
}
