package legacy_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"

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
	modern := NewHostileFixture(t)
	both := NewHostileFixture(t, Eras(legacy.ErasBoth))
	legacyOnly := NewHostileFixture(t, Eras(legacy.ErasLegacy))
	dual := map[legacy.Eras]*HostileFixture{legacy.ErasBoth: both, legacy.ErasLegacy: legacyOnly}
	compared := 0
	for _, c := range LoadHostileCorpus(t) {
		if !c.Http || c.Raw != "" {
			continue
		}
		t.Run(c.Label(), func(t *testing.T) {
			m := modern.ForCase(t, c)
			want, _ := m.ServeHostileHTTP(c, m.HostileBody(c))
			for mode, f := range dual {
				f := f.ForCase(t, c)
				before := f.Snapshot()
				body := f.HostileBody(c)
				got, _ := f.ServeHostileHTTP(c, body)
				if d := f.Snapshot()["evil_tool"] - before["evil_tool"]; d != 0 {
					t.Errorf("%v: SMUGGLED: evil_tool ran", mode)
				}
				codes := answerCodes(t, got)
				if mode == legacy.ErasLegacy {
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
	runHostileCorpusOn(t, legacy.ErasBoth, append(LoadHostileCorpus(t), GeneratedHostileCases()...))
}

// TestHostileCorpusLegacy runs the cases that name ErasLegacy (era:
// legacy) on an ErasLegacy server.
func TestHostileCorpusLegacy(t *testing.T) {
	runHostileCorpusOn(t, legacy.ErasLegacy, LoadHostileCorpus(t))
}

func runHostileCorpusOn(t *testing.T, mode legacy.Eras, cases []*HostileCase) {
	f := NewHostileFixture(t, Eras(mode))
	srv := httptest.NewServer(f.H)
	defer srv.Close()
	n := 0
	for _, c := range cases {
		if !c.RunsOn(mode) {
			continue
		}
		n++
		if c.Http {
			t.Run("http/"+c.Name, func(t *testing.T) { f.RunHostileHTTP(t, srv, c) })
		}
		if c.Stdio {
			t.Run("stdio/"+c.Name, func(t *testing.T) { f.RunHostileStdio(t, c) })
		}
	}
	t.Logf("%d cases on %v", n, mode)
	if n < 40 {
		t.Errorf("only %d cases run on %v", n, mode)
	}
}

// modernHeaderNoSession reports whether the request of c carries one
// MCP-Protocol-Version that is not a legacy version, and no Mcp-Session-Id.
func modernHeaderNoSession(c *HostileCase, f *HostileFixture, body []byte) bool {
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	f.SetHostileHeaders(c, r.Header, body)
	if len(r.Header[legacy.KeySessionID]) > 0 {
		return false
	}
	return EraOf(f.Server).VersionHeaderModern(r.Header)
}

// answerCodes returns the error codes of an answer's messages (0 for a
// result), failing on anything that is not a JSON-RPC message.
func answerCodes(t *testing.T, rec *httptest.ResponseRecorder) []int64 {
	t.Helper()
	if rec.Body.Len() == 0 {
		return nil
	}
	var msgs []*Wire
	switch rec.Header().Get("Content-Type") {
	case "text/event-stream":
		msgs = SseMessages(t, rec.Body.Bytes())
	default:
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("an answer that is not JSON: %q", rec.Body.Bytes())
		}
		msgs = []*Wire{DecodeWire(t, rec.Body.Bytes())}
	}
	var out []int64
	for _, m := range msgs {
		if m.Method() == "" {
			out = append(out, m.Code())
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
