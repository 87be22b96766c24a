package mcpotel

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// other stands for a name the server does not have (an unknown tool,
// prompt or resource), in span names and attribute values, as the
// semantic conventions' "_OTHER" does for an unknown HTTP method: such a
// name is the client's choice, and keeping it would let any client grow
// the span-name cache and the histogram's series, and fill the traces
// with what it likes.
const other = "_OTHER"

// cacheEntryBytes is what an entry of a nameCache is counted for beyond
// its name's bytes: the map entry, the cachedName and its pointer.
const cacheEntryBytes = 64

// spanNames builds span names, "{mcp.method.name} {target}" with the tool
// or prompt name as target and the method alone otherwise, keeping those
// of registered tools and prompts, up to a byte budget each, so that a
// request usually costs no allocation for its name.
type spanNames struct {
	tools, prompts nameCache
}

func newSpanNames(maxBytes int) spanNames {
	return spanNames{
		tools:   nameCache{method: protocol.MethodToolsCall, other: protocol.MethodToolsCall + " " + other, budget: int64(maxBytes)},
		prompts: nameCache{method: protocol.MethodPromptsGet, other: protocol.MethodPromptsGet + " " + other, budget: int64(maxBytes)},
	}
}

// nameCache maps a target to its span name; last is the name built or
// found last, checked before the map. bytes counts what the map holds
// (names and cacheEntryBytes each), at most budget.
type nameCache struct {
	method, other string
	budget        int64
	last          atomic.Pointer[cachedName]
	m             sync.Map // string → *cachedName
	bytes         atomic.Int64
}

// cachedName is a target and its span name; target is a part of name, so
// that the bytes are held once.
type cachedName struct{ target, name string }

// get returns the span name of the method for target, a registered name
// already bounded (targetOf) or other.
func (c *nameCache) get(target string) string {
	if target == other {
		return c.other
	}
	if e := c.last.Load(); e != nil && e.target == target {
		return e.name
	}
	if v, ok := c.m.Load(target); ok {
		e := v.(*cachedName)
		c.last.Store(e)
		return e.name
	}
	name := c.method + " " + target
	e := &cachedName{target: name[len(c.method)+1:], name: name}
	cost := int64(len(name) + cacheEntryBytes)
	if c.bytes.Add(cost) <= c.budget {
		if _, loaded := c.m.LoadOrStore(e.target, e); !loaded {
			return name
		}
	}
	c.bytes.Add(-cost) // over the budget, or stored meanwhile by another request
	return name
}

// spanName returns the span name of r, whose target is target (targetOf).
func (s *spanNames) spanName(r *server.Request, target string) string {
	if target == "" {
		return r.Method
	}
	switch r.Method {
	case protocol.MethodToolsCall:
		return s.tools.get(target)
	case protocol.MethodPromptsGet:
		return s.prompts.get(target)
	}
	return r.Method
}

// targetOf returns what stands for the tool of tools/call or the prompt
// of prompts/get in the span name and the attributes: the name, bounded
// to max bytes, when the server has it (Request.Registered), else other;
// "" for other methods and for an empty name.
func targetOf(r *server.Request, max int) string {
	if r.Method != protocol.MethodToolsCall && r.Method != protocol.MethodPromptsGet {
		return ""
	}
	return registeredOr(r, max)
}

// registeredOr returns r.Name(), bounded to max bytes, when the server
// has it, other when not, "" when there is no name.
func registeredOr(r *server.Request, max int) string {
	n := r.Name()
	switch {
	case n == "":
		return ""
	case !r.Registered():
		return other
	}
	return bounded(n, max)
}

// bounded returns s cut to at most max bytes at a UTF-8 boundary, the cut
// a copy, so that the value does not keep the rest of s's bytes.
func bounded(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strings.Clone(s[:i])
}
