package validate

import (
	"context"
	"errors"
	"strings"
	"testing"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

// Helpers of the package's tests: what a Server of package server does
// with a tool's schema and arguments, without the Server (its tests of
// tools/call, over HTTP and stdio, are package server's).

// The limits of package server the tests size their arguments by.
const (
	maxBodyBytes     = 4 << 20 // server.DefaultMaxBodyBytes
	decodeMaxMembers = 10000   // server.DefaultDecodeLimits().MaxMembers
)

// defaultOptions are the Options of a Server's tool schemas by default.
func defaultOptions() Options { return Options{MaxDepth: DefaultMaxSchemaDepth} }

// compileSchema compiles schema as a Server does by default, returning
// the compiled root.
func compileSchema(schema []byte) (*sjs.Schema, error) {
	root, _, err := compile(schema, defaultOptions())
	return root, err
}

// inputFor compiles schema as AddTool compiles a tool's inputSchema, with
// the default Options changed by opts.
func inputFor(t testing.TB, schema string, opts ...func(*Options)) *Input {
	t.Helper()
	o := defaultOptions()
	for _, f := range opts {
		f(&o)
	}
	in, err := CompileInput([]byte(schema), o)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// withFormatAssertion is the setting of server.WithFormatAssertion.
func withFormatAssertion(o *Options) { o.AssertFormat = true }

// checkArgs is what the server's checkArgs does with arguments no
// Mcp-Param-* header is compared with: Parse, then Check. It returns the
// text of the tool execution error that refuses them ("" when they are
// valid), or the error of a refusal that is not one (malformed text, the
// context's).
func checkArgs(ctx context.Context, in *Input, args []byte, lim Limits) (string, error) {
	a, err := Parse(ctx, args, lim)
	var tooMany *ValueError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return "", ctx.Err()
	case errors.As(err, &tooMany):
		return tooMany.Error(), nil
	default:
		return "", err
	}
	return in.Check(ctx, a, lim)
}

// jsonList joins n copies of item with commas.
func jsonList(item string, n int) string {
	return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
}

// recordsSchema and recordsArgs are the realistic arguments of package
// server's tests: n records of ten members, with a pattern, an enum and a
// nested array.
const recordsSchema = `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{
	"id":{"type":"integer","minimum":1},"name":{"type":"string","maxLength":200},"price":{"type":"number","minimum":0},
	"qty":{"type":"integer","minimum":0},"tags":{"type":"array","items":{"type":"string"}},"active":{"type":"boolean"},
	"sku":{"type":"string","pattern":"^[A-Z]+-[0-9]+$"},"weight":{"type":"number"},"color":{"enum":["red","green","blue"]},
	"note":{"type":"string"}},"required":["id","name"],"additionalProperties":false}}},"required":["items"]}`

func recordsArgs(n int) string {
	const rec = `{"id":12345,"name":"Widget number one","price":19.99,"qty":3,"tags":["a","b"],"active":true,"sku":"ABC-123","weight":1.5,"color":"red","note":"n"}`
	return `{"items":[` + jsonList(rec, n) + `]}`
}
