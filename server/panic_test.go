package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/testutil"
	"github.com/mcpwire/mcpwire/protocol"
)

// TestHandlerPanicIsInternalError checks that a handler's panic answers
// -32603 (HTTP 500) and is logged with its stack, on HTTP and stdio, and
// that the server goes on serving: over HTTP net/http would only drop the
// connection, and on stdio the panic ended the process (hostile review
// D12; R-BASE-11 an error response for every request).
func TestHandlerPanicIsInternalError(t *testing.T) {
	var logs testutil.SyncBuffer
	s := newServer(t, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	addTool(t, s, `{"name":"boom","inputSchema":{"type":"object"}}`, func(_ context.Context, _ *Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		_ = args[len(args)+1] // a handler bug: an index out of range
		return nil, nil
	})
	addPrompt(t, s, protocol.Prompt{Name: "boom"}, func(context.Context, *Request, map[string]string) (*protocol.GetPromptResult, error) {
		panic("prompt bug")
	})
	addResource(t, s, protocol.Resource{URI: "boom://r", Name: "r"}, func(context.Context, *Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		panic("resource bug")
	})
	addTool(t, s, `{"name":"ok","inputSchema":{"type":"object"}}`, textTool("still here"))
	h := s.Handler(HTTPOptions{})
	for _, c := range []struct {
		method string
		p      M
	}{
		{protocol.MethodToolsCall, M{"name": "boom"}},
		{protocol.MethodPromptsGet, M{"name": "boom"}},
		{protocol.MethodResourcesRead, M{"uri": "boom://r"}},
	} {
		rec := post(t, h, rpc(1, c.method, params(c.p)), nil)
		w := single(t, rec)
		if rec.Code != http.StatusInternalServerError || w.code() != protocol.CodeInternalError || w.id() != "1" {
			t.Errorf("%s: a handler panic answered %d %s, want 500 -32603 with the id", c.method, rec.Code, w.raw)
		}
	}
	if got := call(t, h, 2, protocol.MethodToolsCall, params(M{"name": "ok"})).text(t, 0); got != "still here" {
		t.Errorf("after the panics: %q", got)
	}
	if l := logs.String(); !strings.Contains(l, "handler panicked") || !strings.Contains(l, "index out of range") || !strings.Contains(l, "panic_test.go") {
		t.Errorf("the panic is not logged with its value and stack:\n%s", l)
	}

	in := string(rpc(3, protocol.MethodToolsCall, params(M{"name": "boom"}))) + "\n" + string(rpc(4, protocol.MethodToolsCall, params(M{"name": "ok"}))) + "\n"
	var out strings.Builder
	if err := s.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var gotPanic, gotNext bool
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		w := decodeWire(t, []byte(line))
		switch w.id() {
		case "3":
			gotPanic = w.code() == protocol.CodeInternalError
		case "4":
			gotNext = w.text(t, 0) == "still here"
		}
	}
	if !gotPanic || !gotNext {
		t.Errorf("stdio: panic answered -32603: %v, next request served: %v\n%s", gotPanic, gotNext, out.String())
	}
}

// blockingBroker is a broker whose Publish waits until released, as a
// Redis one does while Redis is slow (up to its timeout).
type blockingBroker struct {
	Broker
	entered chan struct{}
	release chan struct{}
}

func (b *blockingBroker) Publish(ctx context.Context, ev Event) error {
	b.entered <- struct{}{}
	<-b.release
	return b.Broker.Publish(ctx, ev)
}

// TestUnregisterPublishesOutsideTheLock checks that RemoveTool,
// RemovePrompt, RemoveResource and RemoveResourceTemplate tell the broker once the registry's lock
// is released: while a Publish hangs, other requests are served (hostile
// review D11: they waited for the broker behind the write lock).
func TestUnregisterPublishesOutsideTheLock(t *testing.T) {
	b := &blockingBroker{Broker: NewLocalBroker(), entered: make(chan struct{}), release: make(chan struct{})}
	s := newServer(t)
	addTool(t, s, `{"name":"a","inputSchema":{"type":"object"}}`, textTool("a"))
	addTool(t, s, `{"name":"b","inputSchema":{"type":"object"}}`, textTool("b"))
	addPrompt(t, s, protocol.Prompt{Name: "p"}, func(context.Context, *Request, map[string]string) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{}, nil
	})
	addResource(t, s, protocol.Resource{URI: "r://x", Name: "x"}, func(_ context.Context, _ *Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return TextContents(uri, "", "x"), nil
	})
	if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "t://{x}", Name: "t"}, func(_ context.Context, _ *Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return TextContents(uri, "", "t"), nil
	}); err != nil {
		t.Fatal(err)
	}
	s.cfg.broker = b // from here on, every Publish blocks until released
	h := s.Handler(HTTPOptions{})
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
			served <- call(t, h, 1, protocol.MethodToolsCall, params(M{"name": "a"})).text(t, 0)
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
