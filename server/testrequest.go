package server

import (
	"context"
	"log/slog"

	"github.com/mcpwire/mcpwire/protocol"
)

// TestRequestOptions is what NewTestRequest puts into a Request.
type TestRequestOptions struct {
	// Method is the JSON-RPC method; "" is tools/call.
	Method string
	// ID is the request's JSON-RPC id; zero is the integer id 1.
	ID protocol.RequestId
	// Meta is the request's _meta: client capabilities
	// (Meta.ClientCapabilities), protocol version, client info, log level,
	// progress token and any other keys in Meta.Extra.
	Meta protocol.RequestMetaObject
	// Principal is whom the request speaks for (Request.Principal).
	Principal string
	// InputResponses are the client's answers to an earlier
	// input_required result, read by Request.InputResponse.
	InputResponses protocol.InputResponses
	// State is the handler's state from its earlier input_required
	// result, as Request.State returns it once the runtime has opened
	// it: a test gives the bytes the handler passed to AskInput.
	State []byte
	// MaxInputRequests is AskInput's limit on input requests; 0 is
	// DefaultMaxInputRequests, a negative value no limit.
	MaxInputRequests int
	// Logger receives what the handler logs through Request.Logger (no
	// notification is sent from a test request); nil is slog.Default().
	Logger *slog.Logger
}

// NewTestRequest returns a Request for calling a handler directly in a
// unit test, without a server or a transport: for instance the second
// round of a multi round-trip handler, with the input responses and the
// state the first round asked for. The handler sees them through
// InputResponse, State, ClientCapabilities, Principal and Meta exactly as
// on a real retry; AskInput checks the capabilities in
// opts.Meta.ClientCapabilities and returns its *InputRequired (or the
// -32021 *Error), which the test inspects.
//
// Nothing is sent from such a request: Log, Progress and
// DisconnectForPolling report false. RequestFrom finds it only in the
// context returned by ContextWithRequest.
func NewTestRequest(opts TestRequestOptions) *Request {
	if opts.Method == "" {
		opts.Method = protocol.MethodToolsCall
	}
	if opts.ID.IsZero() {
		opts.ID = protocol.IntRequestId(1)
	}
	maxInputs := opts.MaxInputRequests
	switch {
	case maxInputs == 0:
		maxInputs = DefaultMaxInputRequests
	case maxInputs < 0:
		maxInputs = 0
	}
	return &Request{
		Method:         opts.Method,
		ID:             opts.ID,
		Meta:           opts.Meta,
		Principal:      opts.Principal,
		inputResponses: opts.InputResponses,
		state:          opts.State,
		maxInputs:      maxInputs,
		log:            opts.Logger,
	}
}

// ContextWithRequest returns parent carrying r, so that RequestFrom finds
// r in it: a test calling a handler directly with a NewTestRequest passes
// it as the handler's context.
func ContextWithRequest(parent context.Context, r *Request) context.Context {
	return context.WithValue(parent, ctxKey{}, r)
}
