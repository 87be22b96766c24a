package auth

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The verified-token cache: a hit skips the signature check (the keys
// are gone and the token still passes), an entry ends at the token's exp
// (plus leeway) and at CacheTTL, the size is bounded, a caller's change
// to its TokenInfo is its own, and CacheSize < 0 turns it off.
func TestJWTCache(t *testing.T) {
	ctx := context.Background()
	k := newRSAKey(t, "k1")
	js := newJWKSServer(t, k)
	v, clk := newTestVerifier(t, js, JWTConfig{CacheTTL: 10 * time.Minute})
	c := validClaims(clk.now())
	c["exp"] = clk.now().Add(2 * time.Minute).Unix()
	tok := k.sign(t, c, nil)
	ti, err := v.Verify(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	ti.Subject = "mallory"
	v.keys.mu.Lock()
	v.keys.keys = nil // only the cache can vouch for it now
	v.keys.mu.Unlock()
	ti, err = v.Verify(ctx, tok)
	if err != nil || ti.Subject != "alice" {
		t.Fatalf("cache hit: %v %+v", err, ti)
	}
	// A tampered copy of a cached token is not a hit.
	if _, err := v.Verify(ctx, tok[:len(tok)-2]+"AA"); err == nil {
		t.Fatal("a tampered token passed")
	}
	clk.advance(3 * time.Minute) // past exp + 30 s leeway
	if _, err := v.Verify(ctx, tok); err == nil || !strings.HasSuffix(err.Error(), ": expired") {
		t.Fatalf("after exp: %v", err)
	}

	// CacheTTL bounds a long-lived token's entry.
	v2, clk2 := newTestVerifier(t, js, JWTConfig{CacheTTL: time.Minute})
	tok2 := k.sign(t, validClaims(clk2.now()), nil)
	if _, err := v2.Verify(ctx, tok2); err != nil {
		t.Fatal(err)
	}
	js.set(t, newECKey(t, "k-other")) // the key leaves the JWKS
	v2.keys.mu.Lock()
	v2.keys.keys = nil
	v2.keys.mu.Unlock()
	clk2.advance(90 * time.Second)
	if _, err := v2.Verify(ctx, tok2); err == nil || !strings.Contains(err.Error(), "unknown key id") {
		t.Fatalf("after CacheTTL: %v", err)
	}
	js.set(t, k)

	// At most CacheSize entries.
	v3, clk3 := newTestVerifier(t, js, JWTConfig{CacheSize: 2})
	for _, sub := range []string{"a", "b", "c"} {
		c := validClaims(clk3.now())
		c["sub"] = sub
		if _, err := v3.Verify(ctx, k.sign(t, c, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if n := v3.cache.len(); n != 2 {
		t.Errorf("%d entries, want 2", n)
	}
	if v4, _ := newTestVerifier(t, js, JWTConfig{CacheSize: -1}); v4.cache != nil {
		t.Error("CacheSize -1 kept a cache")
	}
}
