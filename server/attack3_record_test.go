package server

import (
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestAttack3SessionRecordSize: initialize keeps the client's
// capabilities and clientInfo in the session record as sent (and once
// more, decoded, in this instance's conversion cache), with no bound
// but the 4 MiB body limit. One client address may hold
// MaxSessionsPerPrincipal (100) sessions, and the server MaxSessions
// (10,000): 400 MiB per address, 40 GB for the store, held for
// IdleTimeout (30 min) after the last request, in process memory with the
// default MemorySessionStore. §9 "session exhaustion" counts sessions but
// a session's size is the attacker's choice. Expected: a bound on the
// stored initialize data (e.g. LegacyConfig.MaxSessionRecordBytes, a
// few KiB by default; over it initialize → 200 -32602, nothing minted),
// or the unknown parts of capabilities/clientInfo dropped before storing.
//
// Here 20 sessions whose capabilities.experimental carry 3.9 MiB each.
func TestAttack3SessionRecordSize(t *testing.T) {
	attack3Gate(t)
	f := newLegacyFixture(t, ErasBoth)
	h := f.Handler(HTTPOptions{})
	// 3,900 members of 1 KiB strings: within the decode limits.
	var b strings.Builder
	b.WriteString(`{"experimental":{"x":{`)
	for i := range 3900 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":"` + strings.Repeat("a", 1000) + `"`)
	}
	b.WriteString(`}}}`)
	caps := b.String()
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	const n = 20
	made := 0
	for range n {
		c := newLegacyHTTP(t, h, "2025-11-25")
		rec := c.send(http.MethodPost, eraBody(0, "initialize", initParams("2025-11-25", caps)))
		if rec.Code == 200 && rec.Header().Get(HeaderSessionID) != "" {
			made++
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	grew := int64(ms1.HeapInuse) - int64(ms0.HeapInuse)
	t.Logf("%d sessions of %d KiB initialize bodies: heap in use grew by %d MiB (%d KiB per session)", made, len(caps)>>10, grew>>20, grew/int64(max(made, 1))>>10)
	if made > 0 && grew/int64(made) > 256<<10 {
		t.Errorf("each session keeps %d KiB of its initialize; want a bound on what a session may store", grew/int64(made)>>10)
	}
}
