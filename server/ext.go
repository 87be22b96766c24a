package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
)

// extMethod is a method that an extension adds to the protocol (the tasks
// extension's tasks/get, tasks/update, tasks/cancel). Its params carry
// _meta like every request's; the handler gets them raw.
type extMethod struct {
	// nameMember is the params member that Mcp-Name mirrors over HTTP
	// ("taskId" for the tasks methods), or "".
	nameMember string
	handler    func(ctx context.Context, r *Request, params json.RawMessage) (wireResult, error)
}

// extParams carries an extension method's params through dispatch.
type extParams struct {
	raw json.RawMessage
}

// addExtensionLocked advertises an extension in capabilities.extensions
// and registers its methods. The caller holds s.mu, so that it can check
// and record its own state with the registration (enableTasks).
func (s *Server) addExtensionLocked(id string, settings protocol.JSONObject, methods map[string]extMethod) error {
	if _, dup := s.extensions[id]; dup {
		return fmt.Errorf("server: extension %s added twice", id)
	}
	if settings == nil {
		settings = protocol.JSONObject("{}")
	}
	if s.extensions == nil {
		s.extensions, s.extMethods = map[string]protocol.JSONObject{}, map[string]extMethod{}
	}
	s.extensions[id] = settings
	for m, h := range methods {
		if _, ok := protocol.LookupMethod(m); ok {
			return fmt.Errorf("server: extension method %s is a core method", m)
		}
		s.extMethods[m] = h
	}
	return nil
}

func (s *Server) extMethod(method string) (extMethod, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m, ok := s.extMethods[method]
	return m, ok
}

// declares reports whether the request's client declared the extension
// (R-VER-04: an extension is used only when declared on this request).
func (r *Request) declares(extension string) bool {
	_, ok := r.Meta.ClientCapabilities.Extensions[extension]
	return ok
}
