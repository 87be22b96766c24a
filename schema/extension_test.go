package schema_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/schema"
)

// The tests of this file are about extension pins (schema/ext-<name>/):
// looked up apart from the revisions, read from their subfolder of the spec
// folder, and downloaded, cached and verified like a revision's pin.

func TestLookupExtTasks(t *testing.T) {
	p, err := schema.LookupExtension(schema.ExtTasks)
	if err != nil {
		t.Fatal(err)
	}
	want := schema.Pin{
		Revision:   "draft",
		Repository: "github.com/modelcontextprotocol/ext-tasks",
		Commit:     "e4345978be1f602f1fc48d89051e8559dd5302a6",
		Path:       "schema/draft/schema.json",
		SHA256:     "10933a5003097bbccb03d964e6a5f7a2819cc4d7a1d07e27c6765cbf5da35c5c",
		SpecSubdir: "ext-tasks",
	}
	if p != want {
		t.Fatalf("LookupExtension(tasks) =\n%+v\nwant\n%+v", p, want)
	}
	const url = "https://raw.githubusercontent.com/modelcontextprotocol/ext-tasks/e4345978be1f602f1fc48d89051e8559dd5302a6/schema/draft/schema.json"
	if got := p.RawURL(""); got != url {
		t.Errorf("RawURL = %q, want %q", got, url)
	}
}

// TestExtensionsAreNotRevisions: the ext-tasks folder is no revision, and
// no revision is an extension.
func TestExtensionsAreNotRevisions(t *testing.T) {
	if got := schema.Extensions(); !slices.Equal(got, []string{"apps", "tasks"}) {
		t.Errorf("Extensions() = %v, want [apps tasks]", got)
	}
	for _, rev := range schema.Revisions() {
		if strings.HasPrefix(rev, "ext-") {
			t.Errorf("Revisions() lists %q", rev)
		}
	}
	for _, rev := range []string{"ext-tasks", "draft", "ext-apps", "2026-01-26"} {
		if p, err := schema.Lookup(rev); err == nil {
			t.Errorf("Lookup(%q) = %+v, want an error", rev, p)
		}
	}
	for _, name := range []string{"", "ext-tasks", "nosuch", "../2026-07-28", "a/b", "."} {
		if p, err := schema.LookupExtension(name); err == nil {
			t.Errorf("LookupExtension(%q) = %+v, want an error", name, p)
		}
	}
	if _, err := schema.LookupExtension("nosuch"); err == nil || !strings.Contains(err.Error(), "tasks") {
		t.Errorf("LookupExtension(nosuch) error = %v, want it to name the pinned extensions", err)
	}
}

// TestLoadExtTasksSpecDir checks the pin against the real file in
// MCP_SPEC_DIR/ext-tasks, with no download and nothing cached.
func TestLoadExtTasksSpecDir(t *testing.T) {
	dir := realSpecDir(t)
	p, err := schema.LookupExtension(schema.ExtTasks)
	if err != nil {
		t.Fatal(err)
	}
	wantSpecDirLoad(t, p, filepath.Join(dir, "ext-tasks", "schema", "draft", "schema.json"))
}

// TestLoadExtTasksDownload: without a spec folder the extension's file is
// downloaded from its own repository at the pinned commit, verified and
// cached; a second Load reads the cache; a download with other bytes (the
// core schema) is a *MismatchError and caches nothing.
func TestLoadExtTasksDownload(t *testing.T) {
	dir := realSpecDir(t)
	p, err := schema.LookupExtension(schema.ExtTasks)
	if err != nil {
		t.Fatal(err)
	}
	real, err := os.ReadFile(filepath.Join(dir, "ext-tasks", filepath.FromSlash(p.Path)))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCP_SPEC_DIR", "")

	srv := newServer(t, p, real) // answers only at /modelcontextprotocol/ext-tasks/<commit>/schema/draft/schema.json
	cache := t.TempDir()
	opts := schema.Options{BaseURL: srv.URL, CacheDir: cache, Client: srv.Client()}
	for i, kind := range []string{schema.SourceDownload, schema.SourceCache} {
		data, src, err := schema.Load(context.Background(), p, opts)
		if err != nil {
			t.Fatalf("Load %d: %v", i, err)
		}
		if src.Kind != kind || !bytes.Equal(data, real) {
			t.Errorf("Load %d: Source %+v, %d bytes; want %s and the pinned bytes", i, src, len(data), kind)
		}
	}
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("server hits = %d, want 1", n)
	}

	core, err := schema.Lookup(schema.Current)
	if err != nil {
		t.Fatal(err)
	}
	other := readPinned(t, dir, core)
	bad := newServer(t, p, other)
	badCache := t.TempDir()
	_, _, err = schema.Load(context.Background(), p, schema.Options{BaseURL: bad.URL, CacheDir: badCache, Client: bad.Client()})
	var mm *schema.MismatchError
	if !errors.As(err, &mm) || mm.Got != sum(other) {
		t.Fatalf("Load of other bytes: %v, want a *MismatchError", err)
	}
	assertEmptyDir(t, badCache)
}

// TestLoadRefusesBadSpecSubdir: a hand-made pin cannot escape the spec
// folder through SpecSubdir.
func TestLoadRefusesBadSpecSubdir(t *testing.T) {
	for _, sub := range []string{"..", "a/b", "/abs", "."} {
		p := testPin(testData)
		p.SpecSubdir = sub
		dir := t.TempDir()
		writeSpecFile(t, dir, p, testData) // present at <dir>/<path>: only SpecSubdir is wrong
		if _, _, err := schema.Load(context.Background(), p, schema.Options{SpecDir: dir}); err == nil || !strings.Contains(err.Error(), "spec subfolder") {
			t.Errorf("SpecSubdir %q: Load error = %v, want a refusal of the subfolder", sub, err)
		}
	}
}

// TestLookupExtApps: the MCP Apps pin names its npm package (version and
// tarball hash) and the file inside it instead of a commit, and has no
// download URL.
func TestLookupExtApps(t *testing.T) {
	p, err := schema.LookupExtension(schema.ExtApps)
	if err != nil {
		t.Fatal(err)
	}
	want := schema.Pin{
		Revision:      "2026-01-26",
		Repository:    "github.com/modelcontextprotocol/ext-apps",
		Path:          "schema/schema.json",
		SHA256:        "3823abdec2ab00069420812520c20f561428e1bf328c8f61189094f5160e33d9",
		Package:       "npm:@modelcontextprotocol/ext-apps@2.0.4",
		PackageSHA256: "d12699dc721fe6444fab3df6efd9d888a485a44484ffbee3ef07c3caf82fa2fd",
		PackagePath:   "dist/src/generated/schema.json",
		SpecSubdir:    "ext-apps",
	}
	if p != want {
		t.Fatalf("LookupExtension(apps) =\n%+v\nwant\n%+v", p, want)
	}
	if got := p.RawURL(""); got != "" {
		t.Errorf("RawURL = %q, want none for a package pin", got)
	}
}

// TestLoadExtAppsSpecDir checks the pin against the real file in
// MCP_SPEC_DIR/ext-apps, with no download and nothing cached.
func TestLoadExtAppsSpecDir(t *testing.T) {
	dir := realSpecDir(t)
	p, err := schema.LookupExtension(schema.ExtApps)
	if err != nil {
		t.Fatal(err)
	}
	wantSpecDirLoad(t, p, filepath.Join(dir, "ext-apps", "schema", "schema.json"))
}

// TestLoadExtAppsNoDownload: without a spec folder and with an empty cache
// a package pin is an error that says where to put the file, and nothing
// is requested from the server.
func TestLoadExtAppsNoDownload(t *testing.T) {
	p, err := schema.LookupExtension(schema.ExtApps)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCP_SPEC_DIR", "")
	srv := failServer(t)
	_, _, err = schema.Load(context.Background(), p, schema.Options{BaseURL: srv.URL, CacheDir: t.TempDir(), Client: srv.Client()})
	if err == nil || !strings.Contains(err.Error(), "npm:@modelcontextprotocol/ext-apps@2.0.4") || !strings.Contains(err.Error(), "ext-apps/schema/schema.json") {
		t.Fatalf("Load = %v, want an error naming the package and the spec-folder path", err)
	}
}
