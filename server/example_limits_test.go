package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// Behind a reverse proxy every connection comes from the proxy: ClientKey
// names the client by the address the proxy appends to X-Forwarded-For
// (its last entry). Only a proxy you trust may be believed: a client
// writes whatever it likes in the header, which the proxy keeps in front
// of what it appends.
func ExampleHTTPOptions_clientKey() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"},
		server.WithRateLimit(0.001, 1)) // one tools/call per client, for the example
	tool := protocol.Tool{Name: "hello"}
	tool.InputSchema.Extra = protocol.Members{{Name: "properties", Value: json.RawMessage(`{}`)}}
	_ = s.AddTool(tool, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("hi"), nil
	})
	h := s.Handler(server.HTTPOptions{
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

// A client may hold two listen streams at once here; a third is refused
// with the rate-limited answer until one of them ends.
func ExampleWithMaxListenStreams() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"},
		server.WithMaxListenStreams(2, 1000)) // 2 per principal or client address, 1000 in all
	srv := httptest.NewServer(s.Handler(server.HTTPOptions{AllowedHosts: []string{"127.0.0.1"}}))
	defer srv.Close()
	listen := func() *http.Response {
		body := request(1, "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, nil)
		r, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("MCP-Protocol-Version", protocol.Revision)
		r.Header.Set("Mcp-Method", "subscriptions/listen")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			panic(err)
		}
		return resp
	}
	for range 2 {
		resp := listen()
		defer resp.Body.Close()
		ack, _ := bufio.NewReader(resp.Body).ReadString('\n') // the acknowledgement's event line
		fmt.Print(resp.StatusCode, " ", ack)
	}
	resp := listen()
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Retry-After"), string(b))
	// Output:
	// 200 event: message
	// 200 event: message
	// 429 10 {"error":{"code":-31429,"data":{"retryAfterMs":10000},"message":"Too many listen streams (at most 2 per client address); close one or retry later"},"id":1,"jsonrpc":"2.0"}
}
