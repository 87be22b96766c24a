// Package legacy converts between the handler types of package protocol
// (2026-07-28) and the wire of the legacy revisions 2024-11-05, 2025-03-26,
// 2025-06-18 and 2025-11-25, whose clients open a session with initialize.
// It is the conversion layer of the dual-era server (docs/dual-era.md §3);
// the server decides everything else (classification, sessions, the
// bridge's waiting), and calls this package at the edges:
//
//	legacy bytes ──strict decode (mcp20251125)──▶ legacy params ──Session.CallTool…──▶ protocol params + _meta
//	                                                                                     │
//	                                                                            handler (unchanged)
//	                                                                                     │
//	protocol result ──AppendResult: hand rules, generated zero pass, modern encoder, envelope strip──▶ legacy bytes
//
// # Requests
//
// The server decodes every legacy request with package mcp20251125 (every
// older revision's client messages decode with it: the generator checks
// it) and converts the params with the [Session] methods, which also
// synthesize params._meta from the session: the negotiated revision, the
// initialize capabilities (converted once, [ConvertClientCapabilities]),
// clientInfo and the session's log level.
//
// # Results, notifications, errors
//
// [AppendResult], [AppendNotification] and [AppendError] write a value as
// the session's revision declares it. What each revision declares of each
// type is derived from the pinned schemas by the generator (gen -legacy,
// tables_gen.go): for every type the server sends, the members each
// revision declares at the positions where it is sent, the union branches
// it has, the result envelope no legacy revision has, and the zero
// functions that clear the rest on a copy, nested. Values are never
// modified: what changes is copied first, and nothing else is.
//
// The rules the schemas cannot say are written by hand (rules.go; H1–H14
// of docs/dual-era.md §3.7): tool schemas kept verbatim (H1), the envelope
// (H2), text fallbacks for content blocks a revision lacks (H3),
// structured output only as an object from 2025-06-18 (H4), the
// resource-not-found code (H6), list_changed without params (H7), the
// bridge's requests (H9–H12) and the request _meta (H13).
//
// # Server-to-client requests
//
// [InputRequest] turns a handler's input request into the JSON-RPC request
// of the revision (elicitation/create, sampling/createMessage, roots/list,
// built as mcp20251125 values and zeroed), or reports that the revision
// cannot carry it; [InputResponse] turns the client's answer back into the
// protocol.InputResponse the handler reads.
//
// docs/conversion.md is the user-facing table of the rules.
package legacy

//go:generate go run ../../../gen -legacy
