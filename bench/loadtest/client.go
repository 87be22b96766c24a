package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The kinds of HTTP request the load generator sends. An MRTR round trip
// is two requests: mrtrFirst (answered input_required) and mrtrRetry
// (answered with the result).
type kind int

const (
	kindCall kind = iota
	kindToolsList
	kindPromptsList
	kindResourcesList
	kindMRTRFirst
	kindMRTRRetry
	// The requests of a legacy session (legacy.go); isLegacy relies on
	// their being last.
	kindLegacyInit
	kindLegacyInitialized
	kindLegacyCall
	kindLegacyToolsList
	kindLegacyPromptsList
	kindLegacyResourcesList
	numKinds
)

var kindNames = [numKinds]string{"tools/call echo", "tools/list", "prompts/list", "resources/list", "tools/call ask (1st)", "tools/call ask (retry)",
	"initialize (2025-11-25)", "notifications/initialized (2025-11-25)", "tools/call echo (2025-11-25)",
	"tools/list (2025-11-25)", "prompts/list (2025-11-25)", "resources/list (2025-11-25)"}

const revision = "2026-07-28"

// The request _meta that 2026-07-28 requires on every request. The
// elicitation capability is declared so that a server may ask for input.
const reqMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + revision + `",` +
	`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"loadgen","version":"1"}}`

// rpcResponse is the part of a JSON-RPC response the checks look at.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		ResultType string `json:"resultType"`
		Content    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError   bool                    `json:"isError"`
		Tools     []struct{ Name string } `json:"tools"`
		Prompts   []struct{ Name string } `json:"prompts"`
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
		InputRequests map[string]struct {
			Method string `json:"method"`
		} `json:"inputRequests"`
		RequestState string `json:"requestState"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// errKind classifies a failed request for the report.
type errKind int

const (
	errTransport errKind = iota // dial, write, read or timeout
	errStatus                   // a non-2xx status
	errRPC                      // a JSON-RPC error response
	errAnswer                   // 2xx, no error, but not the right answer
	numErrKinds
)

var errKindNames = [numErrKinds]string{"transport", "http status", "JSON-RPC error", "wrong answer"}

type reqError struct {
	kind errKind
	msg  string
}

func (e *reqError) Error() string { return errKindNames[e.kind] + ": " + e.msg }

func failf(k errKind, format string, args ...any) *reqError {
	return &reqError{kind: k, msg: fmt.Sprintf(format, args...)}
}

// caller sends the requests of one client goroutine. It is not safe for
// concurrent use; each client has its own.
type caller struct {
	hc     *http.Client
	url    string
	id     int64
	client int
	hdr    [numKinds]http.Header
	sid    string // the legacy session, once openLegacy succeeded
}

func newCaller(hc *http.Client, url string, client int) *caller {
	c := &caller{hc: hc, url: url, client: client}
	for k := range numKinds {
		h := http.Header{}
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
		h.Set("MCP-Protocol-Version", revision)
		switch k {
		case kindCall:
			h.Set("Mcp-Method", "tools/call")
			h.Set("Mcp-Name", echoTool)
		case kindMRTRFirst, kindMRTRRetry:
			h.Set("Mcp-Method", "tools/call")
			h.Set("Mcp-Name", askTool)
		case kindToolsList:
			h.Set("Mcp-Method", "tools/list")
		case kindPromptsList:
			h.Set("Mcp-Method", "prompts/list")
		case kindResourcesList:
			h.Set("Mcp-Method", "resources/list")
		}
		c.hdr[k] = h
	}
	return c
}

// body returns a JSON-RPC request with a fresh id; params is the text
// after the _meta member (a leading comma included), method-specific.
func (c *caller) body(method, params string) ([]byte, int64) {
	c.id++
	b := make([]byte, 0, 96+len(reqMeta)+len(params))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, c.id, 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":{`...)
	b = append(b, reqMeta...)
	b = append(b, params...)
	b = append(b, "}}"...)
	return b, c.id
}

// do sends one request and returns the decoded response, or the error
// that makes it count as failed: a transport error, a non-2xx status, a
// body that is not a JSON-RPC response with this id, or a JSON-RPC error.
//
// The latency recorded under k runs from before the request is sent to the
// end of its response body (decoding and checking are not in it).
func (c *caller) do(ctx context.Context, rec recordFunc, k kind, body []byte, id int64) (*rpcResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, failf(errTransport, "%v", err)
	}
	req.Header = c.hdr[k]
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		rec(k, time.Since(start))
		return nil, failf(errTransport, "%v", err)
	}
	data, err := io.ReadAll(resp.Body)
	rec(k, time.Since(start))
	resp.Body.Close()
	if err != nil {
		return nil, failf(errTransport, "reading body: %v", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, failf(errStatus, "%s: status %d: %.200s", kindNames[k], resp.StatusCode, data)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var last []byte
		for line := range bytes.Lines(data) {
			if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok && len(bytes.TrimSpace(rest)) > 0 {
				last = bytes.TrimSpace(rest)
			}
		}
		data = last
	}
	var out rpcResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, failf(errAnswer, "%s: decoding %.200q: %v", kindNames[k], data, err)
	}
	if out.Error != nil {
		return nil, failf(errRPC, "%s: %d %s", kindNames[k], out.Error.Code, out.Error.Message)
	}
	if string(out.ID) != strconv.FormatInt(id, 10) {
		return nil, failf(errAnswer, "%s: response id %s, want %d", kindNames[k], out.ID, id)
	}
	if out.Result == nil {
		return nil, failf(errAnswer, "%s: no result in %.200s", kindNames[k], data)
	}
	return &out, nil
}

// complete fails unless res is a complete result with one text block t.
func complete(k kind, res *rpcResponse, t string) error {
	r := res.Result
	if r.ResultType != "" && r.ResultType != "complete" {
		return failf(errAnswer, "%s: resultType %q", kindNames[k], r.ResultType)
	}
	if r.IsError || len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != t {
		return failf(errAnswer, "%s: want text %q, got %+v", kindNames[k], t, *r)
	}
	return nil
}

// recordFunc records the latency of one request of kind k.
type recordFunc func(k kind, d time.Duration)

// timed runs one request, records its latency under k, and checks the
// answer with check.
func (c *caller) timed(ctx context.Context, rec recordFunc, k kind, method, params string, check func(*rpcResponse) error) (*rpcResponse, error) {
	body, id := c.body(method, params)
	res, err := c.do(ctx, rec, k, body, id)
	if err != nil {
		return nil, err
	}
	return res, check(res)
}

// call is one tools/call of echo with a text unique to this request.
func (c *caller) call(ctx context.Context, rec recordFunc) error {
	text := "c" + strconv.Itoa(c.client) + "-" + strconv.FormatInt(c.id+1, 10)
	_, err := c.timed(ctx, rec, kindCall, "tools/call", `,"name":"echo","arguments":{"text":"`+text+`"}`,
		func(res *rpcResponse) error { return complete(kindCall, res, text) })
	return err
}

// list is one tools/list, prompts/list or resources/list, checked against
// what both servers register.
func (c *caller) list(ctx context.Context, rec recordFunc, k kind) error {
	method, check := listCheck(k)
	_, err := c.timed(ctx, rec, k, method, "", check)
	return err
}

// listCheck returns the method of list kind k and the check of its answer.
func listCheck(k kind) (string, func(*rpcResponse) error) {
	var method string
	var check func(*rpcResponse) error
	switch k {
	case kindToolsList:
		method = "tools/list"
		check = func(res *rpcResponse) error {
			ts := res.Result.Tools
			if len(ts) != 2 || !((ts[0].Name == echoTool && ts[1].Name == askTool) || (ts[0].Name == askTool && ts[1].Name == echoTool)) {
				return failf(errAnswer, "tools/list: got %+v, want echo and ask", ts)
			}
			return nil
		}
	case kindPromptsList:
		method = "prompts/list"
		check = func(res *rpcResponse) error {
			if ps := res.Result.Prompts; len(ps) != 1 || ps[0].Name != promptName {
				return failf(errAnswer, "prompts/list: got %+v, want %s", ps, promptName)
			}
			return nil
		}
	case kindResourcesList:
		method = "resources/list"
		check = func(res *rpcResponse) error {
			if rs := res.Result.Resources; len(rs) != 1 || rs[0].URI != resourceURI {
				return failf(errAnswer, "resources/list: got %+v, want %s", rs, resourceURI)
			}
			return nil
		}
	default:
		panic("not a list kind")
	}
	return method, check
}

// mrtr is one multi round-trip: tools/call ask {q} is answered
// input_required with an elicitation request "name" and a requestState;
// the retry carries the accepted elicitation and the state back and must
// be answered "hello <name> <q>" (which the tool only says when the state
// it gets back is q).
func (c *caller) mrtr(ctx context.Context, rec recordFunc) error {
	q := "q" + strconv.Itoa(c.client) + "-" + strconv.FormatInt(c.id+1, 10)
	args := `,"name":"ask","arguments":{"q":"` + q + `"}`
	res, err := c.timed(ctx, rec, kindMRTRFirst, "tools/call", args, func(res *rpcResponse) error {
		r := res.Result
		if r.ResultType != "input_required" || len(r.InputRequests) != 1 ||
			r.InputRequests["name"].Method != "elicitation/create" || r.RequestState == "" || len(r.Content) != 0 {
			return failf(errAnswer, "tools/call ask: want input_required with elicitation \"name\" and requestState, got %+v", *r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	name := "n" + strconv.Itoa(c.client)
	state, _ := json.Marshal(res.Result.RequestState)
	retry := args + `,"inputResponses":{"name":{"action":"accept","content":{"name":"` + name + `"}}},"requestState":` + string(state)
	_, err = c.timed(ctx, rec, kindMRTRRetry, "tools/call", retry,
		func(res *rpcResponse) error { return complete(kindMRTRRetry, res, "hello "+name+" "+q) })
	return err
}
