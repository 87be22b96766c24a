package tasks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// costServer is a server with the tool echo and, with the extension, the
// tasks extension and a second tool that runs as a task.
func costServer(b *testing.B, withTasks bool) http.Handler {
	var opts []server.Option
	if withTasks {
		opts = append(opts, tasks.WithTasks(tasks.TaskConfig{}))
	}
	s, err := server.New(protocol.Implementation{Name: "cost", Version: "1"}, opts...)
	if err != nil {
		b.Fatal(err)
	}
	echo := func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult(string(args)), nil
	}
	for _, name := range []string{"echo", "slow"} {
		var def protocol.Tool
		if err := protocol.Unmarshal([]byte(`{"name":"`+name+`","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}`), &def); err != nil {
			b.Fatal(err)
		}
		var topts []server.ToolOption
		if name == "slow" {
			if !withTasks {
				continue
			}
			topts = append(topts, tasks.AsTask(tasks.TaskOptions{Support: tasks.TaskOptional}))
		}
		if err := s.AddTool(def, echo, topts...); err != nil {
			b.Fatal(err)
		}
	}
	return streamhttp.Handler(s, streamhttp.Options{})
}

// costCall is a tools/call of echo, whose client declares the tasks
// extension or not.
type costCall struct {
	tmpl *http.Request
	body []byte
}

func newCostCall(declared bool) costCall {
	caps := `{}`
	if declared {
		caps = `{"extensions":{"` + tasks.ExtensionID + `":{}}}`
	}
	r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", nil)
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": protocol.Revision, "Mcp-Method": "tools/call", "Mcp-Name": "echo"} {
		r.Header.Set(k, v)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"` + protocol.Revision + `","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	return costCall{tmpl: r, body: []byte(body)}
}

func (c costCall) do(b *testing.B, h http.Handler) {
	r := new(http.Request)
	*r = *c.tmpl
	r.Body = io.NopCloser(bytes.NewReader(c.body))
	r.ContentLength = int64(len(c.body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"resultType":"complete"`)) {
		b.Fatalf("answer %d %s", rec.Code, rec.Body)
	}
}

// BenchmarkNonTaskToolCall is issue 14's cost check: a tools/call of a
// tool that is not a task, on a server without any extension (none) and
// on one with the tasks extension and a task tool beside it (tasks), from
// a client that does not declare the extension (plain) and from one that
// does (declared, a larger _meta). The four are called in turn, one call
// each per iteration (each first in turn), and tasks' time over none's is
// reported for each client: interleaved, the ratios hold on a machine
// whose speed drifts during the run.
func BenchmarkNonTaskToolCall(b *testing.B) {
	none, withTasks := costServer(b, false), costServer(b, true)
	plain, declared := newCostCall(false), newCostCall(true)
	variants := []struct {
		h    http.Handler
		call costCall
	}{{none, plain}, {withTasks, plain}, {none, declared}, {withTasks, declared}}
	spent := make([]time.Duration, len(variants))
	first := 0
	b.ReportAllocs()
	for b.Loop() {
		for k := range variants {
			i := (first + k) % len(variants)
			start := time.Now()
			variants[i].call.do(b, variants[i].h)
			spent[i] += time.Since(start)
		}
		first = (first + 1) % len(variants)
	}
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "tasks/none-plain")
	b.ReportMetric(float64(spent[3])/float64(spent[2]), "tasks/none-declared")
}

// BenchmarkNonTaskToolCallEach is each call of BenchmarkNonTaskToolCall
// on its own, for instruction counts (callgrind), which interleaving
// would mix.
func BenchmarkNonTaskToolCallEach(b *testing.B) {
	for _, srv := range []struct {
		name  string
		tasks bool
	}{{"none", false}, {"tasks", true}} {
		for _, cl := range []struct {
			name     string
			declared bool
		}{{"plain", false}, {"declared", true}} {
			b.Run(srv.name+"/"+cl.name, func(b *testing.B) {
				h, call := costServer(b, srv.tasks), newCostCall(cl.declared)
				b.ReportAllocs()
				for b.Loop() {
					call.do(b, h)
				}
			})
		}
	}
}
