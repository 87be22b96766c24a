// Package callbench is the per-call harness of issue 24: one tools/call
// of a typed echo tool ({"text": string} in, {"text": string} out)
// through ServeHTTP, with a fresh httptest.NewRequest and a fresh
// httptest.NewRecorder per call (what a real server pays per request),
// for five rows: a bare http.HandlerFunc writing a fixed, correct answer,
// mcpwire at 2026-07-28, mcpwire in a 2025-11-25 session, mark3labs/mcp-go
// and the official Go SDK. BenchmarkCall (callbench_test.go) has one
// sub-benchmark per row; cmd/calltable runs them interleaved and prints
// the table; callgrind.sh counts their instructions.
package callbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/server/typed"
)

// Echo is the tool's text argument and its answer.
const Echo = "hello"

// The revisions of the rows.
const (
	Modern = "2026-07-28"
	Legacy = "2025-11-25"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`

var (
	// ModernBody is the 2026-07-28 request every row but the legacy one
	// gets.
	ModernBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + modernMeta +
		`,"name":"echo","arguments":{"text":"` + Echo + `"}}}`)
	// LegacyBody is the 2025-11-25 request of the legacy row.
	LegacyBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + Echo + `"}}}`)
)

// In and Out are the echo tool's argument and result types.
type (
	In struct {
		Text string `json:"text"`
	}
	Out struct {
		Text string `json:"text"`
	}
)

// A Row is one handler of the table and the request it gets.
type Row struct {
	Name    string
	Handler http.Handler
	// Body and Header are the request's; NewRequest builds a fresh one.
	Body   []byte
	Header http.Header
}

// NewRequest is a fresh POST of the row's request, as httptest.NewRequest
// builds it.
func (r *Row) NewRequest() *http.Request {
	req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(string(r.Body)))
	for k, v := range r.Header {
		req.Header[k] = v
	}
	return req
}

// Serve is one call: a fresh request and a fresh recorder.
func (r *Row) Serve() *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	r.Handler.ServeHTTP(rec, r.NewRequest())
	return rec
}

// Names are the rows, in the table's order.
var Names = []string{"bare", "mcpwire", "mcpwire-legacy", "mcp-go", "gosdk"}

// NewRow builds the row called name, checks its answer, and returns it.
func NewRow(name string) (*Row, error) {
	r, err := newRow(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for range 2 { // a second call must be answered as the first
		if err := Check(r.Serve(), name == "mcpwire-legacy"); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return r, nil
}

func modernHeader() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", Modern)
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", "echo")
	return h
}

func newRow(name string) (*Row, error) {
	switch name {
	case "bare":
		// The answer mcpwire gives, written as it is.
		m, err := newRow("mcpwire")
		if err != nil {
			return nil, err
		}
		rec := m.Serve()
		answer := rec.Body.Bytes()
		if err := Check(rec, false); err != nil {
			return nil, err
		}
		return &Row{Name: name, Body: ModernBody, Header: modernHeader(), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(answer)
		})}, nil
	case "mcpwire":
		s, err := mcpwireServer()
		if err != nil {
			return nil, err
		}
		return &Row{Name: name, Body: ModernBody, Header: modernHeader(), Handler: streamhttp.Handler(s, streamhttp.Options{})}, nil
	case "mcpwire-legacy":
		s, err := mcpwireServer()
		if err != nil {
			return nil, err
		}
		r := &Row{Name: name, Handler: streamhttp.Handler(s, streamhttp.Options{}), Header: http.Header{}}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Body = []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + Legacy +
			`","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
		rec := r.Serve()
		sid := rec.Header().Get("Mcp-Session-Id")
		if rec.Code != http.StatusOK || sid == "" {
			return nil, fmt.Errorf("initialize: %d, session %q: %s", rec.Code, sid, rec.Body.String())
		}
		r.Header.Set("Mcp-Session-Id", sid)
		r.Header.Set("MCP-Protocol-Version", Legacy)
		r.Body = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if rec := r.Serve(); rec.Code != http.StatusAccepted {
			return nil, fmt.Errorf("notifications/initialized: %d %s", rec.Code, rec.Body.String())
		}
		r.Body = LegacyBody
		return r, nil
	case "mcp-go":
		s := mcpgoserver.NewMCPServer("bench", "1", mcpgoserver.WithToolCapabilities(false),
			mcpgoserver.WithInputSchemaValidation(), mcpgoserver.WithOutputSchemaValidation())
		s.AddTool(mcpgo.NewTool("echo", mcpgo.WithInputSchema[In](), mcpgo.WithOutputSchema[Out]()),
			mcpgo.NewStructuredToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, in In) (Out, error) {
				return Out(in), nil
			}))
		h := mcpgoserver.NewStreamableHTTPServer(s, mcpgoserver.WithStateLess(true),
			mcpgoserver.WithStreamableHTTPLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		return &Row{Name: name, Body: ModernBody, Header: modernHeader(), Handler: h}, nil
	case "gosdk":
		s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
			return nil, Out(in), nil
		})
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
		return &Row{Name: name, Body: ModernBody, Header: modernHeader(), Handler: h}, nil
	}
	return nil, fmt.Errorf("no row %q (rows: %s)", name, strings.Join(Names, ", "))
}

// mcpwireServer serves the typed echo tool, its schemas inferred.
func mcpwireServer() (*server.Server, error) {
	s, err := server.New(protocol.Implementation{Name: "bench", Version: "1"},
		server.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return nil, err
	}
	err = typed.AddTool(s, protocol.Tool{Name: "echo"}, func(_ context.Context, _ *server.Request, in In) (Out, error) {
		return Out(in), nil
	})
	return s, err
}

// Check fails unless rec is a successful answer whose structuredContent
// is {"text": Echo} (and, for a legacy answer, without resultType).
func Check(rec *httptest.ResponseRecorder, legacy bool) error {
	if rec.Code != http.StatusOK {
		return fmt.Errorf("status %d: %s", rec.Code, rec.Body.String())
	}
	body := rec.Body.Bytes()
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
		return fmt.Errorf("an event stream, not a JSON answer: %s", body)
	}
	var res struct {
		Result *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent *Out `json:"structuredContent"`
			IsError           bool `json:"isError"`
			ResultType        *string
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return fmt.Errorf("decoding %s: %w", body, err)
	}
	switch r := res.Result; {
	case r == nil:
		return fmt.Errorf("no result: %s", body)
	case r.IsError || r.StructuredContent == nil || r.StructuredContent.Text != Echo || len(r.Content) != 1 || r.Content[0].Type != "text":
		return fmt.Errorf("not the echo of %q: %s", Echo, body)
	case legacy && strings.Contains(string(body), `"resultType"`):
		return fmt.Errorf("a 2025-11-25 answer with resultType: %s", body)
	}
	return nil
}
