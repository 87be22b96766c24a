package legacy

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// AppendResult appends to dst the JSON of res as revision r declares it:
// res is a pointer to the result of a client request, either a protocol
// type (*protocol.CallToolResult, *protocol.ListToolsResult, …) as a
// handler or the registry built it, or *mcp20251125.InitializeResult or
// *mcp20251125.Result for the methods only legacy sessions have.
//
// The hand rules run first on a copy (H2 serverInfo, H4 structured output,
// H1 tool schemas), then the generated zero functions clear on a copy what
// r does not declare (H3 content fallbacks on the way), the modern encoder
// writes the value, and the envelope members no legacy revision has
// (resultType, ttlMs, cacheScope) are removed from the top level. res is
// never modified; what it shares with the registry (tool definitions) is
// copied before anything in it changes.
//
// An *protocol.InputRequiredResult is refused: in a session the bridge
// consumes it (H8). On error nothing is appended.
func AppendResult(dst []byte, r Rev, res any) ([]byte, error) {
	return AppendResultTrusting(dst, r, res, nil)
}

// AppendResultTrusting is AppendResult, with raw JSON of res that the
// encoder need not validate again (protocol.MarshalOptions.Trusted).
func AppendResultTrusting(dst []byte, r Rev, res any, trusted []byte) ([]byte, error) {
	if !r.Valid() {
		return dst, fmt.Errorf("legacy: invalid revision %d", uint8(r))
	}
	v, err := resultRules(res, r)
	if err != nil {
		return dst, err
	}
	z, ok, err := zeroRoot(v, r)
	if err != nil {
		return dst, err
	}
	if !ok || z.kind != "result" {
		return dst, fmt.Errorf("legacy: %T is not a result the server sends in a session", res)
	}
	return appendZeroed(dst, z, trusted)
}

// AppendNotification appends the JSON-RPC notification n (a pointer to a
// protocol notification type the server sends: *protocol.ProgressNotification,
// *protocol.LoggingMessageNotification, *protocol.CancelledNotification,
// *protocol.ResourceUpdatedNotification and the three list_changed
// notifications) as revision r declares it. list_changed notifications are
// sent without params and resources/updated without the modern
// subscriptionId (H7). n is never modified.
func AppendNotification(dst []byte, r Rev, n any) ([]byte, error) {
	if !r.Valid() {
		return dst, fmt.Errorf("legacy: invalid revision %d", uint8(r))
	}
	v, done, err := notificationRules(n)
	if err != nil || done != "" {
		if done != "" {
			dst = append(dst, `{"jsonrpc":"2.0","method":`...)
			dst = appendString(dst, done)
			dst = append(dst, '}')
		}
		return dst, err
	}
	z, ok, err := zeroRoot(v, r)
	if err != nil {
		return dst, err
	}
	if !ok || z.kind != "notification" {
		return dst, fmt.Errorf("legacy: %T is not a notification the server sends in a session", n)
	}
	return appendZeroed(dst, z, nil)
}

// appendZeroed encodes the outcome of the zero pass and strips its
// envelope members; trusted is raw JSON not to validate again.
func appendZeroed(dst []byte, z zeroed, trusted []byte) ([]byte, error) {
	start := len(dst)
	var err error
	if z.legacyPkg {
		dst, err = mcp20251125.MarshalOptions{Trusted: trusted}.AppendMarshal(dst, z.v)
	} else {
		dst, err = protocol.MarshalOptions{Trusted: trusted}.AppendMarshal(dst, z.v)
	}
	if err != nil {
		return dst[:start], err
	}
	if len(z.strip) > 0 {
		if n, ok := stripTail(dst[start:], z.v); ok {
			return dst[:start+n], nil
		}
		kept, err := stripMembers(dst[start:], z.strip)
		if err != nil {
			return dst[:start], err
		}
		dst = dst[:start+len(kept)]
	}
	return dst, nil
}

// stripTail is the fast path of the envelope strip for the results whose
// only envelope member is resultType: members are written in name order,
// undeclared ones after, so without undeclared members resultType is the
// last member, or (a tool result) the one before structuredContent. The
// encoding then ends with ,"resultType":"…"} or
// ,"resultType":"…","structuredContent":…} and the member is cut out
// without reading the rest. It returns the new length, or false when the
// fast path does not apply (the bytes are checked, not assumed).
func stripTail(obj []byte, v any) (int, bool) {
	var rt string
	var sc []byte
	switch x := v.(type) {
	case *protocol.CallToolResult:
		if len(x.Extra) > 0 {
			return 0, false
		}
		rt, sc = x.ResultType, x.StructuredContent
	case *protocol.GetPromptResult:
		if len(x.Extra) > 0 {
			return 0, false
		}
		rt = x.ResultType
	case *protocol.CompleteResult:
		if len(x.Extra) > 0 {
			return 0, false
		}
		rt = x.ResultType
	default:
		return 0, false
	}
	for i := 0; i < len(rt); i++ {
		if c := rt[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return 0, false // the encoder may have escaped it: take the slow path
		}
	}
	// tail is what follows the member: "}" or ,"structuredContent":…}
	tail := len(`}`)
	if sc != nil {
		const key = `,"structuredContent":`
		tail = len(key) + len(sc) + 1
		if tail > len(obj) || string(obj[len(obj)-tail:len(obj)-tail+len(key)]) != key ||
			!bytes.Equal(obj[len(obj)-tail+len(key):len(obj)-1], sc) || obj[len(obj)-1] != '}' {
			return 0, false
		}
	} else if len(obj) == 0 || obj[len(obj)-1] != '}' {
		return 0, false
	}
	const pre = `,"resultType":"`
	end := len(obj) - tail // the member ends here
	n := end - len(`"`) - len(rt) - len(pre)
	if n < 1 || obj[end-1] != '"' || string(obj[n:n+len(pre)]) != pre || string(obj[n+len(pre):end-1]) != rt {
		return 0, false
	}
	copy(obj[n:], obj[end:])
	return n + tail, true
}

// stripMembers removes the top-level members named in names from the JSON
// object obj, in place, and returns the shortened object. obj is the output
// of the generated encoder: one valid JSON object.
func stripMembers(obj []byte, names []string) ([]byte, error) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, fmt.Errorf("legacy: encoded result is not an object")
	}
	i++
	w := i        // write position: obj[:w] is the kept prefix
	first := true // nothing kept after '{' yet
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return nil, errTruncated
		}
		if obj[i] == '}' {
			n := copy(obj[w:], obj[i:])
			return obj[:w+n], nil
		}
		if obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
		start := i
		end, err := skipString(obj, i)
		if err != nil {
			return nil, err
		}
		key := obj[start:end]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return nil, errTruncated
		}
		if i, err = skipValue(obj, skipSpace(obj, i+1)); err != nil {
			return nil, err
		}
		if matchKey(key, names) {
			continue
		}
		if !first {
			obj[w] = ','
			w++
		}
		w += copy(obj[w:], obj[start:i])
		first = false
	}
}

// matchKey reports whether key, a JSON string with its quotes, is one of
// names (which need no escaping).
func matchKey(key []byte, names []string) bool {
	if len(key) < 2 {
		return false
	}
	k := key[1 : len(key)-1]
	for _, n := range names {
		if string(k) == n {
			return true
		}
	}
	return false
}

var errTruncated = fmt.Errorf("legacy: truncated JSON")

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the JSON string starting at b[i].
// It jumps from quote to quote (bytes.IndexByte), and a quote ends the
// string when an even number of backslashes precedes it.
func skipString(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, fmt.Errorf("legacy: want a string at offset %d", i)
	}
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errTruncated
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipValue returns the index after the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errTruncated
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errTruncated
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i, nil
		}
	}
	return i, nil
}

// appendString appends s as a JSON string; s is a method name or another
// string of the runtime's own.
func appendString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b...)
}
