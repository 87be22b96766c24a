package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// TestEraHostileCorpusDual sends every HTTP row of the hostile corpus to
// ErasBoth and ErasLegacy servers (docs/dual-era.md §1.3, §1.9, §9,
// mixed-era smuggling). For a request with a modern MCP-Protocol-Version
// and no session id, ErasBoth must answer exactly as ErasModern does (the
// modern pipeline, every check in today's order: row M3); ErasLegacy never
// answers with a 2026-07-28 code; evil_tool never runs; every answer is a
// JSON-RPC message or empty. The corpus's own expectations are checked by
// TestHostileCorpus (ErasModern), TestHostileCorpusBoth and
// TestHostileCorpusLegacy.
func TestEraHostileCorpusDual(t *testing.T) {
	modern := newHostileFixture(t)
	both := newHostileFixture(t, WithEras(ErasBoth))
	legacyOnly := newHostileFixture(t, WithEras(ErasLegacy))
	dual := map[Eras]*hostileFixture{ErasBoth: both, ErasLegacy: legacyOnly}
	compared := 0
	for _, c := range loadHostileCorpus(t) {
		if !c.http || c.raw != "" {
			continue
		}
		t.Run(c.label(), func(t *testing.T) {
			m := modern.forCase(t, c)
			want, _ := m.serveHostileHTTP(c, m.hostileBody(c))
			for mode, f := range dual {
				f := f.forCase(t, c)
				before := f.snapshot()
				body := f.hostileBody(c)
				got, _ := f.serveHostileHTTP(c, body)
				if d := f.snapshot()["evil_tool"] - before["evil_tool"]; d != 0 {
					t.Errorf("%v: SMUGGLED: evil_tool ran", mode)
				}
				codes := answerCodes(t, got)
				if mode == ErasLegacy {
					for _, code := range codes {
						if code <= -32020 && code >= -32099 {
							t.Errorf("ErasLegacy answered with the 2026-07-28 code %d: %s", code, got.Body.Bytes())
						}
					}
					continue
				}
				if !modernHeaderNoSession(c, f, body) {
					continue
				}
				compared++
				wantCodes := answerCodes(t, want)
				if got.Code != want.Code || strings.Join(codeText(codes), ",") != strings.Join(codeText(wantCodes), ",") {
					t.Errorf("M3: ErasBoth answered %d %s, ErasModern %d %s", got.Code, got.Body.Bytes(), want.Code, want.Body.Bytes())
				}
			}
		})
	}
	t.Logf("%d rows compared with ErasModern", compared)
	if compared < 100 {
		t.Errorf("only %d rows carried a modern header without a session id: the comparison lost its reach", compared)
	}
}

// TestHostileCorpusBoth runs every case that runs on ErasBoth (all but
// those naming other eras) on an ErasBoth server, over both transports,
// with its want-both where the answer differs from ErasModern's
// (docs/dual-era.md §10.4): switching the default to ErasBoth finds its
// expectations written.
func TestHostileCorpusBoth(t *testing.T) {
	runHostileCorpusOn(t, ErasBoth, append(loadHostileCorpus(t), generatedHostileCases()...))
}

// TestHostileCorpusLegacy runs the cases that name ErasLegacy (era:
// legacy) on an ErasLegacy server.
func TestHostileCorpusLegacy(t *testing.T) {
	runHostileCorpusOn(t, ErasLegacy, loadHostileCorpus(t))
}

func runHostileCorpusOn(t *testing.T, mode Eras, cases []*hostileCase) {
	f := newHostileFixture(t, WithEras(mode))
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	n := 0
	for _, c := range cases {
		if !c.runsOn(mode) {
			continue
		}
		n++
		if c.http {
			t.Run("http/"+c.name, func(t *testing.T) { f.runHostileHTTP(t, srv, c) })
		}
		if c.stdio {
			t.Run("stdio/"+c.name, func(t *testing.T) { f.runHostileStdio(t, c) })
		}
	}
	t.Logf("%d cases on %v", n, mode)
	if n < 40 {
		t.Errorf("only %d cases run on %v", n, mode)
	}
}

// modernHeaderNoSession reports whether the request of c carries one
// MCP-Protocol-Version that is not a legacy version, and no Mcp-Session-Id.
func modernHeaderNoSession(c *hostileCase, f *hostileFixture, body []byte) bool {
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	f.setHostileHeaders(c, r.Header, body)
	if len(r.Header[keySessionID]) > 0 {
		return false
	}
	kind, _ := f.versionHeader(r.Header)
	return kind.modern()
}

// answerCodes returns the error codes of an answer's messages (0 for a
// result), failing on anything that is not a JSON-RPC message.
func answerCodes(t *testing.T, rec *httptest.ResponseRecorder) []int64 {
	t.Helper()
	if rec.Body.Len() == 0 {
		return nil
	}
	var msgs []*wire
	switch rec.Header().Get("Content-Type") {
	case "text/event-stream":
		msgs = sseMessages(t, rec.Body.Bytes())
	default:
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("an answer that is not JSON: %q", rec.Body.Bytes())
		}
		msgs = []*wire{decodeWire(t, rec.Body.Bytes())}
	}
	var out []int64
	for _, m := range msgs {
		if m.method() == "" {
			out = append(out, m.code())
		}
	}
	return out
}

func codeText(codes []int64) []string {
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = protocol.ErrorCodeName(c)
		if out[i] == "" {
			b, _ := json.Marshal(c)
			out[i] = string(b)
		}
	}
	return out
}
