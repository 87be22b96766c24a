package server_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/typed"
	"github.com/mcpwire/mcpwire/servertest"
)

// Progress is sent only when the request carries a progressToken
// (R-PROG-01); the notifications travel on the call's own response
// stream, before its result.
func ExampleRequest_Progress() {
	s, _ := server.New(protocol.Implementation{Name: "jobs", Version: "1.0.0"})
	_ = typed.AddTool(s, protocol.Tool{Name: "index"}, func(ctx context.Context, r *server.Request, _ struct{}) (*protocol.CallToolResult, error) {
		sent := false
		for i := 1; i <= 3; i++ {
			sent = r.Progress(ctx, float64(i), 3, fmt.Sprintf("file %d of 3", i))
		}
		return server.TextResult(fmt.Sprintf("indexed (progress sent: %v)", sent)), nil
	})
	c := servertest.New(s, servertest.OnNotification(func(n servertest.Notification) {
		fmt.Println(n.Method, string(n.Params))
	}))
	ctx := context.Background()

	res, _ := c.CallTool(ctx, "index", nil, servertest.WithMeta("progressToken", "job-1"))
	fmt.Println(res.Content[0].Value.(*protocol.TextContent).Text)
	res, _ = c.CallTool(ctx, "index", nil) // no token: nothing sent
	fmt.Println(res.Content[0].Value.(*protocol.TextContent).Text)
	// Output:
	// notifications/progress {"message":"file 1 of 3","progress":1,"progressToken":"job-1","total":3}
	// notifications/progress {"message":"file 2 of 3","progress":2,"progressToken":"job-1","total":3}
	// notifications/progress {"message":"file 3 of 3","progress":3,"progressToken":"job-1","total":3}
	// indexed (progress sent: true)
	// indexed (progress sent: false)
}

// Log sends a notifications/message only at or above the level the
// request asked for in its _meta (R-LOG-03, R-LOG-04).
func ExampleRequest_Log() {
	s, _ := server.New(protocol.Implementation{Name: "jobs", Version: "1.0.0"})
	_ = typed.AddTool(s, protocol.Tool{Name: "sync"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		r.Log(ctx, protocol.LoggingLevelDebug, "sync", json.RawMessage(`"listing files"`))
		r.Log(ctx, protocol.LoggingLevelWarning, "sync", json.RawMessage(`{"skipped":2}`))
		return "synced", nil
	})
	c := servertest.New(s, servertest.OnNotification(func(n servertest.Notification) {
		fmt.Println(n.Method, string(n.Params))
	}))
	_, _ = c.CallTool(context.Background(), "sync", nil, servertest.WithMeta("io.modelcontextprotocol/logLevel", "info"))
	// Output:
	// notifications/message {"data":{"skipped":2},"level":"warning","logger":"sync"}
}
