// Package interop drives mcpwire's example server (examples/everything)
// with the official Go MCP SDK client
// (github.com/modelcontextprotocol/go-sdk), over Streamable HTTP and over
// stdio, speaking protocol revision 2026-07-28.
//
// How the SDK (v1.8.0) speaks 2026-07-28:
//
//   - Client.Connect first sends the stateless server/discover request
//     (SEP-2575) with the per-request _meta triple (protocolVersion,
//     clientInfo, clientCapabilities). Only if that fails does it fall back
//     to the legacy initialize handshake at 2025-11-25, so every subtest
//     checks that the negotiated version really is 2026-07-28.
//   - Every later request carries the same _meta triple (injectRequestMeta);
//     over HTTP the transport adds Mcp-Protocol-Version, Mcp-Method,
//     Mcp-Name and Mcp-Param-* headers and opens no standalone GET stream.
//
// How the SDK handles multi round-trip requests (MRTR, SEP-2322):
//
//	NewClient installs clientMultiRoundTripMiddleware as a sending middleware
//	unless ClientOptions.MultiRoundTrip.Disabled is set. For tools/call,
//	prompts/get and resources/read it inspects each result: when the result
//	carries inputRequests (resultType "input_required") it fulfils every
//	request concurrently through the client's own handlers
//	(ElicitationHandler for elicitation/create, CreateMessageHandler for
//	sampling/createMessage, the client's root list for roots/list), then
//	re-sends the same request with inputResponses and the echoed
//	requestState, up to 10 rounds. CallTool / GetPrompt therefore return the
//	final result, and the tests below only need to register the handlers.
//	(With MultiRoundTrip.Disabled the caller would see NeedsInput() == true
//	and would have to fill CallToolParams.InputResponses / RequestState
//	itself; the test "mrtr_manual_retry" does exactly that, to exercise the
//	wire format without the middleware.)
//
// Authorization (issue 11): package oauthas runs a real OAuth 2.1 / OIDC
// authorization server on loopback (zitadel/oidc v3's op package; its own
// tests check its tokens with go-jose). auth_as_test.go runs mcpwire's
// JWT and introspection verifiers against its tokens; auth_sdk_test.go
// and auth_example_test.go drive the SDK's own OAuth handlers headlessly
// (extauth.ClientCredentialsHandler, and auth.AuthorizationCodeHandler
// whose AuthorizationCodeFetcher plays the browser through
// oauthas.Provider.FollowAuthorization).
package interop

// Sampling and roots are deprecated in 2026-07-28 (SEP-2577) but still part
// of it, and the server's MRTR fixtures use them.
//lint:file-ignore SA1019 sampling and roots are exercised on purpose

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	wantServerName   = "mcpwire-everything"
	wantProtocol     = "2026-07-28"
	stepTimeout      = 30 * time.Second
	progressToken    = "interop-progress-1"
	elicitedName     = "Alice"
	elicitedContext  = "interop context"
	sampledModel     = "interop-model"
	clientRootURI    = "file:///tmp/interop-root"
	simpleTextResult = "This is a simple text response for testing."
)

// TestInterop builds the example server once and runs every step over both
// transports.
func TestInterop(t *testing.T) {
	if testing.Short() {
		t.Skip("interop test builds and runs the example server")
	}
	bin := buildServer(t)

	transports := []struct {
		name    string
		connect func(t *testing.T, e *env) *mcp.ClientSession
	}{
		{"http", func(t *testing.T, e *env) *mcp.ClientSession {
			e.endpoint = startHTTPServer(t, e.bin)
			return connectHTTP(t, e.endpoint, e.client, e.traffic)
		}},
		{"stdio", func(t *testing.T, e *env) *mcp.ClientSession {
			return connectStdio(t, e.bin, e.client, e.traffic)
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			traffic := &syncBuffer{}
			t.Cleanup(func() {
				if t.Failed() || os.Getenv("INTEROP_TRACE") != "" {
					t.Logf("captured traffic (%s):\n%s", tr.name, traffic.String())
				}
			})
			e := newEnv(bin, traffic)
			e.session = tr.connect(t, e)
			for _, s := range steps {
				// A failing step is reported and the remaining steps still
				// run: they share the session but not each other's results.
				t.Run(s.name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
					defer cancel()
					s.run(ctx, t, e)
				})
			}
		})
	}
}

// env is the state one transport's steps share.
type env struct {
	client  *mcp.Client
	session *mcp.ClientSession

	bin      string      // the server binary
	endpoint string      // the HTTP endpoint; empty for stdio
	traffic  *syncBuffer // captured messages, printed on failure

	mu         sync.Mutex
	progress   []*mcp.ProgressNotificationParams
	progressCh chan struct{} // signalled on every progress notification
	elicits    []*mcp.ElicitParams
	samplings  int
}

func newEnv(bin string, traffic *syncBuffer) *env {
	e := &env{bin: bin, traffic: traffic, progressCh: make(chan struct{}, 64)}
	e.client = mcp.NewClient(&mcp.Implementation{Name: "mcpwire-interop", Version: "0.0.1"}, &mcp.ClientOptions{
		ElicitationHandler:   e.elicit,
		CreateMessageHandler: e.sample,
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			e.mu.Lock()
			e.progress = append(e.progress, r.Params)
			e.mu.Unlock()
			select {
			case e.progressCh <- struct{}{}:
			default:
			}
		},
	})
	// Roots are answered by the SDK from the client's root list. Adding
	// them before Connect avoids a roots/list_changed notification.
	e.client.AddRoots(&mcp.Root{URI: clientRootURI, Name: "interop"})
	return e
}

// elicit answers a form elicitation by filling every requested property:
// strings from a fixed table, booleans with true, numbers with 1.
func (e *env) elicit(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	e.elicits = append(e.elicits, r.Params)
	e.mu.Unlock()
	raw, err := json.Marshal(r.Params.RequestedSchema)
	if err != nil {
		return nil, err
	}
	var schema struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("requestedSchema %s: %w", raw, err)
	}
	content := map[string]any{}
	for name, p := range schema.Properties {
		switch p.Type {
		case "boolean":
			content[name] = true
		case "number", "integer":
			content[name] = 1
		default:
			switch name {
			case "name":
				content[name] = elicitedName
			case "context":
				content[name] = elicitedContext
			default:
				content[name] = "interop"
			}
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

func (e *env) sample(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	e.mu.Lock()
	e.samplings++
	e.mu.Unlock()
	return &mcp.CreateMessageResult{
		Model:      sampledModel,
		Role:       "assistant",
		Content:    &mcp.TextContent{Text: "Paris"},
		StopReason: "endTurn",
	}, nil
}

func (e *env) elicitCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.elicits)
}

func (e *env) samplingCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.samplings
}

func (e *env) progressFor(token any) []*mcp.ProgressNotificationParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []*mcp.ProgressNotificationParams
	for _, p := range e.progress {
		if fmt.Sprint(p.ProgressToken) == fmt.Sprint(token) {
			out = append(out, p)
		}
	}
	return out
}

type step struct {
	name string
	run  func(ctx context.Context, t *testing.T, e *env)
}

var steps = []step{
	{"connect", func(_ context.Context, t *testing.T, e *env) {
		res := e.session.InitializeResult()
		if res == nil {
			t.Fatal("no initialize/discover result")
		}
		if res.ProtocolVersion != wantProtocol {
			t.Errorf("negotiated protocol %q, want %q (the SDK falls back to initialize at 2025-11-25 when server/discover fails)", res.ProtocolVersion, wantProtocol)
		}
		if res.ServerInfo == nil || res.ServerInfo.Name != wantServerName {
			t.Errorf("server info %+v, want name %q", res.ServerInfo, wantServerName)
		}
		if res.Capabilities == nil || res.Capabilities.Tools == nil || res.Capabilities.Prompts == nil || res.Capabilities.Resources == nil {
			t.Errorf("capabilities %s lack tools/prompts/resources", jsonString(res.Capabilities))
		}
	}},
	{"list_tools", func(ctx context.Context, t *testing.T, e *env) {
		res, err := e.session.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if len(names) < 20 {
			t.Errorf("tools/list returned %d tools, want >= 20: %v", len(names), names)
		}
		for _, want := range []string{"test_simple_text", "test_input_required_result_elicitation", "test_x_mcp_header", "json_schema_2020_12_tool"} {
			if !slices.Contains(names, want) {
				t.Errorf("tools/list lacks %q: %v", want, names)
			}
		}
	}},
	{"list_prompts", func(ctx context.Context, t *testing.T, e *env) {
		res, err := e.session.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		if len(res.Prompts) != 5 {
			t.Errorf("prompts/list returned %d prompts, want 5: %s", len(res.Prompts), jsonString(res.Prompts))
		}
	}},
	{"list_resources", func(ctx context.Context, t *testing.T, e *env) {
		res, err := e.session.ListResources(ctx, nil)
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		// The two static resources and the subscription fixture of
		// docs/dual-era.md §10.6.
		var uris []string
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		slices.Sort(uris)
		if want := []string{"test://static-binary", "test://static-text", "test://watched-resource"}; !slices.Equal(uris, want) {
			t.Errorf("resources/list returned %v, want %v: %s", uris, want, jsonString(res.Resources))
		}
	}},
	{"list_resource_templates", func(ctx context.Context, t *testing.T, e *env) {
		res, err := e.session.ListResourceTemplates(ctx, nil)
		if err != nil {
			t.Fatalf("resources/templates/list: %v", err)
		}
		if len(res.ResourceTemplates) != 1 || res.ResourceTemplates[0].URITemplate != "test://template/{id}/data" {
			t.Errorf("resources/templates/list = %s, want one template test://template/{id}/data", jsonString(res.ResourceTemplates))
		}
	}},
	{"call_simple_text", func(ctx context.Context, t *testing.T, e *env) {
		res := callTool(ctx, t, e.session, "test_simple_text", nil)
		if got := textOf(res); got != simpleTextResult {
			t.Errorf("text = %q, want %q (result %s)", got, simpleTextResult, jsonString(res))
		}
	}},
	{"call_image_content", func(ctx context.Context, t *testing.T, e *env) {
		res := callTool(ctx, t, e.session, "test_image_content", nil)
		if len(res.Content) != 1 {
			t.Fatalf("content = %s, want one image", jsonString(res.Content))
		}
		img, ok := res.Content[0].(*mcp.ImageContent)
		if !ok {
			t.Fatalf("content[0] is %T, want *mcp.ImageContent: %s", res.Content[0], jsonString(res.Content))
		}
		if img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG")) {
			t.Errorf("image mimeType %q, data %q..., want image/png with a PNG signature", img.MIMEType, img.Data[:min(8, len(img.Data))])
		}
	}},
	{"call_error_handling", func(ctx context.Context, t *testing.T, e *env) {
		res := callTool(ctx, t, e.session, "test_error_handling", nil)
		if !res.IsError {
			t.Errorf("isError = false, want true: %s", jsonString(res))
		}
		if textOf(res) == "" {
			t.Errorf("error result has no text: %s", jsonString(res))
		}
	}},
	{"call_with_progress", func(ctx context.Context, t *testing.T, e *env) {
		params := &mcp.CallToolParams{Name: "test_tool_with_progress", Arguments: map[string]any{}}
		params.SetProgressToken(progressToken)
		res, err := e.session.CallTool(ctx, params)
		if err != nil {
			t.Fatalf("tools/call test_tool_with_progress: %v", err)
		}
		if res.IsError {
			t.Fatalf("tool error: %s", jsonString(res))
		}
		// Notifications precede the response on the wire, but the SDK may
		// dispatch them to the handler concurrently with returning the
		// result: wait briefly for the third.
		deadline := time.NewTimer(5 * time.Second)
		defer deadline.Stop()
		for len(e.progressFor(progressToken)) < 3 {
			select {
			case <-e.progressCh:
			case <-deadline.C:
				t.Fatalf("got %d progress notifications for token %q, want >= 3: %s", len(e.progressFor(progressToken)), progressToken, jsonString(e.progressFor(progressToken)))
			case <-ctx.Done():
				t.Fatal(ctx.Err())
			}
		}
		ps := e.progressFor(progressToken)
		for i := 1; i < len(ps); i++ {
			if ps[i].Progress < ps[i-1].Progress {
				t.Errorf("progress decreased: %s", jsonString(ps))
			}
		}
	}},
	{"mrtr_elicitation", func(ctx context.Context, t *testing.T, e *env) {
		wantHandledOnce(ctx, t, e, "test_input_required_result_elicitation", "Hello, "+elicitedName+"!", "elicitation", e.elicitCount)
	}},
	{"mrtr_sampling", func(ctx context.Context, t *testing.T, e *env) {
		wantHandledOnce(ctx, t, e, "test_input_required_result_sampling", "The model "+sampledModel+" answered.", "sampling", e.samplingCount)
	}},
	{"mrtr_list_roots", func(ctx context.Context, t *testing.T, e *env) {
		res := callTool(ctx, t, e.session, "test_input_required_result_list_roots", nil)
		wantText(t, res, "Roots: 1")
	}},
	{"mrtr_request_state", func(ctx context.Context, t *testing.T, e *env) {
		res := callTool(ctx, t, e.session, "test_input_required_result_request_state", nil)
		wantText(t, res, "state-ok: confirmed")
	}},
	{"mrtr_multiple_inputs", func(ctx context.Context, t *testing.T, e *env) {
		res := callTool(ctx, t, e.session, "test_input_required_result_multiple_inputs", nil)
		wantText(t, res, "Received all three responses.")
	}},
	{"mrtr_multi_round", func(ctx context.Context, t *testing.T, e *env) {
		before := e.elicitCount()
		res := callTool(ctx, t, e.session, "test_input_required_result_multi_round", nil)
		wantText(t, res, "Completed after 3 rounds.")
		if n := e.elicitCount() - before; n != 2 {
			t.Errorf("elicitation handler ran %d times, want 2 (rounds 1 and 2 ask, round 3 answers)", n)
		}
	}},
	{"mrtr_prompt", func(ctx context.Context, t *testing.T, e *env) {
		res, err := e.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
		if err != nil {
			t.Fatalf("prompts/get test_input_required_result_prompt: %v", err)
		}
		if got, want := promptText(res), "Context: "+elicitedContext; got != want {
			t.Errorf("prompt text = %q, want %q (result %s)", got, want, jsonString(res))
		}
	}},
	{"mrtr_manual_retry", func(ctx context.Context, t *testing.T, e *env) {
		manualRetry(ctx, t, e)
	}},
	{"x_mcp_header", func(ctx context.Context, t *testing.T, e *env) {
		// Over HTTP the SDK mirrors the argument into Mcp-Param-Region
		// (it knows the annotation from the cached tools/list result).
		res := callTool(ctx, t, e.session, "test_x_mcp_header", map[string]any{"region": "eu-west"})
		wantText(t, res, "region: eu-west")
	}},
	{"read_static_text", func(ctx context.Context, t *testing.T, e *env) {
		res, err := e.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"})
		if err != nil {
			t.Fatalf("resources/read test://static-text: %v", err)
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != "test://static-text" || res.Contents[0].Text == "" {
			t.Errorf("contents = %s, want one text content for test://static-text", jsonString(res.Contents))
		}
	}},
	{"read_template", func(ctx context.Context, t *testing.T, e *env) {
		res, err := e.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/42/data"})
		if err != nil {
			t.Fatalf("resources/read test://template/42/data: %v", err)
		}
		if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "42") {
			t.Errorf("contents = %s, want one content containing 42", jsonString(res.Contents))
		}
	}},
	{"get_prompt_with_arguments", func(ctx context.Context, t *testing.T, e *env) {
		res, err := e.session.GetPrompt(ctx, &mcp.GetPromptParams{
			Name:      "test_prompt_with_arguments",
			Arguments: map[string]string{"arg1": "first-value", "arg2": "second-value"},
		})
		if err != nil {
			t.Fatalf("prompts/get test_prompt_with_arguments: %v", err)
		}
		got := promptText(res)
		if !strings.Contains(got, "first-value") || !strings.Contains(got, "second-value") {
			t.Errorf("prompt text = %q, want both argument values (result %s)", got, jsonString(res))
		}
	}},
	{"complete", func(ctx context.Context, t *testing.T, e *env) {
		res, err := e.session.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
			Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: "te"},
		})
		if err != nil {
			t.Fatalf("completion/complete: %v", err)
		}
		if !slices.Contains(res.Completion.Values, "test") {
			t.Errorf("completion values = %v, want to contain \"test\"", res.Completion.Values)
		}
	}},
}

// manualRetry performs the MRTR round trip without the SDK's automatic
// middleware: a second client with MultiRoundTrip.Disabled receives the
// input_required result, the test answers the elicitation itself and
// re-sends tools/call with inputResponses and the echoed requestState.
func manualRetry(ctx context.Context, t *testing.T, e *env) {
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpwire-interop-manual", Version: "0.0.1"}, &mcp.ClientOptions{
		// The handler only makes the client declare the elicitation
		// capability; with the middleware disabled the SDK never calls it.
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, fmt.Errorf("unexpected elicitation/create request")
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs := e.reconnect(t, c)
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_elicitation"})
	if err != nil {
		t.Fatalf("first tools/call: %v", err)
	}
	if !first.NeedsInput() {
		t.Fatalf("first result is not input_required: %s", jsonString(first))
	}
	ir, ok := first.InputRequests["user_name"].(*mcp.ElicitParams)
	if !ok {
		t.Fatalf("inputRequests[user_name] = %T, want *mcp.ElicitParams: %s", first.InputRequests["user_name"], jsonString(first))
	}
	if ir.Message == "" {
		t.Errorf("elicitation has no message: %s", jsonString(ir))
	}
	second, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Name:           "test_input_required_result_elicitation",
		InputResponses: mcp.InputResponseMap{"user_name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Bob"}}},
		RequestState:   first.RequestState,
	})
	if err != nil {
		t.Fatalf("retried tools/call: %v", err)
	}
	if second.NeedsInput() {
		t.Fatalf("retry still input_required: %s", jsonString(second))
	}
	wantText(t, second, "Hello, Bob!")
}

func callTool(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	if res.NeedsInput() {
		t.Fatalf("tools/call %s still input_required after the SDK's retries: %s", name, jsonString(res))
	}
	return res
}

// wantText checks that the text of res is want.
func wantText(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if got := textOf(res); got != want {
		t.Errorf("text = %q, want %q (result %s)", got, want, jsonString(res))
	}
}

// wantHandledOnce calls the tool name, which asks the client for input
// once, and checks that the result's text is want and that the client's
// handler, whose calls count counts, ran once.
func wantHandledOnce(ctx context.Context, t *testing.T, e *env, name, want, handler string, count func() int) {
	t.Helper()
	before := count()
	res := callTool(ctx, t, e.session, name, nil)
	wantText(t, res, want)
	if n := count() - before; n != 1 {
		t.Errorf("%s handler ran %d times, want 1", handler, n)
	}
}

func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func promptText(res *mcp.GetPromptResult) string {
	var parts []string
	for _, m := range res.Messages {
		if tc, ok := m.Content.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v (marshal: %v)", v, err)
	}
	return string(b)
}

// --- server process and transports ---

// buildServer compiles examples/everything once into a temporary
// directory. It builds from the interop module: the replace directive
// resolves github.com/mcpwire/mcpwire to the working tree, and the tool
// directive in go.mod keeps the server's dependencies in go.sum.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "everything")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/mcpwire/mcpwire/examples/everything")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build examples/everything: %v\n%s", err, out)
	}
	return bin
}

// connectStdio lets the SDK's CommandTransport start the server; closing
// the session closes its stdin, waits, then signals it. A cleanup kills it
// in any case.
func connectStdio(t *testing.T, bin string, c *mcp.Client, traffic *syncBuffer) *mcp.ClientSession {
	t.Helper()
	stderr := &syncBuffer{}
	cmd := exec.Command(bin)
	cmd.Stderr = stderr
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = cmd.Process.Kill() // no-op once the session's Close reaped it
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	transport := &mcp.LoggingTransport{
		Transport: &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second},
		Writer:    traffic,
	}
	cs, err := c.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v\nserver stderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Logf("closing stdio session: %v", err)
		}
	})
	return cs
}

// connectHTTP starts the server on a free loopback port and connects with
// StreamableClientTransport through a logging RoundTripper.
func connectHTTP(t *testing.T, endpoint string, c *mcp.Client, traffic *syncBuffer) *mcp.ClientSession {
	t.Helper()
	httpClient := &http.Client{Transport: &loggingRoundTripper{next: http.DefaultTransport, out: traffic}}
	t.Cleanup(httpClient.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: httpClient, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect over HTTP to %s: %v", endpoint, err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Logf("closing HTTP session: %v", err)
		}
	})
	return cs
}

// startHTTPServer runs the server with -http on a free port and waits until
// it accepts connections.
func startHTTPServer(t *testing.T, bin string) string {
	t.Helper()
	return startHTTPServerArgs(t, bin)
}

// startHTTPServerArgs is startHTTPServer with extra server arguments.
func startHTTPServerArgs(t *testing.T, bin string, args ...string) string {
	t.Helper()
	addr := freeAddr(t)
	stderr := &syncBuffer{}
	cmd := exec.Command(bin, append([]string{"-http", addr}, args...)...)
	cmd.Stderr = stderr
	cmd.Stdout = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	deadline := time.Now().Add(stepTimeout)
	for {
		conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			conn.Close()
			break
		}
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			t.Fatalf("server exited before listening: %v\n%s", err, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not listen on %s: %v\n%s", addr, err, stderr.String())
		}
	}
	return "http://" + addr + "/mcp"
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// reconnect opens a second session with client c, on the same transport
// as e.session: over HTTP to the same server, over stdio to a new server
// process.
func (e *env) reconnect(t *testing.T, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	if e.endpoint != "" {
		return connectHTTP(t, e.endpoint, c, e.traffic)
	}
	return connectStdio(t, e.bin, c, e.traffic)
}

// --- traffic capture ---

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// loggingRoundTripper records every HTTP exchange: the request line, the
// MCP headers and body, then the status, content type and body of the
// response (streamed bodies are recorded as they are read).
type loggingRoundTripper struct {
	next http.RoundTripper
	out  io.Writer
}

func (l *loggingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		var err error
		reqBody, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	var hdr []string
	for k, v := range req.Header {
		if strings.HasPrefix(k, "Mcp-") || k == "Accept" || k == "Content-Type" || k == "Last-Event-Id" {
			hdr = append(hdr, k+": "+strings.Join(v, ","))
		}
	}
	slices.Sort(hdr)
	fmt.Fprintf(l.out, ">>> %s %s [%s]\n%s\n", req.Method, req.URL, strings.Join(hdr, "; "), reqBody)
	resp, err := l.next.RoundTrip(req)
	if err != nil {
		fmt.Fprintf(l.out, "<<< error: %v\n", err)
		return nil, err
	}
	fmt.Fprintf(l.out, "<<< %s [Content-Type: %s]\n", resp.Status, resp.Header.Get("Content-Type"))
	resp.Body = &teeBody{r: io.TeeReader(resp.Body, l.out), c: resp.Body, out: l.out}
	return resp, nil
}

type teeBody struct {
	r   io.Reader
	c   io.Closer
	out io.Writer
}

func (b *teeBody) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *teeBody) Close() error {
	fmt.Fprintln(b.out)
	return b.c.Close()
}
