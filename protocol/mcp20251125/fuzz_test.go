package mcp20251125

import (
	"bytes"
	"testing"
)

// fuzzUnions are the unions a legacy session's messages decode into.
var fuzzUnions = []string{"JSONRPCMessage", "ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification", "ClientResult", "ServerResult"}

// FuzzDecodeLegacy decodes arbitrary bytes into each union of a legacy
// session. It must never panic; whatever decodes must encode, and decode →
// encode → decode → encode must give the same bytes. Seeds are the
// messages of messages_test.go and their result members.
func FuzzDecodeLegacy(f *testing.F) {
	for _, m := range legacyMessages {
		f.Add([]byte(m.json))
		if m.result != "" {
			var resp JSONRPCResultResponse
			if err := Unmarshal([]byte(m.json), &resp); err != nil {
				f.Fatal(err)
			}
			raw, err := Marshal(&resp.Result)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range fuzzUnions {
			v := NewValue(name)
			if err := Unmarshal(data, v); err != nil {
				if _, ok := AsDecodeError(err); !ok {
					t.Fatalf("%s: error of type %T: %v", name, err, err)
				}
				continue
			}
			out, err := Marshal(v)
			if err != nil {
				t.Fatalf("%s: decoded %q but cannot encode it: %v", name, data, err)
			}
			v2 := NewValue(name)
			if err := Unmarshal(out, v2); err != nil {
				t.Fatalf("%s: re-decoding %s: %v", name, out, err)
			}
			out2, err := Marshal(v2)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, out2) {
				t.Fatalf("%s: unstable:\n%s\n%s", name, out, out2)
			}
		}
	})
}
