package server

import (
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// The era decision of stdio (docs/dual-era.md §1.8), for a Server that
// serves legacy clients: stdio has no headers, so only the shape of a line,
// its params._meta (bm) and its method decide. Under ErasModern none of
// this runs.

// dualLine serves one line when legacy clients are served (rows T1–T13).
// Lines come from readLine, which allocates each one: the message may keep
// slices of it.
func (c *stdioConn) dualLine(line []byte) {
	s := c.s
	m := s.readMessage(line)
	switch {
	case m.kind == msgBad:
		c.out.write(s.errorOutcome(m.badID, m.badErr).body) // T1, and messages that are not JSON-RPC
	case m.kind == msgBatch:
		// T12: batches exist in 2025-03-26 sessions only.
		// TODO(step 9): serve them there (docs/dual-era.md §2.8).
		c.out.write(s.errorOutcome(nil, invalidRequest("Invalid Request: a batch is served only in a 2025-03-26 session")).body)
	case m.modern:
		if s.cfg.eras == ErasLegacy {
			if m.kind == msgRequest {
				c.out.write(s.errorOutcome(m.requestID(), c.notServedModern(&m)).body) // T13, T7'
			}
			return // a modern notification: nothing to do
		}
		c.spawn(line, m.requestID(), s.process) // T2: stateless, whatever the session
	case m.kind == msgRequest:
		c.legacyRequest(line, &m)
	case m.kind == msgResponse:
		// T10: no session, so no request of the server is outstanding.
		c.out.write(s.errorOutcome(nil, invalidRequest("Invalid Request: a client sends requests and notifications only")).body)
	default:
		// T11': a notification outside a session is ignored
		// (notifications/cancelled was handled by line).
	}
}

// notServedModern is the refusal of a 2026-07-28 request under ErasLegacy
// (T13, T7'): never a 2026-07-28 code (§1.9); server/discover is -32601,
// which a dual-era client reads as "fall back to initialize".
func (c *stdioConn) notServedModern(m *rpcMessage) *Error {
	if m.method == protocol.MethodServerDiscover {
		return MethodNotFound(m.method)
	}
	return invalidRequest("Invalid Request: send initialize first (this server serves MCP " + c.s.legacySpan() + ")")
}

// legacyRequest serves a request without modern _meta (T4–T8).
func (c *stdioConn) legacyRequest(_ []byte, m *rpcMessage) {
	s := c.s
	switch m.method {
	case mcp20251125.MethodPing:
		c.out.write(s.emptyResult(m.id).body) // T6
	case mcp20251125.MethodInitialize:
		c.out.write(s.errorOutcome(m.requestID(), invalidRequest("legacy sessions are not served yet")).body) // T4
	default:
		if s.cfg.eras == ErasLegacy {
			c.out.write(s.errorOutcome(m.requestID(), c.notServedModern(m)).body) // T7'
			return
		}
		// T7: not a valid modern request, and no session.
		c.out.write(s.errorOutcome(m.requestID(), InvalidParams("Invalid params: params._meta with protocolVersion and clientCapabilities is required (or send initialize first)", nil)).body)
	}
}

// end ends the stdio connection's legacy session, if any.
func (c *stdioConn) end() {}
