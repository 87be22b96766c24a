package schema_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/schema"
)

var testData = []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{}}` + "\n")

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// testPin pins data under a made-up revision; it needs no embedded pin.
func testPin(data []byte) schema.Pin {
	return schema.Pin{
		Revision:   "test-rev",
		Repository: "github.com/example/spec",
		Commit:     "0123456789abcdef0123456789abcdef01234567",
		Path:       "schema/test-rev/schema.json",
		SHA256:     sum(data),
	}
}

// server serves body at p's raw URL path and counts the requests it gets.
type server struct {
	*httptest.Server
	hits atomic.Int64
}

func newServer(t *testing.T, p schema.Pin, body []byte) *server {
	t.Helper()
	s := &server{}
	wantPath := strings.TrimPrefix(p.RawURL("http://host"), "http://host")
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if r.Method != http.MethodGet || r.URL.Path != wantPath {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

// failServer fails the test if anything asks it for a file.
func failServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.Error(w, "unexpected", http.StatusTeapot)
	}))
	t.Cleanup(s.Close)
	return s
}

func writeSpecFile(t *testing.T, dir string, p schema.Pin, data []byte) string {
	t.Helper()
	name := filepath.Join(dir, filepath.FromSlash(p.Path))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("unexpected file in cache dir: %s", e.Name())
	}
}

// wantSpecDirLoad loads p with a server that fails the test when asked and
// an empty cache, and checks that the bytes come from the spec-folder file
// want, match the pin, and leave the cache empty. It returns the Source.
func wantSpecDirLoad(t *testing.T, p schema.Pin, want string) schema.Source {
	t.Helper()
	srv := failServer(t)
	cache := t.TempDir()
	data, src, err := schema.Load(context.Background(), p, schema.Options{BaseURL: srv.URL, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if src.Kind != schema.SourceSpecDir || src.Location != want {
		t.Errorf("Source = %+v, want spec-dir %s", src, want)
	}
	if len(data) == 0 || sum(data) != p.SHA256 {
		t.Errorf("Load returned %d bytes hashing to %s, want %s", len(data), sum(data), p.SHA256)
	}
	assertEmptyDir(t, cache)
	return src
}

func wantMismatch(t *testing.T, err error, p schema.Pin, got, location string) {
	t.Helper()
	var mm *schema.MismatchError
	if !errors.As(err, &mm) {
		t.Fatalf("error = %v (%T), want *schema.MismatchError", err, err)
	}
	if mm.Got != got || mm.Pin != p || mm.Location != location {
		t.Errorf("MismatchError = %+v, want Got %s, Location %s, Pin %+v", mm, got, location, p)
	}
	msg := err.Error()
	for _, s := range []string{p.Revision, p.SHA256, got, location, "sha256 mismatch"} {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q does not mention %q", msg, s)
		}
	}
}

func TestVerifyBytes(t *testing.T) {
	p := testPin(testData)
	if err := schema.VerifyBytes(p, testData, "here"); err != nil {
		t.Fatalf("VerifyBytes(good) = %v", err)
	}
	bad := []byte("other")
	wantMismatch(t, schema.VerifyBytes(p, bad, "there"), p, sum(bad), "there")
	want := "schema test-rev at there: sha256 mismatch: want " + p.SHA256 + ", got " + sum(bad)
	if got := schema.VerifyBytes(p, bad, "there").Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}

	p.SHA256 = ""
	err := schema.VerifyBytes(p, testData, "here")
	var mm *schema.MismatchError
	if err == nil || errors.As(err, &mm) {
		t.Errorf("VerifyBytes with empty pin hash = %v, want a plain error", err)
	}
}

func TestLoadSpecDir(t *testing.T) {
	t.Setenv("MCP_SPEC_DIR", "")
	p := testPin(testData)
	dir := t.TempDir()
	file := writeSpecFile(t, dir, p, testData)
	cache := t.TempDir()
	srv := failServer(t)

	data, src, err := schema.Load(context.Background(), p, schema.Options{SpecDir: dir, CacheDir: cache, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, testData) {
		t.Errorf("Load returned %q, want %q", data, testData)
	}
	if want := (schema.Source{Kind: "spec-dir", Location: file}); src != want {
		t.Errorf("Source = %+v, want %+v", src, want)
	}
	assertEmptyDir(t, cache)
}

func TestLoadSpecDirFromEnv(t *testing.T) {
	p := testPin(testData)
	dir := t.TempDir()
	file := writeSpecFile(t, dir, p, testData)
	t.Setenv("MCP_SPEC_DIR", dir)
	cache := t.TempDir()
	srv := failServer(t)

	data, src, err := schema.Load(context.Background(), p, schema.Options{CacheDir: cache, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, testData) || src.Kind != schema.SourceSpecDir || src.Location != file {
		t.Errorf("Load = %q, %+v; want the spec dir file %s", data, src, file)
	}
	assertEmptyDir(t, cache)
}

func TestLoadSpecDirMismatch(t *testing.T) {
	t.Setenv("MCP_SPEC_DIR", "")
	p := testPin(testData)
	dir := t.TempDir()
	bad := []byte(`{"tampered":true}`)
	file := writeSpecFile(t, dir, p, bad)
	cache := t.TempDir()
	srv := failServer(t)

	data, _, err := schema.Load(context.Background(), p, schema.Options{SpecDir: dir, CacheDir: cache, BaseURL: srv.URL})
	if data != nil {
		t.Errorf("Load returned data %q along with error", data)
	}
	wantMismatch(t, err, p, sum(bad), file)
	assertEmptyDir(t, cache)
}

func TestLoadSpecDirMissingFile(t *testing.T) {
	t.Setenv("MCP_SPEC_DIR", "")
	p := testPin(testData)
	srv := failServer(t)
	_, _, err := schema.Load(context.Background(), p, schema.Options{SpecDir: t.TempDir(), CacheDir: t.TempDir(), BaseURL: srv.URL})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load from empty spec dir = %v, want a not-exist error (and no download)", err)
	}
}

func TestLoadDownloadThenCache(t *testing.T) {
	t.Setenv("MCP_SPEC_DIR", "")
	p := testPin(testData)
	srv := newServer(t, p, testData)
	cache := filepath.Join(t.TempDir(), "nested", "cache") // created on demand
	opts := schema.Options{BaseURL: srv.URL, CacheDir: cache, Client: srv.Client()}

	data, src, err := schema.Load(context.Background(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, testData) {
		t.Errorf("download returned %q, want %q", data, testData)
	}
	if want := (schema.Source{Kind: "download", Location: p.RawURL(srv.URL)}); src != want {
		t.Errorf("Source = %+v, want %+v", src, want)
	}
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("server hits after first Load = %d, want 1", n)
	}
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("cache dir holds %d entries, want 1 (no leftover temp files)", len(entries))
	}
	cached, err := os.ReadFile(filepath.Join(cache, entries[0].Name()))
	if err != nil || !bytes.Equal(cached, testData) {
		t.Fatalf("cache file = %q, %v; want the downloaded bytes", cached, err)
	}

	data, src, err = schema.Load(context.Background(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, testData) {
		t.Errorf("cache returned %q, want %q", data, testData)
	}
	if want := (schema.Source{Kind: "cache", Location: filepath.Join(cache, entries[0].Name())}); src != want {
		t.Errorf("Source = %+v, want %+v", src, want)
	}
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("server hits after second Load = %d, want still 1", n)
	}
}

func TestLoadDownloadMismatch(t *testing.T) {
	t.Setenv("MCP_SPEC_DIR", "")
	p := testPin(testData)
	bad := []byte(`{"not":"the pinned file"}`)
	srv := newServer(t, p, bad)
	cache := t.TempDir()

	data, _, err := schema.Load(context.Background(), p, schema.Options{BaseURL: srv.URL, CacheDir: cache})
	if data != nil {
		t.Errorf("Load returned data %q along with error", data)
	}
	wantMismatch(t, err, p, sum(bad), p.RawURL(srv.URL))
	assertEmptyDir(t, cache)
}

func TestLoadCorruptedCache(t *testing.T) {
	t.Setenv("MCP_SPEC_DIR", "")
	p := testPin(testData)
	srv := newServer(t, p, testData)
	opts := schema.Options{BaseURL: srv.URL, CacheDir: t.TempDir()}

	if _, _, err := schema.Load(context.Background(), p, opts); err != nil {
		t.Fatal(err)
	}
	_, src, err := schema.Load(context.Background(), p, opts)
	if err != nil || src.Kind != "cache" {
		t.Fatalf("second Load = %+v, %v; want a cache hit", src, err)
	}
	if err := os.WriteFile(src.Location, []byte("corrupted"), 0o644); err != nil {
		t.Fatal(err)
	}

	data, src2, err := schema.Load(context.Background(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, testData) || src2.Kind != "download" {
		t.Errorf("Load over corrupted cache = %q, %+v; want a fresh download", data, src2)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Errorf("server hits = %d, want 2", n)
	}
	if cached, err := os.ReadFile(src.Location); err != nil || !bytes.Equal(cached, testData) {
		t.Errorf("cache file after re-download = %q, %v; want the good bytes", cached, err)
	}
	if _, src3, err := schema.Load(context.Background(), p, opts); err != nil || src3.Kind != "cache" {
		t.Errorf("Load after repair = %+v, %v; want a cache hit", src3, err)
	}
}

func TestLoadCorruptedCacheBadDownload(t *testing.T) {
	t.Setenv("MCP_SPEC_DIR", "")
	p := testPin(testData)
	good := newServer(t, p, testData)
	cache := t.TempDir()
	if _, _, err := schema.Load(context.Background(), p, schema.Options{BaseURL: good.URL, CacheDir: cache}); err != nil {
		t.Fatal(err)
	}
	// A download reports its URL, not the cache file; find the file.
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 {
		t.Fatalf("cache holds %d entries, want 1", len(entries))
	}
	cacheFile := filepath.Join(cache, entries[0].Name())
	if err := os.WriteFile(cacheFile, []byte("corrupted"), 0o644); err != nil {
		t.Fatal(err)
	}

	bad := []byte("also wrong")
	evil := newServer(t, p, bad)
	_, _, err := schema.Load(context.Background(), p, schema.Options{BaseURL: evil.URL, CacheDir: cache})
	wantMismatch(t, err, p, sum(bad), p.RawURL(evil.URL))
	if n := evil.hits.Load(); n != 1 {
		t.Errorf("server hits = %d, want exactly 1 retry", n)
	}
	if _, err := os.Stat(cacheFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("corrupted cache file still present (stat: %v)", err)
	}
}

func TestLoadHTTPStatus(t *testing.T) {
	t.Setenv("MCP_SPEC_DIR", "")
	p := testPin(testData)
	srv := newServer(t, p, testData)
	p.Commit = "ffffffffffffffffffffffffffffffffffffffff" // the server knows only the original commit
	cache := t.TempDir()

	_, _, err := schema.Load(context.Background(), p, schema.Options{BaseURL: srv.URL, CacheDir: cache})
	if err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
	for _, s := range []string{"404", p.RawURL(srv.URL)} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	assertEmptyDir(t, cache)
}

func TestLoadTooLarge(t *testing.T) {
	t.Setenv("MCP_SPEC_DIR", "")
	big := bytes.Repeat([]byte("x"), 64<<10)
	p := testPin(big)

	handlers := map[string]http.HandlerFunc{
		"content-length": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			w.Write(big)
		},
		"chunked": func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i < len(big); i += 1 << 10 {
				w.Write(big[i : i+1<<10])
				w.(http.Flusher).Flush()
			}
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			cache := t.TempDir()
			_, _, err := schema.Load(context.Background(), p, schema.Options{BaseURL: srv.URL, CacheDir: cache, MaxBytes: 1000})
			if err == nil || !strings.Contains(err.Error(), "limit") {
				t.Errorf("Load of oversized body = %v, want a size-limit error", err)
			}
			assertEmptyDir(t, cache)

			// The same body within the cap loads fine.
			data, _, err := schema.Load(context.Background(), p, schema.Options{BaseURL: srv.URL, CacheDir: cache, MaxBytes: int64(len(big))})
			if err != nil || !bytes.Equal(data, big) {
				t.Errorf("Load within the cap = %d bytes, %v", len(data), err)
			}
		})
	}
}

func TestLoadCanceled(t *testing.T) {
	t.Setenv("MCP_SPEC_DIR", "")
	p := testPin(testData)
	srv := newServer(t, p, testData)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := schema.Load(ctx, p, schema.Options{BaseURL: srv.URL, CacheDir: t.TempDir()})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Load with canceled context = %v, want context.Canceled", err)
	}
}

func TestLoadInvalidPin(t *testing.T) {
	t.Setenv("MCP_SPEC_DIR", "")
	srv := failServer(t)
	for name, mutate := range map[string]func(*schema.Pin){
		"empty sha256":  func(p *schema.Pin) { p.SHA256 = "" },
		"upper sha256":  func(p *schema.Pin) { p.SHA256 = strings.ToUpper(p.SHA256) },
		"escaping path": func(p *schema.Pin) { p.Path = "../../etc/passwd" },
		"absolute path": func(p *schema.Pin) { p.Path = "/etc/passwd" },
	} {
		p := testPin(testData)
		mutate(&p)
		if _, _, err := schema.Load(context.Background(), p, schema.Options{SpecDir: t.TempDir(), BaseURL: srv.URL, CacheDir: t.TempDir()}); err == nil {
			t.Errorf("%s: Load succeeded", name)
		}
	}
}

// TestLoadRealSpecDir checks the embedded pin of Current against the real
// upstream file in MCP_SPEC_DIR.
func TestLoadRealSpecDir(t *testing.T) {
	dir := os.Getenv("MCP_SPEC_DIR")
	if dir == "" {
		t.Skip("MCP_SPEC_DIR is not set; set it to a checkout of github.com/modelcontextprotocol/modelcontextprotocol to verify the pin")
	}
	p, err := schema.Lookup(schema.Current)
	if err != nil {
		t.Fatal(err)
	}
	src := wantSpecDirLoad(t, p, filepath.Join(dir, filepath.FromSlash(p.Path)))
	if src.Kind != "spec-dir" {
		t.Errorf("Source.Kind = %q, want the wire name spec-dir", src.Kind)
	}
}
