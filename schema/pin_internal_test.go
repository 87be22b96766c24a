package schema

import (
	"strings"
	"testing"
)

// Every embedded pin must parse and sit in the folder of its revision.
func TestEmbeddedPins(t *testing.T) {
	revs := Revisions()
	if len(revs) == 0 {
		t.Fatal("no embedded pins")
	}
	found := map[string]bool{}
	for _, rev := range revs {
		if _, err := Lookup(rev); err != nil {
			t.Errorf("Lookup(%q): %v", rev, err)
		}
		found[rev] = true
	}
	for _, want := range []string{Current, Legacy} {
		if !found[want] {
			t.Errorf("no pin for %q among %v", want, revs)
		}
	}
	if Current == Legacy {
		t.Errorf("Current and Legacy are both %q", Current)
	}
}

func TestParsePinErrors(t *testing.T) {
	const good = `revision: r
repository: github.com/o/n
commit: b0f60ba5409db7a6582440a7b473cc0398890f15
path: schema/r/schema.json
sha256: ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203
`
	if _, err := parsePin([]byte("# comment\r\n\r\n" + strings.ReplaceAll(good, "\n", "\r\n"))); err != nil {
		t.Fatalf("parsePin(good with CRLF and comment): %v", err)
	}
	tests := map[string]string{
		"missing key":   strings.Replace(good, "path: schema/r/schema.json\n", "", 1),
		"duplicate key": good + "commit: b0f60ba5409db7a6582440a7b473cc0398890f15\n",
		"unknown key":   good + "url: x\n",
		"no colon":      good + "sha256\n",
		"short commit":  strings.Replace(good, "b0f60ba5409db7a6582440a7b473cc0398890f15", "b0f60ba", 1),
		"upper sha256":  strings.Replace(good, "ef70b61f", "EF70B61F", 1),
		"bad repo":      strings.Replace(good, "github.com/o/n", "o/n", 1),
		"escaping path": strings.Replace(good, "schema/r/schema.json", "../schema.json", 1),
	}
	for name, in := range tests {
		if p, err := parsePin([]byte(in)); err == nil {
			t.Errorf("%s: parsePin = %+v, want an error", name, p)
		}
	}
}

// TestParsePackagePin: a pin names a commit or a package (with its hash and
// the file's path inside it), never both and never half a package.
func TestParsePackagePin(t *testing.T) {
	const good = `revision: r
repository: github.com/o/n
path: schema/schema.json
sha256: ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203
package: npm:@o/n@1.2.3
package-sha256: d12699dc721fe6444fab3df6efd9d888a485a44484ffbee3ef07c3caf82fa2fd
package-path: dist/schema.json
`
	p, err := parsePin([]byte(good))
	if err != nil {
		t.Fatalf("parsePin(good): %v", err)
	}
	if p.Package != "npm:@o/n@1.2.3" || p.Commit != "" || p.PackagePath != "dist/schema.json" {
		t.Errorf("parsePin(good) = %+v", p)
	}
	tests := map[string]string{
		"commit and package":  good + "commit: b0f60ba5409db7a6582440a7b473cc0398890f15\n",
		"no package-sha256":   strings.Replace(good, "package-sha256: d12699dc721fe6444fab3df6efd9d888a485a44484ffbee3ef07c3caf82fa2fd\n", "", 1),
		"no package-path":     strings.Replace(good, "package-path: dist/schema.json\n", "", 1),
		"no version":          strings.Replace(good, "npm:@o/n@1.2.3", "npm:@o/n", 1),
		"other registry":      strings.Replace(good, "npm:@o/n@1.2.3", "pypi:n@1.2.3", 1),
		"short package hash":  strings.Replace(good, "d12699dc721fe6444fab3df6efd9d888a485a44484ffbee3ef07c3caf82fa2fd", "d12699", 1),
		"escaping in package": strings.Replace(good, "dist/schema.json", "../schema.json", 1),
	}
	for name, in := range tests {
		if p, err := parsePin([]byte(in)); err == nil {
			t.Errorf("%s: parsePin = %+v, want an error", name, p)
		}
	}
}
