// Package loadtest is a load generator for MCP 2026-07-28 servers over
// real HTTP on 127.0.0.1. It drives mcpwire and the official Go SDK
// (stateless Streamable HTTP, JSON responses) with the same mixed traffic
// and measures throughput, latency, errors, server CPU per request, and
// the server's RSS and goroutine count before, right after and after a
// run. cmd/loadgen is the command; loadtest_test.go runs a short
// mcpwire-only run in CI.
//
// # Servers
//
// Both servers offer the same things: tools "echo" (the schema of
// server_test.go) and "ask" (multi round-trip), prompt "greet" and
// resource "file:///a.txt". Each runs in its own child process: the load
// generator starts its own executable again with MCPWIRE_LOADGEN_SERVE set
// (see ServeIfChild). The child serves POST /mcp on a free loopback port
// and answers "stats" and "gc" on its stdin/stdout, so its RSS
// (/proc/self/status VmRSS), goroutine count and CPU time contain nothing of
// the load generator, and the control channel adds no connection or
// goroutine of its own.
//
// # Traffic
//
// Clients are goroutines sharing one keep-alive http.Transport per server
// (MaxConnsPerHost = MaxIdleConnsPerHost = clients: one connection each).
// Each runs a fixed cycle of ten operations, offset per client: seven
// tools/call echo, two lists (tools/list, prompts/list, resources/list in
// turn) and one MRTR round trip (tools/call ask answered input_required
// with an elicitation request and a requestState, then the retry with
// inputResponses and the requestState, answered "hello <name> <q>"). Every
// answer is checked: a non-2xx status, a JSON-RPC error, a wrong id or a
// wrong answer is an error. Latency is per HTTP request, from sending to
// the end of the response body; requests/second counts HTTP requests (an
// MRTR round trip is two).
//
// # Phases
//
// For each server: an unmeasured warm-up; then the baseline, taken with no
// connection open, once the goroutine count is steady, after a GC; then the
// measured run, split into Options.Rounds slices taken in turn with the
// other servers' (ABBA order), so that a machine shared with other work
// loads them alike; right after its last slice, its stats as they are;
// then its clients close their connections and it has Options.Settle to
// get back to its baseline: goroutines at most the baseline's, and RSS at
// most the baseline's plus 10% plus 2 MiB. The baseline and settled RSS are
// read after runtime.GC and debug.FreeOSMemory in the server process, so
// that they count memory the server still holds rather than freed pages
// the Go runtime has not yet returned to the OS (it would keep them for
// minutes); the "right after" figures are as they are.
package loadtest

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// Server names accepted by NewHandler, StartServer and the loadgen flags.
const (
	Mcpwire = "mcpwire"
	GoSDK   = "gosdk"
	// McpwireBoth is mcpwire with legacy.ErasBoth and load-sized session limits: the
	// same server, also serving legacy sessions (memory store) on the same
	// endpoint, for mixed-era runs (Options.Legacy).
	McpwireBoth = "mcpwire-both"
)

// maxLoadSessions bounds McpwireBoth's sessions per client address: every
// load client comes from 127.0.0.1, so the default (100) would evict the
// sessions of a run with more legacy clients.
const maxLoadSessions = 100_000

// What both servers offer. The lists are checked against these.
const (
	echoTool    = "echo"
	askTool     = "ask"
	promptName  = "greet"
	resourceURI = "file:///a.txt"

	echoSchema = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`
	askSchema  = `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`
	echoDesc   = "Echoes its text argument."
	askDesc    = "Asks the user for a name (multi round-trip), then greets."
)

type echoArgs struct {
	Text string `json:"text"`
}

type askArgs struct {
	Q string `json:"q"`
}

// NewHandler returns the MCP Streamable HTTP handler of the named server.
func NewHandler(name string) (http.Handler, error) {
	switch name {
	case Mcpwire:
		return mcpwireHandler(legacy.Config{})
	case McpwireBoth:
		return mcpwireHandler(legacy.Config{Eras: legacy.ErasBoth, MaxSessionsPerPrincipal: maxLoadSessions, MaxSessions: maxLoadSessions})
	case GoSDK:
		return gosdkHandler()
	}
	return nil, fmt.Errorf("unknown server %q (want %s, %s or %s)", name, Mcpwire, McpwireBoth, GoSDK)
}

// --- mcpwire ---------------------------------------------------------------

func mcpwireTool(name, desc, schema string) (protocol.Tool, error) {
	var def protocol.Tool
	js := fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":%s}`, name, desc, schema)
	err := protocol.Unmarshal([]byte(js), &def)
	return def, err
}

func mcpwireHandler(lc legacy.Config) (http.Handler, error) {
	s, err := server.New(protocol.Implementation{Name: "loadgen", Version: "1"}, server.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return nil, err
	}
	echo, err := mcpwireTool(echoTool, echoDesc, echoSchema)
	if err != nil {
		return nil, err
	}
	if err := s.AddTool(echo, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		var in echoArgs
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		return server.TextResult(in.Text), nil
	}); err != nil {
		return nil, err
	}
	ask, err := mcpwireTool(askTool, askDesc, askSchema)
	if err != nil {
		return nil, err
	}
	// The MRTR tool: the first call asks for a name with input_required and
	// state q (sealed by the runtime); the retry carries the elicitation
	// result and the state back, and the tool answers "hello <name> <q>".
	if err := s.AddTool(ask, func(_ context.Context, r *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		var in askArgs
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		if st := r.State(); st != nil && string(st) == in.Q {
			if resp, ok := r.InputResponse("name"); ok {
				if er, ok := resp.Value.(*protocol.ElicitResult); ok && er.Action == protocol.ElicitResultActionAccept {
					return server.TextResult("hello " + er.Content["name"].Str() + " " + in.Q), nil
				}
			}
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{
			"name": server.ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("")}, "name"),
		}, []byte(in.Q))
	}); err != nil {
		return nil, err
	}
	required := true
	if err := s.AddPrompt(protocol.Prompt{Name: promptName, Arguments: []protocol.PromptArgument{{Name: "who", Required: &required}}},
		func(_ context.Context, _ *server.Request, args map[string]string) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: protocol.RoleUser, Content: server.Text("Hello " + args["who"])}}}, nil
		}); err != nil {
		return nil, err
	}
	if err := s.AddResource(protocol.Resource{URI: resourceURI, Name: "a"},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.TextContents(uri, "text/plain", "A"), nil
		}); err != nil {
		return nil, err
	}
	era, err := legacy.New(s, lc)
	if err != nil {
		return nil, err
	}
	return streamhttp.Handler(s, streamhttp.Options{Legacy: era}), nil
}

// --- Go SDK ----------------------------------------------------------------

// gosdkHandler is the same server on the official Go SDK: a stateless
// Streamable HTTP handler answering application/json (JSONResponse, as in
// server_test.go), typed tools (the SDK validates the arguments against the
// inputSchema and decodes them, as mcpwire does).
//
// The SDK passes requestState through as the handler gives it, and leaves
// protecting it to the application ("Unauthenticated servers must encrypt,
// sign and verify this value"). mcpwire's runtime seals it with
// AES-256-GCM, bound to the method and tool, with an expiry; so that both
// servers do the same work, the SDK's ask tool seals its state the same way
// (stateSealer).
func gosdkHandler() (http.Handler, error) {
	sealer, err := newStateSealer(10 * time.Minute)
	if err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "loadgen", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: echoTool, Description: echoDesc, InputSchema: json.RawMessage(echoSchema)},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: askTool, Description: askDesc, InputSchema: json.RawMessage(askSchema)},
		func(_ context.Context, req *mcp.CallToolRequest, in askArgs) (*mcp.CallToolResult, any, error) {
			p := req.Params
			if p.RequestState != "" {
				st, err := sealer.open("tools/call", askTool, p.RequestState)
				if err != nil {
					return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid requestState"}
				}
				if er, ok := p.InputResponses["name"].(*mcp.ElicitResult); ok && er.Action == "accept" && string(st) == in.Q {
					name, _ := er.Content["name"].(string)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + name + " " + in.Q}}}, nil, nil
				}
			}
			tok, err := sealer.seal("tools/call", askTool, []byte(in.Q))
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
					Message: "Name?",
					RequestedSchema: json.RawMessage(
						`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
				}},
				RequestState: tok,
			}, nil, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: promptName, Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello " + req.Params.Arguments["who"]}}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: resourceURI, Name: "a"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "A"}}}, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}), nil
}

// stateSealer protects the SDK tool's requestState like mcpwire's runtime
// does: AES-256-GCM over expiry||payload, the method and tool as
// additional data, unpadded base64url.
type stateSealer struct {
	aead cipher.AEAD
	ttl  time.Duration
}

func newStateSealer(ttl time.Duration) (*stateSealer, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &stateSealer{aead: aead, ttl: ttl}, nil
}

func (s *stateSealer) aad(method, target string) []byte {
	return []byte(method + "\x00" + target)
}

func (s *stateSealer) seal(method, target string, payload []byte) (string, error) {
	ns := s.aead.NonceSize()
	buf := make([]byte, ns, ns+8+len(payload)+s.aead.Overhead())
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	plain := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(payload)), uint64(time.Now().Add(s.ttl).UnixMilli()))
	plain = append(plain, payload...)
	out := s.aead.Seal(buf, buf[:ns], plain, s.aad(method, target))
	return base64.RawURLEncoding.EncodeToString(out), nil
}

var errBadState = errors.New("invalid request state")

func (s *stateSealer) open(method, target, tok string) ([]byte, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	ns := s.aead.NonceSize()
	if err != nil || len(raw) < ns+s.aead.Overhead()+8 {
		return nil, errBadState
	}
	plain, err := s.aead.Open(nil, raw[:ns], raw[ns:], s.aad(method, target))
	if err != nil {
		return nil, errBadState
	}
	if time.Now().UnixMilli() > int64(binary.BigEndian.Uint64(plain)) {
		return nil, errBadState
	}
	return plain[8:], nil
}
