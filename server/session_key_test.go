package server

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
)

// TestSessionKey: the store key is base64url(SHA-256(id)) for a minted id,
// an empty one and one longer than any accepted header, and a lookup's
// hashing allocates only the key string.
func TestSessionKey(t *testing.T) {
	id, key, err := newSessionID()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{id, "", strings.Repeat("x", maxSessionIDBytes), strings.Repeat("y", maxSessionIDBytes+1)} {
		sum := sha256.Sum256([]byte(in))
		if got, want := sessionKey(in), base64.RawURLEncoding.EncodeToString(sum[:]); got != want {
			t.Errorf("sessionKey(%d bytes) = %q, want %q", len(in), got, want)
		}
	}
	if key != sessionKey(id) {
		t.Errorf("newSessionID's key %q is not sessionKey(id) %q", key, sessionKey(id))
	}
	if n := testing.AllocsPerRun(100, func() { _ = sessionKey(id) }); n != 1 {
		t.Errorf("sessionKey allocates %v times, want 1 (the key)", n)
	}
}
