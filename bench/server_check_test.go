package bench

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSameAnswers makes sure the server benchmarks measure real answers:
// every handler returns 200 with the echoed text for tools/call, and both
// MCP handlers list all 100 tools. It also checks that both MCP handlers do
// the same work on the way: each validates the arguments against the
// inputSchema and checks the Mcp-Name header.
func TestSameAnswers(t *testing.T) {
	if len(bareResponse) != 200 {
		t.Fatalf("bare response is %d bytes, want 200", len(bareResponse))
	}
	call := requestTemplate("tools/call", "echo")
	list := requestTemplate("tools/list", "")
	for _, c := range []struct {
		name string
		h    func(testing.TB, int) http.Handler
	}{
		{"mcpwire", func(tb testing.TB, n int) http.Handler { return mcpwireHandler(tb, n) }},
		{"gosdk", gosdkHandler},
		{"floor", func(testing.TB, int) http.Handler { return floorHandler() }},
		{"bare", func(testing.TB, int) http.Handler { return bareHandler() }},
	} {
		t.Run(c.name+"/tools_call", func(t *testing.T) {
			h := c.h(t, 1)
			// Twice: a handler must answer a second request the same way.
			for range 2 {
				checkCall(t, serve(h, call, callBody))
			}
		})
		if c.name == "bare" || c.name == "floor" {
			continue
		}
		t.Run(c.name+"/tools_list", func(t *testing.T) {
			h := c.h(t, listTools)
			for range 2 {
				checkList(t, serve(h, list, listBody), listTools)
			}
		})
		t.Run(c.name+"/same_checks", func(t *testing.T) {
			h := c.h(t, 1)
			bad := []byte(strings.Replace(string(callBody), `"text":"hello"`, `"text":1`, 1))
			res, err := answer(serve(h, call, bad))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Result.IsError {
				t.Errorf("arguments {\"text\":1} were not refused by inputSchema validation")
			}
			if c.name == "mcpwire" {
				// The inferred inputSchema is the one the SDK is given.
				rec := serve(h, list, listBody)
				var got struct {
					Result struct {
						Tools []struct {
							InputSchema json.RawMessage `json:"inputSchema"`
						} `json:"tools"`
					} `json:"result"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || len(got.Result.Tools) != 1 {
					t.Fatalf("tools/list: %v %s", err, rec.Body.String())
				}
				var a, b any
				_ = json.Unmarshal(got.Result.Tools[0].InputSchema, &a)
				_ = json.Unmarshal([]byte(schemaJSON), &b)
				if !reflect.DeepEqual(a, b) {
					t.Errorf("inferred inputSchema %s, the SDK is given %s", got.Result.Tools[0].InputSchema, schemaJSON)
				}
			}
			rec := serve(h, requestTemplate("tools/call", ""), callBody)
			if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "-32020") {
				t.Errorf("missing Mcp-Name: got %d %s, want 400 with -32020", rec.Code, rec.Body.String())
			}
		})
	}
}

// legacyRatio is the target of docs/dual-era.md §10.7 (issue 10): a
// 2025-11-25 tools/call in a session costs at most this many times the
// 2026-07-28 call (BenchmarkToolsCall's mcpwire row). TestLegacyCallRatio
// fails past it (medians of 1.31–1.44 measured on the shared 2-core
// machine once a session call runs on its HTTP request's goroutine;
// docs/performance.md).
const legacyRatio = 1.5

// TestLegacyCallRatio runs BenchmarkToolsCallLegacy's legacy row and
// BenchmarkToolsCall's mcpwire row in one process, in adjacent pairs
// (order alternating): the median of the pairs' legacy/modern ratios is
// checked against legacyRatio. A pair shares the machine's load of the moment,
// and the median ignores the pairs that other work disturbed. Seven pairs
// first; when their median is over the gate, fourteen more, and the
// median of all 21 decides (a noisy machine gets more samples, never a
// looser gate). Allocations are logged (the design's target is modern +
// 8).
func TestLegacyCallRatio(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	modernH := mcpwireHandler(t, 1)
	modernT := requestTemplate("tools/call", "echo")
	legacyH := mcpwireBothHandler(t)
	legacyT := openLegacySession(t, legacyH)
	checkCall(t, serve(modernH, modernT, callBody))
	checkLegacyCall(t, serve(legacyH, legacyT, legacyCallBody))
	loop := func(h http.Handler, tmpl *http.Request, body []byte) testing.BenchmarkResult {
		return testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(httptest.NewRecorder(), newRequest(tmpl, body))
			}
		})
	}
	var ratios []float64
	var modern, legacy testing.BenchmarkResult
	pairs := func(n int) float64 {
		for range n {
			var m, l testing.BenchmarkResult
			if len(ratios)%2 == 0 {
				m = loop(modernH, modernT, callBody)
				l = loop(legacyH, legacyT, legacyCallBody)
			} else {
				l = loop(legacyH, legacyT, legacyCallBody)
				m = loop(modernH, modernT, callBody)
			}
			ratios = append(ratios, float64(l.NsPerOp())/float64(m.NsPerOp()))
			if modern.N == 0 || m.NsPerOp() < modern.NsPerOp() {
				modern = m
			}
			if legacy.N == 0 || l.NsPerOp() < legacy.NsPerOp() {
				legacy = l
			}
		}
		sorted := slices.Sorted(slices.Values(ratios))
		return sorted[len(sorted)/2]
	}
	ratio := pairs(7)
	if ratio > legacyRatio {
		t.Logf("median of 7 pairs %.2f (%.2f) is over the gate: 14 more pairs", ratio, ratios)
		ratio = pairs(14)
	}
	t.Logf("best modern %d ns/op %d allocs/op; best legacy %d ns/op %d allocs/op; %d pair ratios %.2f; median %.2f (gate %.1f); allocs +%d (target +8)",
		modern.NsPerOp(), modern.AllocsPerOp(), legacy.NsPerOp(), legacy.AllocsPerOp(), len(ratios), ratios, ratio, legacyRatio, legacy.AllocsPerOp()-modern.AllocsPerOp())
	if ratio > legacyRatio {
		t.Errorf("legacy tools/call is %.2f× the modern one (median of %d pairs), over the %.1f× target", ratio, len(ratios), legacyRatio)
	}
}
