package mcpotel

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
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
// duration histogram carry; target is the tool's or prompt's name, or
// other (targetOf).
func commonAttributes(kv []attribute.KeyValue, r *server.Request, target string) []attribute.KeyValue {
	kv = append(kv, keyMethod.String(r.Method))
	if v := r.ProtocolVersion(); v != "" {
		kv = append(kv, keyProtocolVersion.String(v))
	}
	switch r.Method {
	case protocol.MethodToolsCall:
		kv = append(kv, keyToolName.String(target), keyOperationName.String("execute_tool"))
	case protocol.MethodPromptsGet:
		kv = append(kv, keyPromptName.String(target))
	}
	if r.Header() != nil {
		kv = append(kv, keyTransport.String("tcp"), keyProtocolName.String("http"))
	} else {
		kv = append(kv, keyTransport.String("pipe"))
	}
	return kv
}

// spanAttributes appends the attributes of the span alone: the request
// id (bounded), the resource URI (bounded, or other when the server has
// no such resource), the legacy session's key (sessionKey: never its id)
// and the client's address.
func (t *telemetry) spanAttributes(kv []attribute.KeyValue, r *server.Request) []attribute.KeyValue {
	if !r.ID.IsZero() {
		kv = append(kv, keyRequestID.String(bounded(r.ID.String(), t.maxAttrBytes)))
	}
	if r.Method == protocol.MethodResourcesRead {
		if uri := registeredOr(r, t.maxAttrBytes); uri != "" {
			kv = append(kv, keyResourceURI.String(uri))
		}
	}
	if h := r.Header(); h != nil {
		if id := h.Get("Mcp-Session-Id"); id != "" && r.ProtocolVersion() != protocol.Revision {
			kv = append(kv, keySessionID.String(t.sessionKey(id)))
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

// sessionKeyBytes is how much of the HMAC-SHA256 of a session id is
// exported (hex-encoded): 128 bits, enough to tell sessions apart.
const sessionKeyBytes = 16

// sessionKey returns what stands for the session id in the span: the
// first sessionKeyBytes of its HMAC-SHA256 under the middleware's key, in
// hex. It cannot be turned back into the id, nor computed from the id
// without the key.
func (t *telemetry) sessionKey(id string) string {
	m := hmac.New(sha256.New, t.sessionHMACKey)
	m.Write([]byte(id))
	var sum [sha256.Size]byte
	return hex.EncodeToString(m.Sum(sum[:0])[:sessionKeyBytes])
}
