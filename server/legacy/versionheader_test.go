package legacy

import (
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestVersionHeaderModernFastPath: versionHeader's shortcut for the
// current revision classifies every value as the scan of the legacy
// revisions does, under every set of legacy revisions served.
func TestVersionHeaderModernFastPath(t *testing.T) {
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	values := []string{protocol.Revision, " " + protocol.Revision + "\t", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2026-07-29", "", "x"}
	for _, versions := range [][]string{nil, {"2025-11-25"}, {"2024-11-05"}, {"2025-06-18", "2025-03-26"}} {
		era, err := New(s, Config{Versions: versions})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			h := http.Header{keyProtocolVersion: {v}}
			kind, got := era.versionHeader(h)
			want, wantV := hvOther, trimmed(v)
			for _, r := range era.cfg.legacyRevs {
				if r.String() == wantV {
					want = hvLegacy
				}
			}
			if kind != want || got != wantV {
				t.Errorf("Versions %v: versionHeader(%q) = %v, %q; want %v, %q", versions, v, kind, got, want, wantV)
			}
		}
	}
}

func trimmed(v string) string {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		v = v[:len(v)-1]
	}
	return v
}
