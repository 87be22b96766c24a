package tasks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// R-ELIC-11 (SHOULD): tasks/update checks the content of an accepted form
// elicitation against the requestedSchema the task asked with; a mismatch
// is -32602 naming the key and the path, and nothing is stored.
func TestTaskUpdateChecksRequestedSchema(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	zero := 0.0
	form := server.ElicitForm("Who?", map[string]protocol.PrimitiveSchemaDefinition{
		"name": server.StringField(""),
		"age":  {Value: &protocol.NumberSchema{Type: protocol.NumberSchemaTypeInteger, Minimum: &zero}},
	}, "name")
	f.tool(t, "who", TaskOptions{Support: TaskOptional}, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if resp, ok := r.InputResponse("who"); ok {
			er := resp.Value.(*protocol.ElicitResult)
			if er.Action != protocol.ElicitResultActionAccept {
				return server.TextResult(string(er.Action)), nil
			}
			return server.TextResult(er.Content["name"].Str()), nil
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{"who": form}, []byte("asked"))
	})
	id := f.create(t, "who", elicitTasksCaps)["taskId"].(string)
	waitStatus(t, f.h, id, "input_required")
	upd := func(resp M) *wire {
		return tcall(t, f.h, "tasks/update", tparams(elicitTasksCaps, M{"taskId": id, "inputResponses": M{"who": resp}}), nil)
	}
	for _, c := range []struct {
		content M
		path    string
	}{
		{M{"name": 5}, "at /name:"},
		{M{"age": 3}, "at /:"}, // name is required
		{M{"name": "Ada", "age": -1}, "at /age:"},
		{nil, "at /:"}, // accept without content: an empty form
	} {
		resp := M{"action": "accept"}
		if c.content != nil {
			resp["content"] = c.content
		}
		w := upd(resp)
		if w.code() != protocol.CodeInvalidParamsError || !strings.HasPrefix(w.Error.Message, "Invalid params: inputResponses.who.content does not match requestedSchema: ") ||
			!strings.Contains(w.Error.Message, c.path) {
			t.Errorf("R-ELIC-11: content %v: %s", c.content, w.raw)
			continue
		}
		t.Logf("content %v: %s", c.content, w.Error.Message)
		if got := f.get(t, id).Result; got["status"] != "input_required" {
			t.Fatalf("a refused answer was stored: %v", got)
		}
	}
	if w := upd(accept(M{"name": "Ada", "age": 36})); w.Error != nil {
		t.Fatalf("a matching answer: %s", w.raw)
	}
	got := waitStatus(t, f.h, id, "completed", "failed")
	if res, _ := got["result"].(M); res == nil || res["content"].([]any)[0].(M)["text"] != "Ada" {
		t.Errorf("R-TASK-09: %v", got)
	}

	// Decline and cancel carry no content: nothing to check.
	id = f.create(t, "who", elicitTasksCaps)["taskId"].(string)
	waitStatus(t, f.h, id, "input_required")
	if w := upd(M{"action": "decline"}); w.Error != nil {
		t.Fatalf("decline: %s", w.raw)
	}
	if got := waitStatus(t, f.h, id, "completed", "failed"); got["result"].(M)["content"].([]any)[0].(M)["text"] != "decline" {
		t.Errorf("decline: %v", got)
	}
}

// BenchmarkTaskCheckElicitContent measures what R-ELIC-11 adds to one
// answered form in tasks/update: compiling the requestedSchema and
// validating the content.
func BenchmarkTaskCheckElicitContent(b *testing.B) {
	s := newServer(b)
	req, err := protocol.Marshal(&protocol.InputRequest{Value: server.ElicitForm("Who?", map[string]protocol.PrimitiveSchemaDefinition{
		"name": server.StringField(""), "city": server.StringField(""), "subscribe": server.BoolField(""),
	}, "name").Value})
	if err != nil {
		b.Fatal(err)
	}
	resp := json.RawMessage(`{"action":"accept","content":{"name":"Ada","city":"Paris","subscribe":true}}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.CheckInputResponse(context.Background(), "who", req, resp); err != nil {
			b.Fatal(err)
		}
	}
}
