package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The fixtures of the tasks extension scenarios (io.modelcontextprotocol/tasks).
func addTaskTools(s *server.Server) error {
	optional := tasks.AsTask(tasks.TaskOptions{Support: tasks.TaskOptional})
	required := tasks.AsTask(tasks.TaskOptions{Support: tasks.TaskRequired})
	tools := []struct {
		name, desc, props string
		h                 server.ToolHandler
		opts              []server.ToolOption
	}{
		{"greet", "Greets someone, synchronously.", `{"name":{"type":"string"}}`, greet, nil},
		{"slow_compute", "Sleeps for the given seconds, then answers; runs as a task when the client allows it.",
			`{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}}`, slowCompute, []server.ToolOption{optional}},
		{"failing_job", "Runs only as a task and ends with a tool execution error after about a second.", `{}`, failingJob, []server.ToolOption{required}},
		{"protocol_error_job", "Runs only as a task and fails with a protocol error (the handler panics).", `{}`, protocolErrorJob, []server.ToolOption{required}},
		{"confirm_delete", "Asks the user to confirm the deletion of a file, then answers.", `{"filename":{"type":"string"}}`, confirmDelete, []server.ToolOption{optional}},
		{"multi_input", "Asks for a name and a confirmation at once, then answers.", `{}`, multiInput, []server.ToolOption{optional}},
		{"test_tool_with_task", "Asks for the user's name synchronously, then continues as a task.", `{}`, toolWithTask,
			[]server.ToolOption{tasks.AsTask(tasks.TaskOptions{Support: tasks.TaskRequired, Deferred: true})}},
	}
	for _, t := range tools {
		def := describe(t.name, t.desc)
		def.InputSchema.Extra = protocol.Members{{Name: "properties", Value: json.RawMessage(t.props)}}
		if err := s.AddTool(def, t.h, t.opts...); err != nil {
			return err
		}
	}
	return nil
}

func greet(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
	var in struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(args, &in)
	return server.TextResult("Hello, " + in.Name + "!"), nil
}

// sleep waits d or until ctx ends (the task was cancelled or expired).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func slowCompute(ctx context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
	var in struct {
		Seconds float64 `json:"seconds"`
		Label   string  `json:"label"`
	}
	_ = json.Unmarshal(args, &in)
	if t, ok := tasks.TaskFrom(ctx); ok {
		_ = t.SetStatusMessage(ctx, "Computing "+in.Label)
	}
	if err := sleep(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
		return nil, err
	}
	return server.TextResult(fmt.Sprintf("Computed %q in %gs.", in.Label, in.Seconds)), nil
}

func failingJob(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
	if err := sleep(ctx, time.Second); err != nil {
		return nil, err
	}
	return nil, errors.New("the job failed: its input was rejected")
}

func protocolErrorJob(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
	panic("protocol_error_job always panics")
}

func confirmDelete(_ context.Context, r *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
	var in struct {
		Filename string `json:"filename"`
	}
	_ = json.Unmarshal(args, &in)
	if resp, ok := r.InputResponse("confirm"); ok {
		if er, ok := resp.Value.(*protocol.ElicitResult); ok && er.Action == protocol.ElicitResultActionAccept {
			if v, ok := er.Content["confirm"]; ok && v.IsBool() && v.Bool() {
				return server.TextResult("Deleted " + in.Filename + "."), nil
			}
		}
		return server.TextResult("Kept " + in.Filename + "."), nil
	}
	return nil, r.AskInput(map[string]protocol.InputRequest{
		"confirm": server.ElicitForm("Delete "+in.Filename+"?", map[string]protocol.PrimitiveSchemaDefinition{"confirm": server.BoolField("Confirm the deletion")}, "confirm"),
	}, nil)
}

func multiInput(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
	_, named := r.InputResponse("name")
	_, confirmed := r.InputResponse("confirm")
	if named && confirmed {
		return server.TextResult("Received both inputs."), nil
	}
	return nil, r.AskInput(map[string]protocol.InputRequest{
		"name":    server.ElicitForm("What is your name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("Your name")}, "name"),
		"confirm": server.ElicitForm("Please confirm.", map[string]protocol.PrimitiveSchemaDefinition{"confirm": server.BoolField("Confirm")}, "confirm"),
	}, nil)
}

// toolWithTask gathers the user's name with a synchronous multi round-trip
// exchange, then becomes a task (R-TASK-08) that greets them.
func toolWithTask(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
	if _, inTask := tasks.TaskFrom(ctx); inTask {
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return nil, err
		}
		return server.TextResult("Hello, " + string(r.State()) + "!"), nil
	}
	name, ok := acceptedString(r, "user_name", "name")
	if !ok {
		return nil, r.AskInput(map[string]protocol.InputRequest{
			"user_name": server.ElicitForm("What is your name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("Your name")}, "name"),
		}, nil)
	}
	return nil, tasks.RunAsTask(ctx, []byte(name))
}
