package mcpotel

import (
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// maxCachedNames bounds the span names kept per method: tool and prompt
// names come from the client, so an unknown name must not grow the
// cache without end.
const maxCachedNames = 1024

// spanNames builds span names, "{mcp.method.name} {target}" with the tool
// or prompt name as target and the method alone otherwise, keeping the
// names of the first maxCachedNames targets of each method so that a
// request usually costs no allocation for its name.
type spanNames struct {
	tools, prompts nameCache
}

// nameCache maps a target to its span name; last is the name built or
// found last, checked before the map.
type nameCache struct {
	last atomic.Pointer[cachedName]
	m    sync.Map // string → *cachedName
	n    atomic.Int32
}

// cachedName is a target and its span name.
type cachedName struct{ target, name string }

func (c *nameCache) get(method, target string) string {
	if e := c.last.Load(); e != nil && e.target == target {
		return e.name
	}
	if v, ok := c.m.Load(target); ok {
		e := v.(*cachedName)
		c.last.Store(e)
		return e.name
	}
	e := &cachedName{target: target, name: method + " " + target}
	if c.n.Load() < maxCachedNames {
		if _, loaded := c.m.LoadOrStore(target, e); !loaded {
			c.n.Add(1)
		}
	}
	return e.name
}

// spanName returns the span name of r.
func (s *spanNames) spanName(r *server.Request) string {
	switch r.Method {
	case protocol.MethodToolsCall:
		if n := r.Name(); n != "" {
			return s.tools.get(r.Method, n)
		}
	case protocol.MethodPromptsGet:
		if n := r.Name(); n != "" {
			return s.prompts.get(r.Method, n)
		}
	}
	return r.Method
}
