//go:build attack

package lib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

func logServer(t *testing.T, sl *syncBuf, opts ...server.Option) *server.Server {
	opts = append(opts, server.WithLogger(slog.New(slog.NewTextHandler(sl, nil))))
	s, err := server.New(protocol.Implementation{Name: "x", Version: "1"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.AddTool(protocol.Tool{Name: "t", InputSchema: server.MustInputSchema(`{"type":"object"}`)},
		func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			r.Logger().Info("INFO-RECORD")
			r.Logger().Error("ERROR-RECORD")
			return server.TextResult("ok"), nil
		})
	_ = s.AddResource(protocol.Resource{URI: "x:/secret", Name: "s"}, func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return nil, fmt.Errorf("query failed: %w", errors.New("pq: password authentication failed for user \"admin\" host=10.0.0.5"))
	})
	_ = s.AddResource(protocol.Resource{URI: "x:/panic", Name: "p"}, func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		panic(errors.New("PANIC-SECRET-VALUE"))
	})
	return s
}

// stdioRun sends the lines one by one, waiting 200 ms after each (so that
// each is served before the next: stdio serves requests concurrently).
func stdioRun(s *server.Server, lines ...string) string {
	var out syncBuf
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	done := make(chan struct{})
	go func() { _ = s.ServeStdio(ctx, inR, &out); close(done) }()
	for _, l := range lines {
		_, _ = io.WriteString(inW, l+"\n")
		time.Sleep(200 * time.Millisecond)
	}
	_ = inW.Close()
	<-done
	return out.String()
}

// TestLegacySetLevel: a legacy client's logging/setLevel governs what
// r.Logger() sends it.
func TestLegacySetLevel(t *testing.T) {
	for _, lvl := range []string{"error", "debug"} {
		var sl syncBuf
		out := stdioRun(logServer(t, &sl),
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"l","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"`+lvl+`"}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{}}}`)
		t.Logf("setLevel %s: client got:\n%s\nserver log:\n%s", lvl, out, sl.String())
		if lvl == "error" && strings.Contains(out, "INFO-RECORD") {
			t.Errorf("info record sent to a client that asked for error")
		}
		if lvl == "debug" && !strings.Contains(out, "INFO-RECORD") {
			t.Errorf("legacy client asked debug via logging/setLevel but did not get r.Logger()'s records")
		}
	}
}

// TestModernBogusLevel: an unknown logLevel in _meta.
func TestModernBogusLevel(t *testing.T) {
	var sl syncBuf
	m := strings.Replace(meta, `"_meta":{`, `"_meta":{"io.modelcontextprotocol/logLevel":"bogus",`, 1)
	out := stdioRun(logServer(t, &sl), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},`+m+`}}}`)
	t.Logf("client got: %s", out)
	if strings.Contains(out, "RECORD") {
		t.Errorf("records sent for a bogus level")
	}
}

// TestErrorDetails: what WithErrorDetails shows.
func TestErrorDetails(t *testing.T) {
	var sl syncBuf
	s := logServer(t, &sl, server.WithErrorDetails())
	out := stdioRun(s, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x:/secret",`+meta+`}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"x:/panic",`+meta+`}}}`)
	t.Logf("client got: %s", out)
	if strings.Contains(out, "PANIC-SECRET") {
		t.Errorf("panic value shown")
	}
}
