package appsproto_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/ext/apps/appsproto"
)

// Decoding is strict: closed objects refuse undeclared members (a tool's
// _meta.ui carrying a CSP among them: the schema forbids it there), enums
// refuse other values, consts are checked, and each error names its kind
// and path.
func TestStrict(t *testing.T) {
	for _, c := range []struct {
		name string
		new  func() any
		json string
		kind appsproto.ErrorKind
		path string
	}{
		{"tool meta with a csp", func() any { return new(appsproto.McpUiToolMeta) }, `{"resourceUri":"ui://a","csp":{}}`, appsproto.KindUnknown, "csp"},
		{"tool meta with permissions", func() any { return new(appsproto.McpUiToolMeta) }, `{"resourceUri":"ui://a","permissions":{}}`, appsproto.KindUnknown, "permissions"},
		{"visibility outside the enum", func() any { return new(appsproto.McpUiToolMeta) }, `{"visibility":["model","user"]}`, appsproto.KindEnum, "visibility[1]"},
		{"resourceUri a number", func() any { return new(appsproto.McpUiToolMeta) }, `{"resourceUri":7}`, appsproto.KindType, "resourceUri"},
		{"resource meta undeclared member", func() any { return new(appsproto.McpUiResourceMeta) }, `{"border":true}`, appsproto.KindUnknown, "border"},
		{"prefersBorder a string", func() any { return new(appsproto.McpUiResourceMeta) }, `{"prefersBorder":"yes"}`, appsproto.KindType, "prefersBorder"},
		{"csp domains not an array", func() any { return new(appsproto.McpUiResourceMeta) }, `{"csp":{"connectDomains":"https://a.example"}}`, appsproto.KindType, "csp.connectDomains"},
		{"csp undeclared directive", func() any { return new(appsproto.McpUiResourceMeta) }, `{"csp":{"scriptDomains":[]}}`, appsproto.KindUnknown, "csp.scriptDomains"},
		{"permission not an empty object", func() any { return new(appsproto.McpUiResourceMeta) }, `{"permissions":{"camera":{"always":true}}}`, appsproto.KindUnknown, "permissions.camera.always"},
		{"unknown permission", func() any { return new(appsproto.McpUiResourcePermissions) }, `{"usb":{}}`, appsproto.KindUnknown, "usb"},
		{"client capability closed", func() any { return new(appsproto.McpUiClientCapabilities) }, `{"mimeTypes":[],"x":1}`, appsproto.KindUnknown, "x"},
		{"mimeTypes of numbers", func() any { return new(appsproto.McpUiClientCapabilities) }, `{"mimeTypes":[1]}`, appsproto.KindType, "mimeTypes[0]"},
		{"duplicate member", func() any { return new(appsproto.McpUiToolMeta) }, `{"resourceUri":"ui://a","resourceUri":"ui://b"}`, appsproto.KindDuplicate, "resourceUri"},
		{"theme outside the enum", func() any { return new(appsproto.McpUiHostContext) }, `{"theme":"sepia"}`, appsproto.KindEnum, "theme"},
		{"style value a number", func() any { return new(appsproto.McpUiHostContext) }, `{"styles":{"variables":{"--font-sans":12}}}`, appsproto.KindType, "styles.variables.--font-sans"},
		{"wrong method", func() any { return new(appsproto.McpUiInitializeRequest) }, `{"method":"ui/message","params":{"appInfo":{"name":"a","version":"1"},"appCapabilities":{},"protocolVersion":"2026-01-26"}}`, appsproto.KindConst, "method"},
		{"initialize without appInfo", func() any { return new(appsproto.McpUiInitializeRequest) }, `{"method":"ui/initialize","params":{"appCapabilities":{},"protocolVersion":"2026-01-26"}}`, appsproto.KindMissing, "params.appInfo"},
		{"open-link without url", func() any { return new(appsproto.McpUiOpenLinkRequest) }, `{"method":"ui/open-link","params":{}}`, appsproto.KindMissing, "params.url"},
		{"display mode outside the enum", func() any { return new(appsproto.McpUiRequestDisplayModeRequest) }, `{"method":"ui/request-display-mode","params":{"mode":"tab"}}`, appsproto.KindEnum, "params.mode"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := appsproto.Unmarshal([]byte(c.json), c.new())
			de, ok := appsproto.AsDecodeError(err)
			if !ok {
				t.Fatalf("error = %v (%T), want a *appsproto.DecodeError", err, err)
			}
			if de.Kind != c.kind || de.Path != c.path {
				t.Errorf("error %v: kind %v path %q, want kind %v path %q", err, de.Kind, de.Path, c.kind, c.path)
			}
			if !errors.Is(err, &appsproto.DecodeError{Kind: c.kind}) {
				t.Errorf("errors.Is(%v, kind %v) = false", err, c.kind)
			}
			if !strings.HasPrefix(err.Error(), "appsproto: ") {
				t.Errorf("error %q does not name the package", err)
			}
		})
	}
}

// Style variables are optional keys with string values (the schema rule
// undefined-record-values): a host sends any subset, and an empty map is
// valid, as the description says and the literal schema (every key
// required) would refuse.
func TestStylesSubset(t *testing.T) {
	var hc appsproto.McpUiHostContext
	in := `{"styles":{"variables":{"--color-text-primary":"#111"},"css":{"fonts":"@font-face{}"}}}`
	if err := appsproto.Unmarshal([]byte(in), &hc); err != nil {
		t.Fatalf("a subset of the style variables refused: %v", err)
	}
	if got := hc.Styles.Variables["--color-text-primary"]; got != "#111" {
		t.Errorf("variable = %q", got)
	}
	var st appsproto.McpUiStyles
	if err := appsproto.Unmarshal([]byte(`{}`), &st); err != nil {
		t.Errorf("no style variables refused: %v", err)
	}
}
