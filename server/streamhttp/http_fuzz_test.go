package streamhttp_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// verdict is an oracle's answer: allowed, denied, or not specified (the
// handler may do either).
type verdict int

const (
	unspecified verdict = iota
	allowed
	denied
)

var (
	// fzAuthority is host[:port] as RFC 3986 writes it (no user info).
	fzAuthority = regexp.MustCompile(`^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~%!$&'()*+,;=-]*)(:[0-9]*)?$`)
	fzOrigin    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://([^/?#@]*)$`)
)

// fzHostVerdict: a Host of valid syntax is allowed exactly when its host
// name, without brackets and port, is one of the default allowed names.
func fzHostVerdict(hostport string) verdict {
	m := fzAuthority.FindStringSubmatch(hostport)
	if m == nil {
		return unspecified
	}
	switch strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(m[1], "["), "]")) {
	case "localhost", "127.0.0.1", "::1":
		return allowed
	}
	return denied
}

// fzOriginVerdict: no Origin is allowed, "null" is denied, and an origin
// scheme://authority follows its host name.
func fzOriginVerdict(origin string) verdict {
	switch origin {
	case "":
		return allowed
	case "null":
		return denied
	}
	m := fzOrigin.FindStringSubmatch(origin)
	if m == nil {
		return unspecified
	}
	if m[1] == "" {
		return denied
	}
	return fzHostVerdict(m[1])
}

// fzContentTypeVerdict: absent or application/json (with a charset) is
// allowed, another media type is denied.
func fzContentTypeVerdict(ct string) verdict {
	if ct == "" {
		return allowed
	}
	switch strings.ToLower(ct) {
	case "application/json", "application/json; charset=utf-8", "application/json;charset=utf-8":
		return allowed
	}
	mt, _, _ := strings.Cut(ct, ";")
	if strings.ToLower(strings.TrimSpace(mt)) != "application/json" {
		return denied
	}
	return unspecified
}

// fzParamHeaders mirrors the x-mcp-header arguments of the fixture's hdr
// tool as a conforming client would.
func fzParamHeaders(body []byte) http.Header {
	h := http.Header{}
	var probe struct {
		Method string `json:"method"`
		Params struct {
			Name      any            `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if d.Decode(&probe) != nil || probe.Method != protocol.MethodToolsCall || probe.Params.Name != "hdr" {
		return h
	}
	set := func(name string, v any) {
		switch x := v.(type) {
		case string:
			h.Set(server.HeaderParamPrefix+name, HeaderText(x))
		case bool:
			h.Set(server.HeaderParamPrefix+name, strconv.FormatBool(x))
		case json.Number:
			h.Set(server.HeaderParamPrefix+name, x.String())
		}
	}
	args := probe.Params.Arguments
	set("Region", args["region"])
	set("Count", args["count"])
	set("Flag", args["flag"])
	if loc, ok := args["loc"].(map[string]any); ok {
		set("Zone", loc["zone"])
	}
	return h
}

// fzSingleHeader reads a header as R-HDR-06 wants it: present once, of
// visible ASCII, space and tab, trimmed.
func fzSingleHeader(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) != 1 {
		return "", false
	}
	v := strings.Trim(vs[0], " \t")
	for _, c := range []byte(v) {
		if (c < 0x21 || c > 0x7e) && c != ' ' && c != '\t' {
			return "", false
		}
	}
	return v, true
}

// fzDecoded is a header value after R-HDR-05's base64 sentinel.
func fzDecoded(v string) (string, bool) {
	const pre, post = "=?base64?", "?="
	if len(v) < len(pre)+len(post) || !strings.HasPrefix(v, pre) || !strings.HasSuffix(v, post) {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(v[len(pre) : len(v)-len(post)])
	return string(b), err == nil
}

// fzCheckHeadersMatched fails unless the headers of a request that got
// past the header check (R-HDR-01..08) match its body.
// withParams says whether the answer comes from past the Mcp-Param-*
// check (step 7 of the order in doc.go): a result or a handler's -32021 do,
// -32022 (step 5) does not.
func fzCheckHeadersMatched(t *testing.T, h http.Header, req *protocol.JSONRPCRequest, answer []byte, withParams bool) {
	t.Helper()
	var p struct {
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
		Name      *string         `json:"name"`
		URI       *string         `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return // not an object: cannot have passed the checks
	}
	if v, ok := fzSingleHeader(h, server.HeaderProtocolVersion); !ok || v != p.Meta.Version {
		t.Fatalf("R-HDR-01: answered %s although MCP-Protocol-Version %q does not match %q", answer, h.Values(server.HeaderProtocolVersion), p.Meta.Version)
	}
	if v, ok := fzSingleHeader(h, server.HeaderMethod); !ok || v != req.Method {
		t.Fatalf("R-HDR-02: answered %s although Mcp-Method %q does not match %q", answer, h.Values(server.HeaderMethod), req.Method)
	}
	var name *string
	switch req.Method {
	case protocol.MethodToolsCall, protocol.MethodPromptsGet:
		name = p.Name
	case protocol.MethodResourcesRead:
		name = p.URI
	}
	if name != nil {
		v, ok := fzSingleHeader(h, server.HeaderName)
		dec, good := fzDecoded(v)
		if !ok || !good || dec != *name {
			t.Fatalf("R-HDR-03: answered %s although Mcp-Name %q does not match %q", answer, h.Values(server.HeaderName), *name)
		}
	}
	if !withParams || req.Method != protocol.MethodToolsCall || p.Name == nil || *p.Name != "hdr" || len(p.Arguments) == 0 {
		return
	}
	d := json.NewDecoder(bytes.NewReader(p.Arguments))
	d.UseNumber()
	var args map[string]any
	if d.Decode(&args) != nil {
		return
	}
	check := func(header string, val any, present bool) {
		if !present || val == nil {
			return
		}
		v, ok := fzSingleHeader(h, server.HeaderParamPrefix+header)
		dec, good := fzDecoded(v)
		match := false
		switch x := val.(type) {
		case string:
			match = dec == x
		case bool:
			match = dec == strconv.FormatBool(x)
		case json.Number:
			a, err1 := strconv.ParseFloat(x.String(), 64)
			b, err2 := strconv.ParseFloat(dec, 64)
			match = err1 == nil && err2 == nil && a == b && !math.IsInf(a, 0)
		}
		if !ok || !good || !match {
			t.Fatalf("R-HDR-07: answered %s although Mcp-Param-%s %q does not match %v", answer, header, h.Values(server.HeaderParamPrefix+header), val)
		}
	}
	for _, a := range []struct{ header, arg string }{{"Region", "region"}, {"Count", "count"}, {"Flag", "flag"}} {
		v, ok := args[a.arg]
		check(a.header, v, ok)
	}
	if loc, ok := args["loc"].(map[string]any); ok {
		v, ok := loc["zone"]
		check("Zone", v, ok)
	}
}

// fzMessage decodes one message the server wrote, strictly.
func fzMessage(t *testing.T, b []byte) protocol.JSONRPCMessageValue {
	t.Helper()
	var m protocol.JSONRPCMessage
	if err := protocol.Unmarshal(b, &m); err != nil {
		t.Fatalf("the server wrote an invalid JSON-RPC message: %v: %q", err, b)
	}
	if e, ok := m.Value.(*protocol.JSONRPCErrorResponse); ok && !EmittableCode(e.Error.Code) {
		t.Fatalf("R-BASE-12..14: error code %d may not be sent: %s", e.Error.Code, b)
	}
	return m.Value
}

// fzSSE splits an event stream into its data, one data line per event.
func fzSSE(t *testing.T, body []byte) [][]byte {
	t.Helper()
	if !bytes.HasSuffix(body, []byte("\n\n")) {
		t.Fatalf("event stream does not end with an empty line: %q", body)
	}
	var out [][]byte
	for _, ev := range bytes.Split(bytes.TrimSuffix(body, []byte("\n\n")), []byte("\n\n")) {
		var data [][]byte
		for _, line := range bytes.Split(ev, []byte("\n")) {
			switch {
			case bytes.HasPrefix(line, []byte("data: ")):
				data = append(data, bytes.TrimPrefix(line, []byte("data: ")))
			case string(line) == "event: message", bytes.HasPrefix(line, []byte(":")):
			default:
				t.Fatalf("unexpected SSE line %q in %q", line, body)
			}
		}
		switch len(data) {
		case 0: // a comment only (keep-alive)
		case 1:
			out = append(out, data[0])
		default:
			t.Fatalf("event with %d data lines: %q", len(data), ev)
		}
	}
	return out
}

// fzErrorOnly checks a transport-level refusal: one JSON error response
// with the code, no id, and the status.
func fzErrorOnly(t *testing.T, rec *httptest.ResponseRecorder, status int, code int64) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d; body %q", rec.Code, status, rec.Body.Bytes())
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%d with Content-Type %q", status, ct)
	}
	e, ok := fzMessage(t, rec.Body.Bytes()).(*protocol.JSONRPCErrorResponse)
	if !ok || e.Error.Code != code || e.ID != nil {
		t.Fatalf("%d: want a %d error without an id, got %s", status, code, rec.Body.Bytes())
	}
}

var fzHTTPMethods = [8]string{http.MethodPost, http.MethodPost, http.MethodPost, http.MethodPost, http.MethodPost, http.MethodGet, http.MethodPut, "post"}

// FuzzHTTPHandler fuzzes the body and the headers of a request to the
// Streamable HTTP handler, and checks every answer against the status
// rules: 405 exactly for a method other than POST, 403 only and always
// for a Host or Origin outside the allowed names, 415 for another media
// type, 413 only for an oversize body, 202 with no body exactly for a
// notification; otherwise one JSON-RPC response (or an event stream of
// notifications ending with one) whose status agrees with its code (404 ⇔
// -32601, 500 ⇔ -32603, 429 ⇔ CodeRateLimited, 400 for the request errors
// and other application codes, 200 for results), -32700 exactly for a body
// that is not JSON, whose id is the request's, and which is a result only
// when the headers match the body.
//
// mode: bits 0-2 pick the HTTP method (mostly POST), bits 3-4 the body
// framing (Content-Length exact, unknown, one more than sent, zero).
// version, method, name: MCP-Protocol-Version, Mcp-Method, Mcp-Name; ""
// sends what a conforming client would, "\x00" leaves the header out, and
// other values are sent as given, one header value per line. params: the
// Mcp-Param-* headers, "" mirrored, "\x00" none, else "Name:value" lines.
// origin: "" none, else one Origin value per line. host: ""
// localhost:8080, "\x00" empty. ctype (Content-Type): "" application/json,
// "\x00" none.
func FuzzHTTPHandler(f *testing.F) {
	for _, s := range FzHTTPSeeds(f) {
		f.Add(s.Mode, []byte(s.Body), s.Version, s.Method, s.Name, s.Params, s.Origin, s.Host, s.ContentType)
	}
	h := Handler(FzServer(f, Eras(legacy.ErasModern)), streamhttp.Options{MaxBodyBytes: FzMaxBody}) // the oracle is ErasModern's; FuzzHTTPDual fuzzes ErasBoth
	f.Fuzz(func(t *testing.T, mode uint8, body []byte, version, method, name, params, origin, host, ctype string) {
		httpMethod := fzHTTPMethods[mode&7]
		framing := (mode >> 3) & 3
		r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		r.Method = httpMethod
		switch framing {
		case 0:
			r.ContentLength = int64(len(body))
		case 1:
			r.ContentLength = -1
		case 2:
			r.ContentLength = int64(len(body)) + 1
		case 3:
			r.ContentLength = 0
		}
		switch host {
		case "":
			r.Host = Loopback
		case "\x00":
			r.Host = ""
		default:
			r.Host = host
		}
		hdr := http.Header{}
		mirrored := Mirror(body)
		FzHeaderArg(hdr, server.HeaderProtocolVersion, version, mirrored.Values(server.HeaderProtocolVersion))
		FzHeaderArg(hdr, server.HeaderMethod, method, mirrored.Values(server.HeaderMethod))
		FzHeaderArg(hdr, server.HeaderName, name, mirrored.Values(server.HeaderName))
		switch params {
		case "":
			for k, v := range fzParamHeaders(body) {
				hdr[k] = v
			}
		case "\x00":
		default:
			for _, line := range strings.Split(params, "\n") {
				k, v, _ := strings.Cut(line, ":")
				hdr.Add(server.HeaderParamPrefix+k, v)
			}
		}
		if origin != "" {
			hdr["Origin"] = strings.Split(origin, "\n")
		}
		switch ctype {
		case "":
			hdr["Content-Type"] = []string{"application/json"}
		case "\x00":
		default:
			hdr["Content-Type"] = []string{ctype}
		}
		hdr.Set("Accept", "application/json, text/event-stream")
		r.Header = hdr

		rec := FzServe(t, h, r)
		resp := rec.ResponseRecorder

		// Transport-level refusals, in the handler's order.
		if httpMethod != http.MethodPost {
			fzErrorOnly(t, resp, http.StatusMethodNotAllowed, protocol.CodeInvalidRequestError)
			if a := resp.Header().Get("Allow"); a != http.MethodPost {
				t.Fatalf("405 with Allow %q", a)
			}
			return
		}
		if resp.Code == http.StatusMethodNotAllowed {
			t.Fatalf("405 for POST")
		}
		hv, ov := fzHostVerdict(r.Host), allowed
		for _, o := range hdr.Values("Origin") { // every value counts
			switch fzOriginVerdict(o) {
			case denied:
				ov = denied
			case unspecified:
				if ov == allowed {
					ov = unspecified
				}
			}
		}
		switch {
		case hv == denied || ov == denied:
			fzErrorOnly(t, resp, http.StatusForbidden, protocol.CodeInvalidRequestError)
			return
		case resp.Code == http.StatusForbidden:
			if hv == allowed && ov == allowed {
				t.Fatalf("403 for Host %q and Origin %q: %s", r.Host, hdr.Values("Origin"), resp.Body.Bytes())
			}
			fzErrorOnly(t, resp, http.StatusForbidden, protocol.CodeInvalidRequestError)
			return
		case hv != allowed || ov != allowed:
			// Let through a Host or Origin of unusual syntax: its
			// host name must still be one of the allowed ones.
			for _, hp := range append([]string{r.Host}, hdr.Values("Origin")...) {
				if hp != "" && !strings.Contains(strings.ToLower(hp), "localhost") && !strings.Contains(hp, "127.0.0.1") && !strings.Contains(hp, "::1") {
					t.Fatalf("R-HTTP-02: %q let through (status %d)", hp, resp.Code)
				}
			}
		}
		cv := fzContentTypeVerdict(hdr.Get("Content-Type"))
		switch {
		case cv == denied:
			fzErrorOnly(t, resp, http.StatusUnsupportedMediaType, protocol.CodeInvalidRequestError)
			return
		case resp.Code == http.StatusUnsupportedMediaType:
			if cv == allowed {
				t.Fatalf("415 for Content-Type %q", hdr.Get("Content-Type"))
			}
			fzErrorOnly(t, resp, http.StatusUnsupportedMediaType, protocol.CodeInvalidRequestError)
			return
		}
		tooBig := len(body) > FzMaxBody || (framing == 2 && len(body)+1 > FzMaxBody)
		switch {
		case tooBig:
			fzErrorOnly(t, resp, http.StatusRequestEntityTooLarge, protocol.CodeInvalidRequestError)
			return
		case resp.Code == http.StatusRequestEntityTooLarge:
			t.Fatalf("413 for a %d-byte body (limit %d)", len(body), FzMaxBody)
		case framing == 2:
			// Content-Length promised one byte more than came.
			fzErrorOnly(t, resp, http.StatusBadRequest, protocol.CodeParseError)
			return
		}

		// The message itself.
		var cr protocol.ClientRequest
		var msg protocol.JSONRPCMessage
		limits := server.DefaultDecodeLimits()
		msgErr := limits.Unmarshal(body, &msg)
		if limits.Unmarshal(body, &cr) == nil {
			if _, ok := msg.Value.(*protocol.JSONRPCRequest); msgErr != nil || !ok {
				t.Fatalf("a ClientRequest that is not a JSONRPCRequest (%v): %q", msgErr, body)
			}
		}
		if msgErr != nil {
			msg.Value = nil // a decode error may leave a part-decoded value
		}
		_, isNotification := msg.Value.(*protocol.JSONRPCNotification)
		if resp.Code == http.StatusAccepted || isNotification {
			if resp.Code != http.StatusAccepted || resp.Body.Len() != 0 || msgErr != nil || !isNotification {
				t.Fatalf("notification %v, status %d, body %q for %q", isNotification, resp.Code, resp.Body.Bytes(), body)
			}
			return
		}
		msgs, _ := FzAnswerMessages(t, resp, fzSSE)
		if len(msgs) == 0 {
			t.Fatalf("no message in %q", resp.Body.Bytes())
		}
		var last protocol.JSONRPCMessageValue
		for i, m := range msgs {
			v := fzMessage(t, m)
			if i < len(msgs)-1 || rec.Acked.Load() {
				if _, ok := v.(*protocol.JSONRPCNotification); !ok {
					t.Fatalf("message %d of the stream is not a notification: %s", i, m)
				}
			}
			last = v
		}
		if rec.Acked.Load() {
			return // a listen stream we ended: R-HTTP-14, nothing more after cancellation
		}
		req, _ := msg.Value.(*protocol.JSONRPCRequest)
		var id *protocol.RequestId
		switch v := last.(type) {
		case *protocol.JSONRPCResultResponse:
			if resp.Code != http.StatusOK {
				t.Fatalf("a result with status %d: %s", resp.Code, msgs[len(msgs)-1])
			}
			id = &v.ID
			if req != nil {
				fzCheckHeadersMatched(t, hdr, req, msgs[len(msgs)-1], true)
			}
		case *protocol.JSONRPCErrorResponse:
			id = v.ID
			code := v.Error.Code
			want := 0
			switch code {
			case server.CodeRateLimited:
				want = http.StatusTooManyRequests
				if resp.Header().Get("Retry-After") == "" {
					t.Fatalf("429 without Retry-After")
				}
			case protocol.CodeMethodNotFoundError:
				want = http.StatusNotFound
			case protocol.CodeInternalError:
				want = http.StatusInternalServerError
			case protocol.CodeParseError, protocol.CodeInvalidRequestError, protocol.CodeInvalidParamsError,
				protocol.CodeHeaderMismatchError, protocol.CodeMissingRequiredClientCapabilityError,
				protocol.CodeUnsupportedProtocolVersionError:
				want = http.StatusBadRequest
			default:
				if code >= -32768 && code <= -32000 {
					t.Fatalf("reserved code %d", code)
				}
				want = http.StatusBadRequest // an application's own code
			}
			if len(msgs) > 1 {
				want = http.StatusOK // the stream had started
			}
			if resp.Code != want {
				t.Fatalf("status %d for code %d (want %d): %s", resp.Code, code, want, msgs[len(msgs)-1])
			}
			// -32700 exactly for a body that is not JSON (the strict
			// decoder's syntax errors included: invalid UTF-8, lone
			// surrogates, a byte-order mark), unless a decode limit
			// stopped the server first.
			de, _ := protocol.AsDecodeError(msgErr)
			syntax := !json.Valid(body) || (de != nil && de.Kind == protocol.KindSyntax)
			limited := de != nil && (de.Kind == protocol.KindDepth || de.Kind == protocol.KindLimit)
			if code == protocol.CodeParseError {
				if id != nil {
					t.Fatalf("R-BASE-07: parse error with an id: %s", msgs[len(msgs)-1])
				}
				if !syntax {
					t.Fatalf("parse error for %q, which is JSON (%v)", body, msgErr)
				}
			} else if syntax && !limited {
				t.Fatalf("code %d for a body that is not JSON (%v): %q", code, msgErr, body)
			}
			if req != nil && (code == protocol.CodeUnsupportedProtocolVersionError || code == protocol.CodeMissingRequiredClientCapabilityError) {
				fzCheckHeadersMatched(t, hdr, req, msgs[len(msgs)-1], code == protocol.CodeMissingRequiredClientCapabilityError)
			}
		default:
			t.Fatalf("the answer is not a response: %s", msgs[len(msgs)-1])
		}
		if req != nil {
			if id == nil {
				t.Fatalf("no id in the answer to request %q: %s", body, msgs[len(msgs)-1])
			}
			a, _ := protocol.Marshal(&req.ID)
			b, _ := protocol.Marshal(id)
			if !bytes.Equal(a, b) {
				t.Fatalf("answer id %s, request id %s", b, a)
			}
		}
	})
}
