// Package mcp20251125 holds strict Go types for every definition of the
// Model Context Protocol schema, revision 2025-11-25, and their JSON codec:
// the wire types of the clients that open a session with initialize
// (2024-11-05 through 2025-11-25), for a server that serves them beside
// 2026-07-28 clients. [Revision] is "2025-11-25".
//
// Everything in this package except this file and the tests is generated
// by ../../gen from the pinned upstream schema (schema.Legacy, see
// ../../schema), by the same generator and with the same rules as package
// protocol; regenerate with go generate ./... and never edit the *_gen.go
// files by hand. The package imports nothing of this module: a server
// converts between it and package protocol itself.
//
// # Mapping
//
// As in package protocol: a Go type per definition with exactly its name,
// required members as values and optional ones as pointers (or nil slices,
// maps, raw values), undeclared members kept in Extra, const members checked
// on decode and always written (the one optional const, the "form" mode of
// ElicitRequestFormParams, only when it was decoded: a value built in Go
// leaves it out, which every legacy client reads as form mode), unions as a
// struct with a sealed Value
// chosen by JSON kind, const discriminators and required members, and
// RequestId and ProgressToken keeping their JSON kind. What this revision
// has that 2026-07-28 does not:
//
//   - the initialize handshake (InitializeRequest, InitializeResult,
//     InitializedNotification) and ping;
//   - results without resultType: ServerResult and ClientResult are told
//     apart by their required members only, and a result with none of them
//     (an empty result) decodes to *Result;
//   - _meta objects with a typed progressToken (in request params) and
//     every other key in Extra;
//   - JSONRPCErrorResponse with an optional id, and no named error codes but
//     URLElicitationRequiredError's -32042;
//   - the experimental tasks methods (tasks/get, tasks/result, tasks/cancel,
//     tasks/list, notifications/tasks/status).
//
// # Strictness
//
// [Unmarshal] (and UnmarshalJSON, so encoding/json too) rejects, with a
// [*DecodeError] whose Path locates the value and whose Kind says why,
// exactly what package protocol rejects: malformed JSON (KindSyntax), a
// missing required member (KindMissing), null where the schema has none
// (KindNull), a wrong const (KindConst) or enum value (KindEnum), a value of
// the wrong JSON type (KindType), a member name given twice at any depth
// (KindDuplicate), a member that matches a declared name only
// case-insensitively (KindCaseVariant), a union member that fits no branch
// or several (KindUnion), and nesting or sizes over the limits of
// [UnmarshalOptions] (KindDepth, KindLimit, KindRange). This revision closes
// no object with additionalProperties: false, so KindUnknown does not occur.
// Error messages start with "mcp20251125: ".
//
// [Marshal] writes const members itself and refuses values the schema
// forbids with an [*EncodeError].
package mcp20251125

//go:generate go run ../../gen -rev 2025-11-25
