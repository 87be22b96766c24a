package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// mrtrServer has an MRTR tool "ask" (state "asked"), a second MRTR tool
// "other", an MRTR prompt "ask" and resource "mrtr://ask", each counting
// the calls that reach it.
type MrtrServer struct {
	*server.Server
	H     http.Handler
	Calls atomic.Int64
	Seen  atomic.Value // string: the State() the last call saw
}

// addAskTargets registers on s the four MRTR targets the tests ask
// through: tools "ask" and "other", prompt "ask" and resource
// "mrtr://ask", each answering with what handle returns.
func AddAskTargets(t testing.TB, s *server.Server, handle func(*server.Request) (string, error)) {
	t.Helper()
	tool := func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		out, err := handle(r)
		if err != nil {
			return nil, err
		}
		return server.TextResult(out), nil
	}
	AddTool(t, s, `{"name":"ask","inputSchema":{"type":"object"}}`, tool)
	AddTool(t, s, `{"name":"other","inputSchema":{"type":"object"}}`, tool)
	AddPrompt(t, s, protocol.Prompt{Name: "ask"}, func(_ context.Context, r *server.Request, _ map[string]string) (*protocol.GetPromptResult, error) {
		out, err := handle(r)
		if err != nil {
			return nil, err
		}
		return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: protocol.RoleUser, Content: server.Text(out)}}}, nil
	})
	AddResource(t, s, protocol.Resource{URI: "mrtr://ask", Name: "ask"}, func(_ context.Context, r *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		out, err := handle(r)
		if err != nil {
			return nil, err
		}
		return server.TextContents(uri, "", out), nil
	})
}

func NewMRTR(t testing.TB, hopts streamhttp.Options, opts ...any) *MrtrServer {
	t.Helper()
	m := &MrtrServer{Server: NewServer(t, opts...)}
	handle := func(r *server.Request) (string, error) {
		m.Calls.Add(1)
		st := r.State()
		m.Seen.Store(fmt.Sprintf("%q nil=%v", st, st == nil))
		if resp, ok := r.InputResponse("name"); ok && st != nil {
			if er, ok := resp.Value.(*protocol.ElicitResult); ok && er.Action == protocol.ElicitResultActionAccept {
				return "hello " + er.Content["name"].Str() + " state=" + string(st), nil
			}
		}
		return "", r.AskInput(map[string]protocol.InputRequest{"name": server.ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("")}, "name")}, []byte("asked:"+r.Principal))
	}
	AddAskTargets(t, m.Server, handle)
	m.H = Handler(m.Server, hopts)
	return m
}

var ElicitCaps = Meta(KeyCaps, M{"elicitation": M{}})

var Accepted = M{"name": M{"action": "accept", "content": M{"name": "Ann"}}}

// first asks tool "ask" and returns its requestState.
func (m *MrtrServer) First(t testing.TB, mod func(*http.Request)) string {
	t.Helper()
	w := Single(t, Post(t, m.H, Rpc(1, protocol.MethodToolsCall, WithMeta(ElicitCaps, M{"name": "ask"})), mod))
	st, ok := w.Result["requestState"].(string)
	if !ok || w.Result["resultType"] != "input_required" {
		t.Fatalf("no input_required with requestState: %s", w.Raw)
	}
	return st
}

// retry sends the retry of tool (or another method's target) with state.
func (m *MrtrServer) Retry(t testing.TB, method, target string, state any, responses any, mod func(*http.Request)) (*Wire, int) {
	t.Helper()
	p := WithMeta(ElicitCaps, M{"requestState": state})
	if responses != nil {
		p["inputResponses"] = responses
	}
	switch method {
	case protocol.MethodResourcesRead:
		p["uri"] = target
	default:
		p["name"] = target
	}
	rec := Post(t, m.H, Rpc(2, method, p), mod)
	return Single(t, rec), rec.Code
}
