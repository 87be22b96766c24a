package server_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/server/internal/testkit"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) { testkit.VerifyNoLeaks(m) }
