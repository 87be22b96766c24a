package legacy_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/server"
	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// BenchmarkEraToolsCall measures one tools/call through ServeHTTP: a
// 2026-07-28 request on an ErasModern server and on an ErasBoth one (the
// fast path of §1.3: a modern header and no session id go to the modern
// pipeline with no extra parse), and a 2025-11-25 request in a session of
// an ErasBoth server (for reference; bench/ holds the gated comparison).
func BenchmarkEraToolsCall(b *testing.B) {
	modernHdr := []string{server.HeaderProtocolVersion, "2026-07-28", server.HeaderMethod, "tools/call", server.HeaderName, "count"}
	run := func(b *testing.B, h http.Handler, body string, hdr []string) {
		b.Helper()
		req := func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
			r.Host = Loopback
			r.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(hdr); i += 2 {
				r.Header.Set(hdr[i], hdr[i+1])
			}
			return r
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req())
		if w.Code != 200 || !strings.Contains(w.Body.String(), "counted") {
			b.Fatalf("%d %s", w.Code, w.Body.Bytes())
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			h.ServeHTTP(httptest.NewRecorder(), req())
		}
	}
	b.Run("modern/ErasModern", func(b *testing.B) {
		s, _ := eraFixture(b, legacy.ErasModern)
		run(b, Handler(s, streamhttp.Options{}), modernCall, modernHdr)
	})
	b.Run("modern/ErasBoth", func(b *testing.B) {
		s, _ := eraFixture(b, legacy.ErasBoth)
		run(b, Handler(s, streamhttp.Options{}), modernCall, modernHdr)
	})
	b.Run("legacy-2025-11-25/ErasBoth", func(b *testing.B) {
		s, _ := eraFixture(b, legacy.ErasBoth)
		h := Handler(s, streamhttp.Options{})
		c := NewLegacyHTTP(b, h, "2025-11-25")
		c.Open("")
		run(b, h, EraBody(1, "tools/call", `{"name":"count","arguments":{}}`), []string{legacy.HeaderSessionID, c.Sid, server.HeaderProtocolVersion, "2025-11-25"})
	})
}
