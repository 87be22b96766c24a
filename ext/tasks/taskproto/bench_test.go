package taskproto_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/ext/tasks/taskproto"
	"github.com/mcpwire/mcpwire/protocol"
)

// The cost of a core-typed member: a failed task's tasks/get result
// (error is a protocol.Error, _meta a protocol.ResultMetaObject, both
// validated here and then decoded by package protocol) against the same
// error decoded by package protocol alone.

var benchFailed = []byte(withResult(failed))

func BenchmarkDecodeGetTaskResultFailed(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchFailed)))
	for b.Loop() {
		var v taskproto.GetTaskResult
		if err := taskproto.Unmarshal(benchFailed, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeGetTaskResultFailed(b *testing.B) {
	var v taskproto.GetTaskResult
	if err := taskproto.Unmarshal(benchFailed, &v); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := taskproto.Marshal(&v); err != nil {
			b.Fatal(err)
		}
	}
}

var benchError = []byte(`{"code":-32603,"message":"boom","data":{"why":"disk"}}`)

// BenchmarkDecodeCoreError is the core member alone, for the ratio.
func BenchmarkDecodeCoreError(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var v protocol.Error
		if err := protocol.Unmarshal(benchError, &v); err != nil {
			b.Fatal(err)
		}
	}
}
