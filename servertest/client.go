package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// endpoint is the URL every request is made to; localhost is in the
// handler's default AllowedHosts.
const endpoint = "http://localhost/mcp"

// Client calls a *server.Server in-process through its HTTP handler. It
// is safe for concurrent use.
type Client struct {
	h      http.Handler
	cfg    config
	nextID atomic.Int64
}

// New returns a Client of s. opts apply to every call of the Client.
func New(s *server.Server, opts ...Option) *Client {
	c := &Client{cfg: config{
		version:    protocol.Revision,
		clientInfo: protocol.Implementation{Name: "servertest", Version: "0"},
		maxRounds:  DefaultMaxRounds,
	}}
	for _, o := range opts {
		o(&c.cfg)
	}
	var ho streamhttp.Options
	if c.cfg.httpOpts != nil {
		ho = *c.cfg.httpOpts
	}
	if ho.Authenticate == nil && ho.Verifier == nil {
		ho.Authenticate = func(r *http.Request) (string, error) {
			return r.Header.Get(PrincipalHeader), nil
		}
	}
	c.h = streamhttp.Handler(s, ho)
	return c
}

// Handler returns the http.Handler the Client calls, for requests the
// Client does not build.
func (c *Client) Handler() http.Handler { return c.h }

// Error is a JSON-RPC error response, or an HTTP refusal without one.
type Error struct {
	// Status is the HTTP status of the response.
	Status int
	// Code, Message and Data are the JSON-RPC error's; Code is 0 when
	// the response carried no JSON-RPC error (a bare HTTP refusal, whose
	// body is then in Message).
	Code    int64
	Message string
	Data    json.RawMessage
}

// Error implements error.
func (e *Error) Error() string {
	if e.Code == 0 {
		return fmt.Sprintf("servertest: HTTP %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("servertest: HTTP %d: mcp error %d: %s", e.Status, e.Code, e.Message)
}

// Is reports whether target is an *Error or a *server.Error with the same
// code, so errors.Is(err, &server.Error{Code: protocol.CodeInvalidParamsError})
// works on the client side too.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case *Error:
		return t.Code == e.Code
	case *server.Error:
		return t.Code == e.Code
	}
	return false
}

// message is one JSON-RPC message of an answer.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// Do sends one request of method with params (the members besides
// _meta, encoded with encoding/json; nil for none) and name (the
// Mcp-Name header; empty for none) and returns the raw result. It is the
// building block of the typed calls; it does not answer input_required
// results.
func (c *Client) Do(ctx context.Context, method, name string, params map[string]any, opts ...Option) (json.RawMessage, error) {
	cfg := c.callConfig(opts)
	return c.do(ctx, &cfg, method, name, params)
}

func (c *Client) callConfig(opts []Option) config {
	cfg := c.cfg.clone()
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

func (c *Client) do(ctx context.Context, cfg *config, method, name string, params map[string]any) (json.RawMessage, error) {
	r, err := c.newRequest(ctx, cfg, method, name, params)
	if err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, r)
	return answer(rec, cfg.onNotify)
}

// newRequest builds the POST of method with the 2026-07-28 headers and
// the params plus _meta.
func (c *Client) newRequest(ctx context.Context, cfg *config, method, name string, params map[string]any) (*http.Request, error) {
	meta, err := cfg.metaObject()
	if err != nil {
		return nil, err
	}
	p := make(map[string]any, len(params)+1)
	for k, v := range params {
		p[k] = v
	}
	p["_meta"] = meta
	id := c.nextID.Add(1)
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": p})
	if err != nil {
		return nil, fmt.Errorf("servertest: encode %s: %w", method, err)
	}
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", cfg.version)
	r.Header.Set("Mcp-Method", method)
	if name != "" {
		r.Header.Set("Mcp-Name", name)
	}
	if cfg.principal != "" {
		r.Header.Set(PrincipalHeader, cfg.principal)
	}
	for k, v := range cfg.headers {
		r.Header.Set(k, v)
	}
	return r, nil
}

// metaObject is the request's _meta.
func (cfg *config) metaObject() (map[string]json.RawMessage, error) {
	caps := protocol.ClientCapabilities{}
	if cfg.caps != nil {
		caps = *cfg.caps
	} else {
		if cfg.onElicit != nil {
			caps.Elicitation = &protocol.ClientCapabilitiesElicitation{}
		}
		if cfg.onSample != nil {
			caps.Sampling = &protocol.ClientCapabilitiesSampling{}
		}
		if cfg.onRoots != nil {
			caps.Roots = &protocol.ClientCapabilitiesRoots{}
		}
	}
	capsJSON, err := protocol.Marshal(&caps)
	if err != nil {
		return nil, fmt.Errorf("servertest: encode client capabilities: %w", err)
	}
	info, err := protocol.Marshal(&cfg.clientInfo)
	if err != nil {
		return nil, fmt.Errorf("servertest: encode clientInfo: %w", err)
	}
	version, _ := json.Marshal(cfg.version)
	m := map[string]json.RawMessage{
		"io.modelcontextprotocol/protocolVersion":    version,
		"io.modelcontextprotocol/clientInfo":         info,
		"io.modelcontextprotocol/clientCapabilities": capsJSON,
	}
	for k, v := range cfg.meta {
		if v == nil {
			return nil, fmt.Errorf("servertest: _meta %q does not encode as JSON", k)
		}
		m[k] = v
	}
	return m, nil
}

// answer reads the response of rec: one JSON message, or an event stream
// whose last message with an id is the response; the notifications
// before it go to onNotify, in order, when it is set.
func answer(rec *httptest.ResponseRecorder, onNotify func(Notification)) (json.RawMessage, error) {
	raw := rec.Body.Bytes()
	var frames [][]byte
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(raw), "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok && strings.TrimSpace(d) != "" {
				frames = append(frames, []byte(d))
			}
		}
	} else if len(bytes.TrimSpace(raw)) > 0 {
		frames = append(frames, raw)
	}
	for i, f := range frames {
		var m message
		if err := json.Unmarshal(f, &m); err != nil {
			return nil, &Error{Status: rec.Code, Message: strings.TrimSpace(string(f))}
		}
		if m.Method != "" || len(m.ID) == 0 && m.Error == nil {
			// A notification; an error without an id (a refusal before
			// the body was read) is the answer, below.
			if onNotify != nil && m.Method != "" {
				var p struct {
					Params json.RawMessage `json:"params"`
				}
				_ = json.Unmarshal(f, &p)
				onNotify(Notification{Method: m.Method, Params: p.Params})
			}
			continue
		}
		if i != len(frames)-1 {
			return nil, &Error{Status: rec.Code, Message: "messages after the response"}
		}
		if m.Error != nil {
			return nil, &Error{Status: rec.Code, Code: m.Error.Code, Message: m.Error.Message, Data: m.Error.Data}
		}
		if rec.Code != http.StatusOK {
			return nil, &Error{Status: rec.Code, Message: "result with a non-200 status"}
		}
		return m.Result, nil
	}
	if rec.Code != http.StatusOK {
		return nil, &Error{Status: rec.Code, Message: strings.TrimSpace(string(raw))}
	}
	return nil, errors.New("servertest: the answer holds no response")
}
