package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/jsonline"
)

// stamp puts the envelope on a result: resultType (R-BASE-05/06) and
// serverInfo in _meta (R-META-04). Caching hints were set by the handler of
// each cacheable method; input_required results carry none (R-CACHE-02).
// shared is the _meta member it set to the server's own resultMeta, if
// any, for resultOutcome to clear once the result is encoded.
func (s *Server) stamp(res wireResult) (shared **protocol.ResultMetaObject) {
	if v, ok := res.(*protocol.SubscriptionsListenResult); ok {
		if v.ResultType == "" {
			v.ResultType = "complete"
		}
		if v.Meta.ServerInfo == nil && !s.cfg.omitServerInfo {
			v.Meta.ServerInfo = s.resultMeta.ServerInfo
		}
		return nil
	}
	meta, rt, _ := envelopeOf(res)
	if rt != nil && *rt == "" {
		*rt = "complete"
	}
	if meta != nil && !s.cfg.omitServerInfo {
		switch {
		case *meta == nil:
			*meta, shared = s.resultMeta, meta // shared and read-only: it is only encoded
		case (*meta).ServerInfo == nil:
			(*meta).ServerInfo = s.resultMeta.ServerInfo
		}
	}
	return shared
}

// envelopeOf returns the envelope members of a core result: its _meta and
// resultType fields (rt nil where the type has a const resultType), and
// whether res is a result type stamp knows.
func envelopeOf(res wireResult) (meta **protocol.ResultMetaObject, rt *string, known bool) {
	switch v := res.(type) {
	case *protocol.CallToolResult:
		return &v.Meta, &v.ResultType, true
	case *protocol.GetPromptResult:
		return &v.Meta, &v.ResultType, true
	case *protocol.ReadResourceResult:
		return &v.Meta, &v.ResultType, true
	case *protocol.ListToolsResult:
		return &v.Meta, &v.ResultType, true
	case *protocol.ListPromptsResult:
		return &v.Meta, &v.ResultType, true
	case *protocol.ListResourcesResult:
		return &v.Meta, &v.ResultType, true
	case *protocol.ListResourceTemplatesResult:
		return &v.Meta, &v.ResultType, true
	case *protocol.DiscoverResult:
		return &v.Meta, &v.ResultType, true
	case *protocol.CompleteResult:
		return &v.Meta, &v.ResultType, true
	case *protocol.InputRequiredResult:
		return &v.Meta, nil, true // resultType is the const "input_required"
	case *protocol.Result:
		return &v.Meta, &v.ResultType, true
	case *protocol.SubscriptionsListenResult:
		return nil, nil, true
	}
	return nil, nil, false
}

// extResult readies an extension's result for the envelope: a core result
// as it is, anything else (a type generated from the extension's schema)
// encoded and read back as a protocol.Result, which stamp knows. A nil
// result is the empty one. It is an error, which the client gets as
// -32603, when the result is a nil pointer, does not encode to a JSON
// object, or claims a resultType the core reserves: "input_required"
// (only the runtime's multi round-trip results carry it), and "task"
// except from a CallTool hook (task, R-TASK-05).
func extResult(res Result, err error, task bool) (wireResult, error) {
	if err != nil {
		return nil, err
	}
	if res == nil {
		return &protocol.Result{ResultType: "complete"}, nil
	}
	if v := reflect.ValueOf(res); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, fmt.Errorf("server: an extension returned a nil %T", res)
	}
	if _, _, known := envelopeOf(res); known {
		return checkResultType(res, task)
	}
	b, err := json.Marshal(res) // a generated type encodes itself (MarshalJSON)
	if err != nil {
		return nil, fmt.Errorf("server: an extension's result does not encode: %w", err)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil || probe == nil {
		return nil, fmt.Errorf("server: an extension's result is not a JSON object: %.64s", b)
	}
	if rt, ok := probe["resultType"]; !ok || string(rt) == "null" { // the envelope's default (R-BASE-05)
		if ok {
			delete(probe, "resultType")
			if b, err = json.Marshal(probe); err != nil {
				return nil, err
			}
		}
		if rest := b[1:]; len(bytes.TrimSpace(rest)) > 1 {
			b = append([]byte(`{"resultType":"complete",`), rest...)
		} else {
			b = []byte(`{"resultType":"complete"}`)
		}
	}
	var r protocol.Result
	if err := protocol.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("server: an extension's result is not a result object: %w", err)
	}
	return checkResultType(&r, task)
}

// checkResultType refuses the resultType values an extension may not
// give a result (see extResult).
func checkResultType(res wireResult, task bool) (wireResult, error) {
	var rt string
	switch v := res.(type) {
	case *protocol.Result:
		rt = v.ResultType
	case *protocol.CallToolResult:
		rt = v.ResultType
	}
	if rt == "input_required" || rt == "task" && !task {
		return nil, fmt.Errorf("server: an extension's result has the reserved resultType %q", rt)
	}
	return res, nil
}

// resultOutcome encodes the response of a result; trusted is raw JSON of
// it not to be validated again (protocol.MarshalOptions.Trusted).
func (s *Server) resultOutcome(id protocol.RequestId, res wireResult, trusted []byte) Outcome {
	shared := s.stamp(res)
	bp, buf := s.responseStart(id)
	buf, err := protocol.MarshalOptions{Trusted: trusted, Meta: s.resultMeta, MetaJSON: s.metaJSON}.AppendMarshal(buf, res)
	if shared != nil {
		// A result the handler returns again does not hold resultMeta,
		// which it could change under MetaJSON (TestReturnedResultMeta).
		*shared = nil
	}
	if out, ok := s.responseEnd(bp, buf, err); ok {
		return out
	}
	// The handler built a result the schema forbids: a server bug.
	s.log.Error("result does not encode", "err", err)
	return s.errorFor(id, InternalError("Internal error: invalid result"))
}

// responseStart takes a body buffer from the pool and writes the start of
// the response to id into it, up to the result: {"jsonrpc":"2.0","id":…,"result":
func (s *Server) responseStart(id protocol.RequestId) (*[]byte, []byte) {
	bp, _ := s.bufs.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, 0, 512)
		bp = &b
	}
	buf := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	buf = jsonline.AppendID(buf, id.IsInt(), id.Int(), id.Str())
	return bp, append(buf, `,"result":`...)
}

// responseEnd closes the response that buf (bp's) holds once the result
// is appended, and returns its outcome. When appending the result failed
// (err), the buffer goes back to the pool and ok is false.
func (s *Server) responseEnd(bp *[]byte, buf []byte, err error) (out Outcome, ok bool) {
	if err != nil {
		*bp = buf
		s.recycle(bp)
		return Outcome{}, false
	}
	buf = append(buf, '}')
	*bp = buf
	return Outcome{Body: buf, Status: http.StatusOK, buf: bp}, true
}

// maxRecycledBody is the largest response buffer kept for reuse: a rare
// large result does not pin its memory in the pool.
const maxRecycledBody = 64 << 10

// recycle returns a body buffer (an outcome's buf) for reuse once the
// transport has written it (a ResponseWriter or bufio.Writer copies what
// it is given). The body must not be used after; nil is ignored.
func (s *Server) recycle(bp *[]byte) {
	if bp != nil && cap(*bp) <= maxRecycledBody {
		s.bufs.Put(bp)
	}
}

// errorFor is errorOutcome for an id held by value: only an error moves a
// copy of it to the heap, not every call of the function that holds it.
func (s *Server) errorFor(id protocol.RequestId, e *Error) Outcome { return s.errorOutcome(&id, e) }

func (s *Server) errorOutcome(id *protocol.RequestId, e *Error) Outcome {
	if e.scopes != nil {
		out := s.errorOutcome(id, &Error{Code: e.Code, Message: e.Message, Data: e.Data})
		out.Status, out.Scopes = http.StatusForbidden, e.scopes
		return out
	}
	if e.expired {
		out := s.errorOutcome(id, &Error{Code: e.Code, Message: e.Message, Data: e.Data})
		out.Status, out.Expired = http.StatusUnauthorized, true
		return out
	}
	if e.Data == nil {
		return Outcome{Body: appendErrorResponse(nil, id, e.Code, e.Message), Status: httpStatus(e.Code), RetryAfter: retryAfter(e)}
	}
	resp := protocol.JSONRPCErrorResponse{ID: id, Error: protocol.Error{Code: e.Code, Message: e.Message, Data: e.Data}}
	body, err := protocol.Marshal(&resp)
	if err != nil {
		s.log.Error("error response does not encode", "err", err)
		resp.Error.Data = nil
		body, _ = protocol.Marshal(&resp)
	}
	return Outcome{Body: body, Status: httpStatus(e.Code), RetryAfter: retryAfter(e)}
}

// appendErrorResponse writes the error response protocol.Marshal writes
// for a JSONRPCErrorResponse without data (members in the codec's order;
// no id member when id is nil), in one allocation and without the
// codec's reflection on an interface: lookups that may fail (a session's
// not-found answer) build it on every request (TestAppendErrorResponse
// compares the two).
func appendErrorResponse(buf []byte, id *protocol.RequestId, code int64, msg string) []byte {
	if buf == nil {
		buf = make([]byte, 0, 64+len(msg))
	}
	buf = append(buf, `{"error":{"code":`...)
	buf = strconv.AppendInt(buf, code, 10)
	buf = append(buf, `,"message":`...)
	buf = jsonline.AppendString(buf, msg)
	buf = append(buf, "},"...)
	if id != nil {
		buf = append(buf, `"id":`...)
		buf = jsonline.AppendID(buf, id.IsInt(), id.Int(), id.Str())
		buf = append(buf, ',')
	}
	return append(buf, `"jsonrpc":"2.0"}`...)
}

// retryAfter is the Retry-After, in seconds, of a rate-limited error (0
// for any other).
func retryAfter(e *Error) int {
	if e.Code != CodeRateLimited {
		return 0
	}
	var d struct {
		RetryAfterMs int64 `json:"retryAfterMs"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return max(int((d.RetryAfterMs+999)/1000), 1)
}
