package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcpwire/mcpwire/server/internal/validate"
)

// Header names of the Streamable HTTP transport (compared without regard
// to case, as net/http canonicalises them; R-HDR-09).
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderParamPrefix     = "Mcp-Param-"
)

// The spellings net/http stores the standard headers under: the map is
// read directly, without converting the name on every request.
const (
	keyProtocolVersion = "Mcp-Protocol-Version"
	keyMethod          = "Mcp-Method"
	keyName            = "Mcp-Name"
)

// headerValue returns the single value of the header stored under the
// canonical key (name is its spelling in messages), trimmed of
// surrounding white space, and whether it was present exactly once with
// only allowed characters (visible ASCII, space, tab; R-HDR-06).
func headerValue(h http.Header, key, name string) (string, bool, *Error) {
	vs := h[key]
	if len(vs) == 0 {
		return "", false, nil
	}
	if len(vs) > 1 {
		return "", true, HeaderMismatch("Header " + name + " is repeated")
	}
	v := trimSpaceTab(vs[0])
	if !headerChars(v) {
		return "", true, HeaderMismatch("Header " + name + " has an invalid character")
	}
	return v, true, nil
}

// headerChars reports a value of visible ASCII, spaces and tabs alone,
// passing eight bytes at a time while none is a tab or outside 0x20 to
// 0x7e: a byte below 0x20 borrows into its high bit, one above 0x7e
// carries into it or has it (TestHeaderChars compares the byte loop).
func headerChars(v string) bool {
	i := 0
	for ; len(v)-i >= 8; i += 8 {
		w := v[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 | uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		if ((x-0x2020202020202020)|(x+0x0101010101010101)|x)&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(v); i++ {
		if c := v[i]; (c < 0x21 || c > 0x7e) && c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// trimSpaceTab trims spaces and tabs from both ends of v.
func trimSpaceTab(v string) string {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		v = v[:len(v)-1]
	}
	return v
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
// read is the MCP-Protocol-Version the transport read (Exchange.ProtocolVersion).
//
// named says whether the method has an Mcp-Name header: tools/call,
// prompts/get, resources/read, and an extension's method with a
// NameMember (tasks/get, R-TASK-16).
func checkHeaders(h http.Header, method, version, name string, named bool, read string) *Error {
	v, ok, e := read, true, (*Error)(nil)
	if read == "" {
		v, ok, e = headerValue(h, keyProtocolVersion, HeaderProtocolVersion)
	}
	switch {
	case e != nil:
		return e
	case !ok:
		return HeaderMismatch("Missing " + HeaderProtocolVersion + " header")
	case v != version:
		return HeaderMismatch(HeaderProtocolVersion + " header does not match _meta protocolVersion")
	}
	v, ok, e = headerValue(h, keyMethod, HeaderMethod)
	switch {
	case e != nil:
		return e
	case !ok:
		return HeaderMismatch("Missing " + HeaderMethod + " header")
	case v != method:
		return HeaderMismatch(HeaderMethod + " header does not match the method")
	}
	if named {
		v, ok, e = headerValue(h, keyName, HeaderName)
		if e != nil {
			return e
		}
		if !ok {
			return HeaderMismatch("Missing " + HeaderName + " header")
		}
		dec, good := decodeSentinel(v)
		if !good || dec != name {
			return HeaderMismatch(HeaderName + " header does not match the body")
		}
	}
	return nil
}

// checkParamHeaders checks the Mcp-Param-* headers of a tool's
// x-mcp-header arguments (R-HDR-07, R-HDR-08): an argument present and not
// null needs its header, equal after decoding; integers compare
// numerically.
func checkParamHeaders(params []headerParam, args any, h http.Header) *Error {
	for _, p := range params {
		val, present := validate.LookupPath(args, p.path)
		hv, ok, e := headerValue(h, p.key, HeaderParamPrefix+p.name)
		if e != nil {
			return e
		}
		if !present || val == nil {
			continue
		}
		if !ok {
			return HeaderMismatch("Missing " + HeaderParamPrefix + p.name + " header")
		}
		dec, good := decodeSentinel(hv)
		if !good || !validate.ScalarEquals(val, dec) {
			return HeaderMismatch(HeaderParamPrefix + p.name + " header does not match the argument")
		}
	}
	return nil
}

// HeaderValue returns the single value of a header in h, trimmed of
// surrounding white space, and whether it is present: key is the name as
// net/http stores it (textproto.CanonicalMIMEHeaderKey of it, computed
// once by the caller), name its spelling in messages. A header that is
// repeated or has a character outside visible ASCII, space and tab
// (R-HDR-06) is present and refused with -32020.
func HeaderValue(h http.Header, key, name string) (string, bool, *Error) {
	return headerValue(h, key, name)
}

// DecodeHeaderValue decodes a standard header's value: the text of an
// =?base64?…?= sentinel (R-HDR-05), any other value as it is; ok is false
// for a sentinel that does not decode.
func DecodeHeaderValue(v string) (string, bool) { return decodeSentinel(v) }

// checkPresentParamHeaders is CheckToolCall's header check.
func checkPresentParamHeaders(t *tool, args json.RawMessage, h http.Header, lim validate.Limits) *Error {
	if len(t.headers) == 0 {
		return nil
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	inst, err := validate.ParseValue(context.Background(), args, lim)
	if err != nil {
		return nil
	}
	for _, p := range t.headers {
		hv, ok, e := headerValue(h, p.key, HeaderParamPrefix+p.name)
		if e != nil {
			return e
		}
		if !ok {
			continue
		}
		val, present := validate.LookupPath(inst, p.path)
		dec, good := decodeSentinel(hv)
		if !present || val == nil || !good || !validate.ScalarEquals(val, dec) {
			return HeaderMismatch(HeaderParamPrefix + p.name + " header does not match the argument")
		}
	}
	return nil
}
