package server_test

import (
	"context"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/typed"
	"github.com/mcpwire/mcpwire/servertest"
)

// ExampleWithMiddleware refuses calls of one tool from anyone but an
// admin, and sees every request's method and name. The refusal's code is
// the application's own: codes -32768 to -32000 are JSON-RPC's, and only
// those the protocol defines reach the client.
func ExampleWithMiddleware() {
	adminOnly := func(next server.Handler) server.Handler {
		return func(ctx context.Context, req *server.Request) (server.Result, error) {
			fmt.Println("saw", req.Method, req.Name())
			if req.Name() == "drop_table" && req.Principal != "admin" {
				return nil, &server.Error{Code: -31001, Message: "drop_table is for admins"}
			}
			return next(ctx, req)
		}
	}
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"}, server.WithMiddleware(adminOnly))
	_ = typed.AddTool(s, protocol.Tool{Name: "drop_table"}, func(context.Context, *server.Request, struct{}) (string, error) {
		return "dropped", nil
	})
	c := servertest.New(s)
	_, err := c.CallTool(context.Background(), "drop_table", nil, servertest.WithPrincipal("bob"))
	fmt.Println(err)
	res, _ := c.CallTool(context.Background(), "drop_table", nil, servertest.WithPrincipal("admin"))
	fmt.Println(string(res.StructuredContent))
	// Output:
	// saw tools/call drop_table
	// servertest: HTTP 400: mcp error -31001: drop_table is for admins
	// saw tools/call drop_table
	// "dropped"
}
