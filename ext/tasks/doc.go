// Package tasks is the MCP tasks extension (io.modelcontextprotocol/tasks,
// SEP-2663) for package server, written on the server's public extension
// API (server.Extension) alone.
//
// Under the extension a tools/call may answer with a task handle
// (resultType "task", a CreateTaskResult) instead of its result; the
// client then polls tasks/get, answers the task's input requests with
// tasks/update, may cancel it with tasks/cancel, and may watch it on a
// subscriptions/listen stream (notifications.taskIds, notifications/tasks).
// Register a tool with AsTask, and configure the extension with WithTasks
// (AsTask alone enables it with the defaults):
//
//	s, err := server.New(impl, tasks.WithTasks(tasks.TaskConfig{TTL: 10 * time.Minute}))
//	...
//	err = s.AddTool(def, handler, tasks.AsTask(tasks.TaskOptions{Support: tasks.TaskOptional}))
//
// The handler is an ordinary server.ToolHandler: in a task it runs in the
// background (TaskFrom tells it so), and asks for input the way every
// handler does (Request.AskInput), which parks the task in input_required.
//
// # Wire types
//
// Every request, result and notification of the extension is a type of
// package taskproto, generated from the extension's own pinned schema
// (schema/ext-tasks/pin.txt): params are decoded strictly with it, and
// tasks/get answers a taskproto.DetailedTask to which the server's
// envelope adds resultType and _meta (which makes it a GetTaskResult).
// The records a TaskStore keeps are this package's TaskRecord, which is
// not a wire type.
//
// # Several instances
//
// Instances behind one load balancer share a TaskStore (package
// github.com/mcpwire/mcpwire/redisstore has one in Redis) and a broker
// (server.WithBroker): a task created through one instance is read,
// answered, cancelled and completed through any other, and its events
// reach the listen streams of all of them.
package tasks
