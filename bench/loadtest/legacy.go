package loadtest

// Mixed-era load (docs/dual-era.md §10.7): with Options.Legacy set, that
// fraction of the clients is legacy. Each opens one 2025-11-25 session
// (initialize, then notifications/initialized) when its slice starts,
// calls through it (eight tools/call echo and two lists in every ten
// operations, the lists in turn), and DELETEs it when the slice ends. The
// others send the 2026-07-28 mix. Legacy answers are checked as the modern
// ones are, and must carry no resultType.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"
)

// legacyRevision is the version the legacy clients negotiate.
const legacyRevision = "2025-11-25"

// isLegacy reports whether k is a request of a legacy session.
func isLegacy(k kind) bool { return k >= kindLegacyInit }

// legacyClient reports whether client i of n is legacy when a fraction
// frac of them are: floor(frac*n) clients, spread evenly.
func legacyClient(i int, frac float64) bool {
	return frac > 0 && int(float64(i+1)*frac) > int(float64(i)*frac)
}

// legacyClients is how many of n clients are legacy.
func legacyClients(n int, frac float64) int {
	c := 0
	for i := range n {
		if legacyClient(i, frac) {
			c++
		}
	}
	return c
}

// legacyHeader is the header of a request in session sid.
func legacyHeader(sid string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", legacyRevision)
	h.Set("Mcp-Session-Id", sid)
	return h
}

// legacyBody is body without the 2026-07-28 _meta; params is the text of
// the params object's members (no leading comma).
func (c *caller) legacyBody(method, params string) ([]byte, int64) {
	c.id++
	b := make([]byte, 0, 64+len(params))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, c.id, 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":{`...)
	b = append(b, params...)
	b = append(b, "}}"...)
	return b, c.id
}

// raw sends one request with header h and records its latency under k;
// it returns the response (body read) or a transport error.
func (c *caller) raw(ctx context.Context, rec recordFunc, k kind, verb string, h http.Header, body []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, verb, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, failf(errTransport, "%v", err)
	}
	req.Header = h
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		if rec != nil {
			rec(k, time.Since(start))
		}
		return nil, nil, failf(errTransport, "%v", err)
	}
	data, err := io.ReadAll(resp.Body)
	if rec != nil {
		rec(k, time.Since(start))
	}
	resp.Body.Close()
	if err != nil {
		return nil, nil, failf(errTransport, "reading body: %v", err)
	}
	return resp, data, nil
}

// openLegacy opens the client's session: initialize at legacyRevision
// (answered with a session id and that version), then
// notifications/initialized (202). The session's headers go into c.hdr.
func (c *caller) openLegacy(ctx context.Context, rec recordFunc) error {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	body, id := c.legacyBody("initialize", `"protocolVersion":"`+legacyRevision+`","capabilities":{},"clientInfo":{"name":"loadgen","version":"1"}`)
	resp, data, err := c.raw(ctx, rec, kindLegacyInit, http.MethodPost, h, body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return failf(errStatus, "initialize: status %d: %.200s", resp.StatusCode, data)
	}
	var out struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return failf(errAnswer, "initialize: decoding %.200q: %v", data, err)
	}
	if out.Error != nil {
		return failf(errRPC, "initialize: %d %s", out.Error.Code, out.Error.Message)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if out.Result == nil || out.Result.ProtocolVersion != legacyRevision || sid == "" || string(out.ID) != strconv.FormatInt(id, 10) {
		return failf(errAnswer, "initialize: session %q, answer %.200s", sid, data)
	}
	sh := legacyHeader(sid)
	resp, data, err = c.raw(ctx, rec, kindLegacyInitialized, http.MethodPost, sh, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusAccepted {
		return failf(errStatus, "notifications/initialized: status %d: %.200s", resp.StatusCode, data)
	}
	c.sid = sid
	for _, k := range []kind{kindLegacyCall, kindLegacyToolsList, kindLegacyPromptsList, kindLegacyResourcesList} {
		c.hdr[k] = sh
	}
	return nil
}

// closeLegacy ends the client's session with DELETE (not recorded).
func (c *caller) closeLegacy(ctx context.Context) error {
	if c.sid == "" {
		return nil
	}
	resp, data, err := c.raw(ctx, nil, kindLegacyInit, http.MethodDelete, legacyHeader(c.sid), nil)
	c.sid = ""
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return failf(errStatus, "DELETE: status %d: %.200s", resp.StatusCode, data)
	}
	return nil
}

// legacyTimed is timed for a request of the session: no _meta, and the
// answer must not carry resultType.
func (c *caller) legacyTimed(ctx context.Context, rec recordFunc, k kind, method, params string, check func(*rpcResponse) error) error {
	body, id := c.legacyBody(method, params)
	res, err := c.do(ctx, rec, k, body, id)
	if err != nil {
		return err
	}
	if res.Result.ResultType != "" {
		return failf(errAnswer, "%s: a %s answer carries resultType %q", kindNames[k], legacyRevision, res.Result.ResultType)
	}
	return check(res)
}

// legacyCall is call in the session.
func (c *caller) legacyCall(ctx context.Context, rec recordFunc) error {
	text := "l" + strconv.Itoa(c.client) + "-" + strconv.FormatInt(c.id+1, 10)
	return c.legacyTimed(ctx, rec, kindLegacyCall, "tools/call", `"name":"echo","arguments":{"text":"`+text+`"}`,
		func(res *rpcResponse) error { return complete(kindLegacyCall, res, text) })
}

// legacyList is list in the session; k is a modern list kind.
func (c *caller) legacyList(ctx context.Context, rec recordFunc, k kind) error {
	method, check := listCheck(k)
	lk := map[kind]kind{kindToolsList: kindLegacyToolsList, kindPromptsList: kindLegacyPromptsList, kindResourcesList: kindLegacyResourcesList}[k]
	return c.legacyTimed(ctx, rec, lk, method, "", check)
}

// EraStats are the figures of one era's requests in a mixed run.
type EraStats struct {
	Era      string // "2026-07-28" or legacyRevision
	Clients  int
	Requests uint64
	RPS      float64 // Requests per second of the run's Elapsed
	P50, P99 time.Duration
	Max      time.Duration
}
