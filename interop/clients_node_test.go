package interop

// TestNodeClients runs the Node clients of the clients list
// (clients_test.go) that have a Script: the Vercel AI SDK MCP client,
// mcp-remote driven by the TypeScript SDK, and Mastra. Each folder's
// packages are pinned in its package.json and package-lock.json and
// installed with npm ci; the scripts run under Node 22 through npx, as
// TestLegacyTS's does. Every run is one transport in one revision; each
// line its script prints becomes a subtest, a non-zero exit fails the run,
// and so does a feature of the row without a passing check.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNodeClients(t *testing.T) {
	if testing.Short() {
		t.Skip("interop test builds the example server and runs Node")
	}
	if _, err := exec.LookPath("npx"); err != nil {
		t.Fatalf("npx (Node.js) is needed for the Node client interop tests: %v", err)
	}
	var scripted []interopClient
	for _, c := range clients {
		if c.Script != "" {
			scripted = append(scripted, c)
		}
	}
	for _, dir := range npmDirs() {
		ensureNodeModules(t, dir)
	}
	srv := buildLegacyServer(t)
	endpoint := startLegacyHTTP(t, srv)
	for _, c := range scripted {
		t.Run(c.Key, func(t *testing.T) {
			for _, r := range c.Runs {
				t.Run(r.Transport+"/"+r.Era, func(t *testing.T) {
					t.Parallel()
					args := []string{"--era", r.Era}
					switch r.Transport {
					case trHTTP:
						args = append(args, "--transport", "http", "--url", endpoint)
					case trBridge: // the client's stdio is the bridge's; the bridge's HTTP the server's
						args = append(args, "--transport", "stdio", "--url", endpoint)
					case trStdio:
						args = append(args, "--transport", "stdio", "--cmd", srv.bin)
						for _, a := range srv.args {
							args = append(args, "--arg", a)
						}
					default:
						t.Fatalf("transport %q", r.Transport)
					}
					passed := runNodeScript(t, c.Dir, c.Script, args...)
					for _, f := range c.Features {
						if !slices.Contains(r.Lacks, f) && passed[f] == 0 {
							t.Errorf("%s claims %q in %s/%s, and no check of it passed", c.Key, f, r.Transport, r.Era)
						}
					}
				})
			}
		})
	}
}

// runNodeScript runs dir/script under Node 22 with args, reports each
// PASS/FAIL/SKIP line as a subtest, and returns the passed checks per
// feature.
func runNodeScript(t *testing.T, dir, script string, args ...string) map[string]int {
	t.Helper()
	known := map[string]bool{deviationKey: true}
	for _, f := range features {
		known[f.key] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npx", append([]string{"-y", "-p", "node@22", "node", script}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	passed := map[string]int{}
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		verdict, rest, ok := strings.Cut(line, " ")
		if !ok || (verdict != "PASS" && verdict != "FAIL" && verdict != "SKIP") {
			t.Logf("%s: %s", script, line)
			continue
		}
		name, reason, _ := strings.Cut(rest, ": ")
		feature, _, _ := strings.Cut(name, "/")
		seen++
		if verdict == "PASS" {
			passed[feature]++
		}
		t.Run(name, func(t *testing.T) {
			if !known[feature] {
				t.Errorf("check %q: %q is not a feature of clients_test.go", name, feature)
			}
			switch verdict {
			case "FAIL":
				t.Errorf("%s", strings.ReplaceAll(reason, " | ", "\n"))
			case "SKIP":
				t.Skip(reason)
			}
		})
	}
	if err != nil || t.Failed() {
		t.Errorf("%s %s: %v\nstderr:\n%s", script, strings.Join(args, " "), err, stderr.String())
	}
	if seen < 10 {
		t.Errorf("%s reported %d checks, want >= 10\nstdout:\n%s\nstderr:\n%s", script, seen, out, stderr.String())
	}
	return passed
}

// ensureNodeModules runs npm ci in dir unless its node_modules already holds
// every package the clients list pins there (npmPins); checkPackageJSON
// (TestWorksWithTable) checks that package.json and the lock pin the same.
func ensureNodeModules(t *testing.T, dir string) {
	t.Helper()
	pins := npmPins(dir)
	if len(pins) == 0 {
		t.Fatalf("no client of clients_test.go is installed in %s", dir)
	}
	pkg, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	installed := true
	for name, v := range pins {
		if !bytes.Contains(pkg, []byte(`"`+name+`": "`+v+`"`)) {
			t.Fatalf("%s/package.json does not pin %s %s", dir, name, v)
		}
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
		t.Fatalf("npm ci in interop/%s: %v\n%s", dir, err, out)
	}
}
