package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/server/typed"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// logServer has a tool "work" that logs at debug, info, warn and error
// through req.Logger, with an attribute and a group; its server log
// writes JSON lines to buf.
func logServer(t *testing.T, buf *bytes.Buffer) *servertest.Client {
	t.Helper()
	log := slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	s, err := server.New(protocol.Implementation{Name: "log", Version: "1"}, server.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	err = typed.AddTool(s, protocol.Tool{Name: "work"}, func(ctx context.Context, req *server.Request, _ struct{}) (string, error) {
		l := req.Logger().With("job", 7).WithGroup("g")
		l.DebugContext(ctx, "debug line", "k", 1)
		l.InfoContext(ctx, "info line", "k", 2)
		l.WarnContext(ctx, "warn line", "k", 3)
		l.ErrorContext(ctx, "error line", "k", 4)
		return "done", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return servertest.New(s)
}

// TestRequestLogger checks the slog bridge: records at or above the
// request's logLevel reach the client as notifications/message (R-LOG-03,
// R-LOG-04) with the level mapped and the attributes as JSON data, and
// the server log gets what its own level takes whatever the client asked
// for: a client cannot take a warning away from the operator.
func TestRequestLogger(t *testing.T) {
	for _, c := range []struct {
		level      string // "" : no logLevel in _meta
		toClient   []string
		toServer   []string
		wantLevels []string
	}{
		{"", nil, []string{"info line", "warn line", "error line"}, nil},
		{"warning", []string{"warn line", "error line"}, []string{"info line", "warn line", "error line"}, []string{"warning", "error"}},
		{"debug", []string{"debug line", "info line", "warn line", "error line"}, []string{"info line", "warn line", "error line"}, []string{"debug", "info", "warning", "error"}},
	} {
		t.Run("logLevel="+c.level, func(t *testing.T) {
			var buf bytes.Buffer
			cl := logServer(t, &buf)
			var got []protocol.LoggingMessageNotificationParams
			opts := []servertest.Option{servertest.OnNotification(func(n servertest.Notification) {
				if n.Method != protocol.MethodNotificationsMessage {
					return
				}
				var p protocol.LoggingMessageNotificationParams
				if err := json.Unmarshal(n.Params, &p); err != nil {
					t.Errorf("params %s: %v", n.Params, err)
				}
				got = append(got, p)
			})}
			if c.level != "" {
				opts = append(opts, servertest.WithMeta("io.modelcontextprotocol/logLevel", c.level))
			}
			if _, err := cl.CallTool(context.Background(), "work", nil, opts...); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.toClient) {
				t.Fatalf("client got %d messages %+v, want %v", len(got), got, c.toClient)
			}
			for i, p := range got {
				var data map[string]any
				if err := json.Unmarshal(p.Data, &data); err != nil {
					t.Fatalf("data %s: %v", p.Data, err)
				}
				g, _ := data["g"].(map[string]any)
				if data["msg"] != c.toClient[i] || data["job"] != float64(7) || g["k"] == nil || string(p.Level) != c.wantLevels[i] {
					t.Errorf("message %d: level %s data %s, want %s %q with job and g.k", i, p.Level, p.Data, c.wantLevels[i], c.toClient[i])
				}
				if _, ok := data["time"]; ok {
					t.Errorf("data carries time: %s", p.Data)
				}
			}
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			var msgs []string
			for _, ln := range lines {
				var m map[string]any
				if json.Unmarshal([]byte(ln), &m) == nil && m["job"] != nil {
					msgs = append(msgs, m["msg"].(string))
				}
			}
			if strings.Join(msgs, "|") != strings.Join(c.toServer, "|") {
				t.Errorf("server log got %q, want %q", msgs, c.toServer)
			}
		})
	}
}

// TestRequestLoggerTestRequest checks that a NewTestRequest's Logger
// writes to TestRequestOptions.Logger, since nothing is sent from it.
func TestRequestLoggerTestRequest(t *testing.T) {
	var buf bytes.Buffer
	lvl := protocol.LoggingLevelDebug
	r := server.NewTestRequest(server.TestRequestOptions{
		Meta:   protocol.RequestMetaObject{LogLevel: &lvl},
		Logger: slog.New(slog.NewTextHandler(&buf, nil)),
	})
	r.Logger().Info("hello", "n", 1)
	if !strings.Contains(buf.String(), "msg=hello n=1") {
		t.Errorf("log %q", buf.String())
	}
}

// ExampleRequest_Logger logs through log/slog from a tool: the client
// gets what it asked for with its logLevel, and the server log what its
// own level takes.
func ExampleRequest_Logger() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	_ = typed.AddTool(s, protocol.Tool{Name: "sync"}, func(ctx context.Context, req *server.Request, _ struct{}) (string, error) {
		log := req.Logger().With("tool", "sync")
		log.InfoContext(ctx, "starting", "items", 3)
		return "synced", nil
	})
	c := servertest.New(s, servertest.OnNotification(func(n servertest.Notification) {
		fmt.Println(n.Method, string(n.Params))
	}))
	_, _ = c.CallTool(context.Background(), "sync", nil, servertest.WithMeta("io.modelcontextprotocol/logLevel", "info"))
	// Output:
	// notifications/message {"data":{"msg":"starting","tool":"sync","items":3},"level":"info"}
}
