package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// scopedResourcesServer is authServer (test://secret needs admin) with a
// template vault://{name} that needs admin too, and an unscoped resource
// test://public.
func scopedResourcesServer(t *testing.T, opts ...any) *server.Server {
	t.Helper()
	s := AuthServer(t, opts...)
	read := func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return server.TextContents(uri, "text/plain", "x"), nil
	}
	if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "vault://{name}", Name: "vault"}, read, server.RequireResourceScopes("admin")); err != nil {
		t.Fatal(err)
	}
	AddResource(t, s, protocol.Resource{URI: "test://public", Name: "public"}, read)
	return s
}

// ackedResources is the resourceSubscriptions of a listen acknowledgement.
func ackedResources(t *testing.T, ack *Wire) []string {
	t.Helper()
	if ack.Method() != protocol.MethodNotificationsSubscriptionsAcknowledged {
		t.Fatalf("want the acknowledgement, got %s", ack.Raw)
	}
	n, _ := ack.Params()["notifications"].(M)
	raw, _ := n["resourceSubscriptions"].([]any)
	var out []string
	for _, u := range raw {
		out = append(out, u.(string))
	}
	return out
}

// R-AUTH-08, R-SUB-03: a listen filter naming a resource (or a URI a
// template matches) whose scopes the token lacks leaves it out of the
// acknowledgement exactly like an unknown URI, and its updates are not
// delivered; a token with the scopes gets both.
func TestAuthListenLeavesOutScopedResources(t *testing.T) {
	s := scopedResourcesServer(t)
	srv := httptest.NewServer(Handler(s, AuthOptions()))
	t.Cleanup(srv.Close)
	asked := []string{"test://secret", "vault://x", "test://public", "test://unknown"}
	p := Params(M{"notifications": M{"resourceSubscriptions": asked}})
	reader := OpenListenWith(t, srv, "r", p, Bearer("reader"))
	if got := ackedResources(t, reader.Message(2*time.Second)); !slices.Equal(got, []string{"test://public"}) {
		t.Errorf("reader's acknowledgement lists %v, want only test://public", got)
	}
	admin := OpenListenWith(t, srv, "a", p, Bearer("admin"))
	if got := ackedResources(t, admin.Message(2*time.Second)); !slices.Equal(got, asked[:3]) {
		t.Errorf("admin's acknowledgement lists %v, want %v", got, asked[:3])
	}
	for _, uri := range []string{"test://secret", "vault://x", "test://public"} {
		_ = s.NotifyResourceUpdated(uri)
	}
	if m := reader.Message(2 * time.Second); m.Params()["uri"] != "test://public" {
		t.Errorf("reader's first update is %s, want test://public's (no update of a scoped resource)", m.Raw)
	}
	for _, want := range asked[:3] {
		if m := admin.Message(2 * time.Second); m.Params()["uri"] != want {
			t.Errorf("admin's update: %s, want %s", m.Raw, want)
		}
	}
}

// R-AUTH-08: delivery re-checks the scopes: a resource acknowledged
// unscoped and then registered again with RequireResourceScopes sends no
// more updates to a stream whose token lacks them.
func TestAuthListenDeliveryRechecksScopes(t *testing.T) {
	s := scopedResourcesServer(t)
	srv := httptest.NewServer(Handler(s, AuthOptions()))
	t.Cleanup(srv.Close)
	read := func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return server.TextContents(uri, "text/plain", "x"), nil
	}
	AddResource(t, s, protocol.Resource{URI: "test://later", Name: "later"}, read)
	st := OpenListenWith(t, srv, "r", Params(M{"notifications": M{"resourceSubscriptions": []string{"test://later", "test://public"}}}), Bearer("reader"))
	if got := ackedResources(t, st.Message(2*time.Second)); len(got) != 2 {
		t.Fatalf("acknowledged %v", got)
	}
	AddResource(t, s, protocol.Resource{URI: "test://later", Name: "later"}, read, server.RequireResourceScopes("admin"))
	_ = s.NotifyResourceUpdated("test://later")
	_ = s.NotifyResourceUpdated("test://public")
	if m := st.Message(2 * time.Second); m.Params()["uri"] != "test://public" {
		t.Errorf("after the resource became scoped, the stream got %s, want test://public's update", m.Raw)
	}
}

// R-AUTH-08 in a legacy session: resources/subscribe of a resource (or a
// template's URI) whose scopes the token lacks is answered as
// resources/read of it is, 403 insufficient_scope with the challenge;
// unsubscribe stays harmless; an unknown URI is still -32002 with 200.
func TestAuthLegacySubscribeNeedsResourceScopes(t *testing.T) {
	h := Handler(scopedResourcesServer(t, Eras(legacy.ErasBoth)), AuthOptions())
	c := NewLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer reader")
	c.Open("")
	want := `Bearer resource_metadata="` + PrmURL + `", scope="admin", error="insufficient_scope", error_description="the access token lacks a scope this operation needs"`
	for i, uri := range []string{"test://secret", "vault://x"} {
		_, _, read := c.Call(10+i, "resources/read", `{"uri":"`+uri+`"}`)
		w, _, rec := c.Call(20+i, "resources/subscribe", `{"uri":"`+uri+`"}`)
		if rec.Code != 403 || read.Code != 403 || w.Code() != protocol.CodeInvalidRequestError || rec.Header().Get("WWW-Authenticate") != want {
			t.Errorf("subscribe %s: %d %q %s (read: %d)", uri, rec.Code, rec.Header().Get("WWW-Authenticate"), w.Raw, read.Code)
		}
		if w, _, rec := c.Call(30+i, "resources/unsubscribe", `{"uri":"`+uri+`"}`); rec.Code != 200 || w.IsError() {
			t.Errorf("unsubscribe %s: %d %s", uri, rec.Code, w.Raw)
		}
	}
	if w, _, rec := c.Call(40, "resources/subscribe", `{"uri":"test://public"}`); rec.Code != 200 || w.IsError() {
		t.Errorf("subscribe test://public: %d %s", rec.Code, w.Raw)
	}
	if w, _, rec := c.Call(41, "resources/subscribe", `{"uri":"test://unknown"}`); rec.Code != 200 || w.Code() != -32002 {
		t.Errorf("subscribe of an unknown URI: %d %s", rec.Code, w.Raw)
	}
	admin := NewLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer admin")
	admin.Open("")
	if w, _, rec := admin.Call(1, "resources/subscribe", `{"uri":"vault://x"}`); rec.Code != 200 || w.IsError() {
		t.Errorf("admin's subscribe: %d %s", rec.Code, w.Raw)
	}
}

// strongSubscribedSession serves scopedResourcesServer (ErasBoth) with the
// tokens "strong" (alice, admin) and "weak" (alice) over a real
// connection, and returns a legacy session opened with the strong token
// and subscribed to test://secret and test://public.
func strongSubscribedSession(t *testing.T) (*server.Server, *httptest.Server, *LegacyHTTP) {
	t.Helper()
	s := scopedResourcesServer(t, Eras(legacy.ErasBoth))
	h := Handler(s, streamhttp.Options{Verifier: FakeVerifier{"strong": TokenFor("alice", "admin"), "weak": TokenFor("alice")}})
	srv := GetServer(t, h)
	c := NewLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer strong")
	c.Open("")
	for _, uri := range []string{"test://secret", "test://public"} {
		if w, _, rec := c.Call(1, "resources/subscribe", `{"uri":"`+uri+`"}`); rec.Code != 200 || w.IsError() {
			t.Fatalf("subscribe %s: %d %s", uri, rec.Code, w.Raw)
		}
	}
	return s, srv, c
}

// R-AUTH-08: a legacy GET stream re-checks the scopes of each update
// against its own token: a session subscribed with a token of the same
// principal that held admin does not pass test://secret's updates to a
// stream opened with one that does not.
func TestAuthLegacyStreamRechecksScopes(t *testing.T) {
	s, srv, c := strongSubscribedSession(t)
	weak := *c
	weak.Hdr = []string{"Authorization", "Bearer weak"}
	ev := OpenGET(t, srv, &weak)
	_ = s.NotifyResourceUpdated("test://secret")
	_ = s.NotifyResourceUpdated("test://public")
	if w := ev.Message(); w.Params()["uri"] != "test://public" {
		t.Errorf("the weak token's stream got %s, want test://public's update only", w.Raw)
	}
}

// R-AUTH-08: completion/complete of a ref whose prompt or resource needs
// scopes the token lacks gets the 403 prompts/get or resources/read
// would, before the completion handler runs, in both eras.
func TestAuthCompletionNeedsRefScopes(t *testing.T) {
	calls := 0
	s := scopedResourcesServer(t, Eras(legacy.ErasBoth), server.WithCompletion(func(context.Context, *server.Request, *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
		calls++
		return &protocol.CompleteResult{Completion: protocol.CompleteResultCompletion{Values: []string{"v"}}}, nil
	}))
	h := Handler(s, AuthOptions())
	want := `Bearer resource_metadata="` + PrmURL + `", scope="admin", error="insufficient_scope", error_description="the access token lacks a scope this operation needs"`
	refs := []M{
		{"type": "ref/prompt", "name": "secret"},
		{"type": "ref/resource", "uri": "test://secret"},
		{"type": "ref/resource", "uri": "vault://{name}"}, // the template's text
		{"type": "ref/resource", "uri": "vault://x"},      // a URI it matches
	}
	complete := func(ref M) M { return Params(M{"ref": ref, "argument": M{"name": "a", "value": ""}}) }
	for _, ref := range refs {
		rec := Post(t, h, Rpc(1, "completion/complete", complete(ref)), Bearer("reader"))
		if w := Single(t, rec); rec.Code != 403 || w.Code() != protocol.CodeInvalidRequestError || rec.Header().Get("WWW-Authenticate") != want {
			t.Errorf("%v: %d %q %s", ref, rec.Code, rec.Header().Get("WWW-Authenticate"), w.Raw)
		}
	}
	if calls != 0 {
		t.Errorf("the completion handler ran %d times for refused refs", calls)
	}
	c := NewLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer reader")
	c.Open("")
	if w, _, rec := c.Call(2, "completion/complete", `{"ref":{"type":"ref/prompt","name":"secret"},"argument":{"name":"a","value":""}}`); rec.Code != 403 || w.Code() != protocol.CodeInvalidRequestError || calls != 0 {
		t.Errorf("legacy completion of a scoped prompt: %d %s (handler calls %d)", rec.Code, w.Raw, calls)
	}
	// With the scopes, or for refs that need none, the handler answers.
	for _, ref := range refs {
		if rec := Post(t, h, Rpc(1, "completion/complete", complete(ref)), Bearer("admin")); rec.Code != 200 {
			t.Errorf("%v as admin: %d %s", ref, rec.Code, rec.Body)
		}
	}
	for _, ref := range []M{{"type": "ref/resource", "uri": "test://public"}, {"type": "ref/prompt", "name": "unknown"}} {
		if rec := Post(t, h, Rpc(1, "completion/complete", complete(ref)), Bearer("reader")); rec.Code != 200 {
			t.Errorf("%v as reader: %d %s", ref, rec.Code, rec.Body)
		}
	}
	if calls != len(refs)+2 {
		t.Errorf("handler calls %d, want %d", calls, len(refs)+2)
	}
}

// R-AUTH-07: a listen stream, or a legacy GET stream, opened with a token
// already past its exp (which a Verifier accepts within its leeway) is
// refused with 401 invalid_token "token expired", so that the client
// refreshes the token instead of reopening a stream that ends at once.
// A token with time left opens its stream (TestAuthListenEndsAtTokenExpiry).
func TestAuthStreamRefusedForExpiredToken(t *testing.T) {
	s := AuthServer(t, Eras(legacy.ErasBoth))
	late := TokenFor("alice")
	late.Expiry = time.Now().Add(-5 * time.Second)
	opts := AuthOptions()
	opts.Verifier = FakeVerifier{"late": late, "good": TokenFor("alice")}
	h := Handler(s, opts)
	want := `Bearer resource_metadata="` + PrmURL + `", scope="read", error="invalid_token", error_description="token expired"`
	rec := Post(t, h, Rpc("sub-1", "subscriptions/listen", Params(M{"notifications": M{"toolsListChanged": true}})), Bearer("late"))
	if w := Single(t, rec); rec.Code != 401 || w.Code() != protocol.CodeInvalidRequestError || rec.Header().Get("WWW-Authenticate") != want {
		t.Errorf("listen with an expired token: %d %q %s", rec.Code, rec.Header().Get("WWW-Authenticate"), rec.Body)
	}
	// A request that is not a stream is served with the same token.
	if rec := Post(t, h, Rpc(2, "tools/call", Params(M{"name": "whoami"})), Bearer("late")); rec.Code != 200 {
		t.Errorf("tools/call with the token: %d %s", rec.Code, rec.Body)
	}
	c := NewLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer good")
	c.Open("")
	srv := GetServer(t, h)
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(legacy.HeaderSessionID, c.Sid)
	req.Header.Set(server.HeaderProtocolVersion, c.Rev)
	req.Header.Set("Authorization", "Bearer late")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("legacy GET with an expired token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

// R-AUTH-08, R-TOOL-02 (documented in docs/auth.md, Lists): with
// FilterListsByScope a tool left out of the list still answers a call
// with 403 insufficient_scope naming its scopes, the step-up signal, so a
// client learns that the tool exists; an unknown tool is -32602 (400).
// This is intended: the 403 is what lets the client ask for the scope.
func TestAuthFilteredToolStillAnswersInsufficientScope(t *testing.T) {
	opts := AuthOptions()
	opts.FilterListsByScope = true
	h := Handler(AuthServer(t), opts)
	rec := Post(t, h, Rpc(1, "tools/call", Params(M{"name": "admin"})), Bearer("reader"))
	if w := Single(t, rec); rec.Code != 403 || w.Code() != protocol.CodeInvalidRequestError || rec.Header().Get("WWW-Authenticate") == "" {
		t.Errorf("hidden tool: %d %q %s", rec.Code, rec.Header().Get("WWW-Authenticate"), w.Raw)
	}
	rec = Post(t, h, Rpc(2, "tools/call", Params(M{"name": "nonexistent"})), Bearer("reader"))
	if w := Single(t, rec); rec.Code != 400 || w.Code() != protocol.CodeInvalidParamsError {
		t.Errorf("unknown tool: %d %s", rec.Code, w.Raw)
	}
}

// R-AUTH-08 (documented in docs/auth.md, Percent-encoded aliases): a
// scoped static resource and an unscoped template matching the same
// decoded URI: the alias test://secre%74 misses the static entry and
// reaches the template's handler, which needs no scope. Scoping the
// template too closes it.
func TestAuthScopedResourceAliasReachesTemplate(t *testing.T) {
	for _, scoped := range []bool{false, true} {
		s := AuthServer(t)
		var opts []server.ResourceOption
		if scoped {
			opts = append(opts, server.RequireResourceScopes("admin"))
		}
		if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "test://{name}", Name: "any"}, func(_ context.Context, _ *server.Request, uri string, vars map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.TextContents(uri, "text/plain", "name="+vars["name"]), nil
		}, opts...); err != nil {
			t.Fatal(err)
		}
		h := Handler(s, AuthOptions())
		if rec := Post(t, h, Rpc(1, "resources/read", Params(M{"uri": "test://secret"})), Bearer("reader")); rec.Code != 403 {
			t.Errorf("scoped=%v: the exact URI: %d %s", scoped, rec.Code, rec.Body)
		}
		rec := Post(t, h, Rpc(2, "resources/read", Params(M{"uri": "test://secre%74"})), Bearer("reader"))
		if want := map[bool]int{false: 200, true: 403}[scoped]; rec.Code != want {
			t.Errorf("scoped=%v: the alias: %d %s, want %d", scoped, rec.Code, rec.Body, want)
		}
	}
}

// R-AUTH-08: a GET resuming the standalone stream with a weaker token of
// the same principal gets the replay without the resources/updated of
// resources that token may not receive (second hostile review: the
// replay carried what the stronger token had been sent).
func TestAuthStandaloneReplayRechecksScopes(t *testing.T) {
	s, srv, c := strongSubscribedSession(t)
	ev := OpenGET(t, srv, c)
	_ = s.NotifyResourceUpdated("test://secret")
	_ = s.NotifyResourceUpdated("test://public")
	got := ev.UpTo(func(e TEvent) bool { return strings.Contains(e.Data, "test://public") })
	if len(got) < 3 || !strings.HasSuffix(got[0].Id, ".0") {
		t.Fatalf("the strong token's stream: %v", got)
	}
	weak := *c
	weak.Hdr = []string{"Authorization", "Bearer weak"}
	g := OpenGET(t, srv, &weak, "Last-Event-ID", got[0].Id)
	replay := g.UpTo(func(e TEvent) bool { return strings.Contains(e.Data, "test://public") })
	for _, e := range replay {
		if strings.Contains(e.Data, "test://secret") {
			t.Errorf("the weak token's replay carries %s", e.Data)
		}
	}
}
