package taskproto_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/ext/tasks/taskproto"
	"github.com/mcpwire/mcpwire/protocol"
)

// Decoding is as strict as package protocol's, inside core-typed members
// too, whose errors come back as this package's DecodeError with the path
// below the member.
func TestStrict(t *testing.T) {
	for _, c := range []struct {
		name string
		new  func() any
		json string
		kind taskproto.ErrorKind
		path string
	}{
		{"missing taskId", func() any { return new(taskproto.GetTaskRequest) }, `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}`, taskproto.KindMissing, "params.taskId"},
		{"missing params", func() any { return new(taskproto.CancelTaskRequest) }, `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel"}`, taskproto.KindMissing, "params"},
		{"wrong method", func() any { return new(taskproto.GetTaskRequest) }, `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"taskId":"t"}}`, taskproto.KindConst, "method"},
		{"wrong resultType", func() any { return new(taskproto.CreateTaskResult) }, `{"resultType":"complete",` + working[1:], taskproto.KindConst, "resultType"},
		{"status outside the enum", func() any { return new(taskproto.Task) }, `{"taskId":"t","status":"paused","createdAt":"c","lastUpdatedAt":"u","ttlMs":1}`, taskproto.KindEnum, "status"},
		{"ttlMs missing", func() any { return new(taskproto.WorkingTask) }, `{"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"u"}`, taskproto.KindMissing, "ttlMs"},
		{"ttlMs a string", func() any { return new(taskproto.WorkingTask) }, `{"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"u","ttlMs":"1"}`, taskproto.KindType, "ttlMs"},
		{"ttlMs beyond 2^53", func() any { return new(taskproto.WorkingTask) }, `{"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"u","ttlMs":9007199254740992}`, taskproto.KindRange, "ttlMs"},
		{"duplicate member", func() any { return new(taskproto.Task) }, `{"taskId":"t","taskId":"u","status":"working","createdAt":"c","lastUpdatedAt":"u","ttlMs":1}`, taskproto.KindDuplicate, "taskId"},
		{"closed capability", func() any { return new(taskproto.TasksExtensionCapability) }, `{"poll":true}`, taskproto.KindUnknown, "poll"},
		{"no branch for the status", func() any { return new(taskproto.DetailedTask) }, `{"taskId":"t","status":"paused","createdAt":"c","lastUpdatedAt":"u","ttlMs":1}`, taskproto.KindUnion, "status"},
		{"failed without error", func() any { return new(taskproto.DetailedTask) }, `{"taskId":"t","status":"failed","createdAt":"c","lastUpdatedAt":"u","ttlMs":1}`, taskproto.KindMissing, "error"},
		// Inside core types (protocol.RequestId, protocol.Error,
		// protocol.InputResponses, protocol.ResultMetaObject):
		{"core: id a boolean", func() any { return new(taskproto.GetTaskRequest) }, `{"jsonrpc":"2.0","id":true,"method":"tasks/get","params":{"taskId":"t"}}`, taskproto.KindType, "id"},
		{"core: error without message", func() any { return new(taskproto.FailedTask) }, `{"taskId":"t","status":"failed","createdAt":"c","lastUpdatedAt":"u","ttlMs":1,"error":{"code":1}}`, taskproto.KindMissing, "error.message"},
		{"core: error code a float", func() any { return new(taskproto.FailedTask) }, `{"taskId":"t","status":"failed","createdAt":"c","lastUpdatedAt":"u","ttlMs":1,"error":{"code":1.5,"message":"m"}}`, taskproto.KindType, "error.code"},
		{"core: input response not an object", func() any { return new(taskproto.UpdateTaskRequest) }, `{"jsonrpc":"2.0","id":1,"method":"tasks/update","params":{"taskId":"t","inputResponses":{"ask":7}}}`, taskproto.KindType, "params.inputResponses.ask"},
		{"core: result _meta duplicate key", func() any { return new(taskproto.UpdateTaskResult) }, `{"resultType":"complete","_meta":{"a":1,"a":2}}`, taskproto.KindDuplicate, "_meta.a"},
		{"core: syntax inside", func() any { return new(taskproto.FailedTask) }, `{"taskId":"t","status":"failed","createdAt":"c","lastUpdatedAt":"u","ttlMs":1,"error":{"code":1,]}`, taskproto.KindSyntax, "error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := taskproto.Unmarshal([]byte(c.json), c.new())
			de, ok := taskproto.AsDecodeError(err)
			if !ok {
				t.Fatalf("error = %v (%T), want a *taskproto.DecodeError", err, err)
			}
			if de.Kind != c.kind || de.Path != c.path {
				t.Errorf("error %v: kind %v path %q, want kind %v path %q", err, de.Kind, de.Path, c.kind, c.path)
			}
			if !errors.Is(err, &taskproto.DecodeError{Kind: c.kind}) {
				t.Errorf("errors.Is(%v, kind %v) = false", err, c.kind)
			}
			if !strings.HasPrefix(err.Error(), "taskproto: ") {
				t.Errorf("error %q does not name the package", err)
			}
			if de.Offset < -1 || de.Offset > len(c.json) { // -1: no position (a missing member)
				t.Errorf("offset %d outside the input (%d bytes)", de.Offset, len(c.json))
			}
		})
	}
}

// The offset of an error inside a core-typed member is the input's, not
// the member's.
func TestCoreErrorOffset(t *testing.T) {
	in := `{"taskId":"t","status":"failed","createdAt":"c","lastUpdatedAt":"u","ttlMs":1,"error":{"code":1,"message":"m","x":"\u0000"}}`
	err := taskproto.Unmarshal([]byte(in), new(taskproto.FailedTask))
	if err != nil {
		t.Fatalf("undeclared member in the open Error refused: %v", err)
	}
	in = `{"taskId":"t","status":"failed","createdAt":"c","lastUpdatedAt":"u","ttlMs":1,"error":{"code":"x","message":"m"}}`
	err = taskproto.Unmarshal([]byte(in), new(taskproto.FailedTask))
	de, ok := taskproto.AsDecodeError(err)
	if !ok {
		t.Fatalf("error = %v", err)
	}
	if at := strings.Index(in, `"x"`); de.Offset < at || de.Offset > at+3 {
		t.Errorf("offset %d, want about %d (the code's value)", de.Offset, at)
	}
}

// The decoder's limits hold inside core-typed members.
func TestCoreMemberLimits(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 20) + "1" + strings.Repeat("}", 20)
	in := `{"taskId":"t","status":"failed","createdAt":"c","lastUpdatedAt":"u","ttlMs":1,"error":{"code":1,"message":"m","data":` + deep + `}}`
	if err := taskproto.Unmarshal([]byte(in), new(taskproto.FailedTask)); err != nil {
		t.Fatalf("default limits: %v", err)
	}
	err := taskproto.UnmarshalOptions{MaxDepth: 10}.Unmarshal([]byte(in), new(taskproto.FailedTask))
	if de, ok := taskproto.AsDecodeError(err); !ok || de.Kind != taskproto.KindDepth {
		t.Errorf("MaxDepth 10: %v, want a depth error", err)
	}
	err = taskproto.UnmarshalOptions{MaxStringBytes: 3}.Unmarshal([]byte(`{"resultType":"complete","_meta":{"k":"long string"}}`), new(taskproto.UpdateTaskResult))
	if de, ok := taskproto.AsDecodeError(err); !ok || de.Kind != taskproto.KindLimit {
		t.Errorf("MaxStringBytes 3: %v, want a limit error", err)
	}
}

// The error kinds of the two packages are the same list, so a kind from
// the core converts by value.
func TestErrorKindsMatchCore(t *testing.T) {
	for k := 0; k < 32; k++ {
		if got, want := taskproto.ErrorKind(k).String(), protocol.ErrorKind(k).String(); got != want {
			t.Errorf("ErrorKind(%d) = %q, protocol's %q", k, got, want)
		}
	}
}

// A core-typed member that cannot be encoded fails with this package's
// EncodeError.
func TestCoreEncodeError(t *testing.T) {
	v := &taskproto.FailedTask{TaskID: "t", CreatedAt: "c", LastUpdatedAt: "u", Error: protocol.Error{Code: 1, Message: "m", Data: []byte("{")}}
	_, err := taskproto.Marshal(v)
	var ee *taskproto.EncodeError
	if !errors.As(err, &ee) || !strings.Contains(ee.Path, "data") {
		t.Errorf("error = %v (%T), want a *taskproto.EncodeError at the data member", err, err)
	}
}

// Types of package protocol are not this package's: Unmarshal and Marshal
// refuse them rather than decoding loosely.
func TestRefusesCoreTypesAtTop(t *testing.T) {
	if err := taskproto.Unmarshal([]byte(`{"code":1,"message":"m"}`), new(protocol.Error)); err == nil {
		t.Error("taskproto.Unmarshal decoded a protocol.Error")
	}
	if _, err := taskproto.Marshal(&protocol.Error{}); err == nil {
		t.Error("taskproto.Marshal encoded a protocol.Error")
	}
}
