package mcpotel

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The span-name cache holds at most its byte budget, however many
// registered names go through it; past the budget a name is still
// right, only not kept.
func TestNameCacheBytes(t *testing.T) {
	const budget = 4 << 10
	n := newSpanNames(budget)
	c := &n.tools
	for i := range 1000 {
		target := strings.Repeat("t", 100) + strconv.Itoa(i)
		if got := c.get(target); got != "tools/call "+target {
			t.Fatalf("name %q", got)
		}
	}
	held, entries := int64(0), 0
	c.m.Range(func(k, v any) bool {
		held += int64(len(v.(*cachedName).name) + cacheEntryBytes)
		entries++
		return true
	})
	if held > budget || c.bytes.Load() != held {
		t.Errorf("cache holds %d bytes (counted %d), budget %d", held, c.bytes.Load(), budget)
	}
	if entries == 0 {
		t.Error("nothing cached")
	}
	if got := c.get(other); got != "tools/call _OTHER" {
		t.Errorf("other: %q", got)
	}
	// Negative budget: nothing kept.
	none := newSpanNames(-1)
	none.prompts.get("greet")
	if none.prompts.bytes.Load() != 0 {
		t.Error("a negative budget cached a name")
	}
}

// bounded cuts at a rune boundary and copies.
func TestBounded(t *testing.T) {
	s := strings.Repeat("é", 10) // 2 bytes each
	if got := bounded(s, 5); got != "éé" || !utf8.ValidString(got) {
		t.Errorf("bounded(%q, 5) = %q", s, got)
	}
	if got := bounded("short", 5); got != "short" {
		t.Errorf("bounded short: %q", got)
	}
}

// Without WithSessionKey each middleware has a random key: the same
// session id gets different keys from two, the same from one; the value
// is never the id.
func TestDefaultSessionKeys(t *testing.T) {
	a, b := newTelemetry(newConfig(nil)), newTelemetry(newConfig(nil))
	const id = "0123456789abcdef0123456789abcdef"
	ka, kb := a.sessionKey(id), b.sessionKey(id)
	if ka == kb || ka != a.sessionKey(id) || ka == id || len(ka) != 2*sessionKeyBytes {
		t.Errorf("keys %q %q of %q", ka, kb, id)
	}
}
