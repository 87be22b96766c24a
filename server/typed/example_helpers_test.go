package typed_test

import (
	"encoding/json"

	"github.com/mcpwire/mcpwire/protocol"
)

// request builds a JSON-RPC request with the per-request _meta that every
// 2026-07-28 request carries.
func request(id int, method string, params map[string]any, caps map[string]any) string {
	if params == nil {
		params = map[string]any{}
	}
	if caps == nil {
		caps = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    protocol.Revision,
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return string(b)
}
