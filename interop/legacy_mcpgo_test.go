package interop

// Legacy interop with mark3labs/mcp-go v1.2.1 (docs/dual-era.md §10.5):
// examples/everything in ErasBoth, over Streamable HTTP and stdio, with
// client.WithProtocolVersion(v) for every legacy version the transport
// has, which keeps mcp-go on the initialize handshake (unpinned it probes
// server/discover first and stays on 2026-07-28).
//
// mcp-go's own behaviour that the steps rely on:
//   - WithContinuousListening opens the standalone GET stream once
//     initialize succeeded (server notifications outside a request).
//   - Over HTTP a cancelled context aborts the POST and sends nothing;
//     over stdio it sends notifications/cancelled (client.go
//     cancelRequest).
//   - Close sends DELETE with the session id; a 404 on a later request
//     ends the session (transport.ErrSessionTerminated) and a new
//     Initialize on the same client starts a new one.

//lint:file-ignore SA1019 logging, subscriptions and sampling are the legacy features under test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/stdio"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// The legacy versions each transport speaks: Streamable HTTP exists from
// 2025-03-26 on (2024-11-05 had HTTP+SSE, which mcpwire does not serve).
var (
	httpVersions  = []string{"2025-11-25", "2025-06-18", "2025-03-26"}
	stdioVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
)

// TestLegacyMCPGo runs every legacy step with mcp-go against
// examples/everything in ErasBoth, per transport and version, then the
// session-end and resource-subscription checks.
func TestLegacyMCPGo(t *testing.T) {
	if testing.Short() {
		t.Skip("interop test builds and runs the example server")
	}
	srv := buildLegacyServer(t)
	endpoint := startLegacyHTTP(t, srv)
	for _, v := range httpVersions {
		t.Run("http/"+v, func(t *testing.T) {
			e := newGoEnv(t, v)
			e.endpoint = endpoint
			e.connectHTTP(t, endpoint)
			e.runSteps(t)
		})
	}
	for _, v := range stdioVersions {
		t.Run("stdio/"+v, func(t *testing.T) {
			e := newGoEnv(t, v)
			e.connectStdio(t, srv)
			e.runSteps(t)
		})
	}
	t.Run("http/session_end", func(t *testing.T) { sessionEnd(t, endpoint) })
	for _, v := range httpVersions {
		t.Run("http/"+v+"/resource_updated", func(t *testing.T) { resourceUpdated(t, v, "http") })
	}
	for _, v := range stdioVersions {
		t.Run("stdio/"+v+"/resource_updated", func(t *testing.T) { resourceUpdated(t, v, "stdio") })
	}
}

// goEnv is one mcp-go client connected at one version.
type goEnv struct {
	version    string
	endpoint   string // empty on stdio
	c          *mcpclient.Client
	initResult *mcpgo.InitializeResult // the first initialize's
	traffic    *syncBuffer
	getOpen    atomic.Int32 // GET streams answered 200 (HTTP)

	mu     sync.Mutex
	notes  []mcpgo.JSONRPCNotification
	elicit int
	sample int
	roots  int
}

func newGoEnv(t *testing.T, version string) *goEnv {
	e := &goEnv{version: version, traffic: &syncBuffer{}}
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("INTEROP_TRACE") != "" {
			t.Logf("captured traffic (%s):\n%s", version, e.traffic.String())
		}
	})
	return e
}

func (e *goEnv) options() []mcpclient.ClientOption {
	return []mcpclient.ClientOption{
		mcpclient.WithProtocolVersion(e.version),
		mcpclient.WithSamplingHandler(e),
		mcpclient.WithElicitationHandler(e),
		mcpclient.WithRootsHandler(e),
	}
}

// httpClient records the traffic and counts GET streams that opened.
func (e *goEnv) httpClient(t *testing.T) *http.Client {
	hc := &http.Client{Transport: &getCounter{next: &loggingRoundTripper{next: http.DefaultTransport, out: e.traffic}, n: &e.getOpen}}
	t.Cleanup(hc.CloseIdleConnections)
	return hc
}

func (e *goEnv) connectHTTP(t *testing.T, endpoint string) {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(endpoint, transport.WithContinuousListening(), transport.WithHTTPBasicClient(e.httpClient(t)))
	if err != nil {
		t.Fatal(err)
	}
	e.start(t, mcpclient.NewClient(tr, e.options()...))
}

func (e *goEnv) connectStdio(t *testing.T, srv legacyServer) {
	t.Helper()
	stderr := &syncBuffer{}
	tr := transport.NewStdioWithOptions(srv.bin, nil, srv.args, transport.WithCommandStderrWriter(stderr))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	e.start(t, mcpclient.NewClient(tr, e.options()...))
}

// start starts the client and runs initialize at e.version.
func (e *goEnv) start(t *testing.T, c *mcpclient.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	// Start's context outlives the step: the stdio transport ties the
	// server process to it.
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	c.OnNotification(func(n mcpgo.JSONRPCNotification) {
		e.mu.Lock()
		e.notes = append(e.notes, n)
		e.mu.Unlock()
		fmt.Fprintf(e.traffic, "--- notification %s %s\n", n.Method, jsonString(n.Params))
	})
	e.c = c
	if _, err := e.initialize(ctx); err != nil {
		t.Fatalf("initialize at %s: %v", e.version, err)
	}
}

func (e *goEnv) initialize(ctx context.Context) (*mcpgo.InitializeResult, error) {
	res, err := e.c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ProtocolVersion: e.version,
		ClientInfo:      mcpgo.Implementation{Name: "mcpwire-interop-mcp-go", Version: "0.0.1"},
	}})
	if err == nil && e.initResult == nil {
		e.initResult = res
	}
	return res, err
}

// notesSince returns the notifications with method that arrived after the
// first skip ones.
func (e *goEnv) notesFrom(skip int, method string) []mcpgo.JSONRPCNotification {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []mcpgo.JSONRPCNotification
	for _, n := range e.notes[min(skip, len(e.notes)):] {
		if n.Method == method {
			out = append(out, n)
		}
	}
	return out
}

func (e *goEnv) noteCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.notes)
}

// waitNotes polls until pred holds of the notifications with method that
// arrived after skip, or the deadline passes.
func (e *goEnv) waitNotes(ctx context.Context, skip int, method string, within time.Duration, pred func([]mcpgo.JSONRPCNotification) bool) []mcpgo.JSONRPCNotification {
	deadline := time.Now().Add(within)
	for {
		got := e.notesFrom(skip, method)
		if pred(got) || time.Now().After(deadline) || ctx.Err() != nil {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// --- client-side handlers (the bridge's counterpart) ---

// Elicit answers a form elicitation with elicitedName for "name", and
// "interop" for every other string field.
func (e *goEnv) Elicit(_ context.Context, r mcpgo.ElicitationRequest) (*mcpgo.ElicitationResult, error) {
	e.mu.Lock()
	e.elicit++
	e.mu.Unlock()
	raw, _ := json.Marshal(r.Params.RequestedSchema)
	var schema struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(raw, &schema)
	content := map[string]any{}
	for name, p := range schema.Properties {
		switch {
		case p.Type == "boolean":
			content[name] = true
		case p.Type == "number" || p.Type == "integer":
			content[name] = 1
		case name == "name":
			content[name] = elicitedName
		case name == "context":
			content[name] = elicitedContext
		default:
			content[name] = "interop"
		}
	}
	return &mcpgo.ElicitationResult{ElicitationResponse: mcpgo.ElicitationResponse{Action: mcpgo.ElicitationResponseActionAccept, Content: content}}, nil
}

// CreateMessage answers sampling with a fixed model and text.
func (e *goEnv) CreateMessage(_ context.Context, _ mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	e.mu.Lock()
	e.sample++
	e.mu.Unlock()
	return &mcpgo.CreateMessageResult{
		SamplingMessage: mcpgo.SamplingMessage{Role: mcpgo.RoleAssistant, Content: mcpgo.TextContent{Type: "text", Text: "Paris"}},
		Model:           sampledModel,
		StopReason:      "endTurn",
	}, nil
}

// ListRoots answers roots/list with one root.
func (e *goEnv) ListRoots(context.Context, mcpgo.ListRootsRequest) (*mcpgo.ListRootsResult, error) {
	e.mu.Lock()
	e.roots++
	e.mu.Unlock()
	return &mcpgo.ListRootsResult{Roots: []mcpgo.Root{{URI: clientRootURI, Name: "interop"}}}, nil
}

func (e *goEnv) counts() (elicit, sample, roots int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.elicit, e.sample, e.roots
}

// --- steps ---

type goStep struct {
	name string
	http bool // HTTP only
	run  func(ctx context.Context, t *testing.T, e *goEnv)
}

func (e *goEnv) runSteps(t *testing.T) {
	for _, s := range goSteps {
		if s.http && e.endpoint == "" {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			pending(t, s.name)
			ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
			defer cancel()
			s.run(ctx, t, e)
		})
	}
}

// atLeast reports whether version v is v0 or later (the versions are
// dates, so they compare as strings).
func atLeast(v, v0 string) bool { return v >= v0 }

var goSteps = []goStep{
	{name: "initialize", run: func(_ context.Context, t *testing.T, e *goEnv) {
		res := e.initResult
		if res.ProtocolVersion != e.version {
			t.Errorf("negotiated %q, want %q", res.ProtocolVersion, e.version)
		}
		if res.ServerInfo.Name != wantServerName {
			t.Errorf("serverInfo %+v, want name %q", res.ServerInfo, wantServerName)
		}
		caps := res.Capabilities
		if caps.Tools == nil || caps.Prompts == nil || caps.Resources == nil || caps.Logging == nil {
			t.Errorf("capabilities %s lack tools/prompts/resources/logging", jsonString(caps))
		}
		if caps.Resources != nil && !caps.Resources.Subscribe {
			t.Errorf("resources capability %s lacks subscribe", jsonString(caps.Resources))
		}
		// completions is a capability from 2025-03-26 on.
		if got := caps.Completions != nil; got != atLeast(e.version, "2025-03-26") {
			t.Errorf("completions capability present = %v at %s", got, e.version)
		}
	}},
	{name: "tools_list", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res, err := e.c.ListTools(ctx, mcpgo.ListToolsRequest{})
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			// outputSchema exists from 2025-06-18, icons from 2025-11-25
			// (docs/conversion.md: dropped for older versions).
			if tool.OutputSchema.Type != "" && !atLeast(e.version, "2025-06-18") {
				t.Errorf("tool %s has an outputSchema at %s", tool.Name, e.version)
			}
			if len(tool.Icons) > 0 && !atLeast(e.version, "2025-11-25") {
				t.Errorf("tool %s has icons at %s", tool.Name, e.version)
			}
		}
		if len(names) < 20 {
			t.Errorf("tools/list returned %d tools, want >= 20: %v", len(names), names)
		}
		wantListed(t, "tools/list", names, "test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource", "test_multiple_content_types", "test_tool_with_progress", "json_schema_2020_12_tool")
		if strings.Contains(e.traffic.String(), `"resultType"`) {
			t.Errorf("a legacy answer carries resultType (a 2026-07-28 member)")
		}
	}},
	{name: "call_simple_text", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goCall(ctx, t, e, "test_simple_text", nil)
		if got := goText(res); got != simpleTextResult {
			t.Errorf("text = %q, want %q", got, simpleTextResult)
		}
	}},
	{name: "call_image", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goCall(ctx, t, e, "test_image_content", nil)
		img, ok := onlyContent[mcpgo.ImageContent](res)
		if !ok || img.MIMEType != "image/png" || !strings.HasPrefix(img.Data, "iVBOR") {
			t.Errorf("content = %s, want one image/png", jsonString(res.Content))
		}
	}},
	{name: "call_audio", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goCall(ctx, t, e, "test_audio_content", nil)
		// Audio content exists from 2025-03-26; for 2024-11-05 the
		// projection replaces it (docs/conversion.md).
		if !atLeast(e.version, "2025-03-26") {
			if _, ok := onlyContent[mcpgo.AudioContent](res); ok {
				t.Errorf("audio content at %s: %s", e.version, jsonString(res.Content))
			}
			return
		}
		au, ok := onlyContent[mcpgo.AudioContent](res)
		if !ok || au.MIMEType != "audio/wav" || au.Data == "" {
			t.Errorf("content = %s, want one audio/wav", jsonString(res.Content))
		}
	}},
	{name: "call_embedded_resource", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goCall(ctx, t, e, "test_embedded_resource", nil)
		er, ok := onlyContent[mcpgo.EmbeddedResource](res)
		if !ok {
			t.Fatalf("content = %s, want one embedded resource", jsonString(res.Content))
		}
		if tr, ok := er.Resource.(mcpgo.TextResourceContents); !ok || tr.URI == "" || tr.Text == "" {
			t.Errorf("embedded resource = %s, want text contents with a uri", jsonString(er.Resource))
		}
	}},
	{name: "call_multiple_content_types", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goCall(ctx, t, e, "test_multiple_content_types", nil)
		var kinds []string
		for _, c := range res.Content {
			kinds = append(kinds, contentKind(c))
		}
		if !slices.Equal(kinds, []string{"text", "image", "resource"}) {
			t.Errorf("content kinds %v, want [text image resource]: %s", kinds, jsonString(res.Content))
		}
	}},
	{name: "call_error_handling", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goCall(ctx, t, e, "test_error_handling", nil)
		if !res.IsError || goText(res) == "" {
			t.Errorf("result %s, want isError with a text", jsonString(res))
		}
	}},
	{name: "structured_output", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		// The first listed tool with an outputSchema: its structured
		// result reaches 2025-06-18+; older versions get the text copy.
		res, err := e.c.ListTools(ctx, mcpgo.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var name string
		for _, tool := range res.Tools {
			if tool.OutputSchema.Type != "" {
				name = tool.Name
				break
			}
		}
		if name == "" {
			if atLeast(e.version, "2025-06-18") {
				t.Fatalf("no tool lists an outputSchema at %s", e.version)
			}
			return
		}
		call := goCall(ctx, t, e, name, nil)
		if call.StructuredContent == nil {
			t.Errorf("%s: no structuredContent at %s: %s", name, e.version, jsonString(call))
		}
		if goText(call) == "" {
			t.Errorf("%s: no text copy of the structured result: %s", name, jsonString(call))
		}
	}},
	{name: "resources_list", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res, err := e.c.ListResources(ctx, mcpgo.ListResourcesRequest{})
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		var uris []string
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		wantListed(t, "resources/list", uris, "test://static-text", "test://static-binary")
	}},
	{name: "templates_list", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res, err := e.c.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{})
		if err != nil {
			t.Fatalf("resources/templates/list: %v", err)
		}
		if len(res.ResourceTemplates) != 1 || res.ResourceTemplates[0].URITemplate.Raw() != "test://template/{id}/data" {
			t.Errorf("templates = %s, want one test://template/{id}/data", jsonString(res.ResourceTemplates))
		}
	}},
	{name: "read_text", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goRead(ctx, t, e, "test://static-text")
		if tc, ok := only[mcpgo.TextResourceContents](res.Contents); !ok || tc.URI != "test://static-text" || tc.Text == "" {
			t.Errorf("contents = %s, want one text content", jsonString(res.Contents))
		}
	}},
	{name: "read_blob", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goRead(ctx, t, e, "test://static-binary")
		if bc, ok := only[mcpgo.BlobResourceContents](res.Contents); !ok || bc.MIMEType != "image/png" || bc.Blob == "" {
			t.Errorf("contents = %s, want one image/png blob", jsonString(res.Contents))
		}
	}},
	{name: "read_template", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goRead(ctx, t, e, "test://template/42/data")
		if tc, ok := only[mcpgo.TextResourceContents](res.Contents); !ok || !strings.Contains(tc.Text, "42") {
			t.Errorf("contents = %s, want one text content with 42", jsonString(res.Contents))
		}
	}},
	{name: "read_missing", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		_, err := e.c.ReadResource(ctx, mcpgo.ReadResourceRequest{Params: mcpgo.ReadResourceParams{URI: "test://no-such-resource"}})
		if !errors.Is(err, mcpgo.ErrResourceNotFound) {
			t.Errorf("reading a missing resource: err = %v, want -32002 (resource not found)", err)
		}
	}},
	{name: "watched_resource", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		// The §10.6 fixture: readable, and a subscription to it comes and
		// goes (what an update sends is resourceUpdated's check).
		res := goRead(ctx, t, e, "test://watched-resource")
		if tc, ok := only[mcpgo.TextResourceContents](res.Contents); !ok || tc.Text == "" {
			t.Errorf("contents = %s, want one text content", jsonString(res.Contents))
		}
		if err := e.c.Subscribe(ctx, mcpgo.SubscribeRequest{Params: mcpgo.SubscribeParams{URI: "test://watched-resource"}}); err != nil {
			t.Fatalf("resources/subscribe: %v", err)
		}
		if err := e.c.Unsubscribe(ctx, mcpgo.UnsubscribeRequest{Params: mcpgo.UnsubscribeParams{URI: "test://watched-resource"}}); err != nil {
			t.Fatalf("resources/unsubscribe: %v", err)
		}
	}},
	{name: "prompts_list", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res, err := e.c.ListPrompts(ctx, mcpgo.ListPromptsRequest{})
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		var names []string
		for _, p := range res.Prompts {
			names = append(names, p.Name)
			if p.Name == "test_prompt_with_arguments" && len(p.Arguments) != 2 {
				t.Errorf("test_prompt_with_arguments lists %d arguments, want 2", len(p.Arguments))
			}
		}
		wantListed(t, "prompts/list", names, "test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image")
	}},
	{name: "prompt_with_arguments", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res, err := e.c.GetPrompt(ctx, mcpgo.GetPromptRequest{Params: mcpgo.GetPromptParams{
			Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "first-value", "arg2": "second-value"},
		}})
		if err != nil {
			t.Fatalf("prompts/get: %v", err)
		}
		var text string
		for _, m := range res.Messages {
			if tc, ok := mcpgo.AsTextContent(m.Content); ok {
				text += tc.Text
			}
		}
		if !strings.Contains(text, "first-value") || !strings.Contains(text, "second-value") {
			t.Errorf("prompt text %q lacks the argument values", text)
		}
	}},
	{name: "complete", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res, err := e.c.Complete(ctx, mcpgo.CompleteRequest{Params: mcpgo.CompleteParams{
			Ref:      mcpgo.PromptReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
			Argument: mcpgo.CompleteArgument{Name: "arg1", Value: "te"},
		}})
		if err != nil {
			t.Fatalf("completion/complete: %v", err)
		}
		if !slices.Contains(res.Completion.Values, "test") || slices.Contains(res.Completion.Values, "value") {
			t.Errorf("completion values %v, want the ones starting with \"te\"", res.Completion.Values)
		}
	}},
	{name: "logging", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		// logging/setLevel sets the session's level; test_logging_tool
		// logs one info and one debug message.
		got := goLogs(ctx, t, e, mcpgo.LoggingLevelInfo, "test_logging_tool", 1)
		if levels := logLevels(got); !slices.Equal(levels, []string{"info"}) {
			t.Errorf("at level info the tool's messages had levels %v, want [info]: %s", levels, jsonString(got))
		}
		got = goLogs(ctx, t, e, mcpgo.LoggingLevelDebug, "test_logging_tool", 2)
		if levels := logLevels(got); !slices.Equal(levels, []string{"info", "debug"}) {
			t.Errorf("at level debug the tool's messages had levels %v, want [info debug]: %s", levels, jsonString(got))
		}
	}},
	{name: "tool_with_logging", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		got := goLogs(ctx, t, e, mcpgo.LoggingLevelInfo, "test_tool_with_logging", 3)
		if len(got) != 3 {
			t.Errorf("got %d log messages, want 3: %s", len(got), jsonString(got))
		}
	}},
	{name: "progress", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		token := "mcpgo-progress-" + e.version
		skip := e.noteCount()
		req := mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "test_tool_with_progress", Arguments: map[string]any{}, Meta: &mcpgo.Meta{ProgressToken: token}}}
		res, err := e.c.CallTool(ctx, req)
		if err != nil || res.IsError {
			t.Fatalf("tools/call test_tool_with_progress: %v %s", err, jsonString(res))
		}
		got := e.waitNotes(ctx, skip, "notifications/progress", 2*time.Second, func(n []mcpgo.JSONRPCNotification) bool { return len(progressFor(n, token)) >= 3 })
		ps := progressFor(got, token)
		if len(ps) < 3 {
			t.Fatalf("got %d progress notifications for %s, want >= 3: %s", len(ps), token, jsonString(got))
		}
		for i := 1; i < len(ps); i++ {
			if ps[i] <= ps[i-1] {
				t.Errorf("progress not increasing: %v", ps)
			}
		}
	}},
	{name: "cancellation", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		// The client gives up on test_tool_with_progress after its first
		// progress notification: no result, and the tool stops (its two
		// later notifications, 50 and 100 ms on, never come).
		token := "mcpgo-cancel-" + e.version
		skip := e.noteCount()
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := e.c.CallTool(cctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "test_tool_with_progress", Arguments: map[string]any{}, Meta: &mcpgo.Meta{ProgressToken: token}}})
			done <- err
		}()
		e.waitNotes(ctx, skip, "notifications/progress", 5*time.Second, func(n []mcpgo.JSONRPCNotification) bool { return len(progressFor(n, token)) >= 1 })
		cancel()
		if err := <-done; err == nil {
			t.Errorf("the cancelled call returned a result")
		}
		time.Sleep(400 * time.Millisecond)
		if ps := progressFor(e.notesFrom(skip, "notifications/progress"), token); len(ps) != 1 {
			t.Errorf("got %d progress notifications, want 1 (the tool must stop at the cancellation): %v", len(ps), ps)
		}
		// The session still serves.
		goCall(ctx, t, e, "test_simple_text", nil)
	}},
	{name: "list_changed", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		// Over HTTP the notification comes on the standalone GET stream
		// (mcp-go's continuous listening); over stdio, on stdout.
		if e.endpoint != "" {
			deadline := time.Now().Add(5 * time.Second)
			for e.getOpen.Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if e.getOpen.Load() == 0 {
				t.Fatal("mcp-go opened no GET stream")
			}
			time.Sleep(100 * time.Millisecond) // the stream's hub subscription
		}
		skip := e.noteCount()
		goCall(ctx, t, e, "test_trigger_tool_change", nil)
		got := e.waitNotes(ctx, skip, "notifications/tools/list_changed", 5*time.Second, func(n []mcpgo.JSONRPCNotification) bool { return len(n) >= 1 })
		if len(got) == 0 {
			t.Errorf("no notifications/tools/list_changed after test_trigger_tool_change")
		}
	}},
	{name: "bridge_elicitation", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		if !atLeast(e.version, "2025-06-18") {
			noElicitation(ctx, t, e, "test_input_required_result_elicitation", nil)
			return
		}
		before, _, _ := e.counts()
		res := goCall(ctx, t, e, "test_input_required_result_elicitation", nil)
		if got, want := goText(res), "Hello, "+elicitedName+"!"; got != want {
			t.Errorf("text = %q, want %q", got, want)
		}
		if after, _, _ := e.counts(); after-before != 1 {
			t.Errorf("elicitation handler ran %d times, want 1", after-before)
		}
	}},
	{name: "bridge_sampling", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goCall(ctx, t, e, "test_input_required_result_sampling", nil)
		if got, want := goText(res), "The model "+sampledModel+" answered."; got != want {
			t.Errorf("text = %q, want %q", got, want)
		}
	}},
	{name: "bridge_roots", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goCall(ctx, t, e, "test_input_required_result_list_roots", nil)
		if got, want := goText(res), "Roots: 1"; got != want {
			t.Errorf("text = %q, want %q", got, want)
		}
	}},
	{name: "test_sampling", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goCall(ctx, t, e, "test_sampling", map[string]any{"prompt": "Capital of France?"})
		if got, want := goText(res), "LLM response: Paris"; got != want {
			t.Errorf("text = %q, want %q", got, want)
		}
	}},
	{name: "test_elicitation", run: func(ctx context.Context, t *testing.T, e *goEnv) {
		if !atLeast(e.version, "2025-06-18") {
			noElicitation(ctx, t, e, "test_elicitation", map[string]any{"message": "Who are you?"})
			return
		}
		res := goCall(ctx, t, e, "test_elicitation", map[string]any{"message": "Who are you?"})
		if got := goText(res); !strings.HasPrefix(got, "User response: action=accept") {
			t.Errorf("text = %q, want User response: action=accept, …", got)
		}
	}},
	{name: "sse_polling", http: true, run: func(ctx context.Context, t *testing.T, e *goEnv) {
		res := goCall(ctx, t, e, "test_reconnection", nil)
		if got := goText(res); got != "Reconnection test completed" || res.IsError {
			t.Errorf("result %s, want text \"Reconnection test completed\"", jsonString(res))
		}
		// SSE polling is a 2025-11-25 feature: an older session's stream
		// is not closed, and the result comes on it.
		if resumed := strings.Contains(e.traffic.String(), "Last-Event-Id"); resumed != atLeast(e.version, "2025-11-25") {
			t.Errorf("the client resumed with Last-Event-ID: %v, want %v at %s", resumed, !resumed, e.version)
		}
	}},
}

// --- session end (HTTP) ---

// sessionEnd: Close sends DELETE (then the old id answers 404); a session
// deleted behind the client's back makes its next request fail with
// mcp-go's ErrSessionTerminated, and a new Initialize on the same client
// opens a new session that serves (docs/dual-era.md §4.3, rows D*).
func sessionEnd(t *testing.T, endpoint string) {
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	const v = "2025-11-25"

	e := newGoEnv(t, v)
	e.connectHTTP(t, endpoint)
	sid := e.c.GetSessionId()
	if sid == "" {
		t.Fatal("no Mcp-Session-Id after initialize")
	}
	if err := e.c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if !strings.Contains(e.traffic.String(), ">>> DELETE ") {
		t.Errorf("Close sent no DELETE")
	}
	if code := rawPost(t, endpoint, sid, v); code != http.StatusNotFound {
		t.Errorf("a request in the deleted session answered %d, want 404", code)
	}

	e2 := newGoEnv(t, v)
	e2.connectHTTP(t, endpoint)
	sid2 := e2.c.GetSessionId()
	if code := rawDelete(t, endpoint, sid2, v); code != http.StatusOK && code != http.StatusNoContent && code != http.StatusAccepted {
		t.Fatalf("DELETE answered %d", code)
	}
	_, err := e2.c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if !errors.Is(err, transport.ErrSessionTerminated) {
		t.Fatalf("tools/list in a deleted session: err = %v, want ErrSessionTerminated (404)", err)
	}
	res, err := e2.initialize(ctx)
	if err != nil {
		t.Fatalf("re-initialize: %v", err)
	}
	if res.ProtocolVersion != v {
		t.Errorf("re-initialize negotiated %q", res.ProtocolVersion)
	}
	if sid3 := e2.c.GetSessionId(); sid3 == "" || sid3 == sid2 {
		t.Errorf("re-initialize gave session %q (old %q), want a new one", sid3, sid2)
	}
	if _, err := e2.c.ListTools(ctx, mcpgo.ListToolsRequest{}); err != nil {
		t.Errorf("tools/list in the new session: %v", err)
	}
}

func rawPost(t *testing.T, endpoint, sid, v string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":99,"method":"tools/list","params":{}}`
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", v)
	return doStatus(t, req)
}

func rawDelete(t *testing.T, endpoint, sid, v string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, endpoint, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", v)
	return doStatus(t, req)
}

func doStatus(t *testing.T, req *http.Request) int {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", req.Method, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// --- resource subscriptions (in-process server) ---

// watchedURI is the resource of the in-process subscription server.
const watchedURI = "test://interop-watched"

// newWatchServer builds the in-process ErasBoth server with the one
// resource watchedURI, for the subscription tests of both SDKs.
func newWatchServer(t *testing.T) *server.Server {
	t.Helper()
	s, err := server.New(protocol.Implementation{Name: "interop-watch", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	err = s.AddResource(protocol.Resource{URI: watchedURI, Name: "watched"}, func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return server.TextContents(uri, "text/plain", "watched"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// resourceUpdated runs an in-process ErasBoth server with one resource
// (examples/everything has no way for a client to make it call
// NotifyResourceUpdated): mcp-go subscribes, the server calls
// NotifyResourceUpdated, and notifications/resources/updated arrives — over
// HTTP on the standalone GET stream. After unsubscribe, a second update
// sends nothing.
func resourceUpdated(t *testing.T, v, tr string) {
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	s := newWatchServer(t)
	e := newGoEnv(t, v)
	switch tr {
	case "http":
		hs := httptest.NewServer(streamhttp.Handler(s, streamhttp.Options{}))
		t.Cleanup(hs.Close)
		e.endpoint = hs.URL
		e.connectHTTP(t, hs.URL)
	default:
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		sctx, stop := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- stdio.Serve(sctx, s, inR, outW, stdio.Options{}); outW.Close() }()
		t.Cleanup(func() { stop(); inW.Close(); <-served })
		e.start(t, mcpclient.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))), e.options()...))
	}
	if err := e.c.Subscribe(ctx, mcpgo.SubscribeRequest{Params: mcpgo.SubscribeParams{URI: watchedURI}}); err != nil {
		t.Fatalf("resources/subscribe: %v", err)
	}
	if e.endpoint != "" {
		deadline := time.Now().Add(5 * time.Second)
		for e.getOpen.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if e.getOpen.Load() == 0 {
			t.Fatal("mcp-go opened no GET stream")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// mcp-go may drop its first GET stream and open another a second
	// later ("failed to listen to server. retry in 1 second"): an update
	// published meanwhile goes to the stream it dropped. So the update is
	// sent again until one arrives, and each that arrives must name the
	// URI.
	skip := e.noteCount()
	var got []mcpgo.JSONRPCNotification
	for try := 0; try < 4 && len(got) == 0; try++ {
		if err := s.NotifyResourceUpdated(watchedURI); err != nil {
			t.Fatal(err)
		}
		got = e.waitNotes(ctx, skip, "notifications/resources/updated", 1500*time.Millisecond, func(n []mcpgo.JSONRPCNotification) bool { return len(n) >= 1 })
	}
	if len(got) == 0 {
		t.Fatalf("no resources/updated notification for %s", watchedURI)
	}
	for _, n := range got {
		if n.Params.AdditionalFields["uri"] != watchedURI {
			t.Fatalf("resources/updated notifications %s, want each for %s", jsonString(got), watchedURI)
		}
	}
	if err := e.c.Unsubscribe(ctx, mcpgo.UnsubscribeRequest{Params: mcpgo.UnsubscribeParams{URI: watchedURI}}); err != nil {
		t.Fatalf("resources/unsubscribe: %v", err)
	}
	skip = e.noteCount()
	if err := s.NotifyResourceUpdated(watchedURI); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if n := e.notesFrom(skip, "notifications/resources/updated"); len(n) != 0 {
		t.Errorf("an update after unsubscribe was sent: %s", jsonString(n))
	}
}

// --- helpers ---

// getCounter counts GET requests answered 200 (standalone streams opened).
type getCounter struct {
	next http.RoundTripper
	n    *atomic.Int32
}

func (g *getCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(req)
	if err == nil && req.Method == http.MethodGet && resp.StatusCode == http.StatusOK {
		g.n.Add(1)
	}
	return resp, err
}

func goCall(ctx context.Context, t *testing.T, e *goEnv, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := e.c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// wantListed checks that the names (or URIs) a list method returned hold
// each of wants.
func wantListed(t *testing.T, method string, got []string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !slices.Contains(got, want) {
			t.Errorf("%s lacks %q: %v", method, want, got)
		}
	}
}

// goLogs sets the session's logging level, calls the tool name without
// arguments, and returns the notifications/message the call brings, once
// at least n have come or two seconds have passed.
func goLogs(ctx context.Context, t *testing.T, e *goEnv, level mcpgo.LoggingLevel, name string, n int) []mcpgo.JSONRPCNotification {
	t.Helper()
	if err := e.c.SetLevel(ctx, mcpgo.SetLevelRequest{Params: mcpgo.SetLevelParams{Level: level}}); err != nil {
		t.Fatalf("logging/setLevel %s: %v", level, err)
	}
	skip := e.noteCount()
	goCall(ctx, t, e, name, nil)
	return e.waitNotes(ctx, skip, "notifications/message", 2*time.Second, func(got []mcpgo.JSONRPCNotification) bool { return len(got) >= n })
}

// noElicitation calls a tool that elicits in a session whose revision
// has no elicitation (before 2025-06-18): the client cannot have declared
// the capability, so the call is refused with -32021 before anything is
// sent (docs/dual-era.md §6.2), and no elicitation/create reaches it.
func noElicitation(ctx context.Context, t *testing.T, e *goEnv, name string, args map[string]any) {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	_, err := e.c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args}})
	if err == nil || !strings.Contains(err.Error(), "capability") {
		t.Fatalf("tools/call %s at %s: err = %v, want the missing-capability error -32021", name, e.version, err)
	}
}

func goRead(ctx context.Context, t *testing.T, e *goEnv, uri string) *mcpgo.ReadResourceResult {
	t.Helper()
	res, err := e.c.ReadResource(ctx, mcpgo.ReadResourceRequest{Params: mcpgo.ReadResourceParams{URI: uri}})
	if err != nil {
		t.Fatalf("resources/read %s: %v", uri, err)
	}
	return res
}

func goText(res *mcpgo.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := mcpgo.AsTextContent(c); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// onlyContent returns the single content block of res if it is a T.
func onlyContent[T any](res *mcpgo.CallToolResult) (T, bool) {
	return only[T](res.Content)
}

func only[T any, E any](list []E) (T, bool) {
	var zero T
	if len(list) != 1 {
		return zero, false
	}
	switch v := any(list[0]).(type) {
	case T:
		return v, true
	case *T:
		return *v, true
	}
	return zero, false
}

func contentKind(c mcpgo.Content) string {
	switch c.(type) {
	case mcpgo.TextContent, *mcpgo.TextContent:
		return "text"
	case mcpgo.ImageContent, *mcpgo.ImageContent:
		return "image"
	case mcpgo.AudioContent, *mcpgo.AudioContent:
		return "audio"
	case mcpgo.EmbeddedResource, *mcpgo.EmbeddedResource:
		return "resource"
	case mcpgo.ResourceLink, *mcpgo.ResourceLink:
		return "resource_link"
	}
	return fmt.Sprintf("%T", c)
}

func logLevels(ns []mcpgo.JSONRPCNotification) []string {
	var out []string
	for _, n := range ns {
		out = append(out, fmt.Sprint(n.Params.AdditionalFields["level"]))
	}
	return out
}

// progressFor returns the progress values of the notifications for token.
func progressFor(ns []mcpgo.JSONRPCNotification, token string) []float64 {
	var out []float64
	for _, n := range ns {
		if fmt.Sprint(n.Params.AdditionalFields["progressToken"]) != token {
			continue
		}
		p, _ := n.Params.AdditionalFields["progress"].(float64)
		out = append(out, p)
	}
	return out
}
