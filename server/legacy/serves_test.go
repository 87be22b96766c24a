package legacy

import (
	"slices"
	"testing"

	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
)

// TestServesLegacy checks servesLegacy's bit sets against the rule they
// encode (L3, L4): one of the methods a session is served, completion
// only with a completion handler, and a client request of the revision,
// for every method of every revision and a few others, with every
// revision served or only some.
func TestServesLegacy(t *testing.T) {
	served := []string{mcp20251125.MethodPing, mcp20251125.MethodToolsList, mcp20251125.MethodToolsCall,
		mcp20251125.MethodPromptsList, mcp20251125.MethodPromptsGet,
		mcp20251125.MethodResourcesList, mcp20251125.MethodResourcesTemplatesList, mcp20251125.MethodResourcesRead,
		mcp20251125.MethodResourcesSubscribe, mcp20251125.MethodResourcesUnsubscribe, mcp20251125.MethodLoggingSetLevel,
		mcp20251125.MethodCompletionComplete}
	methods := []string{"", "initialize", "tasks/get", "tools/CALL", "x"}
	for _, r := range legacy.Revisions() {
		m := legacy.MessagesOf(r)
		methods = append(methods, m.ClientRequests...)
		methods = append(methods, m.ClientNotifications...)
		methods = append(methods, m.ServerRequests...)
	}
	for _, versions := range [][]string{nil, {"2025-11-25"}, {"2024-11-05", "2025-06-18"}} {
		for _, completion := range []bool{false, true} {
			c := config{legacy: Config{Versions: versions}, completion: completion}
			if err := c.legacyDefaults(); err != nil {
				t.Fatal(err)
			}
			s := &Era{cfg: c}
			for _, r := range legacy.Revisions() {
				for _, method := range methods {
					want := slices.Contains(served, method) && (completion || method != mcp20251125.MethodCompletionComplete) &&
						slices.Contains(c.legacyRevs, r) && slices.Contains(legacy.MessagesOf(r).ClientRequests, method)
					if got := s.servesLegacy(r, method); got != want {
						t.Errorf("versions %v, completion %v: servesLegacy(%s, %q) = %v, want %v", versions, completion, r, method, got, want)
					}
				}
			}
		}
	}
}
