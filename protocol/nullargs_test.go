package protocol

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// "arguments": null in tools/call params decodes as absent arguments
// (nil), the one leniency of the decoders (gen/overrides.go nullAsAbsent:
// the mcp-go and Go SDK clients send it for a nil arguments map). It holds
// through every type a tools/call is decoded as, and the value encodes as
// if arguments had never been there.
func TestCallToolNullArgumentsAbsent(t *testing.T) {
	absent := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"x"}}`
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"x","arguments":null}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":null,` + meta + `,"name":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"x","arguments" : null }}`,
	} {
		var want CallToolRequest
		require.NoError(t, Unmarshal([]byte(absent), &want))
		wantOut, err := Marshal(&want)
		require.NoError(t, err)

		var r CallToolRequest
		require.NoError(t, Unmarshal([]byte(in), &r), in)
		assert.Nil(t, r.Params.Arguments, in)
		assert.Empty(t, r.Params.Extra, in)
		out, err := Marshal(&r)
		require.NoError(t, err)
		assert.Equal(t, string(wantOut), string(out), "encodes as absent arguments")
		assert.NotContains(t, string(out), "arguments")

		// The unions a server decodes a request as choose tools/call.
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
		require.NoError(t, Unmarshal(jr.Params, &p), "the params as they reach the careful path")
		assert.Nil(t, p.Arguments)

		// encoding/json goes through the same decoder.
		var viaStd CallToolRequest
		require.NoError(t, json.Unmarshal([]byte(in), &viaStd))
		assert.Nil(t, viaStd.Params.Arguments)
	}

	// An object keeps its nulls: they are for the tool's inputSchema.
	var p CallToolRequestParams
	require.NoError(t, Unmarshal([]byte(`{`+meta+`,"name":"x","arguments":{"a":null}}`), &p))
	assert.Equal(t, `{"a":null}`, string(p.Arguments))

	// A Go value with nil Arguments never writes null.
	out, err := Marshal(&CallToolRequestParams{Name: "x"})
	require.NoError(t, err)
	assert.NotContains(t, string(out), "arguments")
}

// Every other null of tools/call stays refused, and a null arguments is
// still a member: given twice it is a duplicate, and a misspelt null is
// a syntax error.
func TestCallToolOtherNullsRefused(t *testing.T) {
	cases := []struct {
		name, typ, in string
		kind          ErrorKind
		path          string
	}{
		{"name null", "CallToolRequestParams", `{` + meta + `,"name":null}`, KindNull, "name"},
		{"_meta null", "CallToolRequestParams", `{"_meta":null,"name":"x"}`, KindNull, "_meta"},
		{"inputResponses null", "CallToolRequestParams", `{` + meta + `,"name":"x","inputResponses":null}`, KindNull, "inputResponses"},
		{"requestState null", "CallToolRequestParams", `{` + meta + `,"name":"x","requestState":null}`, KindNull, "requestState"},
		{"params null", "CallToolRequest", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`, KindNull, "params"},
		{"protocolVersion null", "CallToolRequestParams", `{"_meta":{"io.modelcontextprotocol/protocolVersion":null,"io.modelcontextprotocol/clientCapabilities":{}},"name":"x","arguments":null}`, KindNull, "_meta.io.modelcontextprotocol/protocolVersion"},
		{"prompts/get arguments null", "GetPromptRequestParams", `{` + meta + `,"name":"x","arguments":null}`, KindNull, "arguments"},
		{"completion context arguments null", "CompleteRequestParams", `{` + meta + `,"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"v"},"context":{"arguments":null}}`, KindNull, "context.arguments"},
		{"arguments null then an object", "CallToolRequestParams", `{` + meta + `,"name":"x","arguments":null,"arguments":{}}`, KindDuplicate, "arguments"},
		{"arguments an object then null", "CallToolRequestParams", `{` + meta + `,"name":"x","arguments":{},"arguments":null}`, KindDuplicate, "arguments"},
		{"arguments nul", "CallToolRequestParams", `{` + meta + `,"name":"x","arguments":nul}`, KindSyntax, ""},
		{"arguments nullx", "CallToolRequestParams", `{` + meta + `,"name":"x","arguments":nullx}`, KindSyntax, ""},
		{"arguments NULL", "CallToolRequestParams", `{` + meta + `,"name":"x","arguments":NULL}`, KindSyntax, ""},
		{"arguments false", "CallToolRequestParams", `{` + meta + `,"name":"x","arguments":false}`, KindType, "arguments"},
		{"arguments a string null", "CallToolRequestParams", `{` + meta + `,"name":"x","arguments":"null"}`, KindType, "arguments"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := NewValue(c.typ)
			require.NotNil(t, v, c.typ)
			de := decodeErr(t, c.in, v)
			assert.Equal(t, c.kind, de.Kind, "%v", de)
			if c.kind != KindSyntax {
				assert.Equal(t, c.path, de.Path, "%v", de)
			}
		})
	}
}
