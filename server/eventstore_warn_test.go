package server

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// sharedSessions stands for a shared SessionStore (a Redis one, say): any
// store that is not the in-memory one.
type sharedSessions struct{ *MemorySessionStore }

// TestNewWarnsLocalEventStore: New warns when the legacy sessions are in a
// shared store but their event logs stay in this process (§7.2, §7.4: a
// resumer may reach another instance; hostile review defect 7), and stays
// quiet when both are in memory or both are shared, or resumability is off.
func TestNewWarnsLocalEventStore(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  LegacyConfig
		warn bool
	}{
		{"memory sessions, memory events", LegacyConfig{}, false},
		{"shared sessions, memory events", LegacyConfig{Store: sharedSessions{NewMemorySessionStore()}}, true},
		{"shared sessions, explicit memory events", LegacyConfig{Store: sharedSessions{NewMemorySessionStore()}, EventStore: NewMemoryEventStore(0)}, true},
		{"shared sessions, no resumability", LegacyConfig{Store: sharedSessions{NewMemorySessionStore()}, ReplayRetention: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			_, err := New(protocol.Implementation{Name: "test", Version: "1.0.0"},
				WithEras(ErasBoth), WithLegacy(tc.cfg), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(logs.String(), "set LegacyConfig.EventStore"); got != tc.warn {
				t.Errorf("warning logged: %v, want %v: %s", got, tc.warn, logs.String())
			}
		})
	}
}
