package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The client's trace context of the end-to-end run.
const (
	e2eTraceID     = "5bf92f3577b34da6a3ce929d0e0e4737"
	e2eParentID    = "10f067aa0ba902b8"
	e2eTraceparent = "00-" + e2eTraceID + "-" + e2eParentID + "-01"
)

// TestConsoleExporterEndToEnd builds the command, serves HTTP on a free
// port with OTEL_TRACES_EXPORTER=console, sends a real 2026-07-28
// tools/call over a socket with _meta.traceparent (SEP-414, R-META-08),
// stops the server with SIGTERM, and finds on stdout the flushed server
// span in the client's trace. Without any OTEL_* variable, the same call
// prints nothing on stdout.
func TestConsoleExporterEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	bin := filepath.Join(t.TempDir(), "everything")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	stdout := serveOnce(t, bin, "OTEL_TRACES_EXPORTER=console")
	found := false
	dec := json.NewDecoder(strings.NewReader(stdout))
	for {
		var sp struct {
			Name        string
			SpanKind    int
			SpanContext struct{ TraceID string }
			Parent      struct{ SpanID string }
		}
		if err := dec.Decode(&sp); err != nil {
			if err != io.EOF {
				t.Fatalf("stdout is not the console exporter's JSON: %v\n%s", err, stdout)
			}
			break
		}
		if sp.SpanContext.TraceID == e2eTraceID {
			found = true
			if sp.Name != "tools/call test_simple_text" || sp.SpanKind != 2 || sp.Parent.SpanID != e2eParentID {
				t.Errorf("span %q kind %d parent %s, want tools/call test_simple_text, SERVER (2), %s", sp.Name, sp.SpanKind, sp.Parent.SpanID, e2eParentID)
			}
		}
	}
	if !found {
		t.Fatalf("stdout has no span of trace %s:\n%s", e2eTraceID, stdout)
	}

	if stdout := serveOnce(t, bin); strings.TrimSpace(stdout) != "" {
		t.Errorf("without OTEL_* variables, stdout has:\n%s", stdout)
	}
}

// serveOnce runs bin -http 127.0.0.1:0 with env added to the process's
// environment less its OTEL_* variables, makes one tools/call, stops it
// with SIGTERM and returns its stdout.
func serveOnce(t *testing.T, bin string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-http", "127.0.0.1:0")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	var logs strings.Builder
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		re := regexp.MustCompile(`url=(http://\S+/mcp)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		wg.Wait()
		t.Fatalf("the server did not say where it serves:\n%s", logs.String())
	}
	call(t, ctx, url)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, logs.String())
	}
	return stdout.String()
}

// call sends one tools/call of test_simple_text with the 2026-07-28
// headers and _meta, and the client's traceparent.
func call(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"1"},"traceparent":"` + e2eTraceparent + `"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "test_simple_text")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"result"`)) {
		t.Fatalf("tools/call: %d %s", resp.StatusCode, b)
	}
}

// servesHTTP follows app.Run's -http flag: stdio unless it is set and
// not empty.
func TestServesHTTP(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"-http", "127.0.0.1:0"}, true},
		{[]string{"--http=:8080"}, true},
		{[]string{"-http="}, false},
		{[]string{"-redis", "redis://x", "-http", ":1"}, true},
		{[]string{"-http", ":1", "-http", ""}, false},
		{[]string{"-eras", "both"}, false},
		{[]string{"--", "-http", ":1"}, false},
	} {
		if got := servesHTTP(c.args); got != c.want {
			t.Errorf("servesHTTP(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
