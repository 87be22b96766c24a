//go:build attack

// Command fsclient sends one 2026-07-28 tools/call (or any method) to an MCP
// HTTP endpoint and prints status, time and the (possibly truncated) body.
//
//	fsclient URL METHOD NAME 'JSON-params-without-_meta' (or @file)
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"atk","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

func main() {
	url, method, name, params := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	if strings.HasPrefix(params, "@") {
		b, err := os.ReadFile(params[1:])
		if err != nil {
			panic(err)
		}
		params = string(b)
	}
	p := strings.TrimSpace(params)
	p = strings.TrimSuffix(p, "}")
	if strings.TrimSpace(p) != "{" {
		p += ","
	}
	p += meta + "}"
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + p + `}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	t := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println("ERR", err, time.Since(t))
		os.Exit(1)
	}
	b, _ := io.ReadAll(resp.Body)
	max := 1500
	if s := os.Getenv("MAX"); s != "" {
		fmt.Sscan(s, &max)
	}
	out := string(b)
	if len(out) > max {
		out = out[:max] + fmt.Sprintf("...(%d bytes)", len(b))
	}
	fmt.Printf("%d %v\n%s\n", resp.StatusCode, time.Since(t).Round(time.Millisecond), out)
}
