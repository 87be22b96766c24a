// Package appsproto holds strict Go types for the definitions of the MCP
// Apps extension (io.modelcontextprotocol/ui, SEP-1865) and their JSON
// codec, generated from the extension's own pinned schema (the npm package
// @modelcontextprotocol/ext-apps 2.0.4, dist/src/generated/schema.json;
// see ../../../schema, LookupExtension("apps")). [Revision] is the
// extension's specification date, "2026-01-26".
//
// Everything in this package except this file and the tests is generated
// by ../../../gen (gen -ext apps); regenerate with go generate ./... and
// never edit the *_gen.go files by hand.
//
// # What is here
//
// The server-side metadata: [McpUiToolMeta] (a tool's _meta.ui:
// resourceUri and visibility), [McpUiResourceMeta] (a UI resource's
// _meta.ui: csp, permissions, domain, prefersBorder) with
// [McpUiResourceCsp] and [McpUiResourcePermissions], and
// [McpUiClientCapabilities] (what a client declares under
// extensions["io.modelcontextprotocol/ui"]: mimeTypes). And the messages a
// view and its host exchange over postMessage (ui/initialize and its
// result with [McpUiHostContext], ui/notifications/tool-input,
// ui/notifications/tool-result, ui/open-link, ui/message, …), which a Go
// server never sends but a Go host or test can decode.
//
// # Schema rules
//
// The schema is generated from Zod and says four things in forms the
// generator does not map; gen/ext_rules.go rewrites them, each with its
// reason: Record<K, string | undefined> (McpUiStyles) is a map of strings
// with optional keys; the per-definition $defs/__schema0 JSON value is raw
// JSON; z.never() members of closed objects (McpUiToolMeta.csp) are
// dropped, which refuses them all the same; and the inline copies of
// definitions refer to the definition. None of its definitions has a core
// name, so nothing maps onto package protocol; the content blocks that the
// view messages carry are inline copies and are emitted here.
//
// # Mapping and strictness
//
// As in package protocol: required members are values and optional ones
// pointers, undeclared members are kept in Extra (refused where the schema
// closes the object, as McpUiResourceMeta and McpUiToolMeta), const members
// (method) are checked on decode and always written, and a missing
// required member, a duplicate member, a wrong JSON kind or a value outside
// an enum is a [*DecodeError].
//
//go:generate go run ../../../gen -ext apps
package appsproto
