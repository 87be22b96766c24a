package schema_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpwire/mcpwire/schema"
)

// The tests of this file are about the pins as they are embedded: several
// revisions side by side, each loaded and verified on its own.

func TestLookupLegacy(t *testing.T) {
	if schema.Legacy != "2025-11-25" {
		t.Fatalf("Legacy = %q, want 2025-11-25", schema.Legacy)
	}
	p, err := schema.Lookup(schema.Legacy)
	if err != nil {
		t.Fatal(err)
	}
	want := schema.Pin{
		Revision:   "2025-11-25",
		Repository: "github.com/modelcontextprotocol/modelcontextprotocol",
		Commit:     "b0f60ba5409db7a6582440a7b473cc0398890f15",
		Path:       "schema/2025-11-25/schema.json",
		SHA256:     "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7",
	}
	if p != want {
		t.Fatalf("Lookup(%q) =\n%+v\nwant\n%+v", schema.Legacy, p, want)
	}
	const raw = "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/b0f60ba5409db7a6582440a7b473cc0398890f15/schema/2025-11-25/schema.json"
	if got := p.RawURL(""); got != raw {
		t.Errorf("RawURL = %q, want %q", got, raw)
	}
}

// The legacy revisions, newest first: each is pinned at the commit of the
// other pins, with the sha256 of its upstream file.
func TestLookupLegacyRevisions(t *testing.T) {
	want := map[string]string{
		"2025-11-25": "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7",
		"2025-06-18": "af845e7e5b9d27107d1690f0936022546177a1403e63ffb11470135b296a2e01",
		"2025-03-26": "e720669548c8100a4282c49e580efd6ddf7f28899ea786fc8db251dbdb356131",
		"2024-11-05": "61cea2392d4f284092d09bc84b9ac488c0d5618ac2b38a56942fc5b99fd960ce",
	}
	got := schema.LegacyRevisions()
	if order := []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}; !slices.Equal(got, order) {
		t.Fatalf("LegacyRevisions() = %v, want %v", got, order)
	}
	if got[0] != schema.Legacy {
		t.Errorf("LegacyRevisions()[0] = %q, want Legacy (%q)", got[0], schema.Legacy)
	}
	for _, rev := range got {
		p, err := schema.Lookup(rev)
		if err != nil {
			t.Fatal(err)
		}
		pin := schema.Pin{
			Revision:   rev,
			Repository: "github.com/modelcontextprotocol/modelcontextprotocol",
			Commit:     "b0f60ba5409db7a6582440a7b473cc0398890f15",
			Path:       "schema/" + rev + "/schema.json",
			SHA256:     want[rev],
		}
		if p != pin {
			t.Errorf("Lookup(%q) =\n%+v\nwant\n%+v", rev, p, pin)
		}
	}
	got[0] = "changed"
	if schema.LegacyRevisions()[0] != schema.Legacy {
		t.Error("LegacyRevisions returns a shared slice")
	}
}

// Revisions lists exactly the embedded pins, oldest first; adding a pin
// means updating this list on purpose.
func TestRevisions(t *testing.T) {
	got := schema.Revisions()
	if want := []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}; !slices.Equal(got, want) {
		t.Fatalf("Revisions() = %v, want %v", got, want)
	}
	seen := map[string]string{}
	for _, rev := range got {
		p, err := schema.Lookup(rev)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", rev, err)
		}
		for _, key := range []string{"path " + p.Path, "sha256 " + p.SHA256} {
			if other, dup := seen[key]; dup {
				t.Errorf("pins %s and %s share the %s", other, rev, key)
			}
			seen[key] = rev
		}
	}
	// Revisions returns a fresh slice each time.
	got[0] = "changed"
	if schema.Revisions()[0] == "changed" {
		t.Error("Revisions returns a shared slice")
	}
}

// realSpecDir returns MCP_SPEC_DIR or skips.
func realSpecDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MCP_SPEC_DIR")
	if dir == "" {
		t.Skip("MCP_SPEC_DIR is not set; set it to a checkout of github.com/modelcontextprotocol/modelcontextprotocol to verify the pins")
	}
	return dir
}

// readPinned reads the real file of a pin from MCP_SPEC_DIR, unverified.
func readPinned(t *testing.T, dir string, p schema.Pin) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p.Path)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestLoadEveryPin checks every embedded pin, not only Current, against the
// real upstream file in MCP_SPEC_DIR.
func TestLoadEveryPin(t *testing.T) {
	dir := realSpecDir(t)
	for _, rev := range schema.Revisions() {
		t.Run(rev, func(t *testing.T) {
			p, err := schema.Lookup(rev)
			if err != nil {
				t.Fatal(err)
			}
			wantSpecDirLoad(t, p, filepath.Join(dir, filepath.FromSlash(p.Path)))
		})
	}
}

// TestLoadLegacyRefusesOtherBytes puts wrong bytes where the Legacy pin
// looks: the Current revision's file, and the legacy file with one byte
// changed. Both are refused with a *MismatchError, from a spec folder and
// from a download alike, and nothing is cached.
func TestLoadLegacyRefusesOtherBytes(t *testing.T) {
	dir := realSpecDir(t)
	legacy, err := schema.Lookup(schema.Legacy)
	if err != nil {
		t.Fatal(err)
	}
	current, err := schema.Lookup(schema.Current)
	if err != nil {
		t.Fatal(err)
	}
	good := readPinned(t, dir, legacy)
	tampered := bytes.Clone(good)
	i := bytes.Index(tampered, []byte("/2025-11-25/"))
	if i < 0 {
		t.Fatal("legacy schema does not mention its revision")
	}
	tampered[i+4] = '6' // a link to /2026-11-25/: still valid JSON
	wrong := map[string][]byte{
		"current revision": readPinned(t, dir, current),
		"one byte changed": tampered,
	}
	for name, bad := range wrong {
		t.Run(name, func(t *testing.T) {
			t.Setenv("MCP_SPEC_DIR", "")
			spec := t.TempDir()
			file := writeSpecFile(t, spec, legacy, bad)
			cache := t.TempDir()
			data, _, err := schema.Load(context.Background(), legacy, schema.Options{SpecDir: spec, CacheDir: cache, BaseURL: failServer(t).URL})
			if data != nil {
				t.Errorf("Load returned %d bytes along with the error", len(data))
			}
			wantMismatch(t, err, legacy, sum(bad), file)

			srv := newServer(t, legacy, bad)
			data, _, err = schema.Load(context.Background(), legacy, schema.Options{BaseURL: srv.URL, CacheDir: cache})
			if data != nil {
				t.Errorf("Load returned %d bytes along with the error", len(data))
			}
			wantMismatch(t, err, legacy, sum(bad), legacy.RawURL(srv.URL))
			assertEmptyDir(t, cache)
		})
	}
}

// TestLoadPinsShareCache downloads both pinned files into one cache folder:
// the cache is content-addressed, so each pin gets its own file and later
// loads of either are cache hits with the right bytes.
func TestLoadPinsShareCache(t *testing.T) {
	dir := realSpecDir(t)
	t.Setenv("MCP_SPEC_DIR", "")
	cache := t.TempDir()
	want := map[string][]byte{}
	servers := map[string]*server{}
	for _, rev := range []string{schema.Legacy, schema.Current} {
		p, err := schema.Lookup(rev)
		if err != nil {
			t.Fatal(err)
		}
		want[rev] = readPinned(t, dir, p)
		servers[rev] = newServer(t, p, want[rev])
		data, src, err := schema.Load(context.Background(), p, schema.Options{BaseURL: servers[rev].URL, CacheDir: cache})
		if err != nil {
			t.Fatalf("%s: %v", rev, err)
		}
		if src.Kind != schema.SourceDownload || !bytes.Equal(data, want[rev]) {
			t.Errorf("%s: first Load = %d bytes from %+v, want the download", rev, len(data), src)
		}
	}
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("cache holds %d entries, want one per pin", len(entries))
	}
	for rev, body := range want {
		p, _ := schema.Lookup(rev)
		data, src, err := schema.Load(context.Background(), p, schema.Options{BaseURL: servers[rev].URL, CacheDir: cache})
		if err != nil {
			t.Fatalf("%s: %v", rev, err)
		}
		if src.Kind != schema.SourceCache || !bytes.Equal(data, body) {
			t.Errorf("%s: second Load = %d bytes from %+v, want the cached file", rev, len(data), src)
		}
		if n := servers[rev].hits.Load(); n != 1 {
			t.Errorf("%s: %d downloads, want 1", rev, n)
		}
	}
}
