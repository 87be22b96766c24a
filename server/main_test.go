package server

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them:
// handlers, listen streams, brokers and stdio readers must all end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// The HTTP client's idle connections are closed by the tests'
		// servers, but their read loops may still be winding down.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
	)
}
