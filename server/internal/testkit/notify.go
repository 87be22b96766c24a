package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// scriptTool runs the steps in its "steps" argument: ["log", level] or
// ["progress", progress, total, message]; it answers with the list of what
// each step returned, and keeps its *Request in last.
func ScriptTool(t testing.TB, s *server.Server, last **server.Request, mu *sync.Mutex) {
	AddTool(t, s, `{"name":"script","inputSchema":{"type":"object","properties":{"steps":{"type":"array"}}}}`,
		func(ctx context.Context, r *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			var a struct{ Steps [][]any }
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			var sent []string
			for _, st := range a.Steps {
				switch st[0] {
				case "log":
					sent = append(sent, fmt.Sprint(r.Log(ctx, protocol.LoggingLevel(st[1].(string)), "test", json.RawMessage(`{"step":"`+st[1].(string)+`"}`))))
				case "progress":
					sent = append(sent, fmt.Sprint(r.Progress(ctx, st[1].(float64), st[2].(float64), st[3].(string))))
				}
			}
			mu.Lock()
			*last = r
			mu.Unlock()
			return server.TextResult(strings.Join(sent, ",")), nil
		})
}

func Step(v ...any) []any { return v }
