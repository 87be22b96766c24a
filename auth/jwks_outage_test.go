package auth

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

// R-AUTH-05, R-AUTH-08: while the JWKS cannot be fetched (the issuer
// down, a 5xx, a body that is not a key set), a token with an unknown kid
// gets the "cannot decide" error (not ErrInvalidToken: 503 with
// Retry-After) on every try until a fetch succeeds — the rate limit
// bounds the attempts to one per MinRefreshInterval but does not turn
// "could not fetch" into "invalid". Only once a fetch that succeeded
// lacks the kid is the token invalid_token.
func TestJWKSOutageUnknownKidNotInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
	}{
		{"down", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }}, // the connection drops
		{"5xx", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "oops", http.StatusBadGateway) }},
		{"bad body", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) }},
		// A set with no usable key (second hostile review: it replaced
		// the held keys with none, refusing every token).
		{"empty set", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"keys":[]}`)) }},
		{"only a symmetric key", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"keys":[{"kty":"oct","kid":"k2","k":"c2VjcmV0"}]}`))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newRSAKey(t, "k1")
			js := newJWKSServer(t, k)
			v, clk := newTestVerifier(t, js, JWTConfig{MinRefreshInterval: time.Minute, CacheSize: -1})
			js.answer(tc.h)
			clk.advance(2 * time.Minute)
			tok := newRSAKey(t, "k2").sign(t, validClaims(clk.now()), nil)
			undecided := func(when string) {
				t.Helper()
				if _, err := v.Verify(context.Background(), tok); err == nil || errors.Is(err, ErrInvalidToken) {
					t.Fatalf("%s: got %v, want an error that is not ErrInvalidToken", when, err)
				}
			}
			undecided("first")
			for range 5 {
				clk.advance(5 * time.Second) // the 503's Retry-After
				undecided("a retry within MinRefreshInterval")
			}
			if n := v.keys.fetchCount(); n != 2 {
				t.Fatalf("%d fetches started, want 2 (start, one refresh): the rate limit bounds the attempts", n)
			}
			// The known key keeps verifying meanwhile.
			if _, err := v.Verify(context.Background(), k.sign(t, validClaims(clk.now()), nil)); err != nil {
				t.Fatalf("known key during the outage: %v", err)
			}
			clk.advance(time.Minute)
			undecided("after MinRefreshInterval, still failing")
			if n := v.keys.fetchCount(); n != 3 {
				t.Fatalf("%d fetches started, want 3", n)
			}
			// The issuer back, its set without k2: now, and only now, invalid.
			js.answer(nil)
			clk.advance(10 * time.Second)
			undecided("the issuer back, but within MinRefreshInterval of the failed attempt")
			clk.advance(time.Minute)
			if _, err := v.Verify(context.Background(), tok); !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("a fetch that succeeded lacks the kid: got %v, want ErrInvalidToken", err)
			}
			clk.advance(5 * time.Second)
			if _, err := v.Verify(context.Background(), tok); !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("within MinRefreshInterval of that success: got %v, want ErrInvalidToken", err)
			}
		})
	}
}
