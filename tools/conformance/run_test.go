package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as the two external programs of `run`, selected by
// CONFORMANCE_TEST_HELPER: "server" is a plain HTTP listener that answers
// every request with 501 (run only needs some HTTP answer; it is no MCP
// server), "suite" stands in for the npm suite and copies fixture results.
func TestMain(m *testing.M) {
	switch os.Getenv("CONFORMANCE_TEST_HELPER") {
	case "server":
		helperServer()
		os.Exit(0)
	case "suite":
		os.Exit(helperSuite())
	}
	os.Exit(m.Run())
}

func helperServer() {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	addr := fs.String("http", "", "listen address")
	_ = fs.Parse(os.Args[1:])
	if pidFile := os.Getenv("HELPER_PID_FILE"); pidFile != "" {
		appendLine(pidFile, strconv.Itoa(os.Getpid())) // one line per start
	}
	if d, _ := time.ParseDuration(os.Getenv("HELPER_START_DELAY")); d > 0 {
		time.Sleep(d)
	}
	err := http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not implemented", http.StatusNotImplemented)
	}))
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(line + "\n")
}

// helperSuite checks its arguments like `conformance server` gets them,
// checks that the server answers, records "REV URL OUT" in
// HELPER_ARGS_FILE, and writes fixture results for that revision's
// scenarios to -o: failure.json for HELPER_FAIL_SCENARIO ("scenario" in
// any set, or "REV:scenario").
func helperSuite() int {
	args := os.Args[1:]
	want := []string{"server", "--url", "", "--requirements", "", "-o", ""}
	if len(args) != len(want) {
		fmt.Fprintf(os.Stderr, "fake suite: args %q\n", args)
		return 3
	}
	for i, w := range want {
		if w != "" && args[i] != w {
			fmt.Fprintf(os.Stderr, "fake suite: args %q\n", args)
			return 3
		}
	}
	url, rev, out := args[2], args[4], args[6]
	set, ok := lookupSet(rev)
	if !ok {
		fmt.Fprintf(os.Stderr, "fake suite: unknown requirements %q\n", rev)
		return 3
	}
	if f := os.Getenv("HELPER_ARGS_FILE"); f != "" {
		appendLine(f, rev+" "+url+" "+out)
	}
	resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake suite: %v\n", err)
		return 3
	}
	resp.Body.Close()
	fail := os.Getenv("HELPER_FAIL_SCENARIO")
	good, _ := os.ReadFile(filepath.Join(fixtures, "checks", "ok.json"))
	bad, _ := os.ReadFile(filepath.Join(fixtures, "checks", "failure.json"))
	failed := false
	for _, n := range append(append([]string{}, set.Required...), set.NotScored...) {
		dir := filepath.Join(out, "server-"+n+"-2026-11-30T01-48-29-203Z")
		_ = os.MkdirAll(dir, 0o755)
		body := good
		if n == fail || rev+":"+n == fail {
			body, failed = bad, true
		}
		_ = os.WriteFile(filepath.Join(dir, "checks.json"), body, 0o644)
	}
	fmt.Println("Total: 100 passed, 0 failed") // like the suite's own summary
	if failed {
		return 1
	}
	return 0
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

type runResult struct {
	code      int
	out       string
	serverPID int
	starts    int      // server processes started
	suiteRuns []string // "REV URL OUT" per suite run, in order
}

func runWithHelpers(t *testing.T, out string, env string, opts ...func(*runOptions)) runResult {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("needs sh")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "server.pid")
	argsFile := filepath.Join(t.TempDir(), "suite.args")
	t.Setenv("CONFORMANCE_CMD", env+" HELPER_ARGS_FILE="+shellQuote(argsFile)+" CONFORMANCE_TEST_HELPER=suite "+shellQuote(exe))
	o := runOptions{
		out:            out,
		server:         "CONFORMANCE_TEST_HELPER=server HELPER_PID_FILE=" + shellQuote(pidFile) + " " + env + " " + shellQuote(exe),
		suiteTimeout:   time.Minute,
		startupTimeout: 20 * time.Second,
	}
	for _, f := range opts {
		f(&o)
	}
	var buf bytes.Buffer
	code := run(context.Background(), o, &buf, &buf)
	t.Logf("run -> %d\n%s", code, buf.String())
	pids := strings.Fields(readFile(pidFile))
	r := runResult{code: code, out: buf.String(), starts: len(pids)}
	if len(pids) > 0 {
		r.serverPID, _ = strconv.Atoi(pids[0])
	}
	if a := strings.TrimSpace(readFile(argsFile)); a != "" {
		r.suiteRuns = strings.Split(a, "\n")
	}
	return r
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// processGone reports whether pid has exited (a zombie counts as exited).
func processGone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && (s[i+2] == 'Z' || s[i+2] == 'X')
}

func assertServerStopped(t *testing.T, pid int) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	if pid == 0 {
		t.Fatal("server never wrote its pid")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("server pid %d still running after run returned", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRunPass(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results")
	// A stale result folder from an earlier run must be removed first.
	writeScenario(t, out, "some-old-scenario", "2026-01-01T00-00-00-000Z", "failure")
	// Stale result folders from an earlier run, in DIR (one suite run's
	// layout) and in DIR/2025-11-25, must be removed first.
	writeScenario(t, out, "some-old-scenario", "2026-01-01T00-00-00-000Z", "failure")
	writeScenario(t, filepath.Join(out, legacyRevision), "server-initialize", "2026-12-01T00-00-00-000Z", "failure")
	r := runWithHelpers(t, out, "HELPER_START_DELAY=300ms")
	wantExit(t, r.code, 0)
	assertServerStopped(t, r.serverPID)
	// One server, both requirement sets against its URL, in order, each
	// into its own folder.
	if r.starts != 1 {
		t.Errorf("server started %d times, want once", r.starts)
	}
	if len(r.suiteRuns) != 2 {
		t.Fatalf("suite runs %q, want two", r.suiteRuns)
	}
	for i, rev := range []string{modernRevision, legacyRevision} {
		f := strings.Fields(r.suiteRuns[i])
		if len(f) != 3 || f[0] != rev || f[1] != strings.Fields(r.suiteRuns[0])[1] || f[2] != filepath.Join(out, rev) {
			t.Errorf("suite run %d: %q, want %s against one URL into %s", i, r.suiteRuns[i], rev, filepath.Join(out, rev))
		}
	}
	wantOutput(t, r.out, "scored: 140 passed, 0 failed",
		"removed 1 old result folder(s) from "+out+"\n",
		"removed 1 old result folder(s) from "+filepath.Join(out, legacyRevision)+"\n",
		"server answers at http://127.0.0.1:",
		"== requirements 2026-07-28 ==",
		"== requirements 2025-11-25 ==",
		"required scenarios ok: 37/37",
		"required scenarios ok: 30/30",
		"2026-07-28: PASS; required scenarios ok 37/37, not scored ok 13/13; checks of required: 74 passed, 0 failed",
		"2025-11-25: PASS; required scenarios ok 30/30, not scored ok 3/3; checks of required and not scored: 66 passed, 0 failed",
		"verdict: PASS\nscored:",
	)
	if strings.Contains(r.out, "some-old-scenario") || strings.Contains(r.out, "latest of 2 runs") {
		t.Error("stale result folder was scored")
	}
}

// A failed check of a not-scored 2025-11-25 scenario fails the run without
// -all (docs/dual-era.md §10.8), and the 2026-07-28 set still passes.
func TestRunLegacyNotScoredFailure(t *testing.T) {
	r := runWithHelpers(t, t.TempDir(), "HELPER_FAIL_SCENARIO=2025-11-25:server-sse-polling")
	wantExit(t, r.code, 1)
	assertServerStopped(t, r.serverPID)
	wantOutput(t, r.out, "scored: 139 passed, 1 failed",
		"server-sse-polling (not scored) / tools-list: Failed",
		"verdict: FAIL, 1 scenario(s) failed: server-sse-polling",
		"2026-07-28: PASS;",
		"2025-11-25: FAIL; required scenarios ok 30/30, not scored ok 2/3; checks of required and not scored: 65 passed, 1 failed",
		"verdict: FAIL (2025-11-25)",
	)
}

// -requirements runs only the sets named; an unknown one is a usage error.
func TestRunOneRequirementSet(t *testing.T) {
	r := runWithHelpers(t, t.TempDir(), "", func(o *runOptions) { o.revisions = legacyRevision })
	wantExit(t, r.code, 0)
	if len(r.suiteRuns) != 1 || !strings.HasPrefix(r.suiteRuns[0], legacyRevision+" ") {
		t.Errorf("suite runs %q", r.suiteRuns)
	}
	if strings.Contains(r.out, "== scores ==") || lastLine(r.out) != "all: 66 passed, 0 failed" {
		t.Errorf("one set: last line %q", lastLine(r.out))
	}
	r = runWithHelpers(t, t.TempDir(), "", func(o *runOptions) { o.revisions = "2025-03-26" })
	if r.code != 2 || r.starts != 0 {
		t.Errorf("unknown revision: exit %d, %d server starts", r.code, r.starts)
	}
}

func TestRunFailedScenario(t *testing.T) {
	r := runWithHelpers(t, t.TempDir(), "HELPER_FAIL_SCENARIO=caching")
	wantExit(t, r.code, 1)
	assertServerStopped(t, r.serverPID)
	if !strings.Contains(r.out, "verdict: FAIL, 1 scenario(s) failed: caching") {
		t.Error("failed scenario not named")
	}
}

func TestRunFixedPort(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	r := runWithHelpers(t, t.TempDir(), "", func(o *runOptions) { o.port = port })
	wantExit(t, r.code, 0)
	if !strings.Contains(r.out, "server answers at http://"+net.JoinHostPort("127.0.0.1", strconv.Itoa(port))+"/mcp") {
		t.Error("-port not used")
	}
}

func TestRunServerExits(t *testing.T) {
	r := runWithHelpers(t, t.TempDir(), "", func(o *runOptions) { o.server = "echo starting; exit 7" })
	wantExit(t, r.code, 2)
	wantOutput(t, r.out, "", "server did not come up: the server process exited", "exit status 7", "starting")
}

func TestRunSuiteTimeout(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sh")
	}
	// A suite that hangs is killed with its process group.
	t.Setenv("CONFORMANCE_CMD", "sleep 60; true")
	var buf bytes.Buffer
	exe, _ := os.Executable()
	start := time.Now()
	code := run(context.Background(), runOptions{
		out:            t.TempDir(),
		server:         "CONFORMANCE_TEST_HELPER=server " + shellQuote(exe),
		suiteTimeout:   time.Second,
		startupTimeout: 20 * time.Second,
	}, &buf, &buf)
	t.Logf("run -> %d\n%s", code, buf.String())
	wantExit(t, code, 1)
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %s: the hanging suite was not killed", d)
	}
	if !strings.Contains(buf.String(), "did not finish within 1s") {
		t.Error("timeout not reported")
	}
}
