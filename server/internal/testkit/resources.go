package testkit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/server"
)

// stdio runs ServeStdio over the given lines (joined with \n) and returns
// every message written.
func Stdio(t testing.TB, s *server.Server, lines ...string) []*Wire {
	t.Helper()
	var out strings.Builder
	if err := ServeStdio(context.Background(), s, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	var msgs []*Wire
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if l == "" {
			continue
		}
		if !json.Valid([]byte(l)) {
			t.Fatalf("R-STDIO-02: non-JSON line on stdout: %q", l)
		}
		msgs = append(msgs, DecodeWire(t, []byte(l)))
	}
	return msgs
}
