package legacy_test

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/server/legacy"
)

// TestSessionKey: the store key is base64url(SHA-256(id)) for a minted id,
// an empty one and one longer than any accepted header, and a lookup's
// hashing allocates only the key string.
func TestSessionKey(t *testing.T) {
	id, key, err := legacy.NewSessionID()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{id, "", strings.Repeat("x", legacy.MaxSessionIDBytes), strings.Repeat("y", legacy.MaxSessionIDBytes+1)} {
		sum := sha256.Sum256([]byte(in))
		if got, want := legacy.SessionKey(in), base64.RawURLEncoding.EncodeToString(sum[:]); got != want {
			t.Errorf("legacy.SessionKey(%d bytes) = %q, want %q", len(in), got, want)
		}
	}
	if key != legacy.SessionKey(id) {
		t.Errorf("legacy.NewSessionID's key %q is not legacy.SessionKey(id) %q", key, legacy.SessionKey(id))
	}
	if n := testing.AllocsPerRun(100, func() { _ = legacy.SessionKey(id) }); n != 1 {
		t.Errorf("legacy.SessionKey allocates %v times, want 1 (the key)", n)
	}
}
