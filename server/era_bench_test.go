package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkEraToolsCall measures one tools/call through ServeHTTP: a
// 2026-07-28 request on an ErasModern server and on an ErasBoth one (the
// fast path of §1.3: a modern header and no session id go to the modern
// pipeline with no extra parse), and a 2025-11-25 request in a session of
// an ErasBoth server (for reference; bench/ holds the gated comparison).
func BenchmarkEraToolsCall(b *testing.B) {
	modernHdr := []string{HeaderProtocolVersion, "2026-07-28", HeaderMethod, "tools/call", HeaderName, "count"}
	run := func(b *testing.B, h http.Handler, body string, hdr []string) {
		b.Helper()
		req := func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
			r.Host = loopback
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
		s, _ := eraFixture(b, ErasModern)
		run(b, s.Handler(HTTPOptions{}), modernCall, modernHdr)
	})
	b.Run("modern/ErasBoth", func(b *testing.B) {
		s, _ := eraFixture(b, ErasBoth)
		run(b, s.Handler(HTTPOptions{}), modernCall, modernHdr)
	})
	b.Run("legacy-2025-11-25/ErasBoth", func(b *testing.B) {
		s, _ := eraFixture(b, ErasBoth)
		h := s.Handler(HTTPOptions{})
		c := newLegacyHTTP(b, h, "2025-11-25")
		c.open("")
		run(b, h, eraBody(1, "tools/call", `{"name":"count","arguments":{}}`), []string{HeaderSessionID, c.sid, HeaderProtocolVersion, "2025-11-25"})
	})
}
