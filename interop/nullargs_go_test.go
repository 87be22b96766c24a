package interop

// "arguments": null from the Go clients (issue 22): the Go SDK
// (modelcontextprotocol/go-sdk v1.8.0) and mark3labs/mcp-go v1.2.1 call a
// tool of examples/everything (-eras both) with a nil arguments map, and
// the call succeeds, in every era each client speaks, over Streamable HTTP
// and stdio. What each client sends is recorded below the client (an
// http.RoundTripper; the server process's stdin), and the test fails
// unless a tools/call with "arguments": null really went out.
//
// Which Go values put the null on the wire (read from the clients' code,
// and checked by the "control" steps below):
//   - Go SDK: CallToolParams.Arguments is an `any` with omitempty, and
//     ClientSession.CallTool replaces a nil interface with map[string]any{}.
//     A nil map in the interface (Arguments: args, args a nil
//     map[string]any) is not a nil interface: it is sent as null.
//   - mcp-go: CallToolParams.Arguments is an `any` with omitempty too, so
//     CallToolParams{Name: "x"} sends no arguments at all; a nil map in the
//     interface is sent as null.
//
// The versions: the Go SDK probes server/discover and stays on 2026-07-28
// unless ClientSessionOptions.ProtocolVersion names an earlier version,
// which it then sends in initialize; mcp-go does the same with
// client.WithProtocolVersion (see legacy_mcpgo_test.go). Both thus speak
// 2026-07-28 and every legacy version of the transport: Streamable HTTP
// from 2025-03-26 on (httpVersions), stdio from 2024-11-05 (stdioVersions).

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"sync"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const modernVersion = "2026-07-28"

// The tools the test calls: one that takes no arguments, and one whose
// inputSchema requires a property, which an empty object does not have
// (a tool execution error: null is validated as absent arguments are).
const (
	nullArgsTool     = "test_simple_text"
	nullArgsStrict   = "json_schema_2020_12_tool"
	nullArgsNoParams = "test_image_content" // for the control calls
)

// TestNullArgumentsGoClients runs the Go SDK and mcp-go clients against
// examples/everything, per transport and version.
func TestNullArgumentsGoClients(t *testing.T) {
	if testing.Short() {
		t.Skip("interop test builds and runs the example server")
	}
	srv := buildLegacyServer(t)
	endpoint := startLegacyHTTP(t, srv)
	for _, client := range []struct {
		name string
		run  func(t *testing.T, c nullArgsConn)
	}{
		{"go-sdk", goSDKNullArgs},
		{"mcp-go", mcpGoNullArgs},
	} {
		for _, v := range append([]string{modernVersion}, httpVersions...) {
			t.Run(client.name+"/http/"+v, func(t *testing.T) {
				client.run(t, nullArgsConn{version: v, endpoint: endpoint, srv: srv, sent: &sentLog{}})
			})
		}
		for _, v := range append([]string{modernVersion}, stdioVersions...) {
			t.Run(client.name+"/stdio/"+v, func(t *testing.T) {
				client.run(t, nullArgsConn{version: v, srv: srv, sent: &sentLog{}})
			})
		}
	}
}

// nullArgsConn is where one client connects: endpoint over HTTP, else srv
// over stdio; sent records what the client sent.
type nullArgsConn struct {
	version  string
	endpoint string
	srv      legacyServer
	sent     *sentLog
}

func goSDKNullArgs(t *testing.T, c nullArgsConn) {
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpwire-interop-nullargs", Version: "0.0.1"}, nil)
	var tr mcp.Transport
	if c.endpoint != "" {
		hc := &http.Client{Transport: &sentRecorder{next: http.DefaultTransport, log: c.sent}}
		t.Cleanup(hc.CloseIdleConnections)
		tr = &mcp.StreamableClientTransport{Endpoint: c.endpoint, HTTPClient: hc, MaxRetries: -1}
	} else {
		stdout, stdin := startRecordedStdio(t, c.srv, c.sent)
		tr = &mcp.IOTransport{Reader: stdout, Writer: stdin}
	}
	var opts *mcp.ClientSessionOptions
	if c.version != modernVersion {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: c.version}
	}
	cs, err := client.Connect(ctx, tr, opts)
	if err != nil {
		t.Fatalf("connect at %s: %v\n%s", c.version, err, c.sent)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != c.version {
		t.Fatalf("negotiated %s, want %s", got, c.version)
	}

	var args map[string]any // left nil, as a caller with no arguments does
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: nullArgsTool, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s with a nil arguments map: %v\n%s", nullArgsTool, err, c.sent)
	}
	if res.IsError || textOf(res) != simpleTextResult {
		t.Errorf("tools/call %s: %s", nullArgsTool, jsonString(res))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: nullArgsStrict, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s with a nil arguments map: %v", nullArgsStrict, err)
	}
	if !res.IsError {
		t.Errorf("tools/call %s: null arguments must be validated as {}: %s", nullArgsStrict, jsonString(res))
	}
	c.sent.wantArguments(t, nullArgsTool, "null")
	c.sent.wantArguments(t, nullArgsStrict, "null")

	// Control: a nil Arguments interface is sent as {} (CallTool fills it in).
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: nullArgsNoParams}); err != nil {
		t.Fatalf("tools/call %s: %v", nullArgsNoParams, err)
	}
	c.sent.wantArguments(t, nullArgsNoParams, "{}")
}

func mcpGoNullArgs(t *testing.T, c nullArgsConn) {
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	var opts []mcpclient.ClientOption
	if c.version != modernVersion {
		opts = append(opts, mcpclient.WithProtocolVersion(c.version))
	}
	var tr transport.Interface
	if c.endpoint != "" {
		hc := &http.Client{Transport: &sentRecorder{next: http.DefaultTransport, log: c.sent}}
		t.Cleanup(hc.CloseIdleConnections)
		h, err := transport.NewStreamableHTTP(c.endpoint, transport.WithHTTPBasicClient(hc))
		if err != nil {
			t.Fatal(err)
		}
		tr = h
	} else {
		stdout, stdin := startRecordedStdio(t, c.srv, c.sent)
		tr = transport.NewIO(stdout, stdin, io.NopCloser(bytes.NewReader(nil)))
	}
	client := mcpclient.NewClient(tr, opts...)
	if err := client.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = client.Close() })
	ir, err := client.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ProtocolVersion: c.version,
		ClientInfo:      mcpgo.Implementation{Name: "mcpwire-interop-nullargs", Version: "0.0.1"},
	}})
	if err != nil {
		t.Fatalf("initialize at %s: %v\n%s", c.version, err, c.sent)
	}
	if ir.ProtocolVersion != c.version || client.ProtocolVersion() != c.version {
		t.Fatalf("negotiated %s (client %s), want %s", ir.ProtocolVersion, client.ProtocolVersion(), c.version)
	}

	var args map[string]any // left nil
	res, err := client.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: nullArgsTool, Arguments: args}})
	if err != nil {
		t.Fatalf("tools/call %s with a nil arguments map: %v\n%s", nullArgsTool, err, c.sent)
	}
	if res.IsError || goText(res) != simpleTextResult {
		t.Errorf("tools/call %s: %s", nullArgsTool, jsonString(res))
	}
	res, err = client.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: nullArgsStrict, Arguments: args}})
	if err != nil {
		t.Fatalf("tools/call %s with a nil arguments map: %v", nullArgsStrict, err)
	}
	if !res.IsError {
		t.Errorf("tools/call %s: null arguments must be validated as {}: %s", nullArgsStrict, jsonString(res))
	}
	c.sent.wantArguments(t, nullArgsTool, "null")
	c.sent.wantArguments(t, nullArgsStrict, "null")

	// Control: a nil Arguments interface sends no arguments member.
	if _, err := client.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: nullArgsNoParams}}); err != nil {
		t.Fatalf("tools/call %s: %v", nullArgsNoParams, err)
	}
	c.sent.wantArguments(t, nullArgsNoParams, "")
}

// sentLog holds the JSON-RPC messages a client sent, as sent.
type sentLog struct {
	mu   sync.Mutex
	msgs [][]byte
	line []byte // a stdio line not yet ended
}

// add records one message (an HTTP body, which may be a batch array).
func (l *sentLog) add(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, bytes.Clone(b))
}

// write records stdio output, one message a line.
func (l *sentLog) write(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.line = append(l.line, p...)
	for {
		i := bytes.IndexByte(l.line, '\n')
		if i < 0 {
			return
		}
		l.msgs = append(l.msgs, bytes.Clone(l.line[:i]))
		l.line = l.line[i+1:]
	}
}

func (l *sentLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(bytes.Join(l.msgs, []byte("\n")))
}

// wantArguments checks that a tools/call of tool was sent and that its
// params.arguments was exactly raw ("" for no arguments member), as the
// bytes on the wire say (the member's raw JSON, white space trimmed).
func (l *sentLog) wantArguments(t *testing.T, tool, raw string) {
	t.Helper()
	l.mu.Lock()
	msgs := slicesClone(l.msgs)
	l.mu.Unlock()
	seen := 0
	for _, m := range msgs {
		var msg struct {
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		if json.Unmarshal(m, &msg) != nil || msg.Method != "tools/call" {
			continue
		}
		var name string
		if json.Unmarshal(msg.Params["name"], &name) != nil || name != tool {
			continue
		}
		seen++
		got, has := msg.Params["arguments"]
		if string(bytes.TrimSpace(got)) != raw || has != (raw != "") {
			t.Errorf("tools/call %s went out with arguments %q (present %v), want %q: %s", tool, got, has, raw, m)
		}
	}
	if seen == 0 {
		t.Errorf("no tools/call %s on the wire:\n%s", tool, l)
	}
}

func slicesClone(in [][]byte) [][]byte { return append([][]byte(nil), in...) }

// sentRecorder records every request body before it is sent.
type sentRecorder struct {
	next http.RoundTripper
	log  *sentLog
}

func (r *sentRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Method == http.MethodPost {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		r.log.add(b)
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	return r.next.RoundTrip(req)
}

// startRecordedStdio starts srv on stdio and returns its stdout and its
// stdin, whose every byte is recorded in log. The process ends when the
// client closes stdin, or is killed at cleanup.
func startRecordedStdio(t *testing.T, srv legacyServer, log *sentLog) (io.ReadCloser, io.WriteCloser) {
	t.Helper()
	stderr := &syncBuffer{}
	cmd := exec.Command(srv.bin, srv.args...)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", srv.bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	return stdout, &recordedWriter{w: stdin, log: log}
}

// recordedWriter records what is written through it.
type recordedWriter struct {
	w   io.WriteCloser
	log *sentLog
}

func (r *recordedWriter) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	r.log.write(p[:n])
	return n, err
}

func (r *recordedWriter) Close() error { return r.w.Close() }
