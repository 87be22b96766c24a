package streamhttp_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/server/internal/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyNoLeaks(m) }
