// Package taskproto holds strict Go types for the definitions of the MCP
// tasks extension (io.modelcontextprotocol/tasks) and their JSON codec,
// generated from the extension's own pinned schema
// (github.com/modelcontextprotocol/ext-tasks, schema/draft/schema.json; see
// ../../../schema, LookupExtension). [Revision] is that schema's folder,
// "draft".
//
// Everything in this package except this file and the tests is generated
// by ../../../gen (gen -ext tasks); regenerate with go generate ./... and
// never edit the *_gen.go files by hand.
//
// # Core types
//
// The extension schema carries copies of the core definitions it uses
// (Result, Error, InputRequests, RequestId, …). Each copy that is
// structurally equal to the 2026-07-28 definition of the same name is not
// generated here: a member of that type has the type of package
// [github.com/mcpwire/mcpwire/protocol] (GetTaskRequest.ID is a
// protocol.RequestId, FailedTask.Error a protocol.Error), decoded and
// encoded by that package's strict codec. Only the extension's own
// definitions are types of this package: the task states (WorkingTask …
// CancelledTask, the DetailedTask union and Task), the tasks/get,
// tasks/update and tasks/cancel requests and their results,
// CreateTaskResult, the notifications/tasks notification, and the
// capability and subscription objects. The generator fails if a copy
// differs from the core definition, unless gen/ext_overrides.go says why.
//
// # Mapping and strictness
//
// As in package protocol: required members are values and optional ones
// pointers, a required member that may be null (ttlMs) is a pointer that
// encodes null when nil, undeclared members are kept in Extra (refused
// where the schema closes the object, as TasksExtensionCapability), const
// members (status, method, resultType) are checked on decode and always
// written, a missing required member, a duplicate member, a wrong JSON kind
// or a value outside an enum is a [*DecodeError], and unions choose their
// branch by const discriminators and required members. A decode error
// inside a core-typed member is reported as this package's DecodeError,
// with its path below the member.
//
//go:generate go run ../../../gen -ext tasks
package taskproto
