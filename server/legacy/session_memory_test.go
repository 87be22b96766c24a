package legacy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// The memory a legacy session holds, measured over real HTTP (a TCP
// listener and net/http's client) against a server built as
// examples/everything builds its own: a resource template
// test://template/{id}/data, the legacy era with the given Config, the
// Streamable HTTP handler. Each client names its address in a test
// header, read by streamhttp.Options.ClientKey as a proxy's header would
// be, so that one process plays many addresses. The heap is measured
// after a GC (runtime.ReadMemStats), never timed.

// liveServer is such a server, listening.
type liveServer struct {
	t    testing.TB
	srv  *httptest.Server
	era  *legacy.Era
	http *http.Client
}

// headerAddr is the test header that names a client's address.
const headerAddr = "X-Test-Addr"

func newLiveServer(t testing.TB, lc legacy.Config, setup ...func(*server.Server)) *liveServer {
	t.Helper()
	s, err := server.New(protocol.Implementation{Name: "mem", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range setup {
		f(s)
	}
	if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template"},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.TextContents(uri, "text/plain", "x"), nil
		}); err != nil {
		t.Fatal(err)
	}
	era, err := legacy.New(s, lc)
	if err != nil {
		t.Fatal(err)
	}
	h := streamhttp.Handler(s, streamhttp.Options{Legacy: era, ClientKey: func(r *http.Request) string { return r.Header.Get(headerAddr) }})
	ls := &liveServer{t: t, srv: httptest.NewServer(h), era: era}
	ls.http = ls.srv.Client()
	t.Cleanup(func() {
		ls.http.CloseIdleConnections()
		ls.srv.Close()
	})
	return ls
}

// post sends one JSON-RPC message from addr in session sid ("" for
// none) and returns the status, the session id header and the body.
func (ls *liveServer) post(addr, sid, body string) (int, string, []byte) {
	ls.t.Helper()
	req, err := http.NewRequest(http.MethodPost, ls.srv.URL, strings.NewReader(body))
	if err != nil {
		ls.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(headerAddr, addr)
	if sid != "" {
		req.Header.Set(legacy.HeaderSessionID, sid)
		req.Header.Set(server.HeaderProtocolVersion, "2025-11-25")
	}
	resp, err := ls.http.Do(req)
	if err != nil {
		ls.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		ls.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get(legacy.HeaderSessionID), b
}

// open opens an initialized 2025-11-25 session from addr with clientInfo
// (raw JSON; "" for a small one) and returns its id, or "" and the answer
// when initialize was refused.
func (ls *liveServer) open(addr, clientInfo string) (string, int, []byte) {
	ls.t.Helper()
	if clientInfo == "" {
		clientInfo = `{"name":"c","version":"1"}`
	}
	code, sid, body := ls.post(addr, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":`+clientInfo+`}}`)
	if code != http.StatusOK || sid == "" {
		return "", code, body
	}
	if c, _, b := ls.post(addr, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); c != http.StatusAccepted {
		ls.t.Fatalf("notifications/initialized: %d %s", c, b)
	}
	return sid, code, body
}

// rpcAnswer is the error of a JSON-RPC answer (nil for a result).
func rpcAnswer(t testing.TB, body []byte) *struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
} {
	t.Helper()
	var w struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(body), &w); err != nil {
		t.Fatalf("answer %q: %v", body, err)
	}
	return w.Error
}

// subscribe sends resources/subscribe of uri in session sid.
func (ls *liveServer) subscribe(addr, sid string, id int, uri string) (int, []byte) {
	ls.t.Helper()
	code, _, body := ls.post(addr, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, id, uri))
	return code, body
}

// longURI is a URI of the template, n bytes long, distinct for i.
func longURI(i, n int) string {
	u := fmt.Sprintf("test://template/%d-", i)
	return u + strings.Repeat("x", n-len(u)-len("/data")) + "/data"
}

// liveHeap is the live heap after a GC, in bytes.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// measuring skips a measurement unless MCP_MEASURE=1: it prints
// figures, it asserts nothing.
func measuring(t *testing.T) {
	if os.Getenv("MCP_MEASURE") != "1" {
		t.Skip("a measurement, not a test: MCP_MEASURE=1 runs it")
	}
}

// TestMeasureSubscriptions prints what subscriptions hold
// (MCP_MEASURE=1 go test -run TestMeasureSubscriptions -v ./server/legacy).
func TestMeasureSubscriptions(t *testing.T) {
	measuring(t)
	ls := newLiveServer(t, legacy.Config{})
	sessions, subs, uriBytes := envInt("MCP_SESSIONS", 10), envInt("MCP_SUBS", 1000), envInt("MCP_URI_BYTES", 4<<10)
	before := liveHeap()
	refused := 0
	for i := range sessions {
		sid, code, body := ls.open("198.51.100.7", "")
		if sid == "" {
			t.Fatalf("initialize: %d %s", code, body)
		}
		for j := range subs {
			code, body := ls.subscribe("198.51.100.7", sid, j+1, longURI(i*subs+j, uriBytes))
			if code != http.StatusOK {
				t.Fatalf("subscribe: %d %s", code, body)
			}
			if e := rpcAnswer(t, body); e != nil {
				refused++
			}
		}
	}
	after := liveHeap()
	n := sessions*subs - refused
	t.Logf("%d sessions × %d subscriptions of %d-byte URIs from one address: %d accepted, %d refused; live heap +%.1f MiB (%.0f bytes a subscription accepted)",
		sessions, subs, uriBytes, n, refused, float64(after-before)/(1<<20), float64(after-before)/float64(max(n, 1)))
	runtime.KeepAlive(ls)
}

// envInt reads a measurement's size from the environment.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// addLongResources registers n resources whose URIs are uriBytes long
// and returns the URIs. The budget tests subscribe to resources rather
// than to the template: matching a URI of several KiB against a template
// takes tens of milliseconds (TestMeasureSubscriptions uses the template,
// as the hostile review did).
func addLongResources(t testing.TB, s *server.Server, n, uriBytes int) []string {
	t.Helper()
	uris := make([]string, n)
	for i := range uris {
		u := fmt.Sprintf("test://long/%d/", i)
		uris[i] = u + strings.Repeat("y", uriBytes-len(u))
		if err := s.AddResource(protocol.Resource{URI: uris[i], Name: fmt.Sprint("long", i)},
			func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
				return server.TextContents(uri, "text/plain", "x"), nil
			}); err != nil {
			t.Fatal(err)
		}
	}
	return uris
}

// TestSubscriptionBudgetOneAddress is issue 25's attack within the
// default limits: one client address opens its
// DefaultMaxSessionsPerPrincipal sessions and subscribes each to 4 KiB
// URIs until refused. The subscriptions must add at most
// DefaultMaxSubscriptionBytesPerPrincipal to the live heap (with 2 MiB of
// slack for the sessions themselves and the GC), every refusal is -32602
// naming a limit, the refused session keeps its subscriptions and is
// served, and another address still subscribes.
func TestSubscriptionBudgetOneAddress(t *testing.T) {
	const uriBytes, perSession = 4 << 10, 150 // 150 × 4 KiB is over DefaultMaxSubscriptionBytes
	var uris []string
	ls := newLiveServer(t, legacy.Config{}, func(s *server.Server) { uris = addLongResources(t, s, perSession, uriBytes) })
	const addr = "198.51.100.7"
	before := liveHeap()
	accepted, refusals := 0, map[string]int{}
	var sids []string
	for range legacy.DefaultMaxSessionsPerPrincipal {
		sid, code, body := ls.open(addr, "")
		if sid == "" {
			t.Fatalf("initialize: %d %s", code, body)
		}
		sids = append(sids, sid)
		for j, u := range uris {
			code, body := ls.subscribe(addr, sid, j+1, u)
			e := rpcAnswer(t, body)
			if e == nil {
				accepted++
				continue
			}
			if code != http.StatusOK || e.Code != protocol.CodeInvalidParamsError {
				t.Fatalf("a subscription over the budget: %d %s", code, body)
			}
			limit := ""
			for _, l := range []string{"MaxSubscriptionBytesPerPrincipal", "MaxSubscriptionBytesTotal", "MaxSubscriptionBytes"} {
				if strings.Contains(e.Message, "("+l+")") {
					limit = l
					break
				}
			}
			if limit == "" {
				t.Fatalf("the refusal names no limit: %s", body)
			}
			refusals[limit]++
			// Refused: the session holds what it held, and is served.
			rec, err := ls.era.Cfg().Store.Get(context.Background(), "", legacy.SessionKey(sid))
			if err != nil || len(rec.Subscriptions) != j {
				t.Fatalf("after the refusal the session holds %d subscriptions (%v), want %d", len(rec.Subscriptions), err, j)
			}
			if c, _, b := ls.post(addr, sid, `{"jsonrpc":"2.0","id":"l","method":"resources/list"}`); c != http.StatusOK || rpcAnswer(t, b) != nil {
				t.Fatalf("resources/list after the refusal: %d %s", c, b)
			}
			break
		}
	}
	grown := int64(liveHeap()) - int64(before)
	t.Logf("%d sessions from one address: %d subscriptions of %d-byte URIs accepted, refusals %v; live heap +%.1f MiB",
		len(sids), accepted, uriBytes, refusals, float64(grown)/(1<<20))
	if bound := int64(legacy.DefaultMaxSubscriptionBytesPerPrincipal + 2<<20); grown > bound {
		t.Errorf("the live heap grew by %d bytes, more than the bound of %d", grown, bound)
	}
	if max := legacy.DefaultMaxSubscriptionBytesPerPrincipal / (uriBytes + legacy.SubscriptionOverheadBytes); accepted > max {
		t.Errorf("%d subscriptions accepted, more than the %d the address's budget holds", accepted, max)
	}
	if refusals["MaxSubscriptionBytes"] == 0 || refusals["MaxSubscriptionBytesPerPrincipal"] == 0 {
		t.Errorf("refusals %v: want the session's budget and the address's", refusals)
	}
	// Another address is served, sessions and subscriptions alike.
	sid, code, body := ls.open("203.0.113.9", "")
	if sid == "" {
		t.Fatalf("another address's initialize: %d %s", code, body)
	}
	if code, body := ls.subscribe("203.0.113.9", sid, 1, uris[0]); code != http.StatusOK || rpcAnswer(t, body) != nil {
		t.Errorf("another address's subscription: %d %s", code, body)
	}
	runtime.KeepAlive(sids)
}

// bigClientInfo is a clientInfo of about n bytes: its name.
func bigClientInfo(n int) string {
	return `{"name":"` + strings.Repeat("n", n) + `","version":"1"}`
}

// openMany opens sessions initialized sessions from addrs (round robin)
// with clientInfo and returns the live heap they added, per session.
func openMany(t *testing.T, ls *liveServer, addrs []string, sessions int, clientInfo string) (perSession float64, opened int) {
	t.Helper()
	before := liveHeap()
	var sids []string
	for i := range sessions {
		sid, code, body := ls.open(addrs[i%len(addrs)], clientInfo)
		if sid == "" {
			t.Fatalf("initialize %d: %d %s", i, code, body)
		}
		// One request in the session, so that what serving it keeps is kept.
		if c, _, b := ls.post(addrs[i%len(addrs)], sid, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`); c != http.StatusOK {
			t.Fatalf("resources/list: %d %s", c, b)
		}
		sids = append(sids, sid)
	}
	grown := float64(int64(liveHeap()) - int64(before))
	runtime.KeepAlive(sids)
	return grown / float64(len(sids)), len(sids)
}

// TestMeasureSessionMemory prints what a session with a 60 KiB
// clientInfo holds: 2,000 sessions from 20 addresses (MCP_MEASURE=1 go
// test -run TestMeasureSessionMemory -v ./server/legacy).
func TestMeasureSessionMemory(t *testing.T) {
	measuring(t)
	lc := legacy.Config{}
	if os.Getenv("MCP_NO_TOTAL") == "1" {
		lc.MaxSessionRecordBytesTotal = -1 // what one session holds, past the default total
	}
	ls := newLiveServer(t, lc)
	var addrs []string
	for i := range 20 {
		addrs = append(addrs, fmt.Sprintf("198.51.100.%d", i+1))
	}
	per, n := openMany(t, ls, addrs, envInt("MCP_SESSIONS", 2000), bigClientInfo(envInt("MCP_INFO_BYTES", 60<<10)))
	t.Logf("%d sessions from %d addresses with a %d-byte clientInfo: live heap %.1f KiB a session", n, len(addrs), envInt("MCP_INFO_BYTES", 60<<10), per/1024)
}

// TestSessionInitMemory is B3 of issue 26: 2,000 sessions from 20
// addresses, each with a 60 KiB clientInfo, on the defaults. A session
// holds one copy of its initialize data (the live heap grows by at most
// 12 KiB a session more than the clientInfo), and the sessions together
// hold at most DefaultMaxSessionRecordBytesTotal of it: past it,
// initialize is 503 with Retry-After, and nothing more is held.
func TestSessionInitMemory(t *testing.T) {
	const sessions, infoBytes = 2000, 60 << 10
	ls := newLiveServer(t, legacy.Config{})
	info := bigClientInfo(infoBytes)
	before := liveHeap()
	var sids []string
	refused := 0
	for i := range sessions {
		addr := fmt.Sprintf("198.51.100.%d", i%20+1)
		sid, code, body := ls.open(addr, info)
		if sid == "" {
			if code != http.StatusServiceUnavailable {
				t.Fatalf("initialize %d: %d %s", i, code, body)
			}
			refused++
			continue
		}
		if c, _, b := ls.post(addr, sid, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`); c != http.StatusOK {
			t.Fatalf("resources/list: %d %s", c, b)
		}
		sids = append(sids, sid)
	}
	grown := int64(liveHeap()) - int64(before)
	per := float64(grown) / float64(len(sids))
	t.Logf("%d sessions of %d kept (%d refused), %.1f KiB of live heap a session, +%.1f MiB in all", len(sids), sessions, refused, per/1024, float64(grown)/(1<<20))
	if bound := float64(infoBytes + 12<<10); per > bound {
		t.Errorf("a session holds %.0f bytes, more than one copy of its clientInfo and 12 KiB (%.0f)", per, bound)
	}
	if bound := int64(legacy.DefaultMaxSessionRecordBytesTotal + sessions*(12<<10)); grown > bound {
		t.Errorf("the sessions hold %d bytes, more than the bound of %d", grown, bound)
	}
	if refused == 0 {
		t.Errorf("every initialize was admitted: %d × %d bytes is over DefaultMaxSessionRecordBytesTotal", sessions, infoBytes)
	}
	// The kept sessions are served (the first and the last, rebuilt from
	// their records).
	for _, i := range []int{0, len(sids) - 1} {
		if c, _, b := ls.post("198.51.100.1", sids[i], `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`); c != http.StatusOK || rpcAnswer(t, b) != nil {
			t.Errorf("ping in a kept session: %d %s", c, b)
		}
	}
}

// TestSubscriptionBudgetLimits checks each byte budget on small limits:
// the refusal is -32602 naming the limit; a subscription held already is
// accepted at a full budget; an unsubscribe and the end of a session
// give their bytes back.
func TestSubscriptionBudgetLimits(t *testing.T) {
	const uriBytes = 100
	cost := int64(uriBytes + legacy.SubscriptionOverheadBytes)
	var uris []string
	ls := newLiveServer(t, legacy.Config{MaxSubscriptionBytes: 3 * cost, MaxSubscriptionBytesPerPrincipal: 5 * cost, MaxSubscriptionBytesTotal: 7 * cost},
		func(s *server.Server) { uris = addLongResources(t, s, 8, uriBytes) })
	id := 0
	expect := func(addr, sid, uri, limit string) {
		t.Helper()
		id++
		code, body := ls.subscribe(addr, sid, id, uri)
		e := rpcAnswer(t, body)
		switch {
		case code != http.StatusOK:
			t.Fatalf("subscribe: %d %s", code, body)
		case limit == "" && e != nil:
			t.Fatalf("subscribe refused: %s", body)
		case limit != "" && (e == nil || e.Code != protocol.CodeInvalidParamsError || !strings.Contains(e.Message, "("+limit+")")):
			t.Fatalf("subscribe over %s: %s", limit, body)
		}
	}
	a1, _, _ := ls.open("198.51.100.1", "")
	a2, _, _ := ls.open("198.51.100.1", "")
	b, _, _ := ls.open("198.51.100.2", "")
	for _, u := range uris[:3] {
		expect("198.51.100.1", a1, u, "")
	}
	expect("198.51.100.1", a1, uris[3], "MaxSubscriptionBytes")
	expect("198.51.100.1", a1, uris[0], "") // held already: no more bytes
	expect("198.51.100.1", a2, uris[0], "")
	expect("198.51.100.1", a2, uris[1], "")
	expect("198.51.100.1", a2, uris[2], "MaxSubscriptionBytesPerPrincipal")
	if c, _, body := ls.post("198.51.100.1", a1, fmt.Sprintf(`{"jsonrpc":"2.0","id":"u","method":"resources/unsubscribe","params":{"uri":%q}}`, uris[2])); c != http.StatusOK || rpcAnswer(t, body) != nil {
		t.Fatalf("unsubscribe: %d %s", c, body)
	}
	expect("198.51.100.1", a2, uris[2], "") // the unsubscribe gave its bytes back
	expect("198.51.100.2", b, uris[0], "")
	expect("198.51.100.2", b, uris[1], "")
	expect("198.51.100.2", b, uris[2], "MaxSubscriptionBytesTotal")
	// The end of a1 gives its two subscriptions back.
	req, _ := http.NewRequest(http.MethodDelete, ls.srv.URL, nil)
	req.Header.Set(legacy.HeaderSessionID, a1)
	req.Header.Set(headerAddr, "198.51.100.1")
	resp, err := ls.http.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	resp.Body.Close()
	expect("198.51.100.2", b, uris[2], "")
}

// TestStdioSubscriptionBytes checks MaxSubscriptionBytes on a stdio
// session (the process is the session: only the session's budget
// applies): the subscription over it is -32602 naming the limit, one
// held already is accepted, and an unsubscribe gives its bytes back.
func TestStdioSubscriptionBytes(t *testing.T) {
	const uriBytes = 100
	var uris []string
	f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{MaxSubscriptionBytes: 2 * (uriBytes + legacy.SubscriptionOverheadBytes)}))
	uris = addLongResources(t, f.Server, 3, uriBytes)
	c := StartLegacyStdio(t, f.Server, "2025-11-25")
	c.Open("")
	sub := func(id int, method, uri string) *Wire {
		t.Helper()
		w, _ := c.Call(id, method, fmt.Sprintf(`{"uri":%q}`, uri))
		return w
	}
	for i, u := range uris[:2] {
		if w := sub(i+1, "resources/subscribe", u); string(w.Members["result"]) != "{}" {
			t.Fatalf("subscribe %d: %s", i, w.Raw)
		}
	}
	if w := sub(3, "resources/subscribe", uris[2]); w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(string(w.Raw), "(MaxSubscriptionBytes)") {
		t.Fatalf("subscribe over MaxSubscriptionBytes: %s", w.Raw)
	}
	if w := sub(4, "resources/subscribe", uris[0]); string(w.Members["result"]) != "{}" {
		t.Errorf("subscribe to a URI held already: %s", w.Raw)
	}
	if w := sub(5, "resources/unsubscribe", uris[0]); string(w.Members["result"]) != "{}" {
		t.Fatalf("unsubscribe: %s", w.Raw)
	}
	if w := sub(6, "resources/subscribe", uris[2]); string(w.Members["result"]) != "{}" {
		t.Errorf("subscribe after an unsubscribe: %s", w.Raw)
	}
}

// TestSubscriptionBudgetIdledOut checks that a session which ends
// without a word (idled out, its client gone) stops counting towards its
// address's budget: another session of the address subscribes again, and
// a session kept alive by its requests keeps counting.
func TestSubscriptionBudgetIdledOut(t *testing.T) {
	const uriBytes = 100
	cost := int64(uriBytes + legacy.SubscriptionOverheadBytes)
	clk := legacy.NewTestClock()
	var uris []string
	ls := newLiveServer(t, legacy.Config{Clock: clk.Now, MaxSubscriptionBytesPerPrincipal: 2 * cost},
		func(s *server.Server) { uris = addLongResources(t, s, 3, uriBytes) })
	const addr = "198.51.100.1"
	gone, _, _ := ls.open(addr, "")
	kept, _, _ := ls.open(addr, "")
	for i, sid := range []string{gone, kept} {
		if code, body := ls.subscribe(addr, sid, i+1, uris[i]); code != http.StatusOK || rpcAnswer(t, body) != nil {
			t.Fatalf("subscribe: %d %s", code, body)
		}
	}
	// kept is used every 10 minutes (touched), gone never again.
	for range 4 {
		clk.Advance(10 * time.Minute)
		if c, _, b := ls.post(addr, kept, `{"jsonrpc":"2.0","id":"p","method":"ping"}`); c != http.StatusOK {
			t.Fatalf("ping: %d %s", c, b)
		}
	}
	fresh, _, _ := ls.open(addr, "")
	if code, body := ls.subscribe(addr, fresh, 3, uris[2]); code != http.StatusOK || rpcAnswer(t, body) != nil {
		t.Fatalf("after the idled-out session, another subscribes: %d %s", code, body)
	}
	// gone's bytes went, kept's stayed: the address is full again.
	if code, body := ls.subscribe(addr, fresh, 4, uris[0]); rpcAnswer(t, body) == nil || !strings.Contains(string(body), "(MaxSubscriptionBytesPerPrincipal)") {
		t.Fatalf("the address's budget after the idle-out: %d %s", code, body)
	}
}
