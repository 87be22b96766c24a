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
		_ = os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())), 0o644)
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

// helperSuite checks its arguments like `conformance server` gets them,
// checks that the server answers, and writes fixture results to -o.
func helperSuite() int {
	args := os.Args[1:]
	want := []string{"server", "--url", "", "--requirements", requirementRevision, "-o", ""}
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
	url, out := args[2], args[6]
	resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake suite: %v\n", err)
		return 3
	}
	resp.Body.Close()
	fail := os.Getenv("HELPER_FAIL_SCENARIO")
	ok, _ := os.ReadFile(filepath.Join(fixtures, "checks", "ok.json"))
	bad, _ := os.ReadFile(filepath.Join(fixtures, "checks", "failure.json"))
	for _, n := range append(append([]string{}, requiredScenarios...), notScoredScenarios...) {
		dir := filepath.Join(out, "server-"+n+"-2026-11-30T01-48-29-203Z")
		_ = os.MkdirAll(dir, 0o755)
		body := ok
		if n == fail {
			body = bad
		}
		_ = os.WriteFile(filepath.Join(dir, "checks.json"), body, 0o644)
	}
	fmt.Println("Total: 100 passed, 0 failed") // like the suite's own summary
	if fail != "" {
		return 1
	}
	return 0
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

type runResult struct {
	code      int
	out       string
	serverPID int
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
	t.Setenv("CONFORMANCE_CMD", env+" CONFORMANCE_TEST_HELPER=suite "+shellQuote(exe))
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
	pid, _ := strconv.Atoi(strings.TrimSpace(readFile(pidFile)))
	return runResult{code, buf.String(), pid}
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
	r := runWithHelpers(t, out, "HELPER_START_DELAY=300ms")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0", r.code)
	}
	assertServerStopped(t, r.serverPID)
	for _, want := range []string{"removed 1 old result folder(s)", "server answers at http://127.0.0.1:", "required scenarios ok: 37/37"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(r.out, "some-old-scenario") {
		t.Error("stale result folder was scored")
	}
	if got, want := lastLine(r.out), "required: 74 passed, 0 failed"; got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
}

func TestRunFailedScenario(t *testing.T) {
	r := runWithHelpers(t, t.TempDir(), "HELPER_FAIL_SCENARIO=caching")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1", r.code)
	}
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
	if r.code != 0 {
		t.Fatalf("exit %d, want 0", r.code)
	}
	if !strings.Contains(r.out, "server answers at http://"+net.JoinHostPort("127.0.0.1", strconv.Itoa(port))+"/mcp") {
		t.Error("-port not used")
	}
}

func TestRunServerExits(t *testing.T) {
	r := runWithHelpers(t, t.TempDir(), "", func(o *runOptions) { o.server = "echo starting; exit 7" })
	if r.code != 2 {
		t.Fatalf("exit %d, want 2", r.code)
	}
	for _, want := range []string{"server did not come up: the server process exited", "exit status 7", "starting"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
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
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %s: the hanging suite was not killed", d)
	}
	if !strings.Contains(buf.String(), "did not finish within 1s") {
		t.Error("timeout not reported")
	}
}
