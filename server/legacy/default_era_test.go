package legacy_test

import (
	"net/http"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// Every transport of one Server left at its default serves the same Era,
// as the Server's own Handler did before the split (issue 21): a session
// opened through one Handler is served by another of the same Server, and
// not by a Handler of another Server.
func TestDefaultEraSharedPerServer(t *testing.T) {
	s := NewServer(t)
	if a, b := legacy.Default(s), legacy.Default(s); a != b {
		t.Fatal("legacy.Default made two Eras for one Server")
	}
	other := NewServer(t)
	if legacy.Default(other) == legacy.Default(s) {
		t.Fatal("two Servers share one default Era")
	}

	h1 := streamhttp.Handler(s, streamhttp.Options{})
	h2 := streamhttp.Handler(s, streamhttp.Options{})
	c := NewLegacyHTTP(t, h1, "2025-11-25")
	c.Open("{}")

	c.H = h2
	res, _, rec := c.Call(1, "tools/list", "{}")
	if rec.Code != http.StatusOK || res.Error != nil || res.Result["tools"] == nil {
		t.Fatalf("tools/list through the second Handler: %d %s", rec.Code, rec.Body.Bytes())
	}

	c.H = streamhttp.Handler(other, streamhttp.Options{})
	if rec := c.Send(http.MethodPost, EraBody(2, "tools/list", "{}")); rec.Code != http.StatusNotFound {
		t.Fatalf("a session of another Server: %d %s, want 404", rec.Code, rec.Body.Bytes())
	}

	// An Era of its own is not the default one.
	e, err := legacy.New(s, legacy.Config{})
	if err != nil {
		t.Fatal(err)
	}
	c.H = streamhttp.Handler(s, streamhttp.Options{Legacy: e})
	if rec := c.Send(http.MethodPost, EraBody(3, "tools/list", "{}")); rec.Code != http.StatusNotFound {
		t.Fatalf("the default Era's session through another Era: %d %s, want 404", rec.Code, rec.Body.Bytes())
	}
}
