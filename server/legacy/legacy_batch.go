package legacy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/httpwire"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
)

// JSON-RPC batches (docs/dual-era.md §2.8) exist in 2025-03-26 only: a
// body (HTTP) or line (stdio) that is a JSON array, in a session of that
// revision. A batch is refused whole, with -32600 and no id, unless it has
// 1 to MaxBatch elements, none is initialize, none carries 2026-07-28
// _meta, and its elements are all requests and notifications or all
// responses. Requests then run concurrently, each through the legacy order
// of checks; their responses come back as one array, in the order of the
// requests. Each request takes a MaxConcurrent slot (streamhttp.Options;
// WithMaxConcurrent on stdio) and is refused in the array with -32029
// over it. Responses go to the input bridge.

// DefaultMaxBatch bounds the messages of one batch (Config.MaxBatch).
const DefaultMaxBatch = 64

// msgBatchRevision is the refusal of a batch outside a 2025-03-26 session.
const msgBatchRevision = "Invalid Request: a batch is served only in a 2025-03-26 session"

// readBatch reads and checks the elements of a batch. responses reports
// that every element is a response; otherwise elements that are not valid
// messages are msgBad elements, answered in the reply.
func (s *Era) readBatch(body []byte) (msgs []rpcMessage, responses bool, e *server.Error) {
	if !utf8.Valid(body) {
		// The whole body is not JSON (RFC 8259 §8.1), as the strict
		// decoder says of a single message: -32700 for the body, not for
		// one element (encoding/json below would let it through).
		return nil, false, &server.Error{Code: protocol.CodeParseError, Message: "Parse error: invalid UTF-8"}
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(body, &elems); err != nil {
		return nil, false, &server.Error{Code: protocol.CodeParseError, Message: "Parse error: invalid JSON"}
	}
	switch max := s.cfg.legacy.MaxBatch; {
	case len(elems) == 0:
		return nil, false, invalidRequest("Invalid Request: an empty batch")
	case len(elems) > max:
		return nil, false, invalidRequest(fmt.Sprintf("Invalid Request: batch of %d messages, more than %d", len(elems), max))
	}
	msgs = make([]rpcMessage, len(elems))
	nReq, nResp := 0, 0
	for i, raw := range elems {
		m := s.readMessage(raw)
		switch {
		case m.kind == msgBatch:
			m = rpcMessage{kind: msgBad, badErr: invalidRequest("Invalid Request: a batch inside a batch")}
		case m.kind == msgBad:
		case m.modern:
			return nil, false, invalidRequest("Invalid Request: a batch element carries 2026-07-28 _meta")
		case m.kind == msgRequest && m.method == mcp20251125.MethodInitialize:
			return nil, false, invalidRequest("Invalid Request: initialize cannot be in a batch")
		case m.kind == msgResponse:
			nResp++
		default:
			nReq++
		}
		msgs[i] = m
	}
	if nReq > 0 && nResp > 0 {
		return nil, false, invalidRequest("Invalid Request: a batch mixes requests and responses")
	}
	return msgs, nResp > 0, nil
}

// batchArray joins response bodies into one JSON array.
func batchArray(bodies [][]byte) []byte {
	n := 2
	for _, b := range bodies {
		n += len(b) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, b := range bodies {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	return append(out, ']')
}

// sessionBatch serves a batch POSTed in a session (S10, §2.8).
func (h *HTTP) sessionBatch(r *http.Request, sse *httpwire.Stream, rec *SessionRecord, body []byte, principal, client string) {
	s := h.s
	refuse := func(e *server.Error) { writeAnswer(sse, withStatus(s.errorOutcome(nil, e), http.StatusBadRequest)) }
	if rev, _ := legacy.ParseRev(rec.ProtocolVersion); rev != legacy.Rev20250326 {
		refuse(invalidRequest(msgBatchRevision))
		return
	}
	if r.Header.Get(server.HeaderMethod) != "" || r.Header.Get(server.HeaderName) != "" {
		refuse(invalidRequest("Invalid Request: " + server.HeaderMethod + " and " + server.HeaderName + " cannot describe a batch"))
		return
	}
	msgs, responses, e := s.readBatch(body)
	if e != nil {
		refuse(e)
		return
	}
	ctx := r.Context()
	if responses {
		all := true
		for i := range msgs {
			m := &msgs[i]
			if m.kind == msgBad {
				all = false
				continue
			}
			if out := s.sessionResponse(ctx, rec, m); out.Status != http.StatusAccepted {
				all = false
			}
		}
		if all {
			writeAnswer(sse, server.Outcome{Notification: true, Status: http.StatusAccepted})
		} else {
			refuse(invalidRequest("Invalid Request: not every response of the batch answers an outstanding request"))
		}
		return
	}
	// Each request of the batch runs in a MaxConcurrent slot, as on stdio:
	// the first in the POST's own, every other in one more, all taken in
	// order before any runs; over the limit a request is refused in the
	// array.
	bodies := make([][]byte, len(msgs))
	run := make([]bool, len(msgs))
	extra := make([]bool, len(msgs))
	first := true
	for i := range msgs {
		m := &msgs[i]
		switch m.kind {
		case msgBad:
			bodies[i] = s.errorOutcome(m.badID, m.badErr).Body
		case msgNotification:
			s.sessionNotification(ctx, rec, m)
		default:
			extra[i] = !first
			first = false
			if extra[i] && !h.enterElement() {
				bodies[i] = s.errorOutcome(m.requestID(), &server.Error{Code: server.CodeRateLimited, Message: "Too many concurrent requests"}).Body
				continue
			}
			run[i] = true
		}
	}
	var wg sync.WaitGroup
	for i := range msgs {
		if !run[i] {
			continue
		}
		m := &msgs[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if extra[i] {
				defer h.leaveElement()
			}
			out := h.runSessionRequest(r, sse, rec, m, principal, client)
			if !out.Cancelled && out.Body != nil {
				bodies[i] = append([]byte(nil), out.Body...)
			}
			s.core.Release(out)
		}()
	}
	wg.Wait()
	writeBatch(sse, bodies)
}

// enterElement takes a MaxConcurrent slot for a request of a batch past
// its first, or reports false over the limit.
func (h *HTTP) enterElement() bool {
	if h.MaxConcurrent < 0 {
		return true
	}
	if h.Inflight.Add(1) > int64(h.MaxConcurrent) {
		h.Inflight.Add(-1)
		return false
	}
	return true
}

// leaveElement gives back the slot of enterElement.
func (h *HTTP) leaveElement() {
	if h.MaxConcurrent >= 0 {
		h.Inflight.Add(-1)
	}
}

// writeBatch writes a batch's responses: one 200 JSON array, or, when an
// element already switched the answer to SSE (a notification, a bridge
// request), each response as its own event. No response at all (only
// notifications, or every request cancelled) is 202.
func writeBatch(sse *httpwire.Stream, bodies [][]byte) {
	var kept [][]byte
	for _, b := range bodies {
		if b != nil {
			kept = append(kept, b)
		}
	}
	sse.Mu.Lock()
	started := sse.Started
	sse.Mu.Unlock()
	switch {
	case started:
		for _, b := range kept {
			sse.Notify(b)
		}
		sse.Finish(server.Outcome{Cancelled: true}) // the stream ends after the last response
	case len(kept) == 0:
		sse.Finish(server.Outcome{Notification: true, Status: http.StatusAccepted})
	default:
		sse.Finish(server.Outcome{Body: batchArray(kept), Status: http.StatusOK})
	}
}

// batch serves a batch line on stdio (§2.8, §5): the notifications in
// the read loop, as single lines are; the requests concurrently, within
// WithMaxConcurrent; their responses as one line holding the array, after
// the last one.
func (c *Stdio) batch(line []byte) {
	s := c.s
	ss := c.sess
	if ss == nil || ss.rev != legacy.Rev20250326 || ss.ended() {
		c.Out.Write(s.errorOutcome(nil, invalidRequest(msgBatchRevision)).Body)
		return
	}
	msgs, responses, e := s.readBatch(line)
	if e != nil {
		c.Out.Write(s.errorOutcome(nil, e).Body)
		return
	}
	if responses {
		for i := range msgs {
			if msgs[i].kind == msgBad {
				ss.badResponse("not a valid response")
				continue
			}
			ss.answer(&msgs[i])
		}
		return
	}
	bodies := make([][]byte, len(msgs))
	var wg sync.WaitGroup
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.kind == msgBad:
			bodies[i] = s.errorOutcome(m.badID, m.badErr).Body
		case m.kind == msgNotification:
			if m.method == mcp20251125.MethodNotificationsCancelled {
				var p mcp20251125.CancelledNotificationParams
				if m.params != nil && s.legacyDecode().Unmarshal(m.params, &p) == nil && p.RequestID != nil {
					c.Cancel(modernID(*p.RequestID))
				}
				continue
			}
			c.sessionNotification(m)
		case c.running(m.id):
			bodies[i] = s.legacyErrorOutcome(ss.rev, m.requestID(), invalidRequest("Invalid Request: request id already in use in this session"), 0).Body
		case m.method == mcp20251125.MethodPing && !s.cfg.middleware:
			bodies[i] = s.emptyResult(m.id).Body // with middleware, serveLegacy's sessionMethod answers it
		case m.method != mcp20251125.MethodPing && !ss.ready():
			bodies[i] = s.legacyErrorOutcome(ss.rev, m.requestID(), invalidRequest(msgNotInitialized), 0).Body
		default:
			wg.Add(1)
			c.Run(m.requestID(), func(o server.Outcome) {
				defer wg.Done()
				if !o.Cancelled && o.Body != nil {
					bodies[i] = append([]byte(nil), o.Body...)
				}
			}, func(ctx context.Context) server.Outcome {
				return s.serveLegacy(ctx, ss, m, &exchange{Exchange: server.Exchange{Notifier: c.Out, Versions: c.Versions}, bridge: ss})
			})
		}
	}
	c.WG.Add(1)
	go func() {
		defer c.WG.Done()
		wg.Wait()
		var kept [][]byte
		for _, b := range bodies {
			if b != nil {
				kept = append(kept, b)
			}
		}
		if len(kept) > 0 {
			c.Out.Write(batchArray(kept))
		}
	}()
}
