package streamhttp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/server"
	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

func TestClientKey(t *testing.T) {
	for _, c := range []struct {
		addr string
		bits int
		want string
	}{
		{"198.51.100.1:1000", 64, "198.51.100.1"},
		{"198.51.100.1", 64, "198.51.100.1"},
		{"127.0.0.2:80", 64, "127.0.0.2"}, // each loopback address is its own client
		{"[::ffff:198.51.100.1]:443", 64, "198.51.100.1"},
		{"[2001:db8:0:1::1]:443", 64, "2001:db8:0:1::/64"},
		{"[2001:db8:0:1:ffff:ffff:ffff:ffff]:1", 64, "2001:db8:0:1::/64"},
		{"[2001:db8:0:2::1]:1", 64, "2001:db8:0:2::/64"},
		{"[2001:db8:0:1::1]:1", 48, "2001:db8::/48"},
		{"[2001:db8:0:1::1]:1", 128, "2001:db8:0:1::1"},
		{"[fe80::1%eth0]:1", 128, "fe80::1"},
		{"[fe80::1%eth0]:1", 64, "fe80::/64"},
		{"2001:db8::7", 64, "2001:db8::/64"},
		{"[::1]:5", 64, "::/64"},
		{"@", 64, "@"}, // not an IP address (a Unix socket): its own key
		{"", 64, ""},
	} {
		if got := streamhttp.ClientKey(c.addr, c.bits); got != c.want {
			t.Errorf("streamhttp.ClientKey(%q, %d) = %q, want %q", c.addr, c.bits, got, c.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { streamhttp.ClientKey("198.51.100.1:1000", 64) }); n != 0 {
		t.Errorf("an IPv4 key allocates %v times", n)
	}
}

// D14: the limits counted per client address group an IPv6 address by
// its /64 (HTTPOptions.IPv6PrefixLen), take an IPv4-mapped address as its
// IPv4 address, and use HTTPOptions.ClientKey when it is set.
func TestClientKeyGroupsLimits(t *testing.T) {
	s := NewServer(t, server.WithRateLimit(0.001, 1))
	AddTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, TextTool("ok"))
	callFrom := func(h http.Handler, addr string, mod func(*http.Request)) *httptest.ResponseRecorder {
		return Post(t, h, Rpc(1, "tools/call", Params(M{"name": "t"})), func(r *http.Request) {
			r.RemoteAddr = addr
			if mod != nil {
				mod(r)
			}
		})
	}
	// The rate limit: one call per client, ever (rate 0.001/s, burst 1).
	h := Handler(s, streamhttp.Options{})
	for _, c := range []struct {
		first, second string
		shared        bool
	}{
		{"[2001:db8:1:1::1]:1", "[2001:db8:1:1::2]:1", true},           // one /64
		{"[2001:db8:1:2::1]:1", "[2001:db8:1:2:8000::1]:1", true},      // one /64
		{"[2001:db8:1:3::1]:1", "[2001:db8:1:4::1]:1", false},          // two /64s
		{"198.51.100.10:1", "[::ffff:198.51.100.10]:2", true},          // mapped
		{"198.51.100.11:1", "198.51.100.12:1", false},                  // IPv4 as it is
		{"[2001:db8:1:5::1%eth0]:1", "[2001:db8:1:5::2%eth1]:1", true}, // zones dropped
	} {
		if rec := callFrom(h, c.first, nil); rec.Code != 200 {
			t.Fatalf("first call from %s: %d %s", c.first, rec.Code, rec.Body)
		}
		rec := callFrom(h, c.second, nil)
		if shared := rec.Code == http.StatusTooManyRequests; shared != c.shared {
			t.Errorf("%s then %s: status %d, want one client: %v", c.first, c.second, rec.Code, c.shared)
		}
	}
	// IPv6PrefixLen 128: each address on its own.
	h128 := Handler(s, streamhttp.Options{IPv6PrefixLen: 128})
	if rec := callFrom(h128, "[2001:db8:2::1]:1", nil); rec.Code != 200 {
		t.Fatalf("first call: %d", rec.Code)
	}
	if rec := callFrom(h128, "[2001:db8:2::2]:1", nil); rec.Code != 200 {
		t.Errorf("with IPv6PrefixLen 128 two addresses of a /64 share a bucket: %d", rec.Code)
	}
	// ClientKey: the proxy's word, grouped when it is an IP address; an
	// empty key falls back to the connection's address.
	xff := func(r *http.Request) string {
		if v := r.Header.Get("X-Forwarded-For"); v != "" {
			return strings.TrimSpace(v[strings.LastIndex(v, ",")+1:])
		}
		return ""
	}
	hp := Handler(s, streamhttp.Options{ClientKey: xff})
	proxy := "10.9.9.9:1"
	via := func(client string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("X-Forwarded-For", "203.0.113.50, "+client) }
	}
	if rec := callFrom(hp, proxy, via("2001:db8:3::1")); rec.Code != 200 {
		t.Fatalf("first call through the proxy: %d", rec.Code)
	}
	if rec := callFrom(hp, proxy, via("2001:db8:3::2")); rec.Code != http.StatusTooManyRequests {
		t.Errorf("the proxy's clients in one /64 are two: %d", rec.Code)
	}
	if rec := callFrom(hp, proxy, via("198.51.100.20")); rec.Code != 200 {
		t.Errorf("another client behind the proxy shares a bucket: %d", rec.Code)
	}
	if rec := callFrom(hp, proxy, nil); rec.Code != 200 {
		t.Fatalf("the proxy itself, without the header: %d", rec.Code)
	}
	if rec := callFrom(hp, proxy, nil); rec.Code != http.StatusTooManyRequests {
		t.Errorf("without the header the key is the connection's address: %d", rec.Code)
	}

}
