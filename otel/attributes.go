package mcpotel

import (
	"net"
	"strconv"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The attribute keys of the semantic conventions for MCP.
const (
	keyMethod          = attribute.Key("mcp.method.name")
	keyProtocolVersion = attribute.Key("mcp.protocol.version")
	keySessionID       = attribute.Key("mcp.session.id")
	keyResourceURI     = attribute.Key("mcp.resource.uri")
	keyRequestID       = attribute.Key("jsonrpc.request.id")
	keyToolName        = attribute.Key("gen_ai.tool.name")
	keyPromptName      = attribute.Key("gen_ai.prompt.name")
	keyOperationName   = attribute.Key("gen_ai.operation.name")
	keyErrorType       = attribute.Key("error.type")
	keyStatusCode      = attribute.Key("rpc.response.status_code")
	keyTransport       = attribute.Key("network.transport")
	keyProtocolName    = attribute.Key("network.protocol.name")
	keyClientAddress   = attribute.Key("client.address")
	keyClientPort      = attribute.Key("client.port")
)

// toolError is error.type of a tool result with isError.
const toolError = "tool_error"

// maxAttrs bounds the attributes of one span: the common ones, the
// span-only ones and the two of an error.
const maxAttrs = 16

// commonAttributes appends the attributes that both the span and the
// duration histogram carry.
func commonAttributes(kv []attribute.KeyValue, r *server.Request) []attribute.KeyValue {
	kv = append(kv, keyMethod.String(r.Method))
	if v := r.ProtocolVersion(); v != "" {
		kv = append(kv, keyProtocolVersion.String(v))
	}
	switch r.Method {
	case protocol.MethodToolsCall:
		kv = append(kv, keyToolName.String(r.Name()), keyOperationName.String("execute_tool"))
	case protocol.MethodPromptsGet:
		kv = append(kv, keyPromptName.String(r.Name()))
	}
	if r.Header() != nil {
		kv = append(kv, keyTransport.String("tcp"), keyProtocolName.String("http"))
	} else {
		kv = append(kv, keyTransport.String("pipe"))
	}
	return kv
}

// spanAttributes appends the attributes of the span alone: the request
// id, the resource URI, the legacy session's id and the client's address.
func spanAttributes(kv []attribute.KeyValue, r *server.Request) []attribute.KeyValue {
	if !r.ID.IsZero() {
		kv = append(kv, keyRequestID.String(r.ID.String()))
	}
	if r.Method == protocol.MethodResourcesRead {
		kv = append(kv, keyResourceURI.String(r.Name()))
	}
	if h := r.Header(); h != nil {
		if id := h.Get("Mcp-Session-Id"); id != "" && r.ProtocolVersion() != protocol.Revision {
			kv = append(kv, keySessionID.String(id))
		}
	}
	if host, port, err := net.SplitHostPort(r.RemoteAddr()); err == nil {
		kv = append(kv, keyClientAddress.String(host))
		if p, err := strconv.Atoi(port); err == nil {
			kv = append(kv, keyClientPort.Int(p))
		}
	}
	return kv
}

// errorAttributes appends error.type and, for a JSON-RPC error,
// rpc.response.status_code.
func errorAttributes(kv []attribute.KeyValue, o outcome) []attribute.KeyValue {
	if o.errorType == "" {
		return kv
	}
	kv = append(kv, keyErrorType.String(o.errorType))
	if o.code != 0 {
		kv = append(kv, keyStatusCode.String(o.errorType))
	}
	return kv
}
