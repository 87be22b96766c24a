// Package netquota names the wider IPv6 networks of a client key, for the
// limits that count the anonymous clients of one network together
// (legacy sessions, running tasks): a client key names an IPv6 client by
// its /64 (streamhttp.Options.IPv6PrefixLen), and one /56 holds 256 of
// them.
package netquota

import "net/netip"

// Networks returns, for each of bits, the network of that many bits of
// the IPv6 client key client (a prefix, "2001:db8::/64", or an address),
// as "2001:db8::/56"; "" for a size not wider than the key, and for a key
// that is not IPv6 (IPv4, IPv4-mapped, anything else).
func Networks(client string, bits ...int) []string {
	var addr netip.Addr
	width := 128
	if p, err := netip.ParsePrefix(client); err == nil {
		addr, width = p.Addr(), p.Bits()
	} else if a, err := netip.ParseAddr(client); err == nil {
		addr = a.WithZone("")
	}
	nets := make([]string, len(bits))
	if !addr.Is6() || addr.Is4In6() {
		return nets
	}
	for i, b := range bits {
		if b < 0 || b >= width {
			continue
		}
		if p, err := addr.Prefix(b); err == nil {
			nets[i] = p.String()
		}
	}
	return nets
}
