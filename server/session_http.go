package server

import (
	"net/http"

	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// Rows S*, A1, G* and D* of docs/dual-era.md §1.4 and §1.7: the legacy
// session of Streamable HTTP.

// initialize opens a legacy session (A1). Sessions are not stored yet:
// until they are, initialize is refused.
func (h *httpHandler) initialize(w http.ResponseWriter, _ *http.Request, m *rpcMessage, _ string) {
	writeAnswer(w, h.s.errorOutcome(m.requestID(), invalidRequest("legacy sessions are not served yet")))
}

// inSession serves a legacy message that names a session (rows S1–S11).
func (h *httpHandler) inSession(w http.ResponseWriter, _ *http.Request, m *rpcMessage, sids []string, _ string, _ hvKind, _ string) {
	s := h.s
	if m.kind == msgRequest && m.method == mcp20251125.MethodInitialize {
		writeAnswer(w, s.errorOutcome(m.requestID(), invalidRequest(msgInitializeWithSID))) // S1
		return
	}
	if len(sids) > 1 {
		writeAnswer(w, s.errorOutcome(m.requestID(), invalidRequest(msgSessionRepeated))) // S3
		return
	}
	writeAnswer(w, withStatus(s.errorOutcome(m.requestID(), invalidRequest(msgSessionNotFound)), http.StatusNotFound)) // S2
}

// sessionVerb serves a GET or DELETE that names a session (G3–G6, D3–D4).
func (h *httpHandler) sessionVerb(w http.ResponseWriter, _ *http.Request, sids []string, _ string, _ hvKind, _ string) {
	s := h.s
	if len(sids) > 1 {
		writeAnswer(w, s.errorOutcome(nil, invalidRequest(msgSessionRepeated)))
		return
	}
	writeAnswer(w, withStatus(s.errorOutcome(nil, invalidRequest(msgSessionNotFound)), http.StatusNotFound))
}
