package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/server/typed"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The checks tool arguments go through before their handler, seen from a
// client: numbers too costly to validate (R-TOOL-10, R-SCHEMA-08),
// arguments whose validation would take too long, and member names that
// are declared properties only ignoring case (R-TOOL-10, R-HDR-07). Each
// refusal is a tool execution error (isError, R-TOOL-09, A9) naming the
// path, and the handler does not run.

// countingTool registers a tool that counts its calls and answers "ran".
func countingTool(t testing.TB, s *server.Server, name, schema string) *atomic.Int64 {
	t.Helper()
	n := new(atomic.Int64)
	AddTool(t, s, `{"name":"`+name+`","inputSchema":`+schema+`}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		n.Add(1)
		return server.TextResult("ran"), nil
	})
	return n
}

// callBody is a tools/call request for tool with raw JSON arguments.
func callBody(id int, tool, args string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"_meta":%s,"name":%q,"arguments":%s}}`, id, HostileMeta, tool, args))
}

// jsonList joins n copies of item with commas.
func jsonList(item string, n int) string {
	return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
}

// The schemas and arguments of the number-cost benchmark: 200 numbers
// against a flat schema (200 integer members, the runtime's own
// validator) and against a general one (minimum, the JSON Schema
// validator); 1e999999 costs the validator's big.Rat some 20 ms.
func flat200Schema() string {
	props := make([]string, 200)
	for i := range props {
		props[i] = fmt.Sprintf(`"n%d":{"type":"integer"}`, i)
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
}

func flat200Args(num string) string {
	m := make([]string, 200)
	for i := range m {
		m[i] = fmt.Sprintf(`"n%d":%s`, i, num)
	}
	return "{" + strings.Join(m, ",") + "}"
}

const general200Schema = `{"type":"object","properties":{"a":{"type":"array","items":{"type":"number","minimum":0}}}}`

func general200Args(num string) string { return `{"a":[` + jsonList(num, 200) + `]}` }

// numberCostServer serves the two tools of the number-cost benchmark.
func numberCostServer(t testing.TB) (http.Handler, map[string]*atomic.Int64) {
	s := NewServer(t)
	runs := map[string]*atomic.Int64{
		"flat":    countingTool(t, s, "flat", flat200Schema()),
		"general": countingTool(t, s, "general", general200Schema),
	}
	return Handler(s, streamhttp.Options{}), runs
}

// A number with a huge exponent is refused before anything converts it:
// a tool error naming its path, and the handler does not run, on the flat
// and the general path (R-TOOL-10, R-SCHEMA-08, R-TOOL-09).
func TestHugeExponentsRefused(t *testing.T) {
	h, runs := numberCostServer(t)
	for _, c := range []struct {
		tool, args, path string
	}{
		{"flat", flat200Args("1e999999"), "/n"},
		{"general", general200Args("1e999999"), "/a/"},
		{"general", `{"a":[0,1,2,-1E-999999]}`, "/a/3"},
		{"general", `{"a":[0],"b":{"c":[1e999999]}}`, "/b/c/0"},
		{"general", `{"a":[` + strings.Repeat("9", 100000) + `]}`, "/a/0"},
	} {
		start := time.Now()
		rec := Post(t, h, callBody(1, c.tool, c.args), nil)
		w := Single(t, rec)
		d := time.Since(start)
		if !w.IsError() || !strings.Contains(w.Text(t, 0), "at "+c.path) || !strings.Contains(w.Text(t, 0), "number") {
			t.Errorf("%s %.60s: want a tool error naming %s, got %s", c.tool, c.args, c.path, w.Raw)
		}
		if n := runs[c.tool].Load(); n != 0 {
			t.Errorf("%s %.60s: the handler ran", c.tool, c.args)
		}
		if d > 5*time.Second { // a bound against a hang, not a timing
			t.Errorf("%s %.60s: answered in %v", c.tool, c.args, d)
		}
	}
	// The same arguments with small numbers are served.
	for tool, args := range map[string]string{"flat": flat200Args("7"), "general": general200Args("7")} {
		if w := Single(t, Post(t, h, callBody(2, tool, args), nil)); w.IsError() || w.Text(t, 0) != "ran" {
			t.Errorf("%s with small numbers: %s", tool, w.Raw)
		}
	}
}

// benchCall serves one tools/call per iteration.
func benchCall(b *testing.B, h http.Handler, body []byte) {
	b.ReportAllocs()
	for b.Loop() {
		Post(b, h, body, nil)
	}
}

// BenchmarkHugeExponents: 200 numbers of 1e999999, and 200 small
// integers, in one tools/call, against a flat and a general schema.
func BenchmarkHugeExponents(b *testing.B) {
	h, _ := numberCostServer(b)
	for _, path := range []string{"flat", "general"} {
		args := flat200Args
		if path == "general" {
			args = general200Args
		}
		b.Run(path+"/small", func(b *testing.B) { benchCall(b, h, callBody(1, path, args("7"))) })
		b.Run(path+"/1e999999", func(b *testing.B) { benchCall(b, h, callBody(1, path, args("1e999999"))) })
	}
}

// Refusing 200 numbers of 1e999999 costs no more than twice serving 200
// small integers. This compares two measurements of one run on one
// machine (a ratio, not a timing): before the number limits, the huge
// numbers cost some 4 s per call, tens of thousands of times more.
func TestHugeExponentRatio(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four benchmarks")
	}
	h, _ := numberCostServer(t)
	for _, path := range []string{"flat", "general"} {
		args := flat200Args
		if path == "general" {
			args = general200Args
		}
		// Two rounds, alternating, keeping each one's best: a busy
		// machine slows one measurement, not the comparison.
		var small, huge int64 = 1 << 62, 1 << 62
		for range 2 {
			small = min(small, testing.Benchmark(func(b *testing.B) { benchCall(b, h, callBody(1, path, args("7"))) }).NsPerOp())
			huge = min(huge, testing.Benchmark(func(b *testing.B) { benchCall(b, h, callBody(1, path, args("1e999999"))) }).NsPerOp())
		}
		ratio := float64(huge) / float64(max(small, 1))
		t.Logf("%s: 200 small integers %d ns/call, 200 × 1e999999 %d ns/call: ratio %.2f", path, small, huge, ratio)
		if ratio > 2 {
			t.Errorf("%s: 200 × 1e999999 cost %.1f times 200 small integers, want at most 2", path, ratio)
		}
	}
}

// Arguments whose validation would take too long are refused before the
// validator runs: here a recursive allOf whose two branches both apply to
// an array's items, so that each level of nesting doubles the work (a
// 60-byte body, 2^22 schema applications), and a pattern whose program
// has 2,002 instructions, some 18 µs a byte (R-SCHEMA-08, R-TOOL-10).
func TestValidationWorkRefused(t *testing.T) {
	s := NewServer(t)
	double := countingTool(t, s, "double", `{"$defs":{"n":{"allOf":[{"items":{"$ref":"#/$defs/n"}},{"items":{"$ref":"#/$defs/n"}}]}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`)
	patternRuns := countingTool(t, s, "pattern", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","pattern":"[a-z]{1,1000}@"}}}}`)
	h := Handler(s, streamhttp.Options{})
	for _, c := range []struct {
		tool, args string
		runs       *atomic.Int64
	}{
		{"double", `{"a":` + strings.Repeat("[", 22) + strings.Repeat("]", 22) + `}`, double},
		{"pattern", `{"a":["` + strings.Repeat("a", 64<<10) + `"]}`, patternRuns},
	} {
		start := time.Now()
		w := Single(t, Post(t, h, callBody(1, c.tool, c.args), nil))
		d := time.Since(start)
		if !w.IsError() || !strings.Contains(w.Text(t, 0), "too large to validate") {
			t.Errorf("%s: want a tool error saying the arguments are too large to validate, got %s", c.tool, w.Raw)
		}
		if c.runs.Load() != 0 {
			t.Errorf("%s: the handler ran", c.tool)
		}
		if d > 5*time.Second { // a bound against a hang, not a timing
			t.Errorf("%s: answered in %v", c.tool, d)
		}
	}
	// Shallow or small arguments of the same tools are validated.
	if w := Single(t, Post(t, h, callBody(2, "double", `{"a":[[[]]]}`), nil)); w.IsError() {
		t.Errorf("double, shallow: %s", w.Raw)
	}
	if w := Single(t, Post(t, h, callBody(3, "pattern", `{"a":["abc@","`+strings.Repeat("a", 1000)+`@"]}`), nil)); w.IsError() {
		t.Errorf("pattern, small: %s", w.Raw)
	}
}

// Realistic arguments stay under the default work bound: 10,000 records
// of ten members, with a pattern, an enum and a nested array (over the
// default decode limit of 10,000 members, raised here).
func TestValidationWorkRealistic(t *testing.T) {
	s := NewServer(t, server.WithDecodeLimits(protocol.UnmarshalOptions{MaxMembers: 200000}))
	runs := countingTool(t, s, "records", recordsSchema)
	start := time.Now()
	w := Single(t, Post(t, Handler(s, streamhttp.Options{}), callBody(1, "records", recordsArgs(10000)), nil))
	if w.IsError() || runs.Load() != 1 {
		t.Fatalf("10,000 records: %.300s", w.Raw)
	}
	t.Logf("10,000 records validated and served in %v", time.Since(start))
}

const recordsSchema = `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{
	"id":{"type":"integer","minimum":1},"name":{"type":"string","maxLength":200},"price":{"type":"number","minimum":0},
	"qty":{"type":"integer","minimum":0},"tags":{"type":"array","items":{"type":"string"}},"active":{"type":"boolean"},
	"sku":{"type":"string","pattern":"^[A-Z]+-[0-9]+$"},"weight":{"type":"number"},"color":{"enum":["red","green","blue"]},
	"note":{"type":"string"}},"required":["id","name"],"additionalProperties":false}}},"required":["items"]}`

func recordsArgs(n int) string {
	const rec = `{"id":12345,"name":"Widget number one","price":19.99,"qty":3,"tags":["a","b"],"active":true,"sku":"ABC-123","weight":1.5,"color":"red","note":"n"}`
	return `{"items":[` + jsonList(rec, n) + `]}`
}

// A request whose client has gone away is not validated, and its handler
// does not run.
func TestArgumentsNotValidatedForAGoneClient(t *testing.T) {
	s := NewServer(t)
	runs := countingTool(t, s, "records", recordsSchema)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	in := callBody(1, "records", recordsArgs(500)) // 6,500 values, 5,000 members
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+Loopback+"/mcp", bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range Mirror(in) {
		r.Header[k] = v
	}
	Handler(s, streamhttp.Options{}).ServeHTTP(&discardWriter{h: http.Header{}, w: &out}, r)
	if runs.Load() != 0 || out.Len() != 0 {
		t.Errorf("the handler ran %d times for a request whose client had gone away; answer %.300s", runs.Load(), out.Bytes())
	}
}

// discardWriter is a ResponseWriter into a buffer.
type discardWriter struct {
	h http.Header
	w *bytes.Buffer
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return d.w.Write(b) }
func (d *discardWriter) WriteHeader(int)             {}

// A member whose name equals a declared property only ignoring case is
// refused, naming its path, on every kind of schema, both transports, and
// the handler does not run (R-TOOL-10, R-HDR-07, R-SCHEMA-01). Exact
// names and names declared in both spellings are not case variants; a
// name a patternProperties pattern matches still is one.
func TestCaseVariantArguments(t *testing.T) {
	type tc struct {
		schema, args string
		refused      string // the path named, "" when served
	}
	cases := []tc{
		// Flat schemas: the fast path.
		{`{"type":"object","properties":{"seconds":{"type":"integer"}}}`, `{"SECONDS":-5}`, "/SECONDS"},
		{`{"type":"object","properties":{"seconds":{"type":"integer"}}}`, `{"Seconds":1,"other":2}`, "/Seconds"},
		{`{"type":"object","properties":{"seconds":{"type":"integer"}}}`, `{"seconds":1,"other":2}`, ""},
		{`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`, `{"Region":"eu-attacker"}`, "/Region"},
		{`{"type":"object","properties":{"kind":{"type":"string"}}}`, `{"\u212aind":"x"}`, "/\u212aind"},
		{`{"type":"object","properties":{"kind":{"type":"string"}}}`, `{"k\u0131nd":"x"}`, "/k\u0131nd"},
		{`{"type":"object","properties":{"Kind":{"type":"string"}}}`, `{"kind":"x"}`, "/kind"},
		{`{"type":"object","properties":{"a":{"type":"string"},"A":{"type":"integer"}}}`, `{"A":1}`, ""},
		// General schemas.
		{`{"type":"object","properties":{"seconds":{"type":"integer","minimum":0}}}`, `{"SECONDS":-5}`, "/SECONDS"},
		{`{"type":"object","properties":{"loc":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}}}}`, `{"loc":{"Zone":"z"}}`, "/loc/Zone"},
		{`{"type":"object","properties":{"loc":{"type":"object","properties":{"zone":{"type":"string"}}}}}`, `{"loc":{"zone":"z","ZONE2":1}}`, ""},
		{`{"type":"object","properties":{"xs":{"type":"array","items":{"type":"object","properties":{"qty":{"minimum":1}}}}}}`, `{"xs":[{"qty":1},{"Qty":0}]}`, "/xs/1/Qty"},
		{`{"type":"object","properties":{"xs":{"type":"array","prefixItems":[{"type":"object","properties":{"a":{}}}]}}}`, `{"xs":[{"A":1}]}`, "/xs/0/A"},
		{`{"type":"object","additionalProperties":{"type":"object","properties":{"v":{"type":"integer"}}}}`, `{"any":{"V":"x"}}`, "/any/V"},
		{`{"type":"object","allOf":[{"properties":{"a":{"type":"integer"}}},{"properties":{"b":{"type":"integer"}}}]}`, `{"B":"x"}`, "/B"},
		{`{"type":"object","anyOf":[{"properties":{"a":{"type":"integer"}}},{"required":["z"]}]}`, `{"A":"x","z":1}`, "/A"},
		{`{"type":"object","oneOf":[{"properties":{"a":{"const":1}},"required":["a"]},{"required":["z"]}]}`, `{"A":2,"z":1}`, "/A"},
		{`{"type":"object","if":{"properties":{"mode":{"const":"x"}}},"then":{"properties":{"n":{"minimum":0}}}}`, `{"mode":"x","N":-1}`, "/N"},
		{`{"type":"object","$defs":{"p":{"type":"object","properties":{"deep":{"type":"string"}}}},"properties":{"p":{"$ref":"#/$defs/p"}}}`, `{"p":{"DEEP":1}}`, "/p/DEEP"},
		{`{"type":"object","$defs":{"t":{"type":"object","properties":{"name":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#/$defs/t"}}}}},"properties":{"tree":{"$ref":"#/$defs/t"}}}`, `{"tree":{"name":"a","kids":[{"name":"b","kids":[{"NAME":1}]}]}}`, "/tree/kids/0/kids/0/NAME"},
		{`{"type":"object","dependentSchemas":{"a":{"properties":{"b":{"type":"integer"}}}},"properties":{"a":{}}}`, `{"a":1,"B":"x"}`, "/B"},
		{`{"type":"object","properties":{"region":{"type":"string"}},"patternProperties":{"^R":{"type":"string"}}}`, `{"Region":"x"}`, "/Region"},
		{`{"type":"object","properties":{"region":{"type":"string"}},"patternProperties":{"^R":{"type":"string"}}}`, `{"Rx":"x"}`, ""},
		{`{"type":"object","properties":{"region":{"type":"string"}},"patternProperties":{"^R":{"type":"string"}}}`, `{"rEGION":"x"}`, "/rEGION"},
		{`{"type":"object","properties":{"a":{"type":"string"},"A":{"type":"string"}},"required":["a"]}`, `{"a":"x"}`, ""},
	}
	s := NewServer(t)
	h := Handler(s, streamhttp.Options{})
	for i, c := range cases {
		name := fmt.Sprintf("t%d", i)
		runs := countingTool(t, s, name, c.schema)
		body := callBody(1, name, c.args)
		// Over HTTP (the general path when the schema has x-mcp-header
		// arguments) and over stdio (the fast path for flat schemas).
		var out bytes.Buffer
		if err := ServeStdio(context.Background(), s, bytes.NewReader(append(body, '\n')), &out); err != nil {
			t.Fatal(err)
		}
		answers := []*Wire{Single(t, Post(t, h, body, nil)), DecodeWire(t, bytes.TrimSpace(out.Bytes()))}
		for j, w := range answers {
			via := []string{"http", "stdio"}[j]
			switch {
			case c.refused == "" && (w.IsError() || w.Code() != 0):
				t.Errorf("%s %s on %s: want it served, got %s", via, c.args, c.schema, w.Raw)
			case c.refused != "" && (!w.IsError() || !strings.Contains(w.Text(t, 0), "at "+c.refused+": member name differs only in case")):
				t.Errorf("%s %s on %s: want a tool error naming %s, got %s", via, c.args, c.schema, c.refused, w.Raw)
			}
		}
		want := int64(0)
		if c.refused == "" {
			want = 2
		}
		if n := runs.Load(); n != want {
			t.Errorf("%s on %s: the handler ran %d times, want %d", c.args, c.schema, n, want)
		}
	}
}

// The case-variant check works with the typed tools' own decoder: a typed
// tool (closed by additionalProperties: false) refuses the variant too,
// naming it.
func TestCaseVariantTypedTool(t *testing.T) {
	s := NewServer(t)
	type in struct {
		Seconds int `json:"seconds" jsonschema:"how long"`
	}
	var got atomic.Int64
	if err := typed.AddTool(s, protocol.Tool{Name: "sleep"}, func(_ context.Context, _ *server.Request, a in) (*protocol.CallToolResult, error) {
		got.Add(1)
		return server.TextResult(fmt.Sprint(a.Seconds)), nil
	}); err != nil {
		t.Fatal(err)
	}
	w := Single(t, Post(t, Handler(s, streamhttp.Options{}), callBody(1, "sleep", `{"SECONDS":-5}`), nil))
	if !w.IsError() || !strings.Contains(w.Text(t, 0), "SECONDS") || got.Load() != 0 {
		t.Fatalf("typed tool: %s (ran %d)", w.Raw, got.Load())
	}
}
