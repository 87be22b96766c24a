package server

import (
	"net/http"

	"github.com/mcpwire/mcpwire/protocol"
)

// stamp puts the envelope on a result: resultType (R-BASE-05/06) and
// serverInfo in _meta (R-META-04). Caching hints were set by the handler of
// each cacheable method; input_required results carry none (R-CACHE-02).
func (s *Server) stamp(res wireResult) {
	var meta **protocol.ResultMetaObject
	var rt *string
	switch v := res.(type) {
	case *protocol.CallToolResult:
		meta, rt = &v.Meta, &v.ResultType
	case *protocol.GetPromptResult:
		meta, rt = &v.Meta, &v.ResultType
	case *protocol.ReadResourceResult:
		meta, rt = &v.Meta, &v.ResultType
	case *protocol.ListToolsResult:
		meta, rt = &v.Meta, &v.ResultType
	case *protocol.ListPromptsResult:
		meta, rt = &v.Meta, &v.ResultType
	case *protocol.ListResourcesResult:
		meta, rt = &v.Meta, &v.ResultType
	case *protocol.ListResourceTemplatesResult:
		meta, rt = &v.Meta, &v.ResultType
	case *protocol.DiscoverResult:
		meta, rt = &v.Meta, &v.ResultType
	case *protocol.CompleteResult:
		meta, rt = &v.Meta, &v.ResultType
	case *protocol.InputRequiredResult:
		meta = &v.Meta // resultType is the const "input_required"
	case *protocol.Result:
		meta, rt = &v.Meta, &v.ResultType
	}
	if rt != nil && *rt == "" {
		*rt = "complete"
	}
	if meta != nil && !s.cfg.omitServerInfo {
		if *meta == nil {
			*meta = &protocol.ResultMetaObject{}
		}
		if (*meta).ServerInfo == nil {
			impl := s.impl
			(*meta).ServerInfo = &impl
		}
	}
}

func (s *Server) resultOutcome(id protocol.RequestId, res wireResult) outcome {
	s.stamp(res)
	buf := make([]byte, 0, 512)
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	var err error
	if buf, err = protocol.AppendMarshal(buf, &id); err == nil {
		buf = append(buf, `,"result":`...)
		buf, err = protocol.AppendMarshal(buf, res)
	}
	if err != nil {
		// The handler built a result the schema forbids: a server bug.
		s.log.Error("result does not encode", "err", err)
		return s.errorOutcome(&id, InternalError("Internal error: invalid result"))
	}
	buf = append(buf, '}')
	return outcome{body: buf, status: http.StatusOK}
}

func (s *Server) errorOutcome(id *protocol.RequestId, e *Error) outcome {
	resp := protocol.JSONRPCErrorResponse{ID: id, Error: protocol.Error{Code: e.Code, Message: e.Message, Data: e.Data}}
	body, err := protocol.Marshal(&resp)
	if err != nil {
		s.log.Error("error response does not encode", "err", err)
		resp.Error.Data = nil
		body, _ = protocol.Marshal(&resp)
	}
	return outcome{body: body, status: httpStatus(e.Code)}
}
