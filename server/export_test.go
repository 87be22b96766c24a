package server

import (
	"context"
	"encoding/json"

	"github.com/mcpwire/mcpwire/server/internal/validate"
)

// What the package's external tests (package server_test) reach of its
// internals.

var (
	ParamsDigest        = paramsDigest
	NewError            = newError
	ParamEqual          = validate.ScalarEquals
	HeaderChars         = headerChars
	AppendErrorResponse = appendErrorResponse
	CheckParamHeaders   = checkParamHeaders
	HeaderArgs          = headerArgs
)

// HeaderParam is headerParam, for FuzzParseValue.
type HeaderParam = headerParam

// NewHeaderParam builds a headerParam.
func NewHeaderParam(name, key string, path []string, typ string) HeaderParam {
	return headerParam{name: name, key: key, path: path, typ: typ}
}

// SetBroker replaces the server's broker after New.
func (s *Server) SetBroker(b Broker) { s.cfg.broker = b }

// StreamTotal is the count of open listen streams.
func (s *Server) StreamTotal() int {
	s.streams.mu.Lock()
	defer s.streams.mu.Unlock()
	return s.streams.total
}

// CheckArgs runs the argument checks of the tool name on args.
func (s *Server) CheckArgs(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	t, _ := lookup(s, s.tools, name)
	return s.checkArgs(ctx, t, args, s.valueLimits(), &Exchange{})
}

// Target is the request's tool or prompt name or resource URI.
func (r *Request) Target() string { return r.target }
