// Package apps is the MCP Apps extension (io.modelcontextprotocol/ui,
// SEP-1865) for package server, written on the server's public extension
// API (server.Extension) alone.
//
// Under the extension a server ships an HTML view as a UI resource (a
// ui:// URI, MIME type text/html;profile=mcp-app) and links tools to it
// (_meta.ui.resourceUri); a host that renders MCP Apps (a client that
// declares the extension with that MIME type) shows the view in a
// sandboxed iframe, with the resource's Content Security Policy, and
// hands it the tool's input and result; the view may call the server's
// tools through the host.
//
//	ui := apps.New()
//	s, err := server.New(impl, ui.Option())
//	...
//	err = ui.AddResource(apps.Resource{URI: "ui://clock/view.html", Name: "Clock", HTML: apps.StaticHTML(page)})
//	err = ui.AddTool(protocol.Tool{Name: "get-time", InputSchema: ...}, handler, apps.ToolUI{ResourceURI: "ui://clock/view.html"})
//
// # Checked at registration
//
// AddResource refuses a URI that is not ui://server[/path] (a user, a
// query, a fragment, white space, a control or format character of
// Unicode, < > " ' are refused too), and a _meta.ui
// (appsproto.McpUiResourceMeta: csp, permissions, domain, prefersBorder)
// that the extension's schema refuses, whose CSP domains are not origins
// (scheme://host[:port]: no path, not even "/"; a wildcard only over two
// labels or more, *.example.com; an IPv4 address in dotted-decimal form,
// not 0.0.0.0; no IPv6 literal, which a CSP source cannot hold), or whose
// domain is not a host name or an https origin of one (no IP address,
// no wildcard; its exact form is the host's to say). AddTool (and Link)
// refuse a tool whose resourceUri names no UI resource registered with
// AddResource, or whose visibility is invalid.
// Each error names the member and the reason. (A resource removed with
// server.RemoveResource afterwards is not tracked: remove its tools too.)
//
// # Clients with and without the extension
//
// The extension is used only with a client that declares it (R-VER-04),
// and the rule is Supported's: a valid declaration whose mimeTypes hold
// MIMEType. A tools/list from any other client (no declaration, an empty
// one, another MIME type, an invalid one) gets the tools without
// _meta.ui and _meta["ui/resourceUri"], plain tools, and not the tools
// whose visibility is the app's alone (VisibleToApp without
// VisibleToModel: no view of that client can call them); its tools/call
// of such a tool gets the error of an unknown tool (-32602 "Unknown tool:
// <name>"), so that calling agrees with listing (the schema's "app: Tool
// callable by the app from this server only"). A tool is known as
// app-only from its registration with the extension (AddTool, Link); a
// failed AddTool leaves the mark as it was. Two cases are not tracked:
// a tool registered again under the same name without Link (server.AddTool
// with server.Replace) keeps the mark, and so does a registration with
// Link that fails after the extension checked it: register such a tool
// again with AddTool or Link. A handler that asks Supported(r) answers such a client with text
// alone. For a client that renders MCP Apps, visibility is its host's to
// apply. Since a tools/list result then depends on the request's
// capabilities, do not give tools/list a public cache hint
// (server.WithCacheHint).
//
// Both eras: a 2026-07-28 request declares the extension in its _meta's
// clientCapabilities.extensions; a 2025-11-25 session in its initialize's
// capabilities.extensions, where the TypeScript SDK 2.x clients (the
// ext-apps host package among them) send it although the 2025-11-25
// schema has no such member, and the initialize result advertises the
// extension there too (legacy.ServeExtension, which Apps calls). Sessions
// of older revisions neither declare nor see it.
//
// # Wire types
//
// The metadata and the view↔host messages are the types of package
// appsproto, generated from the extension's pinned schema
// (schema/ext-apps/pin.txt: the npm package @modelcontextprotocol/ext-apps
// 2.0.4). _meta.ui values are encoded with it and decoded back strictly
// before they are registered, so what a host receives is what the schema
// accepts.
package apps
