package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// FuzzJWTVerify: whatever the token, Verify neither panics nor accepts
// it without a signature of the JWKS's key, and every refusal wraps
// ErrInvalidToken (the JWKS is up: a refresh is rate-limited to none).
func FuzzJWTVerify(f *testing.F) {
	k := newRSAKey(f, "k1")
	js := newJWKSServer(f, k)
	v, clk := newTestVerifier(f, js, JWTConfig{CacheSize: -1})
	good := k.sign(f, validClaims(clk.now()), nil)
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add(strings.Replace(good, ".", "..", 1))
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add("a.b.c")
	f.Add("")
	f.Fuzz(func(t *testing.T, tok string) {
		ti, err := v.Verify(context.Background(), tok)
		switch {
		case err == nil && tok != good:
			// Only a token the key signed verifies; a different string
			// may still carry the same signed content (JWS allows no
			// variation in compact form but padding-free base64 can
			// differ in trailing bits).
			if ti.Subject != "alice" || ti.Issuer != testIssuer {
				t.Fatalf("accepted %q as %+v", tok, ti)
			}
		case err != nil && !errors.Is(err, ErrInvalidToken):
			t.Fatalf("%q: %v does not wrap ErrInvalidToken", tok, err)
		}
	})
}

// FuzzChallenge: whatever the parameters, the challenge is printable
// ASCII, its quotes pair up, and offline_access is never in it.
func FuzzChallenge(f *testing.F) {
	f.Add("https://a/.well-known/oauth-protected-resource", "read offline_access", "invalid_token", `bad "x" \ y`)
	f.Fuzz(func(t *testing.T, md, scopes, code, desc string) {
		c := Challenge(ChallengeParams{ResourceMetadata: md, Scopes: strings.Split(scopes, " "), Error: code, ErrorDescription: desc})
		for i := 0; i < len(c); i++ {
			if c[i] < 0x20 || c[i] > 0x7e || c[i] == '\\' {
				t.Fatalf("byte %#x in %q", c[i], c)
			}
		}
		if strings.Count(c, `"`)%2 != 0 {
			t.Fatalf("unpaired quotes: %q", c)
		}
		if _, rest, ok := strings.Cut(c, `scope="`); ok {
			list, _, _ := strings.Cut(rest, `"`)
			for _, s := range strings.Fields(list) {
				if s == "offline_access" {
					t.Fatalf("offline_access in %q", c)
				}
			}
		}
	})
}
