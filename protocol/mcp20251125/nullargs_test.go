package mcp20251125

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// "arguments": null in a legacy tools/call decodes as absent arguments
// (nil), as in package protocol (gen/overrides.go nullAsAbsent): every
// legacy revision is decoded with these types, and the mcp-go and Go SDK
// clients send it for a nil arguments map.
func TestCallToolNullArgumentsAbsent(t *testing.T) {
	absent := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`
	var want CallToolRequest
	require.NoError(t, Unmarshal([]byte(absent), &want))
	wantOut, err := Marshal(&want)
	require.NoError(t, err)
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":null}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":null,"name":"x","_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":	null
}}`,
	} {
		var r CallToolRequest
		require.NoError(t, Unmarshal([]byte(in), &r), in)
		assert.Nil(t, r.Params.Arguments, in)
		assert.Empty(t, r.Params.Extra, in)
		out, err := Marshal(&r)
		require.NoError(t, err)
		assert.NotContains(t, string(out), "arguments")
		if r.Params.Meta == nil {
			assert.Equal(t, string(wantOut), string(out), "encodes as absent arguments")
		}

		var cr ClientRequest
		require.NoError(t, Unmarshal([]byte(in), &cr), in)
		ct, ok := cr.Value.(*CallToolRequest)
		require.True(t, ok, "ClientRequest chose %T", cr.Value)
		assert.Nil(t, ct.Params.Arguments)
		var m JSONRPCMessage
		require.NoError(t, Unmarshal([]byte(in), &m), in)
		jr, ok := m.Value.(*JSONRPCRequest)
		require.True(t, ok, "JSONRPCMessage chose %T", m.Value)
		var p CallToolRequestParams
		require.NoError(t, Unmarshal(jr.Params, &p), "the params as a session decodes them")
		assert.Nil(t, p.Arguments)

		var viaStd CallToolRequest
		require.NoError(t, json.Unmarshal([]byte(in), &viaStd))
		assert.Nil(t, viaStd.Params.Arguments)
	}

	var p CallToolRequestParams
	require.NoError(t, Unmarshal([]byte(`{"name":"x","arguments":{"a":null}}`), &p))
	assert.Equal(t, `{"a":null}`, string(p.Arguments), "nulls inside are for the tool's inputSchema")
}

// Every other null stays refused, and a null arguments is still a member.
func TestCallToolOtherNullsRefused(t *testing.T) {
	cases := []struct {
		name, typ, in string
		kind          ErrorKind
		path          string
	}{
		{"name null", "CallToolRequestParams", `{"name":null}`, KindNull, "name"},
		{"_meta null", "CallToolRequestParams", `{"_meta":null,"name":"x"}`, KindNull, "_meta"},
		{"task null", "CallToolRequestParams", `{"name":"x","task":null}`, KindNull, "task"},
		{"progressToken null", "CallToolRequestParams", `{"name":"x","arguments":null,"_meta":{"progressToken":null}}`, KindNull, "_meta.progressToken"},
		{"params null", "CallToolRequest", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`, KindNull, "params"},
		{"prompts/get arguments null", "GetPromptRequestParams", `{"name":"x","arguments":null}`, KindNull, "arguments"},
		{"arguments null then an object", "CallToolRequestParams", `{"name":"x","arguments":null,"arguments":{}}`, KindDuplicate, "arguments"},
		{"arguments an object then null", "CallToolRequestParams", `{"name":"x","arguments":{},"arguments":null}`, KindDuplicate, "arguments"},
		{"arguments nul", "CallToolRequestParams", `{"name":"x","arguments":nul}`, KindSyntax, ""},
		{"arguments nullx", "CallToolRequestParams", `{"name":"x","arguments":nullx}`, KindSyntax, ""},
		{"arguments an array", "CallToolRequestParams", `{"name":"x","arguments":[null]}`, KindType, "arguments"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := NewValue(c.typ)
			require.NotNil(t, v, c.typ)
			err := Unmarshal([]byte(c.in), v)
			require.Error(t, err, "accepted %s", c.in)
			de, ok := AsDecodeError(err)
			require.True(t, ok, "%v (%T) is not a *DecodeError", err, err)
			assert.Equal(t, c.kind, de.Kind, "%v", err)
			if c.kind != KindSyntax {
				assert.Equal(t, c.path, de.Path, "%v", err)
			}
		})
	}
}
