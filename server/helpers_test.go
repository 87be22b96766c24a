package server_test

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Shared helpers of the server tests: request builders, an HTTP driver,
// response decoding and a fixture server.

// jsonEq reports whether two JSON texts are equal as values.
func jsonEq(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("not JSON: %q", a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("not JSON: %q", b)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
