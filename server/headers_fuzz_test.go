package server

import (
	"encoding/base64"
	"strings"
	"testing"
)

// FuzzDecodeSentinel fuzzes the header-value decoder of R-HDR-05. For
// every input v: no panic; a value that is not "=?base64?...?=" comes back
// unchanged and accepted; for a sentinel, the decoder accepts exactly what
// encoding/base64 (standard alphabet, padded) decodes, and when the base64
// is canonical, re-encoding the decoded value gives it back. v is also
// taken as a value a client encodes: its sentinel decodes to v. Seeds are
// ../testdata/fuzz/sentinel/*.txt, each file one value.
func FuzzDecodeSentinel(f *testing.F) {
	fzSeedLines(f, "sentinel", "*.txt")
	const pre, post = "=?base64?", "?="
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := decodeSentinel(v)
		if len(v) < len(pre)+len(post) || !strings.HasPrefix(v, pre) || !strings.HasSuffix(v, post) {
			if !ok || got != v {
				t.Fatalf("decodeSentinel(%q) = %q, %v; want it unchanged", v, got, ok)
			}
		} else {
			inner := v[len(pre) : len(v)-len(post)]
			want, err := base64.StdEncoding.DecodeString(inner)
			if ok != (err == nil) {
				t.Fatalf("decodeSentinel(%q) ok = %v, but base64 says %v", v, ok, err)
			}
			if ok && got != string(want) {
				t.Fatalf("decodeSentinel(%q) = %q, want %q", v, got, want)
			}
			if !ok && got != "" {
				t.Fatalf("decodeSentinel(%q) = %q on failure", v, got)
			}
			if _, err := base64.StdEncoding.Strict().DecodeString(inner); err == nil && !strings.ContainsAny(inner, "\r\n") {
				if !ok {
					t.Fatalf("decodeSentinel(%q) refused canonical base64", v)
				}
				if re := base64.StdEncoding.EncodeToString([]byte(got)); re != inner {
					t.Fatalf("decodeSentinel(%q) = %q, which encodes to %q", v, got, re)
				}
			}
		}

		// The other way round: a client's encoding of v.
		enc := pre + base64.StdEncoding.EncodeToString([]byte(v)) + post
		if got, ok := decodeSentinel(enc); !ok || got != v {
			t.Fatalf("decodeSentinel(%q) = %q, %v; want %q", enc, got, ok, v)
		}
	})
}
