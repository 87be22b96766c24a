package legacy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/validate"
)

// Eras says which protocol eras a Server serves: 2026-07-28, whose
// requests each carry their version and capabilities in params._meta
// (modern), and the revisions 2024-11-05 to 2025-11-25, whose clients open
// a session with initialize (legacy). The era is chosen per message
// (docs/dual-era.md §1); the package documentation ("Dual era") gives the
// rules.
type Eras int

// The eras an endpoint can serve (Config.Eras).
const (
	// ErasBoth serves 2026-07-28 requests statelessly and legacy clients
	// in sessions, on the same endpoint and the same stdio stream. It is
	// the default.
	ErasBoth Eras = iota
	// ErasModern serves 2026-07-28 only: initialize is -32601, GET and
	// DELETE are 405, Mcp-Session-Id is ignored.
	ErasModern
	// ErasLegacy serves 2024-11-05 to 2025-11-25 only: every 2026-07-28
	// request is refused with -32600 (never a 2026-07-28 error code, so
	// that a dual-era client falls back to initialize).
	ErasLegacy
)

// String returns "both", "modern" or "legacy".
func (e Eras) String() string {
	switch e {
	case ErasBoth:
		return "both"
	case ErasModern:
		return "modern"
	case ErasLegacy:
		return "legacy"
	}
	return fmt.Sprintf("Eras(%d)", int(e))
}

// dual reports whether legacy clients are served at all.
func (s *Era) dual() bool { return s.cfg.eras != ErasModern }

// versionLists fills in the two version lists of c, which must never be
// mixed (docs/dual-era.md §1.1): modernVersions, the versions a request's
// _meta may name (step 5 of the modern order), and advertised, what
// server/discover and the data.supported of -32022 (and of the -32601 of
// a refused initialize) list.
func (c *config) versionLists() {
	switch c.eras {
	case ErasLegacy:
		c.modernVersions, c.advertised = nil, nil
	case ErasBoth:
		c.modernVersions = []string{protocol.Revision}
		c.advertised = []string{protocol.Revision}
		for _, r := range c.legacyRevs {
			c.advertised = append(c.advertised, r.String())
		}
	default:
		c.modernVersions = []string{protocol.Revision}
		c.advertised = c.modernVersions
	}
}

// hvKind classifies the MCP-Protocol-Version header (§1.2).
type hvKind uint8

const (
	hvAbsent  hvKind = iota // no header
	hvLegacy                // one legacy version this server serves
	hvOther                 // any other single value: 2026-07-28, v999, a legacy version narrowed out
	hvInvalid               // repeated, or a character outside visible ASCII, SP, HTAB
)

// versionHeader classifies the MCP-Protocol-Version header; v is its
// trimmed value.
func (s *Era) versionHeader(h http.Header) (hvKind, string) {
	v, ok, e := server.HeaderValue(h, keyProtocolVersion, server.HeaderProtocolVersion)
	switch {
	case e != nil:
		return hvInvalid, ""
	case !ok:
		return hvAbsent, ""
	case v == protocol.Revision:
		return hvOther, v // never a legacy revision (legacyDefaults): every modern request, at once
	}
	for _, r := range s.cfg.legacyRevs {
		if r.String() == v {
			return hvLegacy, v
		}
	}
	return hvOther, v
}

// modern reports whether the header alone makes a message modern.
func (k hvKind) modern() bool { return k == hvOther || k == hvInvalid }

// msgKind is the shape of one message body (§1.2).
type msgKind uint8

const (
	msgBad          msgKind = iota // not a JSON-RPC message the server accepts: message.bad is the answer
	msgBatch                       // a JSON array
	msgRequest                     // id and method
	msgNotification                // method, no id
	msgResponse                    // id and result or error
)

// rpcMessage is one body (HTTP) or line (stdio) read for classification:
// its shape, and what the rules of docs/dual-era.md §1 read from it. It is
// decoded once, strictly, by the same decoder as the modern pipeline; a
// legacy message's params are decoded again, by their method's type, in
// the legacy order of checks.
type rpcMessage struct {
	kind   msgKind
	id     protocol.RequestId // msgRequest; msgResponse when hasID
	hasID  bool
	method string          // msgRequest, msgNotification
	params json.RawMessage // msgRequest, msgNotification; nil when absent or when call is set
	// call is the params of a tools/call decoded with its envelope, in
	// one pass (readCall): the L5 decode of legacyPrepare, done already.
	// params is then nil; nothing else reads a tools/call's params.
	call *mcp20251125.CallToolRequestParams
	// modern is bm: params._meta names the protocol version or the client
	// capabilities of 2026-07-28.
	modern bool
	// rpcErr is an error response's error (msgResponse).
	rpcErr *server.Error
	// raw is the whole message of a msgResponse (the input bridge keeps
	// it as the answer) or a msgBatch; badResponse marks one that carries both result
	// and error (§6.4: not a valid response).
	raw         []byte
	badResponse bool
	// badErr is the answer to a msgBad body: -32700 for invalid JSON (P1),
	// -32600 for anything else, with badID when an id can be read.
	badErr *server.Error
	badID  *protocol.RequestId
}

// readMessage reads the signals of one body (shape, id, method, params,
// bm). It never runs anything.
//
// The envelope is decoded strictly by package mcp20251125: its JSON-RPC
// requests and notifications are those of 2026-07-28 member for member,
// and its responses are what a legacy client sends (results without
// resultType, which package protocol requires).
func (s *Era) readMessage(body []byte) rpcMessage {
	if m, ok := s.readCall(body); ok {
		return m
	}
	return s.readAny(body)
}

// readAny is readMessage for any body: the path readCall takes for the
// good tools/call.
func (s *Era) readAny(body []byte) rpcMessage {
	if b := bytes.TrimLeft(body, " \t\r\n"); len(b) > 0 && b[0] == '[' {
		if !json.Valid(body) {
			return rpcMessage{kind: msgBad, badErr: &server.Error{Code: protocol.CodeParseError, Message: "Parse error: invalid JSON"}}
		}
		return rpcMessage{kind: msgBatch, raw: body}
	}
	// A request, the common case, is decoded as one directly: a body that
	// decodes strictly as a JSONRPCRequest and carries no response member
	// is what the union below classifies as a request, without its probe
	// of the members. Anything else, including every error, takes the
	// union, so that its answers are the union's.
	var req mcp20251125.JSONRPCRequest
	if err := s.legacyDecode().Unmarshal(body, &req); err == nil && !legacyResponseMembers(req.Extra) {
		m := rpcMessage{kind: msgRequest, id: modernID(req.ID), hasID: true, method: req.Method, params: req.Params}
		return m.withMeta()
	}
	var msg mcp20251125.JSONRPCMessage
	if err := s.legacyDecode().Unmarshal(body, &msg); err != nil {
		id, e := s.legacyMalformed(body, err)
		return rpcMessage{kind: msgBad, badID: id, badErr: e}
	}
	var m rpcMessage
	switch v := msg.Value.(type) {
	case *mcp20251125.JSONRPCRequest:
		m = rpcMessage{kind: msgRequest, id: modernID(v.ID), hasID: true, method: v.Method, params: v.Params}
		if legacyResponseMembers(v.Extra) {
			return rpcMessage{kind: msgBad, badID: m.requestID(), badErr: &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Invalid Request: a request cannot carry result or error"}}
		}
	case *mcp20251125.JSONRPCNotification:
		m = rpcMessage{kind: msgNotification, method: v.Method, params: v.Params}
	case *mcp20251125.JSONRPCResultResponse:
		return rpcMessage{kind: msgResponse, id: modernID(v.ID), hasID: true, raw: body, badResponse: legacyResponseMembers(v.Extra)}
	case *mcp20251125.JSONRPCErrorResponse:
		m = rpcMessage{kind: msgResponse, rpcErr: &server.Error{Code: v.Error.Code, Message: v.Error.Message, Data: v.Error.Data}, raw: body, badResponse: legacyResponseMembers(v.Extra)}
		if v.ID != nil {
			m.id, m.hasID = modernID(*v.ID), true
		}
		return m
	default:
		return rpcMessage{kind: msgBad, badID: s.core.MessageID(body), badErr: &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Invalid Request: not a JSON-RPC message"}}
	}
	return m.withMeta()
}

// readCall is readMessage for a tools/call, the common request of a
// session, decoded once: envelope and params together, by the generated
// CallToolRequest decoder. ok is false for anything else, and for every
// body that decoder refuses (or that carries a response member), which
// readAny then reads, so that every answer but a good tools/call's is
// readAny's.
//
// A body it accepts is one that readAny reads as a request whose
// params decode (L5) as the same CallToolRequestParams: the two decoders
// are the same generated code, each member of the body is read once by
// either (so MaxMembers and MaxDepth count alike), and the typed params
// decoder is at least as strict as the envelope's validation of params.
// The strict decode also leaves probeMeta nothing to find at the top of
// params (a case variant of "_meta" is refused, a duplicate too): only
// _meta's undeclared members, in order, are looked at (callMeta).
// TestReadCallDifferential checks the equivalence.
func (s *Era) readCall(body []byte) (rpcMessage, bool) {
	// A hint only: a body without the method's string unescaped goes to
	// readAny; one with it that is no tools/call fails the decode.
	if !mayBeToolsCall(body) {
		return rpcMessage{}, false
	}
	req := new(mcp20251125.CallToolRequest)
	if s.legacyDecode().Unmarshal(body, req) != nil || legacyResponseMembers(req.Extra) {
		return rpcMessage{}, false
	}
	m := rpcMessage{kind: msgRequest, id: modernID(req.ID), hasID: true, method: mcp20251125.MethodToolsCall, call: &req.Params}
	modern, bad := callMeta(req.Params.Meta)
	if bad != "" {
		return rpcMessage{kind: msgBad, badID: m.requestID(), badErr: &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Invalid Request: " + bad}}, true
	}
	m.modern = modern
	return m, true
}

// mayBeToolsCall reports whether body holds "tools/call" (the string
// token, unescaped). It looks at each '/' of body only, found by
// bytes.IndexByte: a JSON body holds many quotes (which bytes.Index would
// stop at) and few slashes.
func mayBeToolsCall(body []byte) bool {
	const pre, post = `"tools`, `call"`
	for i := 0; ; {
		j := bytes.IndexByte(body[i:], '/')
		if j < 0 {
			return false
		}
		j += i
		if j >= len(pre) && string(body[j-len(pre):j]) == pre && len(body)-j-1 >= len(post) && string(body[j+1:j+1+len(post)]) == post {
			return true
		}
		i = j + 1
	}
}

// callMeta is probeMeta for the _meta of a tools/call decoded strictly:
// the two 2026-07-28 keys and their case variants can only be undeclared
// members of it, kept in arrival order.
func callMeta(meta *mcp20251125.CallToolRequestParamsMeta) (modern bool, bad string) {
	if meta == nil {
		return false, ""
	}
	for _, x := range meta.Extra {
		switch k := x.Name; {
		case k == metaKeyVersion || k == metaKeyCaps:
			modern = true
		case strings.EqualFold(k, metaKeyVersion) || strings.EqualFold(k, metaKeyCaps):
			return false, fmt.Sprintf("params._meta.%s: member name differs from a 2026-07-28 key only in case", k)
		}
	}
	return modern, ""
}

// paramString is stringMember of the message's params.
func (m *rpcMessage) paramString(name string) (string, bool) {
	if m.call != nil {
		if name == "name" {
			return m.call.Name, true // a required string member
		}
		return "", false // mirroredHeaders asks a tools/call for its name only
	}
	return stringMember(m.params, name)
}

// withMeta reads bm from a request's or notification's params, or refuses
// a _meta whose member names differ from the 2026-07-28 keys only in case.
func (m rpcMessage) withMeta() rpcMessage {
	modern, bad := probeMeta(m.params)
	if bad != "" {
		return rpcMessage{kind: msgBad, badID: m.requestID(), badErr: &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Invalid Request: " + bad}}
	}
	m.modern = modern
	return m
}

// legacyDecode is the server's decode limits for package mcp20251125.
func (s *Era) legacyDecode() mcp20251125.UnmarshalOptions {
	d := s.cfg.decode
	return mcp20251125.UnmarshalOptions{MaxDepth: d.MaxDepth, MaxStringBytes: d.MaxStringBytes, MaxMembers: d.MaxMembers}
}

// legacyMalformed is malformedError for a decode error of package
// mcp20251125.
func (s *Era) legacyMalformed(body []byte, err error) (*protocol.RequestId, *server.Error) {
	de, _ := mcp20251125.AsDecodeError(err)
	if de != nil && de.Kind == mcp20251125.KindSyntax {
		return nil, &server.Error{Code: protocol.CodeParseError, Message: "Parse error: " + de.Msg}
	}
	if (de == nil || de.Kind != mcp20251125.KindDepth && de.Kind != mcp20251125.KindLimit) && !json.Valid(body) {
		return nil, &server.Error{Code: protocol.CodeParseError, Message: "Parse error: invalid JSON"}
	}
	return s.core.MessageID(body), &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Invalid Request: " + strings.TrimPrefix(err.Error(), "mcp20251125: ")}
}

// legacyResponseMembers is responseMembers for package mcp20251125.
func legacyResponseMembers(extra mcp20251125.Members) bool {
	for _, m := range extra {
		if m.Name == "result" || m.Name == "error" {
			return true
		}
	}
	return false
}

// modernID converts a request id between the two packages, keeping its
// JSON kind.
func modernID(id mcp20251125.RequestId) protocol.RequestId {
	if id.IsInt() {
		return protocol.IntRequestId(id.Int())
	}
	return protocol.StringRequestId(id.Str())
}

// echoID is the id to echo in a transport refusal of m (E1, M1): a
// request's, or the one read from a malformed body (R-BASE-07).
func (m *rpcMessage) echoID() *protocol.RequestId {
	if m.kind == msgBad {
		return m.badID
	}
	return m.requestID()
}

// requestID returns the id to echo in an answer to m, or nil.
func (m *rpcMessage) requestID() *protocol.RequestId {
	if m.kind == msgRequest {
		id := m.id
		return &id
	}
	return nil
}

// The two _meta keys whose presence makes a body modern (bm, §1.2).
const (
	metaKeyVersion = "io.modelcontextprotocol/protocolVersion"
	metaKeyCaps    = "io.modelcontextprotocol/clientCapabilities"
)

// probeMeta reads bm from a message's params: modern is true when params
// is an object whose _meta member is an object holding
// io.modelcontextprotocol/protocolVersion or
// io.modelcontextprotocol/clientCapabilities, whatever their values.
//
// The probe is strict, so that no reader can see modern _meta where the
// server sees none (docs/dual-era.md §9, mixed-era smuggling): bad names
// the problem when params has a member equal to "_meta" only ignoring
// case, or _meta a member equal to one of the two keys only ignoring case
// (a reader that matches names without case, as encoding/json does, would
// read them as the real ones). Duplicate members were refused already by
// the strict decode of the envelope. params was validated as JSON by it.
func probeMeta(params []byte) (modern bool, bad string) {
	obj, ok := objectMembers(params)
	if !ok {
		return false, ""
	}
	var meta []byte
	for obj.next() {
		switch {
		case string(obj.key) == "_meta":
			meta = obj.value
		case bytes.EqualFold(obj.key, []byte("_meta")):
			return false, fmt.Sprintf("params.%s: member name differs from \"_meta\" only in case", obj.key)
		}
	}
	inner, ok := objectMembers(meta)
	if !ok {
		return false, ""
	}
	for inner.next() {
		switch k := inner.key; {
		case string(k) == metaKeyVersion || string(k) == metaKeyCaps:
			modern = true
		case bytes.EqualFold(k, []byte(metaKeyVersion)) || bytes.EqualFold(k, []byte(metaKeyCaps)):
			return false, fmt.Sprintf("params._meta.%s: member name differs from a 2026-07-28 key only in case", inner.key)
		}
	}
	return modern, ""
}

// memberScanner walks the members of one JSON object known to be valid
// JSON: key is the member's name (unescaped; it shares the object's bytes
// unless it held an escape), value its raw text.
type memberScanner struct {
	b     []byte
	i     int
	key   []byte
	value []byte
}

// objectMembers starts a scan of raw, which must be a JSON object; ok is
// false for anything else (absent, null, another type).
func objectMembers(raw []byte) (*memberScanner, bool) {
	i := validate.SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	return &memberScanner{b: raw, i: i + 1}, true
}

// next moves to the next member; false at the end (or on text that is not
// valid JSON, which the callers never pass).
func (m *memberScanner) next() bool {
	b := m.b
	i := validate.SkipWS(b, m.i)
	if i < len(b) && b[i] == ',' {
		i = validate.SkipWS(b, i+1)
	}
	if i >= len(b) || b[i] != '"' {
		return false
	}
	end, ok := endOfString(b, i)
	if !ok {
		return false
	}
	m.key = jsonKey(b[i:end])
	i = validate.SkipWS(b, end)
	if i >= len(b) || b[i] != ':' {
		return false
	}
	start := validate.SkipWS(b, i+1)
	stop, ok := endOfValue(b, start)
	if !ok {
		return false
	}
	m.value, m.i = b[start:stop], stop
	return true
}

// jsonKey returns the text of a JSON string token (quotes included),
// unescaped; it is copied only when it holds an escape.
func jsonKey(tok []byte) []byte {
	if bytes.IndexByte(tok, '\\') < 0 {
		return tok[1 : len(tok)-1]
	}
	var s string
	if json.Unmarshal(tok, &s) != nil {
		return nil
	}
	return []byte(s)
}

// endOfString returns the index just past the string token at b[i].
func endOfString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// endOfValue returns the index just past the JSON value starting at b[i].
func endOfValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return endOfString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := endOfString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' && b[j] != '\n' {
		j++
	}
	return j, j > i
}
