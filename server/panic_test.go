package server_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/internal/testutil"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestHandlerPanicIsInternalError checks that a handler's panic answers
// -32603 (HTTP 500) and is logged with its stack, on HTTP and stdio, and
// that the server goes on serving: over HTTP net/http would only drop the
// connection, and on stdio the panic ended the process (hostile review
// D12; R-BASE-11 an error response for every request).
func TestHandlerPanicIsInternalError(t *testing.T) {
	var logs testutil.SyncBuffer
	s := NewServer(t, server.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	AddTool(t, s, `{"name":"boom","inputSchema":{"type":"object"}}`, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		_ = args[len(args)+1] // a handler bug: an index out of range
		return nil, nil
	})
	AddPrompt(t, s, protocol.Prompt{Name: "boom"}, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
		panic("prompt bug")
	})
	AddResource(t, s, protocol.Resource{URI: "boom://r", Name: "r"}, func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		panic("resource bug")
	})
	AddTool(t, s, `{"name":"ok","inputSchema":{"type":"object"}}`, TextTool("still here"))
	h := Handler(s, streamhttp.Options{})
	for _, c := range []struct {
		method string
		p      M
	}{
		{protocol.MethodToolsCall, M{"name": "boom"}},
		{protocol.MethodPromptsGet, M{"name": "boom"}},
		{protocol.MethodResourcesRead, M{"uri": "boom://r"}},
	} {
		rec := Post(t, h, Rpc(1, c.method, Params(c.p)), nil)
		w := Single(t, rec)
		if rec.Code != http.StatusInternalServerError || w.Code() != protocol.CodeInternalError || w.Id() != "1" {
			t.Errorf("%s: a handler panic answered %d %s, want 500 -32603 with the id", c.method, rec.Code, w.Raw)
		}
	}
	if got := Call(t, h, 2, protocol.MethodToolsCall, Params(M{"name": "ok"})).Text(t, 0); got != "still here" {
		t.Errorf("after the panics: %q", got)
	}
	if l := logs.String(); !strings.Contains(l, "handler panicked") || !strings.Contains(l, "index out of range") || !strings.Contains(l, "panic_test.go") {
		t.Errorf("the panic is not logged with its value and stack:\n%s", l)
	}

	in := string(Rpc(3, protocol.MethodToolsCall, Params(M{"name": "boom"}))) + "\n" + string(Rpc(4, protocol.MethodToolsCall, Params(M{"name": "ok"}))) + "\n"
	var out strings.Builder
	if err := ServeStdio(context.Background(), s, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var gotPanic, gotNext bool
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		w := DecodeWire(t, []byte(line))
		switch w.Id() {
		case "3":
			gotPanic = w.Code() == protocol.CodeInternalError
		case "4":
			gotNext = w.Text(t, 0) == "still here"
		}
	}
	if !gotPanic || !gotNext {
		t.Errorf("stdio: panic answered -32603: %v, next request served: %v\n%s", gotPanic, gotNext, out.String())
	}
}

// blockingBroker is a broker whose Publish waits until released, as a
// Redis one does while Redis is slow (up to its timeout).
type blockingBroker struct {
	server.Broker
	entered chan struct{}
	release chan struct{}
}

func (b *blockingBroker) Publish(ctx context.Context, ev server.Event) error {
	b.entered <- struct{}{}
	<-b.release
	return b.Broker.Publish(ctx, ev)
}

// TestUnregisterPublishesOutsideTheLock checks that RemoveTool,
// RemovePrompt, RemoveResource and RemoveResourceTemplate tell the broker once the registry's lock
// is released: while a Publish hangs, other requests are served (hostile
// review D11: they waited for the broker behind the write lock).
func TestUnregisterPublishesOutsideTheLock(t *testing.T) {
	b := &blockingBroker{Broker: server.NewLocalBroker(), entered: make(chan struct{}), release: make(chan struct{})}
	s := NewServer(t)
	AddTool(t, s, `{"name":"a","inputSchema":{"type":"object"}}`, TextTool("a"))
	AddTool(t, s, `{"name":"b","inputSchema":{"type":"object"}}`, TextTool("b"))
	AddPrompt(t, s, protocol.Prompt{Name: "p"}, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{}, nil
	})
	AddResource(t, s, protocol.Resource{URI: "r://x", Name: "x"}, func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return server.TextContents(uri, "", "x"), nil
	})
	if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "t://{x}", Name: "t"}, func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return server.TextContents(uri, "", "t"), nil
	}); err != nil {
		t.Fatal(err)
	}
	s.SetBroker(b) // from here on, every Publish blocks until released
	h := Handler(s, streamhttp.Options{})
	for name, remove := range map[string]func() bool{
		"RemoveTool":             func() bool { return s.RemoveTool("b") },
		"RemovePrompt":           func() bool { return s.RemovePrompt("p") },
		"RemoveResource":         func() bool { return s.RemoveResource("r://x") },
		"RemoveResourceTemplate": func() bool { return s.RemoveResourceTemplate("t://{x}") },
	} {
		done := make(chan bool)
		go func() { done <- remove() }()
		select {
		case <-b.entered: // Publish is hanging now
		case <-time.After(5 * time.Second):
			t.Fatalf("%s never published", name)
		}
		served := make(chan string, 1)
		go func() {
			served <- Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "a"})).Text(t, 0)
		}()
		select {
		case got := <-served:
			if got != "a" {
				t.Errorf("%s: got %q", name, got)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s: a tools/call waited behind the hanging Publish", name)
			close(b.release)
			<-served
			b.release = make(chan struct{})
		}
		close(b.release)
		if !<-done {
			t.Errorf("%s reported nothing removed", name)
		}
		b.release = make(chan struct{})
	}
}
