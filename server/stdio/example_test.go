package stdio_test

import (
	"bufio"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/stdio"
)

func ExampleServe() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	_ = s.AddResource(protocol.Resource{URI: "note://today", Name: "today"},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.TextContents(uri, "text/plain", "Buy milk."), nil
		})
	input := strings.Join([]string{
		request(1, "resources/read", map[string]any{"uri": "note://today"}, nil),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
		`this is not JSON`,
		request(2, "resources/read", map[string]any{"uri": "note://tomorrow"}, nil),
	}, "\n")
	var out strings.Builder
	if err := stdio.Serve(context.Background(), s, strings.NewReader(input), &out, stdio.Options{}); err != nil {
		fmt.Println(err)
	}
	// Requests run concurrently: sort the lines to print them in a fixed order.
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	// Output:
	// {"error":{"code":-32602,"data":{"uri":"note://tomorrow"},"message":"Resource not found"},"id":2,"jsonrpc":"2.0"}
	// {"error":{"code":-32700,"message":"Parse error: invalid literal"},"jsonrpc":"2.0"}
	// {"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1.0.0"}},"cacheScope":"private","contents":[{"mimeType":"text/plain","text":"Buy milk.","uri":"note://today"}],"resultType":"complete","ttlMs":0}}
}
