package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/stdio"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// request builds a JSON-RPC request with the per-request _meta that every
// 2026-07-28 request carries.
func request(id int, method string, params map[string]any, caps map[string]any) string {
	if params == nil {
		params = map[string]any{}
	}
	if caps == nil {
		caps = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    protocol.Revision,
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return string(b)
}

func ExampleNew() {
	s, err := server.New(protocol.Implementation{Name: "weather", Version: "1.0.0"},
		server.WithInstructions("Ask for forecasts by city."),
		server.WithPageSize(50),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s != nil)

	_, err = server.New(protocol.Implementation{Name: "no-version"})
	fmt.Println(err)
	// Output:
	// true
	// server: Implementation needs a name and a version
}

func ExampleServer_AddTool() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	var def protocol.Tool
	_ = protocol.Unmarshal([]byte(`{
		"name": "greet",
		"description": "Greets someone.",
		"inputSchema": {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}
	}`), &def)
	err := s.AddTool(def, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		var in struct{ Who string }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		return server.TextResult("Hello, " + in.Who + "!"), nil
	})
	fmt.Println(err)

	var out strings.Builder
	in := request(1, "tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"who": "Ada"}}, nil)
	_ = stdio.Serve(context.Background(), s, strings.NewReader(in+"\n"), &out, stdio.Options{})
	fmt.Print(out.String())
	// Output:
	// <nil>
	// {"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1.0.0"}},"content":[{"text":"Hello, Ada!","type":"text"}],"resultType":"complete"}}
}

func ExampleRequest_SetCacheHint() {
	// Resources are public for a minute, unless their handler says otherwise.
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"},
		server.WithCacheHint("resources/read", server.CacheHint{TTL: time.Minute, Scope: protocol.CacheScopePublic}))
	_ = s.AddResource(protocol.Resource{URI: "inbox://me", Name: "my inbox"},
		func(_ context.Context, r *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			// Per-user data: never shared between callers.
			if err := r.SetCacheHint(server.CacheHint{TTL: 5 * time.Second, Scope: protocol.CacheScopePrivate}); err != nil {
				return nil, err
			}
			return server.TextContents(uri, "text/plain", "2 unread messages"), nil
		})
	var out strings.Builder
	in := request(1, "resources/read", map[string]any{"uri": "inbox://me"}, nil) + "\n"
	_ = stdio.Serve(context.Background(), s, strings.NewReader(in), &out, stdio.Options{})
	var resp struct {
		Result struct {
			TTLMs      int64  `json:"ttlMs"`
			CacheScope string `json:"cacheScope"`
		} `json:"result"`
	}
	_ = json.Unmarshal([]byte(out.String()), &resp)
	fmt.Println(resp.Result.TTLMs, resp.Result.CacheScope)
	// Output:
	// 5000 private
}

func ExampleWithSubscriptionAuthorizer() {
	// Profiles are private: each user may watch only its own.
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"},
		server.WithSubscriptionAuthorizer(func(_ context.Context, principal, uri string) bool {
			return uri == "users://"+principal+"/profile"
		}))
	_ = s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "users://{id}/profile", Name: "profile"},
		func(_ context.Context, _ *server.Request, uri string, vars map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.TextContents(uri, "text/plain", "profile of "+vars["id"]), nil
		})
	srv := httptest.NewServer(streamhttp.Handler(s, streamhttp.Options{
		Authenticate: func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil },
	}))
	defer srv.Close()

	body := request(1, "subscriptions/listen", map[string]any{"notifications": map[string]any{
		"resourceSubscriptions": []string{"users://ann/profile", "users://bob/profile"},
	}}, nil)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(server.HeaderProtocolVersion, protocol.Revision)
	req.Header.Set(server.HeaderMethod, "subscriptions/listen")
	req.Header.Set("X-User", "ann")
	resp, err := srv.Client().Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close() // ends the stream
	// The first event is the acknowledgement: bob's profile is left out,
	// as an unknown URI would be.
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ack struct {
				Params struct {
					Notifications json.RawMessage `json:"notifications"`
				} `json:"params"`
			}
			_ = json.Unmarshal([]byte(data), &ack)
			fmt.Println(string(ack.Params.Notifications))
			break
		}
	}
	// Output:
	// {"resourceSubscriptions":["users://ann/profile"]}
}

func ExampleWithListenLimits() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"},
		server.WithListenLimits(server.ListenLimits{MaxResources: 2}))
	line := request(1, "subscriptions/listen", map[string]any{"notifications": map[string]any{
		"resourceSubscriptions": []string{"note://a", "note://b", "note://c"},
	}}, nil)
	var out strings.Builder
	_ = stdio.Serve(context.Background(), s, strings.NewReader(line+"\n"), &out, stdio.Options{})
	fmt.Print(out.String())
	// Output:
	// {"error":{"code":-32602,"message":"Invalid params: notifications.resourceSubscriptions has 3 entries, more than the limit of 2"},"id":1,"jsonrpc":"2.0"}
}
