package legacy

import (
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// legacyExtsKey is the key under which a Server keeps its extensions that
// serve legacy sessions (server.Adapter.Shared).
type legacyExtsKey struct{}

// legacyExts are the extensions of one Server that serve legacy sessions,
// with the settings a 2025-11-25 initialize result advertises.
type legacyExts struct {
	mu sync.RWMutex
	m  map[string]protocol.JSONObject
}

// ServeExtension makes the extension id, which s serves (WithExtension),
// usable in legacy sessions too, with settings advertised as a 2026-07-28
// request's server/discover advertises them (nil means {}). The 2025-11-25
// schema has no capabilities.extensions, but clients built on the
// TypeScript SDK 2.x send one in their initialize and read one in its
// result, the MCP Apps extension's clients among them. From then on:
//
//   - a 2025-11-25 initialize that declares the extension in
//     capabilities.extensions (a JSON object) makes the session's
//     requests declare it: Request.Declares and Request.ClientExtension
//     read it as in a 2026-07-28 request; a declaration of it that is
//     no JSON object is refused (-32602), while the other members of
//     capabilities.extensions, whatever their values, are dropped unread,
//     and an extensions member that is no object is taken as absent;
//   - the result of a 2025-11-25 initialize advertises it under
//     capabilities.extensions.
//
// An initialize of an older revision neither declares nor sees it, and
// every other extension stays out of legacy sessions (the tasks
// extension is another protocol than 2025-11-25's tasks). Sessions opened
// before the call are not changed. It fails for an extension s does not
// serve, and for settings that are not a JSON object.
func ServeExtension(s *server.Server, id string, settings protocol.JSONObject) error {
	if !s.HasExtension(id) {
		return fmt.Errorf("legacy: extension %s is not on this server (server.WithExtension)", id)
	}
	if settings == nil {
		settings = protocol.JSONObject("{}")
	}
	var check protocol.ServerCapabilities
	if err := protocol.Unmarshal([]byte(`{"extensions":{"x":`+string(settings)+`}}`), &check); err != nil {
		return errors.New("legacy: extension " + id + ": settings are not a JSON object")
	}
	x := servedExtensions(s.Adapter())
	x.mu.Lock()
	defer x.mu.Unlock()
	x.m[id] = settings
	return nil
}

// servedExtensions returns the Server's extensions that serve legacy
// sessions.
func servedExtensions(a *server.Adapter) *legacyExts {
	return a.Shared(legacyExtsKey{}, func() any { return &legacyExts{m: map[string]protocol.JSONObject{}} }).(*legacyExts)
}

// snapshot returns the ids (for the capability conversion) and the
// settings (for the initialize result), or nils when there are none.
func (x *legacyExts) snapshot() (map[string]bool, map[string]protocol.JSONObject) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if len(x.m) == 0 {
		return nil, nil
	}
	ids := make(map[string]bool, len(x.m))
	for id := range x.m {
		ids[id] = true
	}
	return ids, maps.Clone(x.m)
}
