package legacy

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/jsonline"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
)

// The input bridge (docs/dual-era.md §6) serves Request.AskInput in a
// legacy session with real server-to-client requests: a handler returns
// req.AskInput(requests, state) as for a modern client; the runtime sends
// each input request to the client (elicitation/create,
// sampling/createMessage, roots/list, with ids mcpwire-<22 base64url>),
// waits for the answers, and calls the handler again with InputResponse,
// InputError and State set. Each transport supplies an inputChannel:
// stdout and the read loop for stdio (stdio_bridge.go), the POST's SSE
// stream and the SessionStore for HTTP.

// Defaults of Config's bridge limits (docs/dual-era.md §8).
const (
	DefaultInputTimeout           = 5 * time.Minute
	DefaultMaxOutstandingRequests = 32
	DefaultMaxInputRounds         = 8
	DefaultMaxBadResponses        = 32
	DefaultPollInterval           = time.Second
	DefaultMaxAnswerBytes         = 4 << 20
)

// tombstoneTTL is how long an answered or abandoned server-to-client
// request stays known past its deadline, so that a repeated or late answer
// is dropped quietly instead of counted as bad (§6.4).
const tombstoneTTL = time.Minute

// States of a server-to-client request (PendingRequest.State).
const (
	pendingState   = "pending"
	answeredState  = "answered"
	abandonedState = "abandoned"
)

// Errors of an inputChannel.
var (
	// errTooManyOutstanding: registering a round would exceed
	// MaxOutstandingRequests.
	errTooManyOutstanding = errors.New("legacy: too many outstanding input requests")
	// errDuplicateInputID: a minted id is registered already.
	errDuplicateInputID = errors.New("legacy: input request id in use")
	// errInputTimeout: the round's deadline passed.
	errInputTimeout = errors.New("legacy: timed out waiting for the client's input")
	// errShuttingDown: Shutdown began while the round waited.
	errShuttingDown = errors.New("legacy: shutting down")
	// errSessionEnded: the session ended while the round waited (DELETE,
	// eviction, a bad-response flood, end of input): nothing more is sent.
	errSessionEnded = errors.New("legacy: the legacy session ended")
)

// msgNoBridge is the refusal of input in a legacy session whose transport
// has no bridge.
const msgNoBridge = "Internal error: input requests cannot be sent in a legacy session on this transport"

// bridgeRequest is one server-to-client request of a round.
type bridgeRequest struct {
	id, method, key string
	deadline        time.Time
}

// inputChannel is a transport's side of the input bridge, for one legacy
// request.
type inputChannel interface {
	// register records the round's requests as pending in the session, all
	// or none: errTooManyOutstanding over MaxOutstandingRequests,
	// errDuplicateInputID for an id in use.
	register(ctx context.Context, reqs []bridgeRequest) error
	// send writes one server message (a request, or a cancellation of one)
	// on the request's stream.
	send(msg []byte) bool
	// wait returns the answers (the client's response messages, by id)
	// once every id has one; errInputTimeout at deadline, errSessionEnded
	// when the session ends, errShuttingDown once Shutdown began, ctx's
	// error when the request is cancelled.
	wait(ctx context.Context, ids []string, deadline time.Time) (map[string][]byte, error)
	// abandon marks the ids still pending abandoned, and returns them.
	abandon(ctx context.Context, ids []string) []string
}

// bridged is what the handler sees on its next call, and what the client
// refused so far in this call.
type bridged struct {
	responses protocol.InputResponses
	errors    map[string]*server.Error
	state     []byte
	refused   map[string]*server.Error
}

// checkLegacyInput checks, for AskInput in a legacy session once the
// client's capabilities were checked, that the session's revision can
// carry every input request (H12: -32603 naming it) and that the
// transport has a bridge.
func checkLegacyInput(rev legacy.Rev, bridge inputChannel, requests map[string]protocol.InputRequest) error {
	for _, k := range slices.Sorted(maps.Keys(requests)) {
		if _, _, e := legacy.InputRequest(rev, protocol.StringRequestId("mcpwire-check"), k, requests[k]); e != nil {
			return &server.Error{Code: e.Code, Message: e.Message, Data: e.Data}
		}
	}
	if bridge == nil {
		return server.InternalError(msgNoBridge)
	}
	return nil
}

// newInputID mints the id of a server-to-client request: mcpwire- and 22
// base64url characters of 16 random bytes.
func newInputID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("legacy: input request id: %w", err)
	}
	return "mcpwire-" + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// bridgeRound serves one round of input (§6.3) and fills next for the
// handler's next call. done reports that the call is over with out.
func (s *Era) bridgeRound(ctx context.Context, rev legacy.Rev, id protocol.RequestId, ch inputChannel, round *server.InputRequired, n int, next *bridged) (out server.Outcome, done bool) {
	fail := func(e *server.Error) (server.Outcome, bool) {
		return s.legacyErrorOutcome(rev, &id, e, http.StatusOK), true
	}
	l := &s.cfg.legacy
	if n > l.MaxInputRounds {
		return fail(server.InternalError("Internal error: too many input rounds"))
	}
	if ch == nil {
		return fail(server.InternalError(msgNoBridge))
	}
	keys := slices.Sorted(maps.Keys(round.Requests))
	for _, k := range keys {
		if e := next.refused[k]; e != nil {
			// No re-prompting a user who declined.
			return fail(server.InternalError("Internal error: the client refused input request " + k + ": " + e.Message))
		}
	}
	next.responses, next.errors, next.state = nil, nil, round.State
	if len(keys) == 0 {
		return server.Outcome{}, false // state only: called again at once
	}
	deadline := time.Now().Add(l.InputTimeout)
	reqs := make([]bridgeRequest, len(keys))
	bodies := make([][]byte, len(keys))
	var err error
	for try := 0; try < 3; try++ {
		for i, k := range keys {
			rid, err := newInputID()
			if err != nil {
				return fail(server.InternalError("Internal error"))
			}
			method, body, e := legacy.InputRequest(rev, protocol.StringRequestId(rid), k, round.Requests[k])
			if e != nil {
				return fail(&server.Error{Code: e.Code, Message: e.Message, Data: e.Data})
			}
			reqs[i], bodies[i] = bridgeRequest{id: rid, method: method, key: k, deadline: deadline}, body
		}
		if err = ch.register(ctx, reqs); !errors.Is(err, errDuplicateInputID) {
			break
		}
	}
	switch {
	case err == nil:
	case errors.Is(err, errTooManyOutstanding):
		return fail(server.InternalError(fmt.Sprintf("Internal error: too many outstanding input requests in this session (at most %d)", l.MaxOutstandingRequests)))
	case ctx.Err() != nil, errors.Is(err, errSessionEnded):
		return server.Outcome{Cancelled: true, Status: 499}, true
	default:
		s.log.Error("registering input requests", "err", err) // the session store failed
		out := s.legacyErrorOutcome(rev, &id, server.InternalError(msgStoreUnavailable), http.StatusServiceUnavailable)
		out.RetryAfter = 1
		return out, true
	}
	ids := make([]string, len(reqs))
	for i, q := range reqs {
		ids[i] = q.id
		ch.send(bodies[i])
	}
	answers, err := ch.wait(ctx, ids, deadline)
	if err != nil {
		left := ch.abandon(context.WithoutCancel(ctx), ids)
		if !errors.Is(err, errSessionEnded) {
			reason := "request cancelled"
			switch {
			case errors.Is(err, errInputTimeout):
				reason = "timed out"
			case errors.Is(err, errShuttingDown):
				reason = "server shutting down"
			}
			for _, rid := range left {
				ch.send(cancelledNotification(rid, reason))
			}
		}
		switch {
		case errors.Is(err, errInputTimeout):
			return fail(server.InternalError("Internal error: timed out waiting for the client's input"))
		case errors.Is(err, errShuttingDown):
			return fail(server.InternalError("Internal error: the server is shutting down"))
		}
		return server.Outcome{Cancelled: true, Status: 499}, true
	}
	for _, q := range reqs {
		resp, e := s.bridgeAnswer(ctx, q.method, round.Requests[q.key], answers[q.id])
		if e != nil {
			if next.errors == nil {
				next.errors = map[string]*server.Error{}
			}
			if next.refused == nil {
				next.refused = map[string]*server.Error{}
			}
			next.errors[q.key], next.refused[q.key] = e, e
			continue
		}
		if next.responses == nil {
			next.responses = protocol.InputResponses{}
		}
		next.responses[q.key] = resp
	}
	return server.Outcome{}, false
}

// cancelledNotification is the bridge's notifications/cancelled for its
// own request id (§2.6, server → client); every revision has it alike.
func cancelledNotification(id, reason string) []byte {
	b := append([]byte(nil), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	b = jsonline.AppendString(b, id)
	b = append(b, `,"reason":`...)
	b = jsonline.AppendString(b, reason)
	return append(b, "}}"...)
}

// bridgeAnswer converts the client's response message to one input
// request (§3.6, §6.3 item 6): an error response is the client's error as
// sent; a result is decoded strictly as its method's 2025-11-25 result and,
// for an accepted form elicitation, its content is validated against the
// requestedSchema (R-ELIC-11); a failure of either is -32602.
func (s *Era) bridgeAnswer(ctx context.Context, method string, req protocol.InputRequest, payload []byte) (protocol.InputResponse, *server.Error) {
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(payload, &env); err != nil {
		return protocol.InputResponse{}, server.InvalidParams("Invalid params: the answer is not a JSON-RPC response", nil)
	}
	if env.Error != nil {
		e := &server.Error{Code: env.Error.Code, Message: env.Error.Message}
		if len(env.Error.Data) > 0 {
			e.Data = env.Error.Data
		}
		return protocol.InputResponse{}, e
	}
	resp, le := legacy.InputResponse(method, env.Result)
	if le != nil {
		return protocol.InputResponse{}, &server.Error{Code: le.Code, Message: le.Message, Data: le.Data}
	}
	er, ok := resp.Value.(*protocol.ElicitResult)
	if !ok || er.Action != protocol.ElicitResultActionAccept {
		return resp, nil
	}
	q, _ := req.Value.(*protocol.ElicitRequest)
	if q == nil {
		return resp, nil
	}
	form, ok := q.Params.Value.(*protocol.ElicitRequestFormParams)
	if !ok {
		return resp, nil
	}
	if e := s.core.CheckFormContent(ctx, "content", form, env.Result); e != nil {
		return protocol.InputResponse{}, e
	}
	return resp, nil
}
