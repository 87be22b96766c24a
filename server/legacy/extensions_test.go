package legacy_test

import (
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
)

// ServeExtension opens only an extension the server serves, with settings
// that are a JSON object.
func TestServeExtensionRefusals(t *testing.T) {
	s, err := server.New(protocol.Implementation{Name: "n", Version: "1"}, server.WithExtension(server.Extension{ID: "example.com/ext"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := legacy.ServeExtension(s, "example.com/other", nil); err == nil || !strings.Contains(err.Error(), "not on this server") {
		t.Errorf("an extension the server lacks: %v", err)
	}
	if err := legacy.ServeExtension(s, "example.com/ext", protocol.JSONObject(`[1]`)); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("settings that are no object: %v", err)
	}
	if err := legacy.ServeExtension(s, "example.com/ext", protocol.JSONObject(`{"v":1}`)); err != nil {
		t.Errorf("valid: %v", err)
	}
}
