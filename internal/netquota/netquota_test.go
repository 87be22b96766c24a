package netquota

import (
	"slices"
	"testing"
)

func TestNetworks(t *testing.T) {
	for _, c := range []struct {
		client string
		want   []string
	}{
		{"2001:db8:1:1ab::/64", []string{"2001:db8:1:100::/56", "2001:db8:1::/48"}},
		{"2001:db8:1:1ab::7", []string{"2001:db8:1:100::/56", "2001:db8:1::/48"}},
		{"2001:db8:1:1ab::7%eth0", []string{"2001:db8:1:100::/56", "2001:db8:1::/48"}},
		{"2001:db8:1::/52", []string{"", "2001:db8:1::/48"}},
		{"2001:db8::/48", []string{"", ""}},
		{"198.51.100.7", []string{"", ""}},
		{"::ffff:198.51.100.7", []string{"", ""}},
		{"client-7", []string{"", ""}},
		{"", []string{"", ""}},
	} {
		if got := Networks(c.client, 56, 48); !slices.Equal(got, c.want) {
			t.Errorf("Networks(%q) = %q, want %q", c.client, got, c.want)
		}
	}
}
