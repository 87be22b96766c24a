package streamhttp

import (
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"testing"
)

// referenceHostAllowed is hostAllowed without its fast path for a plain
// host.
func referenceHostAllowed(allowed []string, hostport string) bool {
	host := hostport
	if strings.Contains(hostport, ":") {
		if hh, _, err := net.SplitHostPort(hostport); err == nil {
			host = hh
		}
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return slices.Contains(allowed, strings.ToLower(host))
}

// TestHostAllowedFastPath: hostAllowed, which compares a plain host
// (plainHost) as it is, answers as the general case does, for edge cases
// and for random hosts drawn from the bytes that matter (ports,
// brackets, case, non-ASCII).
func TestHostAllowedFastPath(t *testing.T) {
	h := &httpHandler{opts: Options{AllowedHosts: []string{"localhost", "127.0.0.1", "::1", "example.com", "", "ünï"}}}
	cases := []string{"", "localhost", "LOCALHOST", "Localhost:8080", "localhost:", "[::1]", "[::1]:80", "::1", "[localhost]",
		"127.0.0.1", "127.0.0.1:443", "example.com", "Example.COM", "example.com.", "ünï", "ÜNÏ", "a:b:c", "[", "]", ":"}
	rnd := rand.New(rand.NewPCG(1, 2))
	parts := []string{"localhost", "example.com", "127.0.0.1", "::1", ":", "[", "]", "L", "ü", "Ü", "80", ".", "x", "K", "\u212a"}
	for range 20000 {
		var sb strings.Builder
		for n := rnd.IntN(4); n >= 0; n-- {
			sb.WriteString(parts[rnd.IntN(len(parts))])
		}
		cases = append(cases, sb.String())
	}
	for _, c := range cases {
		if got, want := h.hostAllowed(c), referenceHostAllowed(h.opts.AllowedHosts, c); got != want {
			t.Errorf("hostAllowed(%q) = %v, want %v", c, got, want)
		}
	}
}
