package interop

// Legacy interop with the TypeScript MCP SDK 1.x (@modelcontextprotocol/sdk
// 1.32.2, pinned in ts/package.json and ts/package-lock.json):
// ts/legacy.mjs runs every check against examples/everything in ErasBoth
// over Streamable HTTP and over stdio (docs/dual-era.md §10.5), under
// Node 22 through npx. Each line it prints becomes a subtest here; a
// non-zero exit fails the test.

import (
	"bufio"
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// tsSDKVersion is the pinned TS SDK; ts/package.json must name it
// (clients_test.go lists it with mcp-remote, installed beside it).
const tsSDKVersion = "1.32.2"

// TestLegacyTS runs ts/legacy.mjs over both transports.
func TestLegacyTS(t *testing.T) {
	if testing.Short() {
		t.Skip("interop test builds the example server and runs Node")
	}
	if _, err := exec.LookPath("npx"); err != nil {
		t.Fatalf("npx (Node.js) is needed for the TS SDK interop test: %v", err)
	}
	ensureNodeModules(t, "ts")
	srv := buildLegacyServer(t)
	endpoint := startLegacyHTTP(t, srv)
	watchURL := startWatchServer(t)

	t.Run("http", func(t *testing.T) {
		runLegacyScript(t, "--transport", "http", "--url", endpoint, "--watch-url", watchURL, "--watch-uri", watchedURI)
	})
	t.Run("stdio", func(t *testing.T) {
		args := []string{"--transport", "stdio", "--cmd", srv.bin}
		for _, a := range srv.args {
			args = append(args, "--arg", a)
		}
		runLegacyScript(t, args...)
	})
}

// startWatchServer runs an in-process ErasBoth server with one resource,
// watchedURI, and calls NotifyResourceUpdated for it every 100 ms until
// the test ends (examples/everything has no way for a client to trigger an
// update).
func startWatchServer(t *testing.T) string {
	t.Helper()
	s := newWatchServer(t)
	hs := httptest.NewServer(streamhttp.Handler(s, streamhttp.Options{}))
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				_ = s.NotifyResourceUpdated(watchedURI)
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
		hs.CloseClientConnections()
		hs.Close()
	})
	return hs.URL
}

// pendingSkips is the --skip argument of ts/legacy.mjs: every pending
// check with its reason, or none with INTEROP_RUN_PENDING.
func pendingSkips() string {
	if os.Getenv("INTEROP_RUN_PENDING") != "" {
		return ""
	}
	var items []string
	for _, set := range []map[string]string{needsBridge, needsResume, needsFixtures} {
		for name, why := range set {
			items = append(items, name+"="+strings.ReplaceAll(why, ",", ";"))
		}
	}
	slices.Sort(items)
	return strings.Join(items, ",")
}

// runLegacyScript runs ts/legacy.mjs under Node 22 and reports each of its
// PASS/FAIL/SKIP lines as a subtest.
func runLegacyScript(t *testing.T, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	full := append([]string{"-y", "-p", "node@22", "node", "legacy.mjs"}, args...)
	if skips := pendingSkips(); skips != "" {
		full = append(full, "--skip", skips)
	}
	cmd := exec.CommandContext(ctx, "npx", full...)
	cmd.Dir = "ts"
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		verdict, rest, ok := strings.Cut(line, " ")
		if !ok || (verdict != "PASS" && verdict != "FAIL" && verdict != "SKIP") {
			t.Logf("legacy.mjs: %s", line)
			continue
		}
		name, reason, _ := strings.Cut(rest, ": ")
		seen++
		t.Run(name, func(t *testing.T) {
			switch verdict {
			case "FAIL":
				t.Errorf("%s", strings.ReplaceAll(reason, " | ", "\n"))
			case "SKIP":
				t.Skip(reason)
			}
		})
	}
	if err != nil {
		t.Errorf("legacy.mjs %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if seen < 20 {
		t.Errorf("legacy.mjs reported %d checks, want >= 20\nstdout:\n%s\nstderr:\n%s", seen, out, stderr.String())
	}
}
