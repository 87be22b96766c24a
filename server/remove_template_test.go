package server_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// countingBroker counts the events published, by kind.
type countingBroker struct {
	server.Broker
	mu    sync.Mutex
	kinds map[server.EventKind]int
}

func (b *countingBroker) Publish(ctx context.Context, ev server.Event) error {
	b.mu.Lock()
	b.kinds[ev.Kind]++
	b.mu.Unlock()
	return b.Broker.Publish(ctx, ev)
}

func (b *countingBroker) count(k server.EventKind) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.kinds[k]
}

// TestRemoveResourceTemplate: a removed template is no longer read or
// listed, its removal publishes resources list_changed like its addition
// (R-RES-05), removing an unknown one does nothing, and a cursor taken
// before a removal still lists what follows it.
func TestRemoveResourceTemplate(t *testing.T) {
	b := &countingBroker{Broker: server.NewLocalBroker(), kinds: map[server.EventKind]int{}}
	s := NewServer(t, server.WithBroker(b), server.WithPageSize(1))
	for _, tpl := range []string{"a://{x}", "b://{x}", "c://{x}"} {
		name := tpl[:1]
		if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: tpl, Name: name}, func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.TextContents(uri, "", name), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	h := Handler(s, streamhttp.Options{})
	list := func(cursor any) (string, any) {
		p := M{}
		if cursor != nil {
			p["cursor"] = cursor
		}
		w := Call(t, h, 1, protocol.MethodResourcesTemplatesList, Params(p))
		if w.Error != nil {
			t.Fatalf("%s", w.Raw)
		}
		ts, _ := w.Result["resourceTemplates"].([]any)
		var names []string
		for _, x := range ts {
			names = append(names, x.(M)["name"].(string))
		}
		return strings.Join(names, ","), w.Result["nextCursor"]
	}
	first, cur := list(nil)
	if first != "a" || cur == nil {
		t.Fatalf("first page %q, cursor %v", first, cur)
	}
	second, cur := list(cur)
	if second != "b" || cur == nil {
		t.Fatalf("second page %q, cursor %v", second, cur)
	}
	before := b.count(server.EventResourcesChanged)
	if !s.RemoveResourceTemplate("a://{x}") {
		t.Fatal("RemoveResourceTemplate reported no template")
	}
	if got := b.count(server.EventResourcesChanged); got != before+1 {
		t.Errorf("list_changed events %d, want %d", got, before+1)
	}
	if s.RemoveResourceTemplate("a://{x}") || s.RemoveResourceTemplate("zz://{x}") {
		t.Error("removed a template twice, or one never added")
	}
	if got := b.count(server.EventResourcesChanged); got != before+1 {
		t.Errorf("a removal of nothing published: %d events", got)
	}
	if next, _ := list(cur); next != "c" {
		t.Errorf("page after the removal: %q, want c (no template skipped)", next)
	}
	w := Call(t, h, 2, protocol.MethodResourcesRead, Params(M{"uri": "a://1"}))
	if w.Code() != protocol.CodeInvalidParamsError {
		t.Errorf("read of a removed template's URI: %s", w.Raw)
	}
	w = Call(t, h, 3, protocol.MethodResourcesRead, Params(M{"uri": "c://1"}))
	if w.Error != nil {
		t.Errorf("read of a kept template: %s", w.Raw)
	}
}
