package streamhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// Behind a reverse proxy every connection comes from the proxy: ClientKey
// names the client by the address the proxy appends to X-Forwarded-For
// (its last entry). Only a proxy you trust may be believed: a client
// writes whatever it likes in the header, which the proxy keeps in front
// of what it appends.
func ExampleOptions_clientKey() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"},
		server.WithRateLimit(0.001, 1)) // one tools/call per client, for the example
	tool := protocol.Tool{Name: "hello"}
	tool.InputSchema.Extra = protocol.Members{{Name: "properties", Value: json.RawMessage(`{}`)}}
	_ = s.AddTool(tool, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("hi"), nil
	})
	h := streamhttp.Handler(s, streamhttp.Options{
		ClientKey: func(r *http.Request) string {
			xff := r.Header.Get("X-Forwarded-For")
			return strings.TrimSpace(xff[strings.LastIndex(xff, ",")+1:]) // "" without the header: the connection's address
		},
	})
	call := func(forwardedFor string) int {
		r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(request(1, "tools/call", map[string]any{"name": "hello"}, nil)))
		r.RemoteAddr = "10.0.0.1:50000" // the proxy
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("MCP-Protocol-Version", protocol.Revision)
		r.Header.Set("Mcp-Method", "tools/call")
		r.Header.Set("Mcp-Name", "hello")
		r.Header.Set("X-Forwarded-For", forwardedFor)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	fmt.Println(call("198.51.100.7"))
	fmt.Println(call("203.0.113.9, 198.51.100.7")) // the client's own entry comes first: ignored
	fmt.Println(call("2001:db8:0:1::1"))
	fmt.Println(call("2001:db8:0:1::2")) // the same /64 (HTTPOptions.IPv6PrefixLen)
	// Output:
	// 200
	// 429
	// 200
	// 429
}

func ExampleHandler() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	h := streamhttp.Handler(s, streamhttp.Options{}) // serves loopback Hosts and Origins only
	// In a program: http.ListenAndServe("127.0.0.1:8080", h) on path /mcp.

	body := request(1, "server/discover", nil, nil)
	r := httptest.NewRequest(http.MethodPost, "http://localhost:8080/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("MCP-Protocol-Version", protocol.Revision) // mirrors _meta
	r.Header.Set("Mcp-Method", "server/discover")           // mirrors method
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	fmt.Println(w.Code, w.Header().Get("Content-Type"))
	fmt.Println(w.Body.String())

	// The same request without its headers is refused (R-HDR-03).
	r = httptest.NewRequest(http.MethodPost, "http://localhost:8080/mcp", strings.NewReader(body))
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	fmt.Println(w.Code, w.Body.String())
	// Output:
	// 200 application/json
	// {"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1.0.0"}},"cacheScope":"private","capabilities":{"logging":{}},"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"ttlMs":0}}
	// 400 {"error":{"code":-32020,"message":"Missing MCP-Protocol-Version header"},"id":1,"jsonrpc":"2.0"}
}
