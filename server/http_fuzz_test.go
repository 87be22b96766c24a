package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// fzMaxBody is the body limit of the fuzzed handler: small, so that the
// fuzzer reaches 413 too.
const fzMaxBody = 1500

// fzHTTPSeed is one seed file of ../testdata/fuzz/http. Header fields
// follow the conventions of FuzzHTTPHandler; body is a JSON value sent as
// written, or a JSON string whose contents are sent (for bodies that are
// not JSON).
type fzHTTPSeed struct {
	Mode        uint8           `json:"mode"`
	Version     string          `json:"version"`
	Method      string          `json:"method"`
	Name        string          `json:"name"`
	Params      string          `json:"params"`
	Origin      string          `json:"origin"`
	Host        string          `json:"host"`
	ContentType string          `json:"contentType"`
	Body        json.RawMessage `json:"body"`
}

func fzHTTPSeeds(f *testing.F) []fzHTTPSeed {
	seeds := fzJSONSeeds(f, "http", func(s *fzHTTPSeed) *json.RawMessage { return &s.Body })
	return seeds
}

// fzServer is the fixture plus tools that reach the other answers: an SSE
// stream (progress and a log message with line breaks in its data), an
// error after a stream started, an application error code, a reserved code
// the runtime must replace, and a result that does not encode.
func fzServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := fixture(t, append([]Option{WithCompletion(completeAll)}, opts...)...)
	notify := func(ctx context.Context, r *Request) {
		r.Progress(ctx, 1, 2, "half")
		r.Log(ctx, protocol.LoggingLevelInfo, "fz", json.RawMessage("{\"a\":\n[1,\r\n2],\"b\":\"\\u2028\"}"))
	}
	addTool(t, s, `{"name":"progress","inputSchema":{"type":"object"}}`,
		func(ctx context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			notify(ctx, r)
			return TextResult("done"), nil
		})
	addTool(t, s, `{"name":"progerr","inputSchema":{"type":"object"}}`,
		func(ctx context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			notify(ctx, r)
			return nil, InvalidParams("after the stream started", nil)
		})
	addTool(t, s, `{"name":"custom","inputSchema":{"type":"object"}}`,
		func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return nil, &Error{Code: 7, Message: "application error", Data: json.RawMessage(`{"x":1}`)}
		})
	addTool(t, s, `{"name":"reserved","inputSchema":{"type":"object"}}`,
		func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return nil, &Error{Code: -32001, Message: "reserved"}
		})
	addTool(t, s, `{"name":"badresult","inputSchema":{"type":"object"}}`,
		func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{Content: []protocol.ContentBlock{{}}}, nil
		})
	return s
}

// fzRecorder cancels the request once a listen stream is acknowledged:
// the stream would otherwise run until the server shuts down.
type fzRecorder struct {
	*httptest.ResponseRecorder
	cancel context.CancelFunc
	acked  atomic.Bool
}

func (w *fzRecorder) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(`"`+protocol.MethodNotificationsSubscriptionsAcknowledged+`"`)) {
		w.acked.Store(true)
		w.cancel()
	}
	return w.ResponseRecorder.Write(b)
}

// fzServe serves r with h on an fzRecorder; the request must finish
// within 10 s.
func fzServe(t *testing.T, h http.Handler, r *http.Request) *fzRecorder {
	t.Helper()
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	rec := &fzRecorder{ResponseRecorder: httptest.NewRecorder(), cancel: cancel}
	h.ServeHTTP(rec, r.WithContext(ctx))
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("the request did not finish in 10 s")
	}
	return rec
}

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

// fzHeaderArg sets header name from a fuzz argument: "" takes def (the
// value a conforming client sends), "\x00" leaves the header out, and
// anything else is sent, one value per line.
func fzHeaderArg(h http.Header, name, arg string, def []string) {
	key := http.CanonicalHeaderKey(name)
	switch arg {
	case "":
		if def != nil {
			h[key] = def
		}
	case "\x00":
	default:
		h[key] = strings.Split(arg, "\n")
	}
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
			h.Set(HeaderParamPrefix+name, headerText(x))
		case bool:
			h.Set(HeaderParamPrefix+name, strconv.FormatBool(x))
		case json.Number:
			h.Set(HeaderParamPrefix+name, x.String())
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
	if v, ok := fzSingleHeader(h, HeaderProtocolVersion); !ok || v != p.Meta.Version {
		t.Fatalf("R-HDR-01: answered %s although MCP-Protocol-Version %q does not match %q", answer, h.Values(HeaderProtocolVersion), p.Meta.Version)
	}
	if v, ok := fzSingleHeader(h, HeaderMethod); !ok || v != req.Method {
		t.Fatalf("R-HDR-02: answered %s although Mcp-Method %q does not match %q", answer, h.Values(HeaderMethod), req.Method)
	}
	var name *string
	switch req.Method {
	case protocol.MethodToolsCall, protocol.MethodPromptsGet:
		name = p.Name
	case protocol.MethodResourcesRead:
		name = p.URI
	}
	if name != nil {
		v, ok := fzSingleHeader(h, HeaderName)
		dec, good := fzDecoded(v)
		if !ok || !good || dec != *name {
			t.Fatalf("R-HDR-03: answered %s although Mcp-Name %q does not match %q", answer, h.Values(HeaderName), *name)
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
		v, ok := fzSingleHeader(h, HeaderParamPrefix+header)
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
			t.Fatalf("R-HDR-07: answered %s although Mcp-Param-%s %q does not match %v", answer, header, h.Values(HeaderParamPrefix+header), val)
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
	if e, ok := m.Value.(*protocol.JSONRPCErrorResponse); ok && !emittableCode(e.Error.Code) {
		t.Fatalf("R-BASE-12..14: error code %d may not be sent: %s", e.Error.Code, b)
	}
	return m.Value
}

// emittableCode is R-BASE-12..14, written out again.
func emittableCode(code int64) bool {
	switch code {
	case protocol.CodeParseError, protocol.CodeInvalidRequestError, protocol.CodeMethodNotFoundError,
		protocol.CodeInvalidParamsError, protocol.CodeInternalError, protocol.CodeHeaderMismatchError,
		protocol.CodeMissingRequiredClientCapabilityError, protocol.CodeUnsupportedProtocolVersionError:
		return true
	}
	return code < -32768 || code > -32000 // nothing else of the reserved ranges
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
	for _, s := range fzHTTPSeeds(f) {
		f.Add(s.Mode, []byte(s.Body), s.Version, s.Method, s.Name, s.Params, s.Origin, s.Host, s.ContentType)
	}
	h := fzServer(f, WithEras(ErasModern)).Handler(HTTPOptions{MaxBodyBytes: fzMaxBody}) // the oracle is ErasModern's; FuzzHTTPDual fuzzes ErasBoth
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
			r.Host = loopback
		case "\x00":
			r.Host = ""
		default:
			r.Host = host
		}
		hdr := http.Header{}
		mirrored := mirror(body)
		fzHeaderArg(hdr, HeaderProtocolVersion, version, mirrored.Values(HeaderProtocolVersion))
		fzHeaderArg(hdr, HeaderMethod, method, mirrored.Values(HeaderMethod))
		fzHeaderArg(hdr, HeaderName, name, mirrored.Values(HeaderName))
		switch params {
		case "":
			for k, v := range fzParamHeaders(body) {
				hdr[k] = v
			}
		case "\x00":
		default:
			for _, line := range strings.Split(params, "\n") {
				k, v, _ := strings.Cut(line, ":")
				hdr.Add(HeaderParamPrefix+k, v)
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

		rec := fzServe(t, h, r)
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
		tooBig := len(body) > fzMaxBody || (framing == 2 && len(body)+1 > fzMaxBody)
		switch {
		case tooBig:
			fzErrorOnly(t, resp, http.StatusRequestEntityTooLarge, protocol.CodeInvalidRequestError)
			return
		case resp.Code == http.StatusRequestEntityTooLarge:
			t.Fatalf("413 for a %d-byte body (limit %d)", len(body), fzMaxBody)
		case framing == 2:
			// Content-Length promised one byte more than came.
			fzErrorOnly(t, resp, http.StatusBadRequest, protocol.CodeParseError)
			return
		}

		// The message itself.
		var cr protocol.ClientRequest
		var msg protocol.JSONRPCMessage
		limits := DefaultDecodeLimits()
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
		msgs, _ := fzAnswerMessages(t, resp, fzSSE)
		if len(msgs) == 0 {
			t.Fatalf("no message in %q", resp.Body.Bytes())
		}
		var last protocol.JSONRPCMessageValue
		for i, m := range msgs {
			v := fzMessage(t, m)
			if i < len(msgs)-1 || rec.acked.Load() {
				if _, ok := v.(*protocol.JSONRPCNotification); !ok {
					t.Fatalf("message %d of the stream is not a notification: %s", i, m)
				}
			}
			last = v
		}
		if rec.acked.Load() {
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
			case CodeRateLimited:
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
