package protocol

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecodeJSONRPCMessage decodes arbitrary bytes as a JSONRPCMessage. It
// must never panic, and whatever decodes must encode, and decode → encode →
// decode must be stable. Seeds are the hand-written messages in
// ../testdata/fuzz/jsonrpc (crashers found later land in
// testdata/fuzz/FuzzDecodeJSONRPCMessage, Go's own corpus folder).
func FuzzDecodeJSONRPCMessage(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("..", "testdata", "fuzz", "jsonrpc", "*.json"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m JSONRPCMessage
		if err := Unmarshal(data, &m); err != nil {
			if _, ok := AsDecodeError(err); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		out, err := Marshal(&m)
		if err != nil {
			t.Fatalf("decoded %q but cannot encode it: %v", data, err)
		}
		var m2 JSONRPCMessage
		if err := Unmarshal(out, &m2); err != nil {
			t.Fatalf("re-decoding %s: %v", out, err)
		}
		out2, err := Marshal(&m2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("unstable:\n%s\n%s", out, out2)
		}
	})
}
