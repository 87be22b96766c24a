package apps_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/ext/apps"
	"github.com/mcpwire/mcpwire/ext/apps/appsproto"
	"github.com/mcpwire/mcpwire/protocol"
)

func decl(v any) M { return M{"extensions": M{apps.ExtensionID: v}} }

// notRendering are clients for which apps.Supported is false: no
// declaration, one without the MCP App MIME type, an invalid one.
var notRendering = []struct {
	name string
	caps M
}{
	{"none", M{}},
	{"empty declaration", decl(M{})},
	{"mimeTypes not a list", decl(M{"mimeTypes": "x"})},
	{"another MIME type", decl(M{"mimeTypes": []string{"text/plain"}})},
}

// TestVisibilityRule: in both eras and over both transports, a client
// that does not render MCP Apps (apps.Supported false) sees plain tools
// without the app-only refresh; one that renders MCP Apps sees them all.
// The rule is Supported's, not the declaration's mere presence.
func TestVisibilityRule(t *testing.T) {
	for _, st := range setups {
		t.Run(st.name, func(t *testing.T) {
			_, s := newAppServer(t, "12:00")
			for _, p := range notRendering {
				c := st.dial(t, s, p.caps)
				list := call(t, c, "tools/list", M{})
				if names := toolNames(list); !reflect.DeepEqual(names, []string{"echo", "get-time"}) {
					t.Errorf("%s: lists %v, want echo and get-time", p.name, names)
				}
				if m, ok := tool(t, list, "get-time")["_meta"]; ok {
					t.Errorf("%s: get-time has _meta %v", p.name, m)
				}
			}
			c := st.dial(t, s, uiCaps)
			if names := toolNames(call(t, c, "tools/list", M{})); !reflect.DeepEqual(names, []string{"echo", "get-time", "refresh"}) {
				t.Errorf("an MCP Apps client lists %v", names)
			}
		})
	}
}

// TestAppOnlyCallRefused: in both eras and over both transports, a
// tools/call of the app-only refresh from a client that does not render
// MCP Apps gets the error of an unknown tool, as its tools/list does not
// show it ("app: Tool callable by the app from this server only"); a
// client that renders MCP Apps calls it.
func TestAppOnlyCallRefused(t *testing.T) {
	for _, st := range setups {
		t.Run(st.name, func(t *testing.T) {
			_, s := newAppServer(t, "12:00")
			for _, p := range notRendering {
				c := st.dial(t, s, p.caps)
				res, got := c.call(t, "tools/call", M{"name": "refresh", "arguments": M{}})
				_, unknown := c.call(t, "tools/call", M{"name": "no-such-tool", "arguments": M{}})
				if got == nil {
					t.Errorf("%s: the app-only tool ran: %v", p.name, res)
					continue
				}
				if unknown == nil || got["code"] != unknown["code"] || got["message"] != strings.ReplaceAll(unknown["message"].(string), "no-such-tool", "refresh") {
					t.Errorf("%s: refresh refused with %v, an unknown tool with %v", p.name, got, unknown)
				}
			}
			c := st.dial(t, s, uiCaps)
			call(t, c, "tools/call", M{"name": "refresh", "arguments": M{}})
		})
	}
}

// TestAppOnlyFailedRegistration: an app-only registration that fails (the
// name is taken, no Replace) leaves the tool there callable as before.
func TestAppOnlyFailedRegistration(t *testing.T) {
	ui, s := newAppServer(t, "12:00")
	appOnly := apps.ToolUI{ResourceURI: viewURI, Visibility: []appsproto.McpUiToolVisibility{apps.VisibleToApp}}
	if err := ui.AddTool(protocol.Tool{Name: "echo"}, timeHandler("x"), appOnly); err == nil {
		t.Fatal("a second echo was registered")
	}
	for _, st := range setups {
		if _, e := st.dial(t, s, M{}).call(t, "tools/call", M{"name": "echo", "arguments": M{}}); e != nil {
			t.Errorf("%s: the plain echo is refused after a failed app-only registration: %v", st.name, e)
		}
	}
}
