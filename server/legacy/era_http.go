package legacy

import (
	"encoding/json"
	"net/http"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/httpwire"
)

// The era decision of Streamable HTTP (docs/dual-era.md §1.4–§1.7), for a
// Server that serves legacy clients (ErasBoth, ErasLegacy). Under
// ErasModern none of this runs: ServeHTTP goes straight to the modern
// pipeline, as it always has.

// allowDual is the Allow header of a 405 when legacy sessions are served:
// GET and DELETE are allowed with a session (§4.5).
const allowDual = "GET, POST, DELETE"

// Messages of the transport-level refusals (§1.4, §1.7).
const (
	msgSessionNotModern  = "Mcp-Session-Id is not used by protocol 2026-07-28"
	msgSessionRequired   = "Mcp-Session-Id header is required: send initialize first (a 2026-07-28 request carries MCP-Protocol-Version and params._meta instead)"
	msgSessionRepeated   = "Mcp-Session-Id is repeated"
	msgSessionNotFound   = "Session not found: start a new session with initialize (without Mcp-Session-Id)"
	msgInitializeWithSID = "initialize must not carry Mcp-Session-Id"
	msgStoreUnavailable  = "Session store unavailable"
)

// serveDual serves a POST when legacy sessions are served: the first
// matching row of §1.4 decides. The modern pipeline runs every check in
// today's order for anything modern; session code never sees a modern
// message, and a modern header never lets a body skip the modern checks.
func (h *HTTP) serveDual(r *http.Request, sse *httpwire.Stream, body []byte, principal, client string) {
	s := h.s
	sids := r.Header[keySessionID]
	hv, hvValue := s.versionHeader(r.Header)
	// M3, the fast path: a modern header and no session id is every
	// conforming 2026-07-28 request; it goes to the modern pipeline with
	// no extra parse.
	if s.cfg.eras == ErasBoth && len(sids) == 0 && hv.modern() {
		h.Modern(r, sse, body, principal, client, modernVersion(hv, hvValue))
		return
	}
	m := s.readMessage(body)
	if m.kind == msgBad && m.badErr.Code == protocol.CodeParseError {
		writeAnswer(sse, s.errorOutcome(nil, m.badErr)) // P1
		return
	}
	if s.cfg.eras == ErasLegacy {
		if hv.modern() || m.kind != msgBad && m.modern {
			writeAnswer(sse, s.errorOutcome(m.echoID(), s.legacyOnly())) // E1
			return
		}
	} else if hv.modern() {
		// M1 (the session id is present: the fast path took the rest).
		writeAnswer(sse, s.errorOutcome(m.echoID(), server.HeaderMismatch(msgSessionNotModern)))
		return
	}
	if m.kind == msgBad {
		writeAnswer(sse, s.errorOutcome(m.badID, m.badErr))
		return
	}
	if m.modern {
		if len(sids) > 0 {
			writeAnswer(sse, s.errorOutcome(m.echoID(), server.HeaderMismatch(msgSessionNotModern))) // M2
			return
		}
		h.Modern(r, sse, body, principal, client, modernVersion(hv, hvValue)) // M4
		return
	}
	if len(sids) == 0 {
		h.withoutSession(r, sse, &m, principal, client)
		return
	}
	h.inSession(r, sse, &m, sids, principal, client, hv, hvValue)
}

// modernVersion is the MCP-Protocol-Version a modern message's checks
// need not read again (server.Exchange.ProtocolVersion): a header that
// is present once and valid; "" for the core to read, and refuse, any
// other.
func modernVersion(hv hvKind, v string) string {
	if hv == hvOther || hv == hvLegacy {
		return v
	}
	return ""
}

// legacyOnly is E1: a modern message under ErasLegacy. It is never a
// 2026-07-28 error code, so that a dual-era client falls back to
// initialize (§1.9).
func (s *Era) legacyOnly() *server.Error {
	return invalidRequest("this endpoint serves MCP " + s.legacySpan() + ": open a session with initialize")
}

// legacySpan names the legacy versions served, "2024-11-05 to 2025-11-25"
// by default.
func (s *Era) legacySpan() string {
	revs := s.cfg.legacyRevs
	if len(revs) == 1 {
		return revs[0].String()
	}
	return revs[len(revs)-1].String() + " to " + revs[0].String()
}

// invalidRequest is a -32600 error with msg.
func invalidRequest(msg string) *server.Error {
	return &server.Error{Code: protocol.CodeInvalidRequestError, Message: msg}
}

// withStatus returns out with another HTTP status.
func withStatus(out server.Outcome, status int) server.Outcome {
	out.Status = status
	return out
}

// writeAnswer writes an answer that is not a stream: a JSON body with
// out.status (Retry-After when set), or 202 for an accepted notification.
func writeAnswer(sse *httpwire.Stream, out server.Outcome) { sse.Finish(out) }

// withoutSession serves a legacy message that carries no Mcp-Session-Id
// (rows A1–A6): only initialize opens a session; ping is answered;
// cancellations and unknown notifications are accepted and ignored.
func (h *HTTP) withoutSession(r *http.Request, sse *httpwire.Stream, m *rpcMessage, principal, client string) {
	s := h.s
	switch m.kind {
	case msgRequest:
		if e := mirroredHeaders(r.Header, m); e != nil {
			writeAnswer(sse, s.errorOutcome(m.requestID(), e)) // S6, for A1–A3
			return
		}
		switch m.method {
		case mcp20251125.MethodInitialize:
			h.initialize(r, sse, m, principal, client) // A1
		case mcp20251125.MethodPing:
			writeAnswer(sse, s.emptyResult(m.id)) // A2
		default:
			msg := msgSessionRequired
			if s.cfg.eras == ErasLegacy {
				msg = "Mcp-Session-Id header is required: send initialize first"
			}
			writeAnswer(sse, s.errorOutcome(m.requestID(), invalidRequest(msg))) // A3
		}
	case msgNotification:
		switch m.method {
		case mcp20251125.MethodNotificationsInitialized, protocol.MethodNotificationsProgress, mcp20251125.MethodNotificationsRootsListChanged:
			writeAnswer(sse, s.errorOutcome(nil, invalidRequest("Mcp-Session-Id header is required: "+m.method+" belongs to a session"))) // A4
		default:
			writeAnswer(sse, server.Outcome{Notification: true, Status: http.StatusAccepted}) // A5
		}
	default:
		writeAnswer(sse, s.errorOutcome(nil, invalidRequest("Mcp-Session-Id header is required: a response or a batch belongs to a session"))) // A6
	}
}

// emptyResult is the answer {} to a ping (A2, T6): exactly {}, no _meta
// (L1125/basic/utilities/ping.mdx#behavior-requirements).
func (s *Era) emptyResult(id protocol.RequestId) server.Outcome {
	out, _ := s.core.EncodeResult(id, func(buf []byte) ([]byte, error) { return append(buf, "{}"...), nil })
	return out
}

// mirroredHeaders is row S6: Mcp-Method and Mcp-Name are not required on
// a legacy request (legacy clients do not send them), but when present
// they must agree with the body, since an intermediary may route on them
// (V26/basic/transports/streamable-http.mdx#server-validation). Mcp-Name is
// compared for the methods whose params name a tool, prompt or resource.
// The refusal is -32600: every transport-level refusal of a legacy
// request uses it (legacy clients know no -32020).
func mirroredHeaders(h http.Header, m *rpcMessage) *server.Error {
	v, ok, e := server.HeaderValue(h, keyMethod, server.HeaderMethod)
	switch {
	case e != nil:
		return invalidRequest(e.Message)
	case ok && v != m.method:
		return invalidRequest(server.HeaderMethod + " header does not match the method")
	}
	member := ""
	switch m.method {
	case protocol.MethodToolsCall, protocol.MethodPromptsGet:
		member = "name"
	case protocol.MethodResourcesRead, mcp20251125.MethodResourcesSubscribe, mcp20251125.MethodResourcesUnsubscribe:
		member = "uri"
	default:
		return nil
	}
	v, ok, e = server.HeaderValue(h, keyName, server.HeaderName)
	switch {
	case e != nil:
		return invalidRequest(e.Message)
	case !ok:
		return nil
	}
	dec, good := server.DecodeHeaderValue(v)
	if name, found := m.paramString(member); !good || !found || dec != name {
		return invalidRequest(server.HeaderName + " header does not match the body")
	}
	return nil
}

// stringMember returns the string value of a top-level member of a JSON
// object; found is false when it is absent or not a string.
func stringMember(obj []byte, name string) (string, bool) {
	sc, ok := objectMembers(obj)
	if !ok {
		return "", false
	}
	for sc.next() {
		if string(sc.key) == name {
			var v string
			if json.Unmarshal(sc.value, &v) != nil {
				return "", false
			}
			return v, true
		}
	}
	return "", false
}

// serveSessionVerb serves GET and DELETE when legacy sessions are served
// (§1.7): they exist only with a session.
func (h *HTTP) serveSessionVerb(w http.ResponseWriter, r *http.Request, principal string) {
	s := h.s
	sse := h.NewStream(w) // not counted in flight: a stream is bounded by the sessions
	sids := r.Header[keySessionID]
	hv, hvValue := s.versionHeader(r.Header)
	if len(sids) == 0 {
		if s.cfg.eras == ErasLegacy {
			writeAnswer(sse, s.errorOutcome(nil, invalidRequest("Mcp-Session-Id header is required"))) // G1', D1'
			return
		}
		w.Header().Set("Allow", allowDual) // G1, D1
		writeAnswer(sse, withStatus(s.errorOutcome(nil, invalidRequest("Method not allowed: "+r.Method+" needs the Mcp-Session-Id of a legacy session (2026-07-28 has no sessions)")), http.StatusMethodNotAllowed))
		return
	}
	if hv.modern() {
		e := server.HeaderMismatch(msgSessionNotModern) // G2, D2
		if s.cfg.eras == ErasLegacy {
			e = s.legacyOnly()
		}
		writeAnswer(sse, s.errorOutcome(nil, e))
		return
	}
	h.sessionVerb(r, sse, sids, principal, hv, hvValue)
}
