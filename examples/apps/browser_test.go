//go:build browser

package main

// TestBrowser renders this example's view in a real browser (make browser;
// .ci/run runs it): headless Chromium (Debian's chromium, /usr/bin/chromium
// or $CHROMIUM) driven by puppeteer-core loads browser/host.html, a host
// page of this project's own built on the ext-apps npm package's AppBridge
// (browser/host.mjs, bundled by esbuild). The page lists the server's
// tools, reads the UI resource, renders it in a sandboxed iframe under the
// resource's CSP, lets the AppBridge complete the view's initialize
// handshake, sends the view the tool's result, and forwards the tools/call
// the view makes when its button is clicked; run.mjs checks each step in
// the DOM and saves a screenshot. The packages are pinned in
// browser/package.json and package-lock.json and installed with npm ci;
// the scripts run under Node 22 through npx.
//
// It is behind the build tag browser because it needs Chromium and npm,
// which make test does not.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// browserDir holds the host page, its scripts and their npm pins.
const browserDir = "browser"

func TestBrowser(t *testing.T) {
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("Chromium is needed (apt-get install chromium, or set CHROMIUM): %v", err)
	}
	if _, err := exec.LookPath("npx"); err != nil {
		t.Fatalf("npx (Node.js) is needed: %v", err)
	}
	ensureNodeModules(t, browserDir)

	site := t.TempDir()
	node(t, browserDir, 2*time.Minute, "build.mjs", site)

	// A clock that moves one second per call, so that the view's second
	// time differs from the first.
	var calls atomic.Int64
	base := time.Date(2026, 1, 26, 12, 0, 0, 0, time.UTC)
	s, err := newServer(func() time.Time { return base.Add(time.Duration(calls.Add(1)-1) * time.Second) })
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamhttp.Handler(s, streamhttp.Options{}))
	mux.Handle("/", http.FileServer(http.Dir(site)))
	srv := httptest.NewServer(mux) // on 127.0.0.1: the host page and /mcp are one origin
	t.Cleanup(srv.Close)

	shots := os.Getenv("BROWSER_SHOTS")
	if shots == "" {
		shots = filepath.Join("..", "..", "artifacts", "browser")
	}
	shots, err = filepath.Abs(shots)
	if err != nil {
		t.Fatal(err)
	}
	out := node(t, browserDir, 3*time.Minute, "run.mjs", "--url", srv.URL+"/host.html", "--shots", shots)
	if passed := checks(t, out); passed < 10 {
		t.Errorf("%d checks passed, want all 10", passed)
	}
	if n := calls.Load(); n < 2 {
		t.Errorf("the server's get-time ran %d times, want the host's call and the view's", n)
	}
	if _, err := os.Stat(filepath.Join(shots, "apps-get-time.png")); err != nil {
		t.Errorf("no screenshot: %v", err)
	}
}

// TestTSClient runs the TypeScript SDK 2.x client (@modelcontextprotocol/
// client 2.0.0, which opens 2025-11-25 initialize sessions and declares
// extensions in capabilities.extensions) against the example, over
// Streamable HTTP and over stdio (the example's binary): with the
// extension declared it sees the advertisement, _meta.ui, the flat key,
// structuredContent and the view; without it a plain tool and a text
// result (browser/sdk.mjs).
func TestTSClient(t *testing.T) {
	if _, err := exec.LookPath("npx"); err != nil {
		t.Fatalf("npx (Node.js) is needed: %v", err)
	}
	ensureNodeModules(t, browserDir)
	s, err := newServer(time.Now)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(streamhttp.Handler(s, streamhttp.Options{}))
	t.Cleanup(srv.Close)
	bin := filepath.Join(t.TempDir(), "apps")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range []struct{ name, flag, target string }{{"http", "--url", srv.URL + "/mcp"}, {"stdio", "--cmd", bin}} {
		t.Run(c.name, func(t *testing.T) {
			if passed := checks(t, node(t, browserDir, 2*time.Minute, "sdk.mjs", c.flag, c.target)); passed < 8 {
				t.Errorf("%d checks passed, want all 8", passed)
			}
		})
	}
}

// checks turns the PASS and FAIL lines of a script's output into
// subtests, logs the other lines, and returns how many passed.
func checks(t *testing.T, out []byte) int {
	t.Helper()
	passed := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		verdict, rest, _ := strings.Cut(line, " ")
		if verdict != "PASS" && verdict != "FAIL" {
			t.Log(line)
			continue
		}
		name, detail, _ := strings.Cut(rest, ": ")
		t.Run(name, func(t *testing.T) {
			if verdict == "FAIL" {
				t.Error(detail)
			} else {
				t.Log(detail)
			}
		})
		if verdict == "PASS" {
			passed++
		}
	}
	return passed
}

// node runs script in dir under Node 22 (npx -p node@22) and returns its
// output; a non-zero exit fails the test after the output is logged.
func node(t *testing.T, dir string, timeout time.Duration, script string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npx", append([]string{"-y", "-p", "node@22", "node", script}, args...)...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Errorf("node %s: %v\n%s", script, err, out.Bytes())
	}
	return out.Bytes()
}

// ensureNodeModules runs npm ci in dir unless node_modules holds every
// package.json dependency at its pinned version.
func ensureNodeModules(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	installed := len(pkg.Dependencies) > 0
	for name, v := range pkg.Dependencies {
		var got struct {
			Version string `json:"version"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json"))
		if err != nil || json.Unmarshal(b, &got) != nil || got.Version != v {
			installed = false
		}
	}
	if installed {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
}
