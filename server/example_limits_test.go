package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// A client may hold two listen streams at once here; a third is refused
// with the rate-limited answer until one of them ends.
func ExampleWithMaxListenStreams() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"},
		server.WithMaxListenStreams(2, 1000)) // 2 per principal or client address, 1000 in all
	srv := httptest.NewServer(streamhttp.Handler(s, streamhttp.Options{AllowedHosts: []string{"127.0.0.1"}}))
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
