package schema_test

import (
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/schema"
)

func TestLookupCurrent(t *testing.T) {
	if schema.Current != "2026-07-28" {
		t.Fatalf("Current = %q, want 2026-07-28", schema.Current)
	}
	p, err := schema.Lookup(schema.Current)
	if err != nil {
		t.Fatal(err)
	}
	want := schema.Pin{
		Revision:   "2026-07-28",
		Repository: "github.com/modelcontextprotocol/modelcontextprotocol",
		Commit:     "b0f60ba5409db7a6582440a7b473cc0398890f15",
		Path:       "schema/2026-07-28/schema.json",
		SHA256:     "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203",
	}
	if p != want {
		t.Fatalf("Lookup(%q) =\n%+v\nwant\n%+v", schema.Current, p, want)
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, rev := range []string{"", "1999-01-01", "draft", "../schema", "2026-07-28/pin.txt", "*", "."} {
		if p, err := schema.Lookup(rev); err == nil {
			t.Errorf("Lookup(%q) = %+v, want an error", rev, p)
		}
	}
	_, err := schema.Lookup("1999-01-01")
	if err == nil || !strings.Contains(err.Error(), "1999-01-01") || !strings.Contains(err.Error(), schema.Current) {
		t.Errorf("Lookup(unknown) error = %v, want it to name the revision and the pinned ones", err)
	}
}

func TestRawURL(t *testing.T) {
	p, err := schema.Lookup(schema.Current)
	if err != nil {
		t.Fatal(err)
	}
	const tail = "/modelcontextprotocol/modelcontextprotocol/b0f60ba5409db7a6582440a7b473cc0398890f15/schema/2026-07-28/schema.json"
	tests := []struct{ base, want string }{
		{"", "https://raw.githubusercontent.com" + tail},
		{schema.DefaultBaseURL, "https://raw.githubusercontent.com" + tail},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080" + tail},
		{"http://mirror.example/raw/", "http://mirror.example/raw" + tail},
	}
	for _, tt := range tests {
		if got := p.RawURL(tt.base); got != tt.want {
			t.Errorf("RawURL(%q) = %q, want %q", tt.base, got, tt.want)
		}
	}
}
