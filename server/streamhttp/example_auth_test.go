package streamhttp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/server/typed"
	"github.com/mcpwire/mcpwire/servertest"
)

// Authenticate is the hook for a scheme of your own (API keys here): it
// runs before the body is read, its principal reaches the handler as
// Request.Principal, and its error is a 401 with the WWWAuthenticate
// challenge.
func ExampleOptions_authenticate() {
	s, _ := server.New(protocol.Implementation{Name: "notes", Version: "1.0.0"})
	_ = typed.AddTool(s, protocol.Tool{Name: "whoami"}, func(_ context.Context, r *server.Request, _ struct{}) (*protocol.CallToolResult, error) {
		return server.TextResult("you are " + r.Principal), nil
	})
	keys := map[string]string{"Bearer k-123": "ada"} // in production: a lookup of hashed keys
	opts := streamhttp.Options{
		Authenticate: func(r *http.Request) (string, error) {
			if who, ok := keys[r.Header.Get("Authorization")]; ok {
				return who, nil
			}
			return "", errors.New("unknown API key")
		},
	}
	// streamhttp.Handler(s, opts) is the handler to serve; servertest calls it in-process.
	c := servertest.New(s, servertest.WithHTTPOptions(opts))
	ctx := context.Background()

	res, _ := c.CallTool(ctx, "whoami", nil, servertest.WithHeader("Authorization", "Bearer k-123"))
	fmt.Println(res.Content[0].Value.(*protocol.TextContent).Text)

	_, err := c.CallTool(ctx, "whoami", nil, servertest.WithHeader("Authorization", "Bearer wrong"))
	var e *servertest.Error
	if errors.As(err, &e) {
		fmt.Println("HTTP", e.Status, e.Code)
	}
	// Output:
	// you are ada
	// HTTP 401 -32600
}
