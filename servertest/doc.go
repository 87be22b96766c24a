// Package servertest is an in-process client for testing a
// *server.Server without a network.
//
// A Client sends every request through the server's own HTTP handler
// (streamhttp.Handler), calling its ServeHTTP directly with a
// recorded response: the headers (Content-Type, Accept,
// MCP-Protocol-Version, Mcp-Method, Mcp-Name), the body limits, the
// authentication hook and the JSON or event-stream answer are the ones a
// real client over HTTP meets, but no socket is opened.
//
// Requests are of protocol revision 2026-07-28 (stateless): each carries
// the _meta members io.modelcontextprotocol/protocolVersion, clientInfo
// and clientCapabilities. A JSON-RPC error comes back as an *Error with
// the HTTP status. A tools/call, prompts/get or resources/read answered
// with an input_required result is retried with the answers of the
// OnElicit, OnSample and OnRoots callbacks until a final result.
//
// Options given to New apply to every call; options given to a call
// apply to it alone, after the Client's.
package servertest
