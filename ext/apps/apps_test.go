package apps_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/ext/apps"
	"github.com/mcpwire/mcpwire/ext/apps/appsproto"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

const (
	viewURI  = "ui://clock/view.html"
	viewHTML = "<!doctype html><title>clock</title><p id=time></p>"
)

// uiCaps declares the extension as a host that renders MCP Apps does.
var uiCaps = M{"extensions": M{apps.ExtensionID: M{"mimeTypes": []string{apps.MIMEType}}}}

// timeHandler answers with the time it is given: as text, and as
// structuredContent too when the client renders MCP Apps.
func timeHandler(now string) server.ToolHandler {
	return func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		res := &protocol.CallToolResult{Content: []protocol.ContentBlock{{Value: &protocol.TextContent{Text: "The time is " + now}}}}
		if apps.Supported(r) {
			res.StructuredContent = json.RawMessage(`{"time":"` + now + `"}`)
		}
		return res, nil
	}
}

// newAppServer is a server with the extension, one UI resource and two
// tools: get-time linked to it, echo not.
func newAppServer(t testing.TB, now string) (*apps.Apps, *server.Server) {
	t.Helper()
	ui := apps.New()
	s, err := server.New(protocol.Implementation{Name: "apps-test", Version: "1"}, ui.Option())
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	err = ui.AddResource(apps.Resource{
		URI: viewURI, Name: "Clock", Description: "the clock's view",
		UI:   appsproto.McpUiResourceMeta{Csp: &appsproto.McpUiResourceCsp{ConnectDomains: []string{"https://api.example.com"}}, PrefersBorder: &yes},
		HTML: apps.StaticHTML(viewHTML),
	})
	if err != nil {
		t.Fatal(err)
	}
	in := protocol.ToolInputSchema{}
	if err := protocol.Unmarshal([]byte(`{"type":"object"}`), &in); err != nil {
		t.Fatal(err)
	}
	if err := ui.AddTool(protocol.Tool{Name: "get-time", InputSchema: in}, timeHandler(now), apps.ToolUI{ResourceURI: viewURI}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(protocol.Tool{Name: "echo", InputSchema: in}, timeHandler("never")); err != nil {
		t.Fatal(err)
	}
	appOnly := apps.ToolUI{ResourceURI: viewURI, Visibility: []appsproto.McpUiToolVisibility{apps.VisibleToApp}}
	if err := ui.AddTool(protocol.Tool{Name: "refresh", InputSchema: in}, timeHandler(now), appOnly); err != nil {
		t.Fatal(err)
	}
	return ui, s
}

// toolNames lists the names of a tools/list result, sorted.
func toolNames(list M) []string {
	var out []string
	tools, _ := list["tools"].([]any)
	for _, x := range tools {
		if m, _ := x.(M); m != nil {
			out = append(out, fmt.Sprint(m["name"]))
		}
	}
	sort.Strings(out)
	return out
}

// tool returns the tool name of a tools/list result.
func tool(t testing.TB, list M, name string) M {
	t.Helper()
	tools, _ := list["tools"].([]any)
	for _, x := range tools {
		if m, _ := x.(M); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no tool %s in %v", name, list)
	return nil
}

func call(t testing.TB, c client, method string, p M) M {
	t.Helper()
	res, e := c.call(t, method, p)
	if e != nil {
		t.Fatalf("%s: error %v", method, e)
	}
	return res
}

// TestClients: in both eras and over both transports, a client that
// declares the extension sees the tool's _meta.ui (and the flat
// ui/resourceUri), reads the UI resource with its MIME type and _meta.ui,
// and gets structuredContent; a client that does not sees a plain tool and
// gets text alone. A 2025-11-25 initialize result advertises the
// extension under capabilities.extensions.
func TestClients(t *testing.T) {
	for _, st := range setups {
		t.Run(st.name, func(t *testing.T) {
			now := "12:00 " + st.name
			_, s := newAppServer(t, now)

			plain := st.dial(t, s, M{})
			list := call(t, plain, "tools/list", M{})
			if m, ok := tool(t, list, "get-time")["_meta"]; ok {
				t.Errorf("a client without the extension sees _meta %v", m)
			}
			if names := toolNames(list); !reflect.DeepEqual(names, []string{"echo", "get-time"}) {
				t.Errorf("a client without the extension lists %v, want echo and get-time (refresh is the app's alone)", names)
			}
			res := call(t, plain, "tools/call", M{"name": "get-time", "arguments": M{}})
			if _, ok := res["structuredContent"]; ok {
				t.Errorf("a client without the extension got structuredContent: %v", res)
			}
			if got := fmt.Sprint(res["content"]); !strings.Contains(got, "The time is "+now) {
				t.Errorf("content %s, want the handler's text", got)
			}

			ui := st.dial(t, s, uiCaps)
			list = call(t, ui, "tools/list", M{})
			meta, _ := tool(t, list, "get-time")["_meta"].(M)
			if want := (M{"resourceUri": viewURI}); !reflect.DeepEqual(meta["ui"], want) {
				t.Errorf("_meta.ui = %v, want %v", meta["ui"], want)
			}
			if meta[apps.LegacyResourceURIKey] != viewURI {
				t.Errorf("_meta[%q] = %v, want %s", apps.LegacyResourceURIKey, meta[apps.LegacyResourceURIKey], viewURI)
			}
			if _, ok := tool(t, list, "echo")["_meta"]; ok {
				t.Errorf("the unlinked tool has _meta")
			}
			if vis := tool(t, list, "refresh")["_meta"].(M)["ui"].(M)["visibility"]; !reflect.DeepEqual(vis, []any{"app"}) {
				t.Errorf("refresh's visibility = %v", vis)
			}
			res = call(t, ui, "tools/call", M{"name": "get-time", "arguments": M{}})
			if want := (M{"time": now}); !reflect.DeepEqual(res["structuredContent"], want) {
				t.Errorf("structuredContent = %v, want %v", res["structuredContent"], want)
			}
			read := call(t, ui, "resources/read", M{"uri": viewURI})
			contents, _ := read["contents"].([]any)
			if len(contents) != 1 {
				t.Fatalf("contents %v", read)
			}
			c := contents[0].(M)
			if c["mimeType"] != apps.MIMEType || c["text"] != viewHTML || c["uri"] != viewURI {
				t.Errorf("content %v", c)
			}
			wantUI := M{"csp": M{"connectDomains": []any{"https://api.example.com"}}, "prefersBorder": true}
			if got := c["_meta"].(M)["ui"]; !reflect.DeepEqual(got, wantUI) {
				t.Errorf("content _meta.ui = %v, want %v", got, wantUI)
			}
			rl := call(t, ui, "resources/list", M{})
			rs, _ := rl["resources"].([]any)
			if len(rs) != 1 || rs[0].(M)["mimeType"] != apps.MIMEType || !reflect.DeepEqual(rs[0].(M)["_meta"].(M)["ui"], wantUI) {
				t.Errorf("resources/list %v", rl)
			}

			// The listing without the extension did not change the tools.
			list = call(t, plain, "tools/list", M{})
			if _, ok := tool(t, list, "get-time")["_meta"]; ok {
				t.Error("second plain listing has _meta")
			}
			if st.legacy {
				for _, c := range []client{plain, ui} {
					caps, _ := c.initResult()["capabilities"].(M)
					if ext, _ := caps["extensions"].(M); ext == nil || ext[apps.ExtensionID] == nil {
						t.Errorf("initialize result %v does not advertise %s", c.initResult(), apps.ExtensionID)
					}
				}
			}
		})
	}
}

// TestOlderLegacyRevision: a 2025-06-18 session's declaration of the
// extension is not taken (that revision's clients do not send one), and its
// initialize result does not advertise it.
func TestOlderLegacyRevision(t *testing.T) {
	_, s := newAppServer(t, "12:00")
	c := dialHTTPLegacyAt(t, s, uiCaps, "2025-06-18")
	if caps, _ := c.initResult()["capabilities"].(M); caps["extensions"] != nil {
		t.Errorf("2025-06-18 initialize result advertises extensions: %v", caps)
	}
	list := call(t, c, "tools/list", M{})
	if m, ok := tool(t, list, "get-time")["_meta"]; ok {
		t.Errorf("2025-06-18 session sees _meta %v", m)
	}
}

// TestRegistrationRefusals: bad input is refused at registration, each
// with its reason.
func TestRegistrationRefusals(t *testing.T) {
	ui, s := newAppServer(t, "12:00")
	res := func(uri string, meta appsproto.McpUiResourceMeta) error {
		return ui.AddResource(apps.Resource{URI: uri, Name: "v", UI: meta, HTML: apps.StaticHTML("x")})
	}
	csp := func(d ...string) appsproto.McpUiResourceMeta {
		return appsproto.McpUiResourceMeta{Csp: &appsproto.McpUiResourceCsp{ResourceDomains: d}}
	}
	domain := func(d string) appsproto.McpUiResourceMeta { return appsproto.McpUiResourceMeta{Domain: &d} }
	for _, c := range []struct {
		name string
		err  error
		want []string
	}{
		{"https URI", res("https://example.com/view.html", csp()), []string{"https://example.com/view.html", "scheme ui://"}},
		{"no authority", res("ui:view.html", csp()), []string{"want ui://"}},
		{"empty ui URI", res("ui://", csp()), []string{"want ui://"}},
		{"no name", ui.AddResource(apps.Resource{URI: "ui://a/b", HTML: apps.StaticHTML("x")}), []string{"needs a name"}},
		{"no handler", ui.AddResource(apps.Resource{URI: "ui://a/b", Name: "v"}), []string{"no HTML handler"}},
		{"origin without scheme", res("ui://a/b", csp("cdn.example.com")), []string{"csp.resourceDomains[0]", "no scheme"}},
		{"origin with a path", res("ui://a/b", csp("https://cdn.example.com/lib")), []string{"csp.resourceDomains[0]", "path"}},
		{"origin of another scheme", res("ui://a/b", csp("https://ok.example.com", "ftp://files.example.com")), []string{"csp.resourceDomains[1]", `scheme "ftp"`}},
		{"wildcard inside", res("ui://a/b", csp("https://cdn.*.example.com")), []string{"wildcard"}},
		{"bad port", res("ui://a/b", csp("https://cdn.example.com:70000")), []string{"port"}},
		{"space in host", res("ui://a/b", csp("https://cdn example.com")), []string{"csp.resourceDomains[0]"}},
		{"origin with query", res("ui://a/b", csp("https://cdn.example.com?x=1")), []string{"query"}},
		{"wildcard over a top-level domain", res("ui://a/b", csp("https://*.com")), []string{"csp.resourceDomains[0]", "wildcard", "one label"}},
		{"wildcard over a ws top-level domain", res("ui://a/b", csp("ws://*.localhost")), []string{"csp.resourceDomains[0]", "one label"}},
		{"IPv6 origin", res("ui://a/b", csp("https://[::1]")), []string{"csp.resourceDomains[0]", "IPv6"}},
		{"IPv6 origin with port", res("ui://a/b", csp("https://[2001:db8::1]:8443")), []string{"csp.resourceDomains[0]", "IPv6"}},
		{"leading-zero IPv4", res("ui://a/b", csp("https://01.02.03.04")), []string{"csp.resourceDomains[0]", "IPv4"}},
		{"short numeric host", res("ui://a/b", csp("https://1.2.3")), []string{"csp.resourceDomains[0]", "IPv4"}},
		{"unspecified address", res("ui://a/b", csp("https://0.0.0.0:8080")), []string{"csp.resourceDomains[0]", "0.0.0.0"}},
		{"wildcard over an address", res("ui://a/b", csp("https://*.1.2.3.4")), []string{"csp.resourceDomains[0]", "wildcard"}},
		{"origin with a trailing slash", res("ui://a/b", csp("https://cdn.example.com/")), []string{"csp.resourceDomains[0]", "path"}},
		{"domain IPv6", res("ui://a/b", domain("[::1]")), []string{"_meta.ui.domain", "IP address"}},
		{"domain IPv4", res("ui://a/b", domain("192.0.2.1")), []string{"_meta.ui.domain", "IP address"}},
		{"domain https IPv4 origin", res("ui://a/b", domain("https://192.0.2.1")), []string{"_meta.ui.domain", "IP address"}},
		{"domain https IPv6 origin", res("ui://a/b", domain("https://[::1]")), []string{"_meta.ui.domain", "IPv6"}},
		{"ui URI with userinfo", res("ui://me@a/b", csp()), []string{"ui://me@a/b", "user"}},
		{"ui URI with query", res("ui://a/b?x=1", csp()), []string{"ui://a/b?x=1", "query"}},
		{"ui URI with empty query", res("ui://a/b?", csp()), []string{"query"}},
		{"ui URI with fragment", res("ui://a/b#top", csp()), []string{"ui://a/b#top", "fragment"}},
		{"ui URI with empty fragment", res("ui://a/b#", csp()), []string{"fragment"}},
		{"ui URI without host", res("ui:///x", csp()), []string{"ui:///x", "no server"}},
		{"ui URI with NBSP", res("ui://a/b\u00a0c", csp()), []string{"U+00A0"}},
		{"ui URI with line separator", res("ui://a/b\u2028", csp()), []string{"U+2028"}},
		{"ui URI with ideographic space", res("ui://a/\u3000b", csp()), []string{"U+3000"}},
		{"ui URI with C1 control", res("ui://a/b\u0085", csp()), []string{"U+0085"}},
		{"ui URI with DEL", res("ui://a/b\x7f", csp()), []string{"U+007F"}},
		{"ui URI with NUL", res("ui://a/b\x00", csp()), []string{"U+0000"}},
		{"ui URI with zero-width space", res("ui://a/b\u200b", csp()), []string{"U+200B"}},
		{"ui URI with bidi override", res("ui://a/b\u202e", csp()), []string{"U+202E"}},
		{"ui URI with <", res("ui://a/<b>", csp()), []string{"'<'"}},
		{"ui URI with quote", res(`ui://a/b"c`, csp()), []string{`'"'`}},
		{"ui URI with apostrophe", res("ui://a/b'c", csp()), []string{`'\''`}},
		{"tool resourceUri with query", ui.AddTool(protocol.Tool{Name: "t7"}, timeHandler("x"), apps.ToolUI{ResourceURI: viewURI + "?v=2"}), []string{"resourceUri", "query"}},
		{"domain with space", res("ui://a/b", domain("my app.example.com")), []string{"_meta.ui.domain", "character"}},
		{"domain http origin", res("ui://a/b", domain("http://app.example.com")), []string{"https"}},
		{"tool naming a missing resource", ui.AddTool(protocol.Tool{Name: "t1"}, timeHandler("x"), apps.ToolUI{ResourceURI: "ui://clock/missing.html"}), []string{"ui://clock/missing.html", "no UI resource"}},
		{"tool naming a non-ui resource", ui.AddTool(protocol.Tool{Name: "t2"}, timeHandler("x"), apps.ToolUI{ResourceURI: "https://x.example.com/v"}), []string{"resourceUri", "scheme ui://"}},
		{"tool visibility outside the enum", ui.AddTool(protocol.Tool{Name: "t3"}, timeHandler("x"), apps.ToolUI{ResourceURI: viewURI, Visibility: []appsproto.McpUiToolVisibility{"user"}}), []string{"visibility[0]", `"user"`}},
		{"tool visibility twice", ui.AddTool(protocol.Tool{Name: "t4"}, timeHandler("x"), apps.ToolUI{ResourceURI: viewURI, Visibility: []appsproto.McpUiToolVisibility{apps.VisibleToApp, apps.VisibleToApp}}), []string{"given twice"}},
		{"tool visibility empty", ui.AddTool(protocol.Tool{Name: "t5"}, timeHandler("x"), apps.ToolUI{ResourceURI: viewURI, Visibility: []appsproto.McpUiToolVisibility{}}), []string{"empty"}},
		{"Link to a missing resource", s.AddTool(protocol.Tool{Name: "t6"}, timeHandler("x"), ui.Link(apps.ToolUI{ResourceURI: "ui://nowhere/v"})), []string{"no UI resource"}},
		{"not on a server", apps.New().AddResource(apps.Resource{URI: "ui://a/b", Name: "v", HTML: apps.StaticHTML("x")}), []string{"server.New"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(c.err.Error(), w) {
					t.Errorf("error %q lacks %q", c.err, w)
				}
			}
		})
	}
	for _, n := range []string{"t1", "t2", "t3", "t4", "t5", "t6", "t7"} {
		if _, e := dialHTTPModern(t, s, uiCaps).call(t, "tools/call", M{"name": n, "arguments": M{}}); e == nil {
			t.Errorf("refused tool %s is callable", n)
		}
	}
	if ui.HasResource("ui://a/b") {
		t.Error("a refused resource is registered")
	}
}

// TestRegistrationAccepts: the forms the checks allow.
func TestRegistrationAccepts(t *testing.T) {
	ui, _ := newAppServer(t, "12:00")
	for _, d := range []string{"https://cdn.example.com", "https://*.example.com", "wss://live.example.com:8443", "http://localhost:3000", "https://127.0.0.1", "ws://*.a.com", "https://*.example.co.uk:443", "http://10.0.0.1:8080", "https://CDN.Example.com", "https://xn--bcher-kva.example"} {
		if err := ui.AddResource(apps.Resource{URI: "ui://a/b", Name: "v", HTML: apps.StaticHTML("x"), UI: appsproto.McpUiResourceMeta{Csp: &appsproto.McpUiResourceCsp{ConnectDomains: []string{d}}}}); err != nil {
			t.Errorf("%s refused: %v", d, err)
		}
	}
	for _, d := range []string{"a1b2c3.apps.example.com", "https://app.example.com", "www-example-com.oaiusercontent.com", "https://app.example.com:8443"} {
		if err := ui.AddResource(apps.Resource{URI: "ui://a/c", Name: "v", HTML: apps.StaticHTML("x"), UI: appsproto.McpUiResourceMeta{Domain: &d}}); err != nil {
			t.Errorf("domain %s refused: %v", d, err)
		}
	}
	for _, u := range []string{"ui://a/d", "ui://a", "ui://get-time/mcp-app.html", "ui://a/b%20c", "ui://a/~x/y-z_1.html"} {
		if err := ui.AddResource(apps.Resource{URI: u, Name: "v", HTML: apps.StaticHTML("x")}); err != nil {
			t.Errorf("URI %s refused: %v", u, err)
		}
	}
	yes := true
	perm := appsproto.McpUiResourceMeta{Permissions: &appsproto.McpUiResourcePermissions{Camera: &appsproto.McpUiResourcePermissionsCamera{}}, PrefersBorder: &yes}
	b, err := apps.CheckResourceMeta(perm)
	if err != nil || string(b) != `{"permissions":{"camera":{}},"prefersBorder":true}` {
		t.Errorf("CheckResourceMeta = %s, %v", b, err)
	}
	if b, err := apps.CheckResourceMeta(appsproto.McpUiResourceMeta{}); err != nil || b != nil {
		t.Errorf("empty meta = %s, %v; want nil", b, err)
	}
	// An undeclared member of a closed object is refused by the schema.
	bad := appsproto.McpUiResourceMeta{}
	bad.Extra.Set("border", json.RawMessage("true"))
	if _, err := apps.CheckResourceMeta(bad); err == nil || !strings.Contains(err.Error(), "closes this object") {
		t.Errorf("undeclared member: %v", err)
	}
}

// TestSetToolMeta: _meta.ui and the flat key are written, replacing any
// earlier ones, and other members are kept.
func TestSetToolMeta(t *testing.T) {
	def := protocol.Tool{Name: "t", Meta: &protocol.MetaObject{}}
	def.Meta.Extra.Set("example.com/x", json.RawMessage(`1`))
	def.Meta.Extra.Set(apps.MetaKey, json.RawMessage(`{"resourceUri":"ui://old/v"}`))
	if err := apps.SetToolMeta(&def, apps.ToolUI{ResourceURI: "ui://new/v", Visibility: []appsproto.McpUiToolVisibility{apps.VisibleToApp}}); err != nil {
		t.Fatal(err)
	}
	b, err := protocol.Marshal(def.Meta)
	if err != nil {
		t.Fatal(err)
	}
	var got M
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := M{"example.com/x": 1.0, "ui": M{"resourceUri": "ui://new/v", "visibility": []any{"app"}}, "ui/resourceUri": "ui://new/v"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("_meta = %v, want %v", got, want)
	}
}

// TestClientCapabilities: what a client declared, read strictly.
func TestClientCapabilities(t *testing.T) {
	for _, c := range []struct {
		name      string
		caps      M
		declared  bool
		supported bool
		err       bool
	}{
		{"none", M{}, false, false, false},
		{"with the MIME type", uiCaps, true, true, false},
		{"without mimeTypes", M{"extensions": M{apps.ExtensionID: M{}}}, true, false, false},
		{"another MIME type", M{"extensions": M{apps.ExtensionID: M{"mimeTypes": []string{"text/html"}}}}, true, false, false},
		{"undeclared member", M{"extensions": M{apps.ExtensionID: M{"mimeTypes": []string{apps.MIMEType}, "x": 1}}}, true, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := server.New(protocol.Implementation{Name: "n", Version: "1"})
			if err != nil {
				t.Fatal(err)
			}
			var declared, supported bool
			var cerr error
			in := protocol.ToolInputSchema{}
			_ = protocol.Unmarshal([]byte(`{"type":"object"}`), &in)
			if err := s.AddTool(protocol.Tool{Name: "probe", InputSchema: in}, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
				_, declared, cerr = apps.ClientCapabilities(r)
				supported = apps.Supported(r)
				return &protocol.CallToolResult{}, nil
			}); err != nil {
				t.Fatal(err)
			}
			call(t, dialHTTPModern(t, s, c.caps), "tools/call", M{"name": "probe", "arguments": M{}})
			if declared != c.declared || supported != c.supported || (cerr != nil) != c.err {
				t.Errorf("declared %v supported %v err %v; want %v %v %v", declared, supported, cerr, c.declared, c.supported, c.err)
			}
		})
	}
}
