package server

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
)

// Header names of the Streamable HTTP transport (compared without regard
// to case, as net/http canonicalises them; R-HDR-09).
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderParamPrefix     = "Mcp-Param-"
)

// canonical returns the spelling net/http stores a header under, so that
// the lookup need not convert it on every request.
func canonical(name string) string {
	if name == HeaderProtocolVersion {
		return "Mcp-Protocol-Version"
	}
	return name
}

// headerValue returns the single value of a header, trimmed of
// surrounding white space, and whether it was present exactly once with
// only allowed characters (visible ASCII, space, tab; R-HDR-06).
func headerValue(h headerGetter, name string) (string, bool, *Error) {
	vs := h.Values(canonical(name))
	if len(vs) == 0 {
		return "", false, nil
	}
	if len(vs) > 1 {
		return "", true, headerMismatch("Header " + name + " is repeated")
	}
	v := strings.Trim(vs[0], " \t")
	for i := 0; i < len(v); i++ {
		c := v[i]
		if (c < 0x21 || c > 0x7e) && c != ' ' && c != '\t' {
			return "", true, headerMismatch("Header " + name + " has an invalid character")
		}
	}
	return v, true, nil
}

// decodeSentinel decodes a "=?base64?...?=" value (R-HDR-05); ok is false
// for malformed base64, which counts as a mismatch.
func decodeSentinel(v string) (string, bool) {
	if !strings.HasPrefix(v, "=?base64?") || !strings.HasSuffix(v, "?=") || len(v) < len("=?base64??=") {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2])
	if err != nil {
		return "", false
	}
	return string(b), true
}

// checkHeaders compares the standard headers with the body (R-HDR-01..05).
func checkHeaders(h headerGetter, method, version, name string) *Error {
	v, ok, e := headerValue(h, HeaderProtocolVersion)
	switch {
	case e != nil:
		return e
	case !ok:
		return headerMismatch("Missing " + HeaderProtocolVersion + " header")
	case v != version:
		return headerMismatch(HeaderProtocolVersion + " header does not match _meta protocolVersion")
	}
	v, ok, e = headerValue(h, HeaderMethod)
	switch {
	case e != nil:
		return e
	case !ok:
		return headerMismatch("Missing " + HeaderMethod + " header")
	case v != method:
		return headerMismatch(HeaderMethod + " header does not match the method")
	}
	switch method {
	case protocol.MethodToolsCall, protocol.MethodPromptsGet, protocol.MethodResourcesRead,
		"tasks/get", "tasks/update", "tasks/cancel": // R-TASK-16
		v, ok, e = headerValue(h, HeaderName)
		if e != nil {
			return e
		}
		if !ok {
			return headerMismatch("Missing " + HeaderName + " header")
		}
		dec, good := decodeSentinel(v)
		if !good || dec != name {
			return headerMismatch(HeaderName + " header does not match the body")
		}
	}
	return nil
}

// checkParamHeaders checks the Mcp-Param-* headers of a tool's
// x-mcp-header arguments (R-HDR-07, R-HDR-08): an argument present and not
// null needs its header, equal after decoding; integers compare
// numerically.
func checkParamHeaders(params []headerParam, args any, h headerGetter) *Error {
	for _, p := range params {
		val, present := lookupPath(args, p.path)
		hv, ok, e := headerValue(h, HeaderParamPrefix+p.name)
		if e != nil {
			return e
		}
		if !present || val == nil {
			continue
		}
		if !ok {
			return headerMismatch("Missing " + HeaderParamPrefix + p.name + " header")
		}
		dec, good := decodeSentinel(hv)
		if !good || !paramEqual(val, dec) {
			return headerMismatch(HeaderParamPrefix + p.name + " header does not match the argument")
		}
	}
	return nil
}

func lookupPath(v any, path []string) (any, bool) {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func paramEqual(val any, header string) bool {
	switch x := val.(type) {
	case string:
		return x == header
	case bool:
		return strconv.FormatBool(x) == header
	case json.Number:
		a, err1 := strconv.ParseFloat(string(x), 64)
		b, err2 := strconv.ParseFloat(header, 64)
		return err1 == nil && err2 == nil && a == b && !math.IsInf(a, 0)
	}
	return false
}
