package schema

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Current is the revision the protocol package is generated from.
const Current = "2026-07-28"

// Legacy is the revision the protocol/mcp20251125 package is generated from:
// 2025-11-25, the last revision whose clients open a session with
// initialize (as 2024-11-05, 2025-03-26 and 2025-06-18 do). A server that
// also serves those clients decodes their messages with that package.
const Legacy = "2025-11-25"

// LegacyRevisions lists the revisions whose clients open a session with
// initialize, newest first: [Legacy] (2025-11-25), 2025-06-18, 2025-03-26
// and 2024-11-05. Each one is pinned; only [Legacy] is generated into a
// package, and the generator reads all four for the projection tables of a
// server that serves their clients beside [Current] (see
// ../gen/README.md). It returns a fresh slice each time.
func LegacyRevisions() []string {
	return []string{Legacy, "2025-06-18", "2025-03-26", "2024-11-05"}
}

// DefaultBaseURL is the base URL [Pin.RawURL] and [Load] use when none is
// given: GitHub's raw file host.
const DefaultBaseURL = "https://raw.githubusercontent.com"

//go:embed */pin.txt
var pinFS embed.FS

// Pin identifies one upstream schema file by commit and content hash.
type Pin struct {
	// Revision is the MCP protocol revision, e.g. "2026-07-28".
	Revision string
	// Repository is the upstream repository as host/owner/name, e.g.
	// "github.com/modelcontextprotocol/modelcontextprotocol".
	Repository string
	// Commit is the full 40-hex upstream commit the file is taken from.
	Commit string
	// Path is the slash-separated path of the file inside Repository.
	Path string
	// SHA256 is the lowercase hex sha256 of the file's bytes.
	SHA256 string
	// Package, for a file that upstream publishes in a package rather
	// than at a repository commit, is the package as
	// "<registry>:<name>@<version>" (e.g.
	// "npm:@modelcontextprotocol/ext-apps@2.0.4"); Commit is then empty
	// and there is no download ([Pin.RawURL] is empty and [Load] reads
	// the spec folder or the cache only).
	Package string
	// PackageSHA256 is the lowercase hex sha256 of the package archive
	// (for npm, of the tarball npm pack writes); set with Package only.
	PackageSHA256 string
	// PackagePath is the slash-separated path of the file inside the
	// package archive; set with Package only. Path is then where the
	// file sits in the spec folder's copy.
	PackagePath string
	// SpecSubdir is the folder of a spec folder (MCP_SPEC_DIR) that holds
	// a checkout of Repository: empty for the specification repository,
	// which is the spec folder itself, and the repository's name for an
	// extension ([LookupExtension]).
	SpecSubdir string
}

// Lookup returns the embedded pin of revision (see the package
// documentation for the file format). It returns an error when no pin exists
// for revision or when the pin file is malformed.
func Lookup(revision string) (Pin, error) {
	if revision == "" || strings.ContainsAny(revision, `/\`) || !fs.ValidPath(revision) || strings.HasPrefix(revision, extPrefix) {
		return Pin{}, fmt.Errorf("schema: invalid revision %q", revision)
	}
	name := path.Join(revision, "pin.txt")
	data, err := pinFS.ReadFile(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Pin{}, fmt.Errorf("schema: no pin for revision %q (pinned: %s)",
				revision, strings.Join(Revisions(), ", "))
		}
		return Pin{}, fmt.Errorf("schema: %w", err)
	}
	p, err := parsePin(data)
	if err != nil {
		return Pin{}, fmt.Errorf("schema: %s: %w", name, err)
	}
	if p.Revision != revision {
		return Pin{}, fmt.Errorf("schema: %s: revision %q does not match its folder %q", name, p.Revision, revision)
	}
	return p, nil
}

// Revisions lists the revisions that have an embedded pin, oldest first
// (revisions are dates, so sorting the names sorts them in time). Each one
// can be passed to [Lookup].
func Revisions() []string {
	names, _ := fs.Glob(pinFS, "*/pin.txt")
	revs := make([]string, 0, len(names))
	for _, n := range names {
		if dir := path.Dir(n); !strings.HasPrefix(dir, extPrefix) {
			revs = append(revs, dir)
		}
	}
	sort.Strings(revs)
	return revs
}

// parsePin parses a pin file: "key: value" lines with the keys revision,
// repository, path and sha256, and either commit or the three package keys
// (package, package-sha256, package-path), each at most once. Blank lines
// and lines starting with "#" are ignored.
func parsePin(data []byte) (Pin, error) {
	var p Pin
	fields := map[string]*string{
		"revision":       &p.Revision,
		"repository":     &p.Repository,
		"commit":         &p.Commit,
		"path":           &p.Path,
		"sha256":         &p.SHA256,
		"package":        &p.Package,
		"package-sha256": &p.PackageSHA256,
		"package-path":   &p.PackagePath,
	}
	seen := map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return Pin{}, fmt.Errorf("line %d: want \"key: value\", got %q", i+1, line)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		dst, known := fields[key]
		if !known {
			return Pin{}, fmt.Errorf("line %d: unknown key %q", i+1, key)
		}
		if seen[key] {
			return Pin{}, fmt.Errorf("line %d: duplicate key %q", i+1, key)
		}
		seen[key] = true
		*dst = value
	}
	required := []string{"revision", "repository", "commit", "path", "sha256"}
	if seen["package"] || seen["package-sha256"] || seen["package-path"] {
		if seen["commit"] {
			return Pin{}, errors.New("a pin names a commit or a package, not both")
		}
		required = []string{"revision", "repository", "path", "sha256", "package", "package-sha256", "package-path"}
	}
	for _, key := range required {
		if !seen[key] {
			return Pin{}, fmt.Errorf("missing key %q", key)
		}
	}
	if err := p.validate(); err != nil {
		return Pin{}, err
	}
	return p, nil
}

// validate checks the fields Load relies on.
func (p Pin) validate() error {
	if p.Revision == "" {
		return errors.New("empty revision")
	}
	if parts := strings.Split(p.Repository, "/"); len(parts) != 3 || parts[0] != "github.com" || parts[1] == "" || parts[2] == "" {
		return fmt.Errorf("repository %q: want github.com/<owner>/<name>", p.Repository)
	}
	if p.Package != "" {
		reg, rest, ok := strings.Cut(p.Package, ":")
		at := strings.LastIndex(rest, "@")
		if !ok || reg != "npm" || at <= 0 || at == len(rest)-1 {
			return fmt.Errorf("package %q: want npm:<name>@<version>", p.Package)
		}
		if !isLowerHex(p.PackageSHA256, 64) {
			return fmt.Errorf("package-sha256 %q: want 64 lowercase hex digits", p.PackageSHA256)
		}
		if !fs.ValidPath(p.PackagePath) || p.PackagePath == "." {
			return fmt.Errorf("package-path %q: want a clean relative slash-separated path", p.PackagePath)
		}
	} else if !isLowerHex(p.Commit, 40) {
		return fmt.Errorf("commit %q: want 40 lowercase hex digits", p.Commit)
	}
	if !fs.ValidPath(p.Path) || p.Path == "." {
		return fmt.Errorf("path %q: want a clean relative slash-separated path", p.Path)
	}
	if !isLowerHex(p.SHA256, 64) {
		return fmt.Errorf("sha256 %q: want 64 lowercase hex digits", p.SHA256)
	}
	return nil
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// RawURL returns the URL of the pinned file on a raw file host:
// <baseURL>/<owner>/<name>/<commit>/<path>, with owner and name taken from
// Repository. An empty baseURL means [DefaultBaseURL]. A pin of a package
// file (no commit) has no such URL: RawURL returns "".
func (p Pin) RawURL(baseURL string) string {
	if p.Commit == "" {
		return ""
	}
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	repo := p.Repository
	for _, prefix := range []string{"https://", "http://", "github.com/"} {
		repo = strings.TrimPrefix(repo, prefix)
	}
	repo = strings.TrimSuffix(strings.Trim(repo, "/"), ".git")
	return strings.TrimRight(baseURL, "/") + "/" + repo + "/" + p.Commit + "/" + strings.TrimLeft(p.Path, "/")
}
