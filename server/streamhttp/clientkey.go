package streamhttp

import (
	"net"
	"net/netip"
	"strings"
)

// clientKey names the client of a request without a principal, for the
// limits counted per client (the rate limit, the task quota, the listen
// stream cap): the host part of addr (a remote address, host:port, or a
// bare host), with an IPv4-mapped IPv6 address taken as the IPv4 address
// and any other IPv6 address cut to its first v6bits bits ("2001:db8::/64";
// 128 or more: the whole address, its zone dropped). Anything that is not
// an IP address is its own key. An IPv4 address is returned as it was
// given, so that the common case allocates nothing.
func clientKey(addr string, v6bits int) string {
	if i := strings.LastIndexByte(addr, ':'); i > 0 && strings.IndexByte(addr[:i], ':') < 0 {
		return addr[:i] // IPv4 (or a name) and a port: the host as it is
	}
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	ip, err := netip.ParseAddr(host)
	switch {
	case err != nil:
		return host
	case ip.Is4():
		return host
	case ip.Is4In6():
		return ip.Unmap().String()
	case v6bits >= 128:
		return ip.WithZone("").String()
	}
	p, err := ip.Prefix(max(v6bits, 0))
	if err != nil {
		return host
	}
	return p.String()
}
