//go:build presplit

package callcost

import (
	"net/http"

	"github.com/mcpwire/mcpwire/server"
)

// newHandler is the one line that differs before and after the split:
// before it, the Server had its own Handler.
func newHandler(s *server.Server) http.Handler { return s.Handler(server.HTTPOptions{}) }
