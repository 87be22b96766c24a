package legacy

import (
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
)

// CodeResourceNotFound is the legacy code for a resource that does not
// exist, -32002 in every legacy revision (resources.mdx, Error Handling).
// 2026-07-28 uses -32602 with data.uri instead and forbids -32002.
const CodeResourceNotFound int64 = -32002

// Error is a JSON-RPC error as this package produces or converts it; the
// server maps it to its own *server.Error.
type Error struct {
	Code    int64
	Message string
	Data    json.RawMessage // valid JSON, or nil
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("mcp error %d: %s", e.Code, e.Message) }

// ProjectError converts an error the handlers or the runtime produced (in
// 2026-07-28 terms) into the one sent to revision r (docs/dual-era.md
// §3.4). resourceNotFound says that e is the server's resource-not-found
// error (-32602 with data {"uri": …}, marked by the server): it becomes
// -32002 "Resource not found" with the same data (H6); a handler's own
// -32602 is never rewritten. -32021 (a missing client capability) is kept
// with its data (H14): no legacy code exists for it, and JSON-RPC leaves
// -32000…-32099 to servers. Every other code is kept as it is.
func ProjectError(e Error, r Rev, resourceNotFound bool) Error {
	if resourceNotFound && e.Code == protocol.CodeInvalidParamsError {
		return Error{Code: CodeResourceNotFound, Message: "Resource not found", Data: e.Data}
	}
	return e
}

// ResourceNotFound returns the legacy -32002 error for uri (H6), as a
// subscription to an unknown URI answers it (docs/dual-era.md §2.4).
func ResourceNotFound(uri string) Error {
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return Error{Code: CodeResourceNotFound, Message: "Resource not found", Data: data}
}

// ExtensionRequired returns the error for calling, in a session, a tool
// that requires a modern extension, such as a task-only tool of the tasks
// extension (H5): -32602, since such a tool is not listed for legacy
// clients.
func ExtensionRequired(tool, extension string) Error {
	return Error{Code: protocol.CodeInvalidParamsError,
		Message: fmt.Sprintf("Tool %s requires the %s extension, which a legacy session does not have", tool, extension)}
}

// AppendError appends the JSON-RPC error response for id (nil when the
// request's id could not be read) as revision r declares it. Data that is
// not valid JSON is left out rather than making the response invalid.
//
// Revisions before 2025-11-25 require the id of an error response; without
// one the response is what JSON-RPC 2.0 prescribes for an unreadable
// request, which those schemas do not describe (the requiredGaps table).
func AppendError(dst []byte, r Rev, id *protocol.RequestId, e Error) ([]byte, error) {
	resp := protocol.JSONRPCErrorResponse{ID: id, Error: protocol.Error{Code: e.Code, Message: e.Message, Data: e.Data}}
	out, err := appendError(dst, r, &resp)
	if err != nil && resp.Error.Data != nil {
		resp.Error.Data = nil
		return appendError(dst, r, &resp)
	}
	return out, err
}

func appendError(dst []byte, r Rev, resp *protocol.JSONRPCErrorResponse) ([]byte, error) {
	z, ok, err := zeroRoot(resp, r)
	if err != nil {
		return dst, err
	}
	if !ok || z.kind != "error" {
		return dst, fmt.Errorf("legacy: no error response in the tables")
	}
	return appendZeroed(dst, z, nil)
}
