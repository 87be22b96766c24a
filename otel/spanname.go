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

// nameCache maps a target to its span name.
type nameCache struct {
	m sync.Map // string → string
	n atomic.Int32
}

func (c *nameCache) get(method, target string) string {
	if v, ok := c.m.Load(target); ok {
		return v.(string)
	}
	name := method + " " + target
	if c.n.Load() < maxCachedNames {
		if _, loaded := c.m.LoadOrStore(target, name); !loaded {
			c.n.Add(1)
		}
	}
	return name
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
