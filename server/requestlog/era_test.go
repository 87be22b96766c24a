package requestlog_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/requestlog"
)

// The era attribute names a legacy session's request only: a request
// with no protocol version (a NewTestRequest with no _meta) is not one,
// nor is a 2026-07-28 request.
func TestLogRequestsEra(t *testing.T) {
	for _, c := range []struct {
		version string
		legacy  bool
	}{{"", false}, {protocol.Revision, false}, {"2025-11-25", true}} {
		var buf bytes.Buffer
		mw := requestlog.New(slog.New(slog.NewTextHandler(&buf, nil)), requestlog.Options{})
		req := server.NewTestRequest(server.TestRequestOptions{Meta: protocol.RequestMetaObject{ProtocolVersion: c.version}})
		_, _ = mw(func(context.Context, *server.Request) (server.Result, error) {
			return server.TextResult("ok"), nil
		})(context.Background(), req)
		if got := strings.Contains(buf.String(), "era=legacy"); got != c.legacy {
			t.Errorf("version %q: era=legacy logged: %v, want %v: %s", c.version, got, c.legacy, buf.String())
		}
	}
}
