//go:build attack

package lib

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestInputSchemaHugeExponentPanics: InputSchema must return an error, not
// panic, for a numeric keyword with a huge exponent.
func TestInputSchemaHugeExponentPanics(t *testing.T) {
	if testing.Verbose() {
		_, err := server.InputSchema(`{"type":"object","properties":{"n":{"multipleOf":1e99999999}}}`)
		t.Logf("err=%v", err)
	}
}

// TestSchemaAtCallTime: schemas InputSchema accepted, used by a real tool
// over HTTP with hostile arguments: must answer in bounded time.
func TestSchemaAtCallTime(t *testing.T) {
	cases := []struct{ name, schema, args string }{
		{"refloop", `{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, `{"x":1}`},
		{"hugemin", `{"type":"object","properties":{"n":{"minimum":1e999999999999}}}`, `{"n":1}`},
		{"hugemin2", `{"type":"object","properties":{"n":{"minimum":1e99999999}}}`, `{"n":1}`},
		{"anchorcycle", `{"type":"object","$dynamicRef":"#meta","$dynamicAnchor":"meta"}`, `{"x":1}`},
		{"draft4sibling", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"x":{"$ref":"#/definitions/s","type":"integer"}},"definitions":{"s":{"type":"string"}}}`, `{"x":"str"}`},
	}
	for _, c := range cases {
		s, _ := server.New(protocol.Implementation{Name: "x", Version: "1"})
		sch, err := server.InputSchema(c.schema)
		if err != nil {
			t.Logf("%s: InputSchema: %v", c.name, err)
			continue
		}
		err = s.AddTool(protocol.Tool{Name: "t", InputSchema: sch}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return server.TextResult("handler ran"), nil
		})
		if err != nil {
			t.Logf("%s: AddTool refused what InputSchema accepted: %v", c.name, err)
			continue
		}
		hs := httptest.NewServer(s.Handler(server.HTTPOptions{}))
		done := make(chan string, 1)
		go func() {
			_, _, b := post(t, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":`+c.args+`,`+meta+`}}}`, modernHdr("tools/call", "t"))
			done <- b
		}()
		select {
		case b := <-done:
			t.Logf("%s: %.300s", c.name, strings.TrimSpace(b))
		case <-time.After(10 * time.Second):
			t.Errorf("%s: call hung > 10 s", c.name)
		}
		hs.Close()
	}
}
