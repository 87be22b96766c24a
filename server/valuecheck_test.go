package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The runtime's own uniqueItems, enum and const cost time linear in the
// arguments, seen through a Server (their agreement with the validator is
// package validate's TestValueChecksAgree and FuzzValueChecks).

// bestCheck is the shortest of three runs of checkArgs on args; it fails
// unless the validator ran (no refusal for the work).
func bestCheck(t *testing.T, s *server.Server, tool, args string) time.Duration {
	t.Helper()
	best := time.Duration(1 << 62)
	for range 3 {
		start := time.Now()
		res, err := s.CheckArgs(context.Background(), tool, []byte(args))
		best = min(best, time.Since(start))
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := res.(*protocol.CallToolResult); ok && strings.Contains(fmt.Sprint(r.Content), "too large to validate") {
			t.Fatalf("%s: refused for the work", tool)
		}
	}
	return best
}

// uniqueItems costs time linear in the array: 16,384 arrays of strings
// built to collide in the validator's hash (its strings have no length,
// so ["x\u0004x"] and ["x","x"] hash alike: 8 s for 2.9 MB), and twenty
// arrays equal but for their last number (compared pairwise, each number
// through two big.Rat: 13 s for 3.2 MB), cost about what checking the
// same arguments without uniqueItems does. A ratio within one run, not a
// timing. The declared inputSchema keeps its uniqueItems.
func TestUniqueItemsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("times the validator")
	}
	s := NewServer(t)
	countingTool(t, s, "unique", `{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true,"items":{"type":"array","items":{"type":"string"}}}}}`)
	countingTool(t, s, "plain", `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"array","items":{"type":"string"}}}}}`)
	countingTool(t, s, "unique20", `{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true}}}`)
	countingTool(t, s, "plain20", `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"array"}}}}`)
	colliding := `{"tags":` + collidingItems(15, 1<<14) + `}`
	var twenty strings.Builder
	twenty.WriteString(`{"tags":[`)
	for i := range 20 {
		if i > 0 {
			twenty.WriteByte(',')
		}
		fmt.Fprintf(&twenty, "[%s,%d]", jsonList("1", 5000), i+2)
	}
	twenty.WriteString(`]}`)
	for _, c := range []struct{ unique, plain, args string }{
		{"unique", "plain", colliding},
		{"unique20", "plain20", twenty.String()},
	} {
		u, p := bestCheck(t, s, c.unique, c.args), bestCheck(t, s, c.plain, c.args)
		t.Logf("%s: %d bytes, uniqueItems %v, without %v: ratio %.1f", c.unique, len(c.args), u, p, float64(u)/float64(p))
		if u > 5*p {
			t.Errorf("%s: uniqueItems took %v, the same arguments without it %v: more than 5 times", c.unique, u, p)
		}
	}
	// A duplicate is still found, named as the validator names it.
	h := Handler(s, streamhttp.Options{})
	w := Single(t, Post(t, h, callBody(1, "unique", `{"tags":[["a"],["b"],["a"]]}`), nil))
	if !w.IsError() || w.Text(t, 0) != "Invalid arguments: at /tags: items at 0 and 2 are equal" {
		t.Errorf("a duplicate: %s", w.Raw)
	}
	w = Call(t, h, 2, protocol.MethodToolsList, Params(nil))
	if !strings.Contains(string(w.Raw), `"uniqueItems":true`) {
		t.Errorf("tools/list lost the declared uniqueItems: %.300s", w.Raw)
	}
}

// collidingItems returns n distinct arrays of strings whose hash in the
// validator's uniqueItems is the same: k segments "x", split into strings
// at some of the k-1 boundaries and joined by U+0004 at the others.
func collidingItems(k, n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`["x`)
		for j := range k - 1 {
			if i>>j&1 == 1 {
				b.WriteString(`","x`)
			} else {
				b.WriteString(`\u0004x`)
			}
		}
		b.WriteString(`"]`)
	}
	b.WriteByte(']')
	return b.String()
}

// enum and const of arrays cost time linear in the instance: an enum of
// 90 arrays of 100 numbers against rows of 100 numbers (each row compared
// with all 90, number by number: 10 s for 202 KB), and a const of 4,000
// numbers against rows of as many (1.8 s for 3.2 MB), cost about what
// checking the same rows against {"type":"array"} does. A ratio within
// one run, not a timing.
func TestEnumConstLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("times the validator")
	}
	var enum []string
	for i := range 90 {
		enum = append(enum, "["+jsonList("1", 99)+fmt.Sprintf(",%d]", i+10))
	}
	s := NewServer(t)
	countingTool(t, s, "enum", `{"type":"object","properties":{"rows":{"type":"array","items":{"anyOf":[{"enum":[`+strings.Join(enum, ",")+`]},{"type":"array"}]}}}}`)
	countingTool(t, s, "const", `{"type":"object","properties":{"rows":{"type":"array","items":{"anyOf":[{"const":[`+jsonList("1", 4000)+`,2]},{"type":"array"}]}}}}`)
	countingTool(t, s, "plain", `{"type":"object","properties":{"rows":{"type":"array","items":{"anyOf":[{"type":"array"}]}}}}`)
	for _, c := range []struct{ tool, args string }{
		{"enum", `{"rows":[` + jsonList("["+jsonList("1", 99)+",3]", 100) + `]}`},
		{"const", `{"rows":[` + jsonList("["+jsonList("1", 4000)+",3]", 10) + `]}`},
	} {
		v, p := bestCheck(t, s, c.tool, c.args), bestCheck(t, s, "plain", c.args)
		t.Logf("%s: %d bytes, %v, against {type: array} %v: ratio %.1f", c.tool, len(c.args), v, p, float64(v)/float64(p))
		if v > 5*p {
			t.Errorf("%s: took %v, the same rows against {\"type\":\"array\"} %v: more than 5 times", c.tool, v, p)
		}
	}
}
