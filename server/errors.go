package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpwire/mcpwire/protocol"
)

// Error is a JSON-RPC error that a handler (or the runtime) returns to the
// client as an error response. Use the constructors for the codes the
// protocol defines; Data, when set, must be valid JSON.
type Error struct {
	Code    int64
	Message string
	Data    json.RawMessage

	// notFound marks the runtime's own resource-not-found error
	// (resourceNotFound), which a legacy session gets as -32002 (H6); a
	// handler's own -32602 is never rewritten.
	notFound bool
	// scopes, when set, marks the runtime's insufficient-scope refusal
	// (checkScopes): HTTP 403 with a challenge naming them, in either era.
	scopes []string
	// expired marks the refusal of a long-lived stream opened with an
	// expired token (expiredToken): HTTP 401 invalid_token.
	expired bool
}

// Error implements the error interface.
func (e *Error) Error() string {
	return fmt.Sprintf("mcp error %d: %s", e.Code, e.Message)
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, &server.Error{Code: protocol.CodeInvalidParamsError}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// HTTPStatus is the status a Streamable HTTP response carries for the
// error (R-VER-02, R-HDR-*, R-META-01/03, the method-not-found rule).
func (e *Error) HTTPStatus() int {
	return httpStatus(e.Code)
}

func httpStatus(code int64) int {
	switch code {
	case CodeRateLimited:
		return http.StatusTooManyRequests
	case protocol.CodeMethodNotFoundError:
		return http.StatusNotFound
	case protocol.CodeInternalError:
		return http.StatusInternalServerError
	case protocol.CodeParseError, protocol.CodeInvalidRequestError, protocol.CodeInvalidParamsError,
		protocol.CodeHeaderMismatchError, protocol.CodeMissingRequiredClientCapabilityError,
		protocol.CodeUnsupportedProtocolVersionError:
		return http.StatusBadRequest
	}
	return http.StatusBadRequest
}

func newError(code int64, msg string, data any) *Error {
	e := &Error{Code: code, Message: msg}
	if data != nil {
		switch d := data.(type) {
		case json.RawMessage:
			e.Data = d
		default:
			b, err := json.Marshal(d)
			if err == nil {
				e.Data = b
			}
		}
	}
	return e
}

// InvalidParams returns a -32602 error (unknown tool or prompt, bad
// arguments, a missing resource with data {"uri": ...}).
func InvalidParams(msg string, data any) *Error {
	return newError(protocol.CodeInvalidParamsError, msg, data)
}

// InternalError returns a -32603 error.
func InternalError(msg string) *Error {
	return newError(protocol.CodeInternalError, msg, nil)
}

// MethodNotFound returns a -32601 error.
func MethodNotFound(method string) *Error {
	return newError(protocol.CodeMethodNotFoundError, "Method not found: "+method, nil)
}

// MissingCapability returns the -32021 error for a request that needs
// client capabilities it did not declare (R-META-03): required lists them
// in the ClientCapabilities shape, e.g. {Elicitation: ...}.
func MissingCapability(required protocol.ClientCapabilities) *Error {
	b, err := protocol.Marshal(&required)
	if err != nil {
		b = []byte("{}")
	}
	data := json.RawMessage(`{"requiredCapabilities":` + string(b) + `}`)
	return &Error{Code: protocol.CodeMissingRequiredClientCapabilityError, Message: "Missing required client capability", Data: data}
}

// HeaderMismatch returns the -32020 error of a standard header that does
// not match the body (R-HDR-01..08), with msg.
func HeaderMismatch(msg string) *Error {
	return newError(protocol.CodeHeaderMismatchError, msg, nil)
}

// asError converts any handler error into a JSON-RPC error: an *Error as
// it is, anything else as -32603 with a generic message (the details go to
// the server's log, not to the client).
func asError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// RequiredScopes returns the scopes of an insufficient-scope refusal
// (InsufficientScope), nil for any other error.
func (e *Error) RequiredScopes() []string { return e.scopes }

// ResourceNotFound reports whether e is the server's own "Resource not
// found" (resources/read of a URI that nothing serves, or ErrNotFound from
// its handler), which an era carries in its revision's own code.
func (e *Error) ResourceNotFound() bool { return e.notFound }

// RetryAfter is the Retry-After, in seconds, of a CodeRateLimited error
// (from its data's retryAfterMs, at least 1), 0 for any other.
func (e *Error) RetryAfter() int { return retryAfter(e) }
