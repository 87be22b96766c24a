package legacy

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// TestCallToolInto: converting into zero memory gives what CallTool
// allocates, and leaves it zero on a refusal.
func TestCallToolInto(t *testing.T) {
	tok := mcp20251125.StringProgressToken("t")
	level := protocol.LoggingLevel("info")
	s := &Session{Rev: Rev20251125, LogLevel: &level}
	for _, p := range []*mcp20251125.CallToolRequestParams{
		nil,
		{Name: "echo"},
		{Name: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)},
		{Name: "echo", Meta: &mcp20251125.CallToolRequestParamsMeta{ProgressToken: &tok, Extra: mcp20251125.Members{{Name: "x", Value: json.RawMessage(`1`)}, {Name: "io.modelcontextprotocol/y", Value: json.RawMessage(`2`)}}}},
		{Name: "echo", Extra: mcp20251125.Members{{Name: "inputResponses", Value: json.RawMessage(`{}`)}}},
	} {
		want, we := s.CallTool(p)
		var got protocol.CallToolRequestParams
		ge := s.CallToolInto(&got, p)
		if !reflect.DeepEqual(ge, we) {
			t.Errorf("%+v: error %v, CallTool's %v", p, ge, we)
		}
		switch {
		case we != nil && !reflect.DeepEqual(got, protocol.CallToolRequestParams{}):
			t.Errorf("%+v: refused, but the memory was written: %+v", p, got)
		case we == nil && !reflect.DeepEqual(&got, want):
			t.Errorf("%+v:\nCallToolInto %+v\nCallTool     %+v", p, got, *want)
		}
	}
}
