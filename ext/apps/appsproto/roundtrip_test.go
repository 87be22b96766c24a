package appsproto_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/ext/apps/appsproto"
)

// The schema has no examples of its own (its one "default" is the empty
// content list of tool-result), so the round trips are of messages written
// here, one per method of the view↔host protocol, and of the server-side
// metadata: each decodes into its generated type and encodes back to the
// same JSON value.
var messages = map[string]string{
	appsproto.MethodUiInitialize:                        `{"method":"ui/initialize","params":{"appInfo":{"name":"basic","version":"1.0.0"},"appCapabilities":{"availableDisplayModes":["inline","fullscreen"],"tools":{"listChanged":true}},"protocolVersion":"2026-01-26"}}`,
	appsproto.MethodUiNotificationsInitialized:          `{"method":"ui/notifications/initialized","params":{}}`,
	appsproto.MethodUiNotificationsToolInput:            `{"method":"ui/notifications/tool-input","params":{"arguments":{"city":"Oslo","days":3}}}`,
	appsproto.MethodUiNotificationsToolInputPartial:     `{"method":"ui/notifications/tool-input-partial","params":{"arguments":{"city":"Os"}}}`,
	appsproto.MethodUiNotificationsToolResult:           `{"method":"ui/notifications/tool-result","params":{"content":[{"type":"text","text":"12:00"}],"structuredContent":{"time":"12:00"},"isError":false}}`,
	appsproto.MethodUiNotificationsToolCancelled:        `{"method":"ui/notifications/tool-cancelled","params":{"reason":"user"}}`,
	appsproto.MethodUiNotificationsSizeChanged:          `{"method":"ui/notifications/size-changed","params":{"width":320,"height":240.5}}`,
	appsproto.MethodUiNotificationsHostContextChanged:   `{"method":"ui/notifications/host-context-changed","params":{"theme":"dark","displayMode":"inline","locale":"nb-NO","styles":{"variables":{"--color-background-primary":"#000"}}}}`,
	appsproto.MethodUiNotificationsRequestTeardown:      `{"method":"ui/notifications/request-teardown","params":{}}`,
	appsproto.MethodUiNotificationsSandboxProxyReady:    `{"method":"ui/notifications/sandbox-proxy-ready","params":{}}`,
	appsproto.MethodUiNotificationsSandboxResourceReady: `{"method":"ui/notifications/sandbox-resource-ready","params":{"html":"<p>hi</p>","sandbox":"allow-scripts","csp":{"connectDomains":["https://api.example.com"]}}}`,
	appsproto.MethodUiOpenLink:                          `{"method":"ui/open-link","params":{"url":"https://example.com/"}}`,
	appsproto.MethodUiMessage:                           `{"method":"ui/message","params":{"role":"user","content":[{"type":"text","text":"hello"}]}}`,
	appsproto.MethodUiRequestDisplayMode:                `{"method":"ui/request-display-mode","params":{"mode":"fullscreen"}}`,
	appsproto.MethodUiResourceTeardown:                  `{"method":"ui/resource-teardown","params":{}}`,
	appsproto.MethodUiUpdateModelContext:                `{"method":"ui/update-model-context","params":{"content":[{"type":"text","text":"selected: 3"}],"structuredContent":{"selected":3}}}`,
	appsproto.MethodUiDownloadFile:                      `{"method":"ui/download-file","params":{"contents":[{"type":"resource","resource":{"uri":"file:///a.txt","mimeType":"text/plain","text":"a"}}]}}`,
}

func TestRoundTripMessages(t *testing.T) {
	for _, m := range appsproto.Methods() {
		in, ok := messages[m.Name]
		if !ok {
			t.Errorf("no sample message for %s", m.Name)
			continue
		}
		roundTrip(t, m.Name, m.NewMessage(), in)
	}
	if len(messages) != len(appsproto.Methods()) {
		t.Errorf("%d samples for %d methods", len(messages), len(appsproto.Methods()))
	}
}

func TestRoundTripValues(t *testing.T) {
	for _, c := range []struct {
		name string
		v    any
		json string
	}{
		{"tool meta", new(appsproto.McpUiToolMeta), `{"resourceUri":"ui://clock/view.html","visibility":["model","app"]}`},
		{"resource meta", new(appsproto.McpUiResourceMeta), `{"csp":{"connectDomains":["https://api.example.com"],"resourceDomains":["https://*.cdn.example.com"],"frameDomains":[],"baseUriDomains":["https://example.com"]},"permissions":{"camera":{},"clipboardWrite":{}},"domain":"a1b2.apps.example.com","prefersBorder":true}`},
		{"client capabilities", new(appsproto.McpUiClientCapabilities), `{"mimeTypes":["text/html;profile=mcp-app"]}`},
		{"initialize result", new(appsproto.McpUiInitializeResult), `{"protocolVersion":"2026-01-26","hostInfo":{"name":"host","version":"1"},"hostCapabilities":{"openLinks":{},"serverTools":{"listChanged":false},"logging":{}},"hostContext":{"theme":"light","platform":"web","containerDimensions":{"maxHeight":600,"width":400}}}`},
		{"message result", new(appsproto.McpUiMessageResult), `{"isError":false}`},
		{"display mode result", new(appsproto.McpUiRequestDisplayModeResult), `{"mode":"pip"}`},
		{"teardown result", new(appsproto.McpUiResourceTeardownResult), `{"anything":[1,{"a":null}]}`},
	} {
		roundTrip(t, c.name, c.v, c.json)
	}
}

func roundTrip(t *testing.T, name string, v any, in string) {
	t.Helper()
	if err := appsproto.Unmarshal([]byte(in), v); err != nil {
		t.Errorf("%s: decode: %v", name, err)
		return
	}
	out, err := appsproto.Marshal(v)
	if err != nil {
		t.Errorf("%s: encode: %v", name, err)
		return
	}
	var a, b any
	if err := json.Unmarshal([]byte(in), &a); err != nil {
		t.Fatalf("%s: sample is not JSON: %v", name, err)
	}
	if err := json.Unmarshal(out, &b); err != nil {
		t.Errorf("%s: output is not JSON: %v", name, err)
		return
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("%s: round trip changed the value\n in: %s\nout: %s", name, in, out)
	}
}
