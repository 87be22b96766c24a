package legacy_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// sharedSessions stands for a shared SessionStore (a Redis one, say): any
// store that is not the in-memory one.
type sharedSessions struct{ *legacy.MemorySessionStore }

// TestNewWarnsLocalEventStore: New warns when the legacy sessions are in a
// shared store but their event logs stay in this process (§7.2, §7.4: a
// resumer may reach another instance; hostile review defect 7), and stays
// quiet when both are in memory or both are shared, or resumability is off.
func TestNewWarnsLocalEventStore(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  legacy.Config
		warn bool
	}{
		{"memory sessions, memory events", legacy.Config{}, false},
		{"shared sessions, memory events", legacy.Config{Store: sharedSessions{legacy.NewMemorySessionStore()}}, true},
		{"shared sessions, explicit memory events", legacy.Config{Store: sharedSessions{legacy.NewMemorySessionStore()}, EventStore: legacy.NewMemoryEventStore(0)}, true},
		{"shared sessions, no resumability", legacy.Config{Store: sharedSessions{legacy.NewMemorySessionStore()}, ReplayRetention: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			_, err := NewWithEras(protocol.Implementation{Name: "test", Version: "1.0.0"},
				Eras(legacy.ErasBoth), Legacy(tc.cfg), server.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(logs.String(), "set legacy.Config.EventStore"); got != tc.warn {
				t.Errorf("warning logged: %v, want %v: %s", got, tc.warn, logs.String())
			}
		})
	}
}
