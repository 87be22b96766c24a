//go:build !presplit

package callcost

import (
	"net/http"

	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// newHandler is the one line that differs before and after the split.
func newHandler(s *server.Server) http.Handler { return streamhttp.Handler(s, streamhttp.Options{}) }
