package mcpotel

import (
	"errors"
	"strconv"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// outcome is how a request ended, as the convention records it.
type outcome struct {
	errorType   string // "" on success; the code as a string, or toolError
	code        int64  // the JSON-RPC error code, 0 when none
	description string // the span status's description
}

// outcomeOf classifies what the handler returned: a JSON-RPC error (an
// *server.Error's code, -32603 for any other error, which is what the
// client gets), a tool result with isError, or success.
func outcomeOf(res server.Result, err error) outcome {
	if err != nil {
		var e *server.Error
		if errors.As(err, &e) {
			return outcome{errorType: codeString(e.Code), code: e.Code, description: e.Message}
		}
		return internalError(err.Error())
	}
	if v, ok := res.(*protocol.CallToolResult); ok && v.IsError != nil && *v.IsError {
		return outcome{errorType: toolError}
	}
	return outcome{}
}

// internalError is the outcome of a request the client gets -32603 for: a
// plain error, or a panic.
func internalError(description string) outcome {
	return outcome{errorType: codeString(protocol.CodeInternalError), code: protocol.CodeInternalError, description: description}
}

// codeString formats a JSON-RPC code, the frequent ones without an
// allocation.
func codeString(code int64) string {
	switch code {
	case protocol.CodeInvalidParamsError:
		return "-32602"
	case protocol.CodeInternalError:
		return "-32603"
	case protocol.CodeMethodNotFoundError:
		return "-32601"
	case protocol.CodeInvalidRequestError:
		return "-32600"
	}
	return strconv.FormatInt(code, 10)
}
