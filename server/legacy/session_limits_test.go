package legacy_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// The bounds on what a legacy HTTP session keeps (docs/dual-era.md §8,
// §9 "session exhaustion"): the size of its initialize data
// (MaxSessionRecordBytes) and the entries of this instance's conversion
// cache (at most MaxSessions, none left for sessions that ended). Both
// were found by the hostile review of the dual era (defects 3 and 9).

// experimentalCaps is a capabilities object whose experimental member
// carries n members of 1,000-byte strings (≈ n KiB once encoded).
func experimentalCaps(n int) string {
	var b strings.Builder
	b.WriteString(`{"experimental":{"x":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":"` + strings.Repeat("a", 1000) + `"`)
	}
	b.WriteString(`}}}`)
	return b.String()
}

// TestHTTPLegacySessionRecordBytes: an initialize whose capabilities and
// clientInfo exceed MaxSessionRecordBytes is a method error, 200 -32602
// (R-LIFE-* initialize params; §8), with no Mcp-Session-Id and nothing in
// the store or the conversion cache; experimental capabilities within the
// bound are kept. The default is DefaultMaxSessionRecordBytes.
func TestHTTPLegacySessionRecordBytes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int // LegacyConfig.MaxSessionRecordBytes (0: the default)
		small string
		big   string
	}{
		{"default", 0, experimentalCaps(40), experimentalCaps(3900)}, // ≈ 40 KiB kept; ≈ 3.9 MiB refused
		{"option", 8 << 10, experimentalCaps(4), experimentalCaps(9)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{MaxSessionRecordBytes: tc.limit}))
			h := Handler(f.Server, streamhttp.Options{})
			store := f.era().Cfg().Store.(*legacy.MemorySessionStore)
			for range 3 {
				c := NewLegacyHTTP(t, h, "2025-11-25")
				rec := c.Send(http.MethodPost, EraBody(0, "initialize", InitParams("2025-11-25", tc.big)))
				w := Single(t, rec)
				want(t, "initialize over the bound", rec, w, http.StatusOK, -32602)
				if sid := rec.Header().Get(legacy.HeaderSessionID); sid != "" {
					t.Errorf("a refused initialize named a session: %q", sid)
				}
				if w.Error != nil && !strings.Contains(w.Error.Message, "more than the") {
					t.Errorf("message %q does not name the bound", w.Error.Message)
				}
			}
			if n := store.Len(); n != 0 {
				t.Errorf("refused initializes stored %d sessions", n)
			}
			n := f.era().SessionConvs()
			if n != 0 {
				t.Errorf("refused initializes left %d conversion states", n)
			}
			c := NewLegacyHTTP(t, h, "2025-11-25")
			c.Open(tc.small) // within the bound: served
			if n := store.Len(); n != 1 {
				t.Errorf("store holds %d sessions after one initialize within the bound", n)
			}
			r, err := store.Get(t.Context(), "", legacy.SessionKey(c.Sid))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(r.ClientCapabilities), `"k3":"aaa`) {
				t.Errorf("experimental capabilities within the bound were not kept: %.80s", r.ClientCapabilities)
			}
		})
	}
}

// TestHTTPLegacyConvCacheBounded: the conversion cache holds at most
// MaxSessions entries however many sessions idle out without a DELETE
// (§8 "sessions in all"), and a lookup that finds a session gone drops
// its entry. MaxSessions 5; 10 generations of 5 sessions, each idling out
// (IdleTimeout 30 min) before the next opens.
func TestHTTPLegacyConvCacheBounded(t *testing.T) {
	clk := NewTestClock()
	const limit = 5
	f := newLegacyFixture(t, legacy.ErasBoth, Legacy(legacy.Config{MaxSessions: limit}))
	f.era().SetNow(clk.Now)
	legacy.SetMemorySessionStoreClock(f.era().Cfg().Store.(*legacy.MemorySessionStore), clk.Now)
	h := Handler(f.Server, streamhttp.Options{Authenticate: XUser})
	entries := func() int {
		return f.era().SessionConvs()
	}
	var last []*LegacyHTTP
	for gen := range 10 {
		last = last[:0]
		for i := range limit {
			c := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "u"+strconv.Itoa(gen)+"-"+strconv.Itoa(i))
			c.Open("")
			last = append(last, c)
		}
		if n := entries(); n > limit {
			t.Fatalf("generation %d: the conversion cache holds %d entries; want at most MaxSessions (%d)", gen, n, limit)
		}
		clk.Advance(31 * time.Minute)
	}
	if n := entries(); n != limit {
		t.Errorf("conversion cache: %d entries, want %d (the last generation's)", n, limit)
	}
	// The last generation's clients come back after their sessions idled
	// out: each gets 404, and its entry goes.
	for i, c := range last {
		rec := c.Send(http.MethodPost, EraBody(1, "tools/list", `{}`))
		want(t, "a request of an idled-out session", rec, Single(t, rec), http.StatusNotFound, -32600)
		if n := entries(); n != limit-1-i {
			t.Errorf("after %d lookups of ended sessions: %d entries, want %d", i+1, n, limit-1-i)
		}
	}
}
