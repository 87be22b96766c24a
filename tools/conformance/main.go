// Command conformance runs the official MCP conformance suite
// (npm @modelcontextprotocol/conformance, on Node 22 fetched from npm)
// against the example server ./examples/everything and scores its results,
// for both requirement sets a dual-era server answers: 2026-07-28 (the
// stateless wire) and 2025-11-25 (legacy initialize sessions).
//
//	go run ./tools/conformance run [-port N] [-out DIR] [-server CMD] [-requirements REVS] [-all]
//	go run ./tools/conformance score [-requirements REVS] [-required-only] [-all] DIR
//
// run builds ./examples/everything, starts it once on 127.0.0.1:PORT (a
// free port unless -port is given), waits until POST /mcp gets any HTTP
// answer, runs against that one URL, one after the other,
//
//	npx -y -p node@22 -p @modelcontextprotocol/conformance@0.2.0-alpha.12 -- \
//	  conformance server --url http://127.0.0.1:PORT/mcp --requirements 2026-07-28 -o DIR/2026-07-28
//	npx -y -p node@22 -p @modelcontextprotocol/conformance@0.2.0-alpha.12 -- \
//	  conformance server --url http://127.0.0.1:PORT/mcp --requirements 2025-11-25 -o DIR/2025-11-25
//
// (-requirements narrows the list), stops the server (its whole process
// group) and scores both folders like score does.
// The environment variable CONFORMANCE_CMD replaces the
// "npx ... -- conformance" part (run through sh -c, with the suite's
// arguments appended), e.g. to use a pre-installed suite offline:
//
//	CONFORMANCE_CMD='$CACHE/node22/node_modules/node/bin/node $CACHE/suite/node_modules/@modelcontextprotocol/conformance/dist/index.js'
//
// score reads DIR/<revision>/server-<scenario>-<timestamp>/checks.json (or,
// for the results of one suite run, DIR/server-…/checks.json) and scores
// each set from its checks, not from the suite's exit code, which counts
// only scored scenarios. A set fails if a required scenario has a FAILURE
// check, crashed (no checks.json) or is missing; 2025-11-25 also fails on
// any FAILURE of its three not-scored scenarios (server-session-lifecycle,
// json-schema-2020-12, server-sse-polling; docs/dual-era.md §10.8), and
// with -all every set fails on a FAILURE anywhere. The report prints each
// set's table and failed checks, then both scores.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "run":
		return runRun(args[1:], stdout, stderr)
	case "score":
		return runScore(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "conformance: unknown mode %q\n", args[0])
		usage(stderr)
		return 2
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  conformance run [-port N] [-out DIR] [-server CMD] [-requirements REVS] [-all] [-required-only]
      build and start ./examples/everything once, run the MCP conformance suite
      against it for each requirement revision (default `+defaultRevisions+`)
      into DIR/<revision>, stop it, score each
  conformance score [-requirements REVS] [-required-only] [-all] DIR
      score the suite's results in DIR

Environment: CONFORMANCE_CMD replaces "npx -y -p node@22 -p `+suitePackage+` -- conformance".
`)
}

// suiteCommand returns the command that runs the suite's CLI with args:
// the default npx invocation, or $CONFORMANCE_CMD through sh -c.
//
// `npx -p node@22` puts node_modules/.bin of its temporary install first on
// PATH, and that holds node 22's binary, so the suite's `#!/usr/bin/env node`
// runs on node 22 although the machine's node is 20 (checked: `npx -y -p
// node@22 -p <suite> -- node --version` prints v22.x).
func suiteCommand(ctx context.Context, args ...string) *exec.Cmd {
	if custom := strings.TrimSpace(os.Getenv("CONFORMANCE_CMD")); custom != "" {
		return exec.CommandContext(ctx, "sh", append([]string{"-c", custom + ` "$@"`, "conformance"}, args...)...)
	}
	return exec.CommandContext(ctx, "npx", append(
		[]string{"-y", "-p", "node@22", "-p", suitePackage, "--", "conformance"}, args...)...)
}

type runOptions struct {
	revisions      string // comma-separated; "" means defaultRevisions
	port           int
	out            string
	server         string
	suiteTimeout   time.Duration
	startupTimeout time.Duration
	score          scoreOptions
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("run", flag.ContinueOnError)
	fset.SetOutput(stderr)
	var o runOptions
	fset.IntVar(&o.port, "port", 0, "port on 127.0.0.1 for the server (default: a free one)")
	fset.StringVar(&o.out, "out", "conformance-results", "results folder; its old server-* result folders are removed first")
	fset.StringVar(&o.server, "server", "", "server command run with sh -c instead of building ./examples/everything;\n"+
		"{addr} and {port} are replaced, and \"-http 127.0.0.1:PORT\" is appended if neither occurs")
	fset.DurationVar(&o.suiteTimeout, "timeout", 10*time.Minute, "time limit for the suite run")
	fset.DurationVar(&o.startupTimeout, "startup-timeout", 60*time.Second, "time limit for the server to answer POST /mcp")
	fset.StringVar(&o.revisions, "requirements", defaultRevisions, "comma-separated requirement revisions to run, in order")
	fset.BoolVar(&o.score.All, "all", false, "fail on failures of not-scored scenarios too")
	fset.BoolVar(&o.score.RequiredOnly, "required-only", false, "show only the required scenarios")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if fset.NArg() != 0 {
		fmt.Fprintf(stderr, "conformance run: unexpected arguments %q\n", fset.Args())
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, o, stdout, stderr)
}

func run(ctx context.Context, o runOptions, stdout, stderr io.Writer) int {
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "conformance: "+format+"\n", a...) }

	revisions := o.revisions
	if revisions == "" {
		revisions = defaultRevisions
	}
	sets, err := parseRevisions(revisions)
	if err != nil {
		logf("-requirements: %v", err)
		return 2
	}
	out, err := filepath.Abs(o.out)
	if err != nil {
		logf("%v", err)
		return 2
	}
	// Old results go first, from DIR (the layout of one suite run) and
	// from every DIR/<revision>, so that they cannot stand in for results
	// this run did not produce.
	for _, d := range append([]string{out}, setDirs(out, requirementSets())...) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			logf("%v", err)
			return 2
		}
		if n, err := removeOldResults(d); err != nil {
			logf("cleaning %s: %v", d, err)
			return 2
		} else if n > 0 {
			logf("removed %d old result folder(s) from %s", n, d)
		}
	}

	port := o.port
	if port == 0 {
		if port, err = freePort(); err != nil {
			logf("picking a port: %v", err)
			return 2
		}
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	url := "http://" + addr + "/mcp"

	// The server command: a prebuilt binary, so that startup is fast.
	var serverCmd *exec.Cmd
	if o.server != "" {
		script := strings.NewReplacer("{addr}", addr, "{port}", strconv.Itoa(port)).Replace(o.server)
		if script == o.server {
			script += " -http " + addr
		}
		serverCmd = exec.Command("sh", "-c", script)
	} else {
		tmp, err := os.MkdirTemp("", "mcpwire-conformance-")
		if err != nil {
			logf("%v", err)
			return 2
		}
		defer os.RemoveAll(tmp)
		bin := filepath.Join(tmp, "everything")
		logf("building ./examples/everything")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./examples/everything")
		build.Stdout, build.Stderr = stderr, stderr
		if err := build.Run(); err != nil {
			logf("building ./examples/everything: %v", err)
			return 2
		}
		serverCmd = exec.Command(bin, "-http", addr)
	}

	logPath := filepath.Join(out, "server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		logf("%v", err)
		return 2
	}
	defer logFile.Close()
	serverCmd.Stdout, serverCmd.Stderr = logFile, logFile
	setProcessGroup(serverCmd)
	logf("starting server: %s (log: %s)", strings.Join(serverCmd.Args, " "), logPath)
	if err := serverCmd.Start(); err != nil {
		logf("starting server: %v", err)
		return 2
	}
	srv := &process{cmd: serverCmd, done: make(chan struct{})}
	go func() { srv.err = serverCmd.Wait(); close(srv.done) }()
	defer srv.stop() // always, also on early returns and panics

	if err := waitReady(ctx, url, o.startupTimeout, srv.done); err != nil {
		logf("server did not come up: %v", err)
		if srv.exited() {
			logf("server exited: %v", srv.err)
		}
		printTail(stderr, logPath, 40)
		return 2
	}
	logf("server answers at %s", url)

	timedOut := false
	for _, set := range sets {
		code, late := runSuite(ctx, o.suiteTimeout, url, set.Revision, filepath.Join(out, set.Revision), stdout, stderr, logf)
		if code != 0 {
			return code
		}
		timedOut = timedOut || late
		if srv.exited() {
			logf("warning: the server exited during the %s run: %v", set.Revision, srv.err)
		}
	}
	srv.stop()

	fmt.Fprintln(stdout)
	code := scoreAndPrint(out, sets, true, o.score, stdout, stderr)
	if timedOut && code == 0 {
		code = 1
	}
	return code
}

// setDirs returns DIR/<revision> for each set.
func setDirs(dir string, sets []requirementSet) []string {
	var ds []string
	for _, s := range sets {
		ds = append(ds, filepath.Join(dir, s.Revision))
	}
	return ds
}

// runSuite runs the suite for one requirement revision against url into
// out, within timeout. It returns a non-zero exit code when run must stop
// (130 interrupted, 2 the suite could not be run), and whether the suite
// was stopped at the time limit (its results are scored all the same). A
// non-zero exit of the suite itself is expected when checks fail: the
// scoring decides.
func runSuite(ctx context.Context, timeout time.Duration, url, revision, out string, stdout, stderr io.Writer, logf func(string, ...any)) (code int, timedOut bool) {
	suiteCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	suite := suiteCommand(suiteCtx, "server", "--url", url, "--requirements", revision, "-o", out)
	suite.Stdin = nil
	suite.Stdout, suite.Stderr = stdout, stderr
	setProcessGroup(suite)
	suite.Cancel = func() error { return signalGroup(suite.Process, false) }
	suite.WaitDelay = 10 * time.Second
	logf("running %s", strings.Join(suite.Args, " "))
	start := time.Now()
	suiteErr := suite.Run()
	if suite.Process != nil {
		_ = signalGroup(suite.Process, true) // leftovers of npx's process tree
	}
	logf("suite (requirements %s) finished in %s", revision, time.Since(start).Round(100*time.Millisecond))
	switch {
	case ctx.Err() != nil:
		logf("interrupted")
		return 130, false
	case errors.Is(suiteCtx.Err(), context.DeadlineExceeded):
		logf("the suite (requirements %s) did not finish within %s", revision, timeout)
		return 0, true
	case suiteErr != nil:
		var exitErr *exec.ExitError
		if !errors.As(suiteErr, &exitErr) {
			logf("running the suite: %v", suiteErr)
			return 2, false
		}
		logf("the suite (requirements %s) exited with %v", revision, suiteErr)
	}
	return 0, false
}

// removeOldResults removes the suite's result folders from an earlier run in
// dir, so that they cannot stand in for results this run did not produce.
func removeOldResults(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && resultDirRE.MatchString(e.Name()) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls url with a POST until the server gives any HTTP answer.
func waitReady(ctx context.Context, url string, timeout time.Duration, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"` + modernRevision + `",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"mcpwire-conformance-probe","version":"0"},` +
		`"io.modelcontextprotocol/clientCapabilities":{}}}}`
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", modernRevision)
		req.Header.Set("Mcp-Method", "server/discover")
		resp, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("no answer within %s: %v", timeout, last)
		case <-exited:
			return errors.New("the server process exited")
		case <-tick.C:
		}
	}
}

// process is a started command whose Wait runs in a goroutine.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop terminates the process group: SIGTERM, then SIGKILL after 5 s. It is
// safe to call more than once.
func (p *process) stop() {
	if !p.exited() {
		_ = signalGroup(p.cmd.Process, false)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
		}
	}
	// Also reaches children left behind by a leader that already exited
	// (e.g. when -server runs `go run`).
	_ = signalGroup(p.cmd.Process, true)
	<-p.done
}

// printTail copies the last n lines of the file at path to w.
func printTail(w io.Writer, path string, n int) {
	if n <= 0 {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	fmt.Fprintf(w, "--- last %d line(s) of %s ---\n%s\n---\n", len(lines), path, strings.Join(lines, "\n"))
}
