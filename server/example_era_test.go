package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// A dual-era server serves 2026-07-28 requests as before and advertises
// the legacy versions it serves beside 2026-07-28.
func ExampleWithEras() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"},
		server.WithEras(server.ErasBoth))
	h := s.Handler(server.HTTPOptions{})

	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(request(1, "server/discover", nil, nil)))
	r.Host = "localhost"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("MCP-Protocol-Version", protocol.Revision)
	r.Header.Set("Mcp-Method", "server/discover")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	body := w.Body.String()
	fmt.Println(w.Code, body[strings.Index(body, `"supportedVersions"`):strings.Index(body, "]")+1])
	// Output:
	// 200 "supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]
}
