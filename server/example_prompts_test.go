package server_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// A prompt with one required argument: the runtime refuses a prompts/get
// without it (R-PROMPT-03) before the handler runs.
func ExampleServer_AddPrompt() {
	s, _ := server.New(protocol.Implementation{Name: "review", Version: "1.0.0"})
	_ = s.AddPrompt(protocol.Prompt{
		Name:        "code_review",
		Description: server.Ptr("Review a piece of code"),
		Arguments:   []protocol.PromptArgument{{Name: "code", Required: server.Ptr(true)}},
	}, func(_ context.Context, _ *server.Request, args map[string]string) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{
			{Role: protocol.RoleUser, Content: server.Text("Please review:\n" + args["code"])},
		}}, nil
	})
	c := servertest.New(s)
	ctx := context.Background()

	res, err := c.GetPrompt(ctx, "code_review", map[string]string{"code": "x := 1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	msg := res.Messages[0]
	fmt.Println(msg.Role, strings.ReplaceAll(msg.Content.Value.(*protocol.TextContent).Text, "\n", " | "))

	_, err = c.GetPrompt(ctx, "code_review", nil)
	var e *servertest.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Code, e.Message)
	}
	// Output:
	// user Please review: | x := 1
	// 400 -32602 Missing required argument: code
}

// One completion handler serves every prompt argument and template
// variable; it is told which through the ref.
func ExampleWithCompletion() {
	languages := []string{"go", "gleam", "haskell", "python"}
	s, _ := server.New(protocol.Implementation{Name: "review", Version: "1.0.0"},
		server.WithCompletion(func(_ context.Context, _ *server.Request, p *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
			values := []string{} // none for anything else
			if ref, ok := p.Ref.Value.(*protocol.PromptReference); ok && ref.Name == "code_review" && p.Argument.Name == "language" {
				for _, l := range languages {
					if strings.HasPrefix(l, p.Argument.Value) {
						values = append(values, l)
					}
				}
			}
			return &protocol.CompleteResult{Completion: protocol.CompleteResultCompletion{Values: values}}, nil
		}))
	c := servertest.New(s)
	ref := protocol.CompleteRequestParamsRef{Value: &protocol.PromptReference{Name: "code_review"}}
	res, err := c.Complete(context.Background(), ref, "language", "g", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Completion.Values)
	// Output:
	// [go gleam]
}
