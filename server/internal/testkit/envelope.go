package testkit

import (
	"context"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

func CompleteAll(_ context.Context, _ *server.Request, p *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
	return &protocol.CompleteResult{Completion: protocol.CompleteResultCompletion{Values: []string{p.Argument.Value + "1", p.Argument.Value + "2"}}}, nil
}
