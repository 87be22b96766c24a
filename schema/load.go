package schema

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// DefaultMaxBytes is the download cap [Load] uses when [Options.MaxBytes] is
// not positive: 16 MiB.
const DefaultMaxBytes int64 = 16 << 20

// SpecDirEnv is the environment variable [Load] reads the spec folder from
// when [Options.SpecDir] is empty.
const SpecDirEnv = "MCP_SPEC_DIR"

// Values of [Source.Kind].
const (
	// SourceSpecDir: the bytes were read from a local spec folder.
	SourceSpecDir = "spec-dir"
	// SourceCache: the bytes were read from the download cache.
	SourceCache = "cache"
	// SourceDownload: the bytes were downloaded (and then cached).
	SourceDownload = "download"
)

// Options configures [Load]. The zero value is ready to use.
type Options struct {
	// SpecDir is a folder laid out like the upstream repository; the file is
	// read from SpecDir/<Pin.SpecSubdir>/<Pin.Path>. If empty, the MCP_SPEC_DIR environment
	// variable is used; if that is empty too, the cache and the network are
	// used instead.
	SpecDir string
	// BaseURL is the download base URL passed to [Pin.RawURL]; empty means
	// [DefaultBaseURL].
	BaseURL string
	// CacheDir holds downloaded files; empty means
	// os.UserCacheDir()/mcpwire/schema.
	CacheDir string
	// Client performs the download; nil means a client with a 60 s timeout.
	Client *http.Client
	// MaxBytes caps the size of a download; zero or negative means
	// [DefaultMaxBytes].
	MaxBytes int64
}

// Source tells where [Load] found the bytes.
type Source struct {
	// Kind is one of "spec-dir", "cache" or "download" ([SourceSpecDir],
	// [SourceCache], [SourceDownload]).
	Kind string
	// Location is the file path (spec-dir, cache) or URL (download).
	Location string
}

// MismatchError reports bytes whose sha256 differs from their pin.
type MismatchError struct {
	// Pin is the pin the bytes were checked against; Pin.SHA256 is the
	// wanted hash.
	Pin Pin
	// Got is the lowercase hex sha256 of the bytes found.
	Got string
	// Location is the file path or URL the bytes came from.
	Location string
}

// Error implements error, e.g.
// "schema 2026-07-28 at <location>: sha256 mismatch: want <pin>, got <got>".
func (e *MismatchError) Error() string {
	return fmt.Sprintf("schema %s at %s: sha256 mismatch: want %s, got %s",
		e.Pin.Revision, e.Location, e.Pin.SHA256, e.Got)
}

// VerifyBytes checks that data hashes to p.SHA256. On a mismatch it returns a
// [*MismatchError] naming location as the origin of data; if p.SHA256 is not
// a 64-digit lowercase hex string it returns a plain error.
func VerifyBytes(p Pin, data []byte, location string) error {
	if !isLowerHex(p.SHA256, 64) {
		return fmt.Errorf("schema %s: pin sha256 %q: want 64 lowercase hex digits", p.Revision, p.SHA256)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != p.SHA256 {
		return &MismatchError{Pin: p, Got: got, Location: location}
	}
	return nil
}

// Load returns the verified bytes of the file p pins and where they came
// from. When a spec folder is given (opts.SpecDir, else MCP_SPEC_DIR) the file
// is read from <dir>/<p.SpecSubdir>/<p.Path> and nothing else is tried. Otherwise the cache
// file is used if it verifies; a cache file that does not verify is removed
// and the file is downloaded once more. A download fetches p.RawURL(opts.BaseURL),
// verifies it and writes it to the cache atomically (temp file + rename)
// before returning it; failing to write the cache is an error.
//
// Every source is checked against p.SHA256: a mismatching spec-dir file or
// download yields a [*MismatchError] (and nothing is cached). A non-200 HTTP
// status or a body larger than opts.MaxBytes is an error as well.
func Load(ctx context.Context, p Pin, opts Options) ([]byte, Source, error) {
	if !isLowerHex(p.SHA256, 64) {
		return nil, Source{}, fmt.Errorf("schema %s: pin sha256 %q: want 64 lowercase hex digits", p.Revision, p.SHA256)
	}
	if !fs.ValidPath(p.Path) || p.Path == "." {
		return nil, Source{}, fmt.Errorf("schema %s: pin path %q: want a clean relative slash-separated path", p.Revision, p.Path)
	}
	if p.SpecSubdir != "" && (!fs.ValidPath(p.SpecSubdir) || p.SpecSubdir == "." || strings.Contains(p.SpecSubdir, "/")) {
		return nil, Source{}, fmt.Errorf("schema %s: pin spec subfolder %q: want one folder name", p.Revision, p.SpecSubdir)
	}

	specDir := opts.SpecDir
	if specDir == "" {
		specDir = os.Getenv(SpecDirEnv)
	}
	if specDir != "" {
		loc := filepath.Join(specDir, filepath.FromSlash(p.SpecSubdir), filepath.FromSlash(p.Path))
		data, err := os.ReadFile(loc)
		if err != nil {
			return nil, Source{}, fmt.Errorf("schema %s: reading spec dir: %w", p.Revision, err)
		}
		if err := VerifyBytes(p, data, loc); err != nil {
			return nil, Source{}, err
		}
		return data, Source{Kind: SourceSpecDir, Location: loc}, nil
	}

	cacheDir := opts.CacheDir
	if cacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, Source{}, fmt.Errorf("schema %s: no cache dir (set Options.CacheDir or %s): %w", p.Revision, SpecDirEnv, err)
		}
		cacheDir = filepath.Join(base, "mcpwire", "schema")
	}
	// The cache is content-addressed: the name is the pinned hash, so pins
	// of different content never share a file.
	cacheFile := filepath.Join(cacheDir, "sha256-"+p.SHA256+path.Ext(p.Path))

	data, err := os.ReadFile(cacheFile)
	switch {
	case err == nil:
		verr := VerifyBytes(p, data, cacheFile)
		if verr == nil {
			return data, Source{Kind: SourceCache, Location: cacheFile}, nil
		}
		// Corrupted cache entry: drop it and download afresh.
		if err := os.Remove(cacheFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, Source{}, fmt.Errorf("schema %s: removing corrupted cache file (%v): %w", p.Revision, verr, err)
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, Source{}, fmt.Errorf("schema %s: reading cache: %w", p.Revision, err)
	}

	url := p.RawURL(opts.BaseURL)
	if url == "" {
		return nil, Source{}, fmt.Errorf("schema %s: %s is pinned from the package %s (its file %s), which is not downloaded: set %s to a spec folder holding it at %s",
			p.Revision, p.Repository, p.Package, p.PackagePath, SpecDirEnv, path.Join(p.SpecSubdir, p.Path))
	}
	data, err = download(ctx, opts, url)
	if err != nil {
		return nil, Source{}, fmt.Errorf("schema %s: %w", p.Revision, err)
	}
	if err := VerifyBytes(p, data, url); err != nil {
		return nil, Source{}, err
	}
	if err := writeFileAtomic(cacheDir, cacheFile, data); err != nil {
		return nil, Source{}, fmt.Errorf("schema %s: writing cache: %w", p.Revision, err)
	}
	return data, Source{Kind: SourceDownload, Location: url}, nil
}

// download GETs url and returns its body, refusing non-200 answers and
// bodies over the size cap.
func download(ctx context.Context, opts Options, url string) ([]byte, error) {
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: 60 * time.Second}
	}
	maxBytes := opts.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("downloading %s: unexpected HTTP status %s", url, resp.Status)
	}
	if resp.ContentLength > maxBytes {
		return nil, fmt.Errorf("downloading %s: body of %d bytes exceeds the limit of %d bytes", url, resp.ContentLength, maxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %w", url, err)
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("downloading %s: body exceeds the limit of %d bytes", url, maxBytes)
	}
	return data, nil
}

// writeFileAtomic writes data to name (inside dir) through a temporary file
// in dir that is renamed into place, so readers never see a partial file.
func writeFileAtomic(dir, name string, data []byte) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".download-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
