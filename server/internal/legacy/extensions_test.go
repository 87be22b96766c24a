package legacy

import (
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// A 2025-11-25 initialize's capabilities.extensions reaches the session
// for the extensions that serve legacy sessions, and only for them; an
// older revision's never does; a declaration that is no object is refused.
func TestLegacyExtensionDeclarations(t *testing.T) {
	const ui = "io.modelcontextprotocol/ui"
	in := `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]},"io.modelcontextprotocol/tasks":{}}}`
	var c mcp20251125.ClientCapabilities
	if err := mcp20251125.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	exts := map[string]bool{ui: true}
	got, err := ConvertClientCapabilities(&c, Rev20251125, exts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Extensions) != 1 || string(got.Extensions[ui]) != `{"mimeTypes":["text/html;profile=mcp-app"]}` {
		t.Errorf("extensions = %v, want the ui declaration alone", got.Extensions)
	}
	for _, r := range []Rev{Rev20250618, Rev20250326, Rev20241105} {
		if got, err := ConvertClientCapabilities(&c, r, exts); err != nil || got.Extensions != nil {
			t.Errorf("%s: extensions = %v, %v; want none", r, got.Extensions, err)
		}
	}
	if got, err := ConvertClientCapabilities(&c, Rev20251125, nil); err != nil || got.Extensions != nil {
		t.Errorf("no extension served: extensions = %v, %v; want none", got.Extensions, err)
	}
	var bad mcp20251125.ClientCapabilities
	if err := mcp20251125.Unmarshal([]byte(`{"extensions":{"io.modelcontextprotocol/ui":true}}`), &bad); err != nil {
		t.Fatal(err)
	}
	if _, err := ConvertClientCapabilities(&bad, Rev20251125, exts); err == nil || !strings.Contains(err.Error(), "capabilities.extensions") {
		t.Errorf("a declaration that is no object: err = %v", err)
	}
}

// The initialize result advertises the extensions that serve legacy
// sessions under capabilities.extensions at 2025-11-25, and not before.
func TestLegacyExtensionAdvertised(t *testing.T) {
	f := ServerFeatures{Tools: true, Extensions: map[string]protocol.JSONObject{"io.modelcontextprotocol/ui": protocol.JSONObject(`{}`)}}
	info := protocol.Implementation{Name: "n", Version: "1"}
	for _, c := range []struct {
		r    Rev
		want bool
	}{{Rev20251125, true}, {Rev20250618, false}, {Rev20241105, false}} {
		res, err := InitializeResult(c.r, f, info, "")
		if err != nil {
			t.Fatal(err)
		}
		b, err := AppendResult(nil, c.r, res)
		if err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(string(b), `"extensions":{"io.modelcontextprotocol/ui":{}}`)
		if has != c.want {
			t.Errorf("%s: result %s; advertised %v, want %v", c.r, b, has, c.want)
		}
	}
}

// A session restored from its record (another instance, a shared store)
// declares the same extensions as the one initialize opened.
func TestLegacyExtensionRestored(t *testing.T) {
	const ui = "io.modelcontextprotocol/ui"
	caps := []byte(`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`)
	info := []byte(`{"name":"c","version":"1"}`)
	s, err := RestoreSession(Rev20251125, caps, info, "", map[string]bool{ui: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.ClientCapabilities.Extensions[ui]; !ok {
		t.Errorf("restored session does not declare %s: %+v", ui, s.ClientCapabilities)
	}
	s, err = RestoreSession(Rev20251125, caps, info, "", nil)
	if err != nil || s.ClientCapabilities.Extensions != nil {
		t.Errorf("restored without the extension served: %+v, %v", s.ClientCapabilities.Extensions, err)
	}
}

// Only the extensions served are checked: another extension's value, or
// an extensions member that is no object, is dropped, not refused; the
// served extension's declaration must be an object, given once.
func TestLegacyExtensionsOthersDropped(t *testing.T) {
	const ui = "io.modelcontextprotocol/ui"
	exts := map[string]bool{ui: true}
	for _, c := range []struct {
		in   string
		want string // the ui declaration kept, "" for none
		err  string
	}{
		{`{"other/x":null}`, "", ""},
		{`{"other/x":[1],"other/y":"s"}`, "", ""},
		{`"whatever"`, "", ""},
		{`[{"io.modelcontextprotocol/ui":{}}]`, "", ""},
		{`null`, "", ""},
		{`{"other/x":null,"io.modelcontextprotocol/ui":{"mimeTypes":["m"]}}`, `{"mimeTypes":["m"]}`, ""},
		{`{"io.modelcontextprotocol/ui":null}`, "", "expected object"},
		{`{"io.modelcontextprotocol/ui":{},"io.modelcontextprotocol/ui":{}}`, "", "given twice"},
	} {
		got, err := legacyExtensions([]byte(c.in), exts)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "capabilities.extensions") {
				t.Errorf("%s: err %v, want %q", c.in, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: refused: %v", c.in, err)
		case string(got[ui]) != c.want || c.want == "" && got != nil:
			t.Errorf("%s: kept %v, want %q", c.in, got, c.want)
		}
	}
}
