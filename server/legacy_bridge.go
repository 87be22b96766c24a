package server

import (
	"fmt"
	"slices"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
)

// The input bridge (docs/dual-era.md §6) serves Request.AskInput in a
// legacy session with real server-to-client requests. Until it exists,
// AskInput in a session refuses with -32603 before anything is sent, as
// for an input request the session's revision cannot carry (H12), so that
// a handler can fall back, or return the error as it is.
//
// TODO(step 7): the bridge. legacyAskInput is the hook: it keeps the
// checks it runs now (capabilities -32021 first, in AskInput;
// expressibility -32603 here, H12) and then, instead of refusing, sends
// the requests (legacy.InputRequest builds them), waits for the answers
// (InputTimeout, cancellation, MaxOutstandingRequests), and calls the
// handler again with InputResponse/State; legacyRun's input_required case
// becomes the same round for an InputRequired built by hand.

// msgNoBridge is the refusal of an input_required outcome in a session.
const msgNoBridge = "Internal error: input requests cannot be sent in a legacy session yet"

// legacyAskInput is AskInput in a legacy session, once the client's
// capabilities were checked: an input request the session's revision
// cannot carry is the H12 error naming it; any other is refused until the
// bridge exists.
func (r *Request) legacyAskInput(requests map[string]protocol.InputRequest) error {
	keys := make([]string, 0, len(requests))
	for k := range requests {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, _, e := legacy.InputRequest(r.legacy.rev, protocol.StringRequestId("mcpwire-check"), k, requests[k]); e != nil {
			return &Error{Code: e.Code, Message: e.Message, Data: e.Data}
		}
	}
	if len(keys) == 0 {
		return InternalError("Internal error: multi round-trip state cannot be carried in a legacy session yet")
	}
	return InternalError(fmt.Sprintf("Internal error: input request %s cannot be sent: input requests cannot be sent in a legacy session yet", keys[0]))
}
