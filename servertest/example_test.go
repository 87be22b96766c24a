package servertest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/typed"
	"github.com/mcpwire/mcpwire/servertest"
)

func ExampleNew() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	var def protocol.Tool
	_ = protocol.Unmarshal([]byte(`{"name":"whoami","inputSchema":{"type":"object"}}`), &def)
	_ = s.AddTool(def, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("principal " + r.Principal), nil
	})

	// Every call goes through streamhttp.Handler(s, …) in-process, as alice.
	c := servertest.New(s, servertest.WithPrincipal("alice"))
	ctx := context.Background()

	tools, _ := c.ListTools(ctx)
	fmt.Println("tools:", len(tools), tools[0].Name)

	res, _ := c.CallTool(ctx, "whoami", nil)
	fmt.Println(res.Content[0].Value.(*protocol.TextContent).Text)

	// Per-call options override the Client's.
	res, _ = c.CallTool(ctx, "whoami", nil, servertest.WithPrincipal("bob"))
	fmt.Println(res.Content[0].Value.(*protocol.TextContent).Text)
	// Output:
	// tools: 1 whoami
	// principal alice
	// principal bob
}

func ExampleClient_CallTool() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	var def protocol.Tool
	_ = protocol.Unmarshal([]byte(`{"name":"book","inputSchema":{"type":"object","properties":{"what":{"type":"string"}}}}`), &def)
	_ = s.AddTool(def, func(_ context.Context, r *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		var a struct{ What string }
		_ = json.Unmarshal(args, &a)
		if resp, ok := r.InputResponse("date"); ok {
			date := resp.Value.(*protocol.ElicitResult).Content["date"].Str()
			return server.TextResult("Booked " + a.What + " for " + date), nil
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{
			"date": server.ElicitForm("Which date?", map[string]protocol.PrimitiveSchemaDefinition{"date": server.StringField("YYYY-MM-DD")}, "date"),
		}, []byte("asked"))
	})
	ctx := context.Background()

	// Without OnElicit the client declares no elicitation: the server
	// cannot ask, and the call fails with -32021.
	_, err := servertest.New(s).CallTool(ctx, "book", map[string]string{"what": "a table"})
	var e *servertest.Error
	if errors.As(err, &e) {
		fmt.Println("error", e.Code, "HTTP", e.Status)
	}

	// With it, the Client answers the input request and retries.
	c := servertest.New(s, servertest.OnElicit(func(_ context.Context, req *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
		fmt.Println("asked:", req.Params.Value.(*protocol.ElicitRequestFormParams).Message)
		return &protocol.ElicitResult{Action: protocol.ElicitResultActionAccept,
			Content: map[string]protocol.ElicitResultContentValue{"date": protocol.StringElicitResultContentValue("2026-08-01")}}, nil
	}))
	res, err := c.CallTool(ctx, "book", map[string]string{"what": "a table"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].Value.(*protocol.TextContent).Text)
	// Output:
	// error -32021 HTTP 400
	// asked: Which date?
	// Booked a table for 2026-08-01
}

func ExampleClient_Listen() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	c := servertest.New(s)
	ctx := context.Background()

	st, err := c.Listen(ctx, protocol.SubscriptionFilter{ToolsListChanged: server.Ptr(true)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	n, _ := st.Next(ctx) // the server acknowledges the subscription first
	fmt.Println(n.Method)

	_ = s.NotifyToolsChanged()
	n, _ = st.Next(ctx)
	fmt.Println(n.Method)
	// Output:
	// notifications/subscriptions/acknowledged
	// notifications/tools/list_changed
}

// OnElicit answers each elicitation the server asks for; the Client
// declares the elicitation capability because the callback is set, and
// retries the call with the answer. Here the user declines.
func ExampleOnElicit() {
	s, _ := server.New(protocol.Implementation{Name: "files", Version: "1.0.0"})
	_ = typed.AddTool(s, protocol.Tool{Name: "purge"}, func(_ context.Context, r *server.Request, _ struct{}) (*protocol.CallToolResult, error) {
		resp, ok := r.InputResponse("confirm")
		if !ok {
			return nil, r.AskInput(map[string]protocol.InputRequest{"confirm": server.ElicitForm("Purge everything?", nil)}, nil)
		}
		if er, isElicit := resp.Value.(*protocol.ElicitResult); isElicit && er.Action == protocol.ElicitResultActionAccept {
			return server.TextResult("purged"), nil
		}
		return server.TextResult("kept everything"), nil
	})
	c := servertest.New(s, servertest.OnElicit(func(_ context.Context, req *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
		fmt.Println("asked:", req.Params.Value.(*protocol.ElicitRequestFormParams).Message)
		return &protocol.ElicitResult{Action: protocol.ElicitResultActionDecline}, nil
	}))
	res, err := c.CallTool(context.Background(), "purge", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].Value.(*protocol.TextContent).Text)
	// Output:
	// asked: Purge everything?
	// kept everything
}
