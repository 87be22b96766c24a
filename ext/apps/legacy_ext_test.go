package apps_test

import (
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/ext/apps"
)

// TestLegacyUnrelatedExtensions: with the extension served, a 2025-11-25
// initialize whose capabilities.extensions holds another extension with
// a value that is no object, or is itself no object, is accepted as a
// server without the extension accepts it (what the server does not
// serve is dropped); the extension's own declaration is still read. Both
// transports.
func TestLegacyUnrelatedExtensions(t *testing.T) {
	for _, st := range setups {
		if !st.legacy {
			continue
		}
		t.Run(st.name, func(t *testing.T) {
			_, s := newAppServer(t, "12:00")
			for _, c := range []struct {
				name  string
				caps  M
				names []string
			}{
				{"another extension null", M{"extensions": M{"other/x": nil}}, []string{"echo", "get-time"}},
				{"another extension a number", M{"extensions": M{"other/x": 1}}, []string{"echo", "get-time"}},
				{"extensions a string", M{"extensions": "whatever"}, []string{"echo", "get-time"}},
				{"extensions a list", M{"extensions": []any{1}}, []string{"echo", "get-time"}},
				{"extensions null", M{"extensions": nil}, []string{"echo", "get-time"}},
				{"another extension null beside ui", M{"extensions": M{"other/x": nil, apps.ExtensionID: M{"mimeTypes": []string{apps.MIMEType}}}}, []string{"echo", "get-time", "refresh"}},
			} {
				cl := st.dial(t, s, c.caps) // fails the test if initialize is refused
				if names := toolNames(call(t, cl, "tools/list", M{})); !reflect.DeepEqual(names, c.names) {
					t.Errorf("%s: lists %v, want %v", c.name, names, c.names)
				}
			}
		})
	}
}

// TestLegacyServedExtensionChecked: the declaration of the extension the
// server serves must still be a JSON object: -32602.
func TestLegacyServedExtensionChecked(t *testing.T) {
	_, s := newAppServer(t, "12:00")
	c := dialHTTPModern(t, s, nil).(*httpClient)
	p := M{"protocolVersion": legacyVersion, "capabilities": M{"extensions": M{apps.ExtensionID: true}}, "clientInfo": M{"name": "apps-test", "version": "1"}}
	rec := c.post(t, mustJSON(M{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": p}), "initialize", "")
	_, e := response(t, rec.Body.Bytes(), 0)
	if e == nil || e["code"] != -32602.0 {
		t.Errorf("initialize declaring %s as true: %d %s; want -32602", apps.ExtensionID, rec.Code, rec.Body.Bytes())
	}
}
