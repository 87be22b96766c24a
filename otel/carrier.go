package mcpotel

import (
	"bytes"
	"encoding/json"

	"github.com/mcpwire/mcpwire/protocol"
)

// metaCarrier reads the trace context members of a request's _meta:
// members whose values are JSON strings. It is read-only. It holds a
// pointer only, so that passing it as an interface does not allocate.
type metaCarrier struct{ m *protocol.Members }

// Get returns the string value of the member key, "" when it is absent
// or not a JSON string.
func (c metaCarrier) Get(key string) string {
	raw, ok := c.m.Get(key)
	if !ok {
		return ""
	}
	return jsonString(raw)
}

// Set does nothing: a request's _meta is not the middleware's to change.
func (c metaCarrier) Set(string, string) {}

// Keys returns the names of the members.
func (c metaCarrier) Keys() []string {
	keys := make([]string, len(*c.m))
	for i, x := range *c.m {
		keys[i] = x.Name
	}
	return keys
}

// has reports whether any of fields is a member.
func (c metaCarrier) has(fields []string) bool {
	for _, x := range *c.m {
		for _, f := range fields {
			if x.Name == f {
				return true
			}
		}
	}
	return false
}

// jsonString decodes a JSON string; anything else is "".
func jsonString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return ""
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// setCarrier writes what a propagator injects through the set func of
// server.WithNotificationMeta.
type setCarrier func(key, value string)

// Get returns "": the carrier only writes.
func (setCarrier) Get(string) string { return "" }

// Set passes the member on.
func (f setCarrier) Set(key, value string) { f(key, value) }

// Keys returns nil: the carrier only writes.
func (setCarrier) Keys() []string { return nil }
