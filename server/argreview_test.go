package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// Regressions of the second hostile review of tool-argument validation
// (the reproductions were in attack_*_test.go): each test fails on the
// code before its fix.

// A case variant of a declared property is refused even when a
// patternProperties pattern matches it: the handler's decoder
// (encoding/json) folds case whatever the schema says, so {"Region":"eu"}
// would fill the field of "region", skipping its enum and its
// x-mcp-header (R-TOOL-10, R-HDR-07). A name the pattern matches that is
// no variant is still served, and the declared spelling is still held to
// its header.
func TestCaseVariantMatchedByPattern(t *testing.T) {
	s := NewServer(t)
	var runs int
	var got string
	AddTool(t, s, `{"name":"route","inputSchema":{"type":"object","properties":{"region":{"type":"string","enum":["us"],"x-mcp-header":"Region"}},"patternProperties":{"^[A-Za-z]+$":{"type":"string"}}}}`,
		func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			runs++
			var in struct {
				Region string `json:"region"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			got = in.Region
			return server.TextResult("region=" + in.Region), nil
		})
	h := Handler(s, streamhttp.Options{})
	withRegion := func(r *http.Request) { r.Header.Set("Mcp-Param-Region", "us") }
	for _, c := range []struct {
		args string
		code int64  // a JSON-RPC error, or 0
		tool string // a tool error's text, or "" when served
	}{
		{`{"Region":"eu"}`, 0, "Invalid arguments: at /Region: member name differs only in case from the declared property 'region'"},
		{`{"REGION":"eu","zone":"x"}`, 0, "Invalid arguments: at /REGION: member name differs only in case from the declared property 'region'"},
		{`{"region":"eu"}`, protocol.CodeHeaderMismatchError, ""},
		{`{"region":"us","zone":"x"}`, 0, ""},
	} {
		runs, got = 0, ""
		w := Single(t, Post(t, h, callBody(1, "route", c.args), withRegion))
		switch {
		case c.code != 0:
			if w.Code() != c.code || runs != 0 {
				t.Errorf("%s: want error %d, got %s (handler ran %d times)", c.args, c.code, w.Raw, runs)
			}
		case c.tool != "":
			if !w.IsError() || w.Text(t, 0) != c.tool || runs != 0 {
				t.Errorf("%s: want the tool error %q, got %s (handler ran %d times, saw region=%q)", c.args, c.tool, w.Raw, runs, got)
			}
		default:
			if w.IsError() || w.Code() != 0 || runs != 1 || got != "us" {
				t.Errorf("%s: want it served with region=us, got %s (handler saw %q)", c.args, w.Raw, got)
			}
		}
	}
}

// A number whose exponent is written with a million leading zeros is 1e1
// to the exponent limit, but every conversion to big.Rat reads all of it
// (against an enum of 2,000 numbers, 24 s for a 1 MB body): it is refused
// for the written length of its exponent, naming its path, on the flat
// path and the general one, and the handler does not run. Encoders' own
// forms (1e-07, 1E+21) and an exponent of eight digits are served.
func TestExponentWrittenLength(t *testing.T) {
	s := NewServer(t)
	flat := countingTool(t, s, "flat", `{"type":"object","properties":{"x":{"type":"number"}}}`)
	general := countingTool(t, s, "general", `{"type":"object","properties":{"x":{"enum":[1,2,3,10]},"a":{"type":"array","items":{"type":"number","minimum":0}}}}`)
	h := Handler(s, streamhttp.Options{})
	zeros := strings.Repeat("0", 1_000_000)
	for _, c := range []struct {
		tool, args, refusal string
	}{
		{"flat", `{"x":1e` + zeros + `1}`, "at /x: number's exponent is written with 1000001 digits, more than the limit of 8"},
		{"general", `{"x":1e` + zeros + `1}`, "at /x: number's exponent is written with 1000001 digits, more than the limit of 8"},
		{"general", `{"a":[1,2,-1E-` + zeros + `1]}`, "at /a/2: number's exponent is written with 1000001 digits, more than the limit of 8"},
		{"flat", `{"x":1e000000001}`, "at /x: number's exponent is written with 9 digits, more than the limit of 8"},
		{"flat", `{"x":1e-07}`, ""},
		{"flat", `{"x":1E+21}`, ""},
		{"general", `{"x":1e00000001,"a":[1e+0000400]}`, ""},
	} {
		runs := map[string]int64{"flat": flat.Load(), "general": general.Load()}
		w := Single(t, Post(t, h, callBody(1, c.tool, c.args), nil))
		ran := map[string]int64{"flat": flat.Load(), "general": general.Load()}[c.tool] - runs[c.tool]
		switch {
		case c.refusal == "" && (w.IsError() || ran != 1):
			t.Errorf("%s %.80s: want it served, got %.300s", c.tool, c.args, w.Raw)
		case c.refusal != "" && (!w.IsError() || w.Text(t, 0) != "Invalid arguments: "+c.refusal || ran != 0):
			t.Errorf("%s %.80s: want the tool error %q, got %.300s (handler ran %d times)", c.tool, c.args, c.refusal, w.Raw, ran)
		}
	}
}

// Three strings of 1 MiB against [^@\s]{1,64}@[^@\s]{1,255} took 4.4 s
// under the bound; now they are refused, the estimate weighing each
// pattern by its program (package validate's TestPatternWorkProportional).
func TestPatternWorkProportional(t *testing.T) {
	if testing.Short() {
		t.Skip("times the validator")
	}
	s := NewServer(t)
	runs := countingTool(t, s, "mail", `{"type":"object","properties":{"to":{"type":"array","items":{"type":"string","pattern":"[^@\\s]{1,64}@[^@\\s]{1,255}"}}}}`)
	one := `"` + strings.Repeat("a", 1<<20-16) + `"`
	w := Single(t, Post(t, Handler(s, streamhttp.Options{}), callBody(1, "mail", `{"to":[`+one+`,`+one+`,`+one+`]}`), nil))
	if !w.IsError() || !strings.Contains(w.Text(t, 0), "too large to validate") || runs.Load() != 0 {
		t.Errorf("three strings of 1 MiB against a pattern of 639 instructions: %.300s", w.Raw)
	}
}

// format is an annotation unless WithFormatAssertion, in every dialect:
// the validator asserts it for drafts before 2019-09, and format "regex"
// compiles each string (\pL{1000} seven times, 63 bytes: 0.6 ms; 73 KB of
// them took 1.8 s). Served without the option, quickly (a ratio with the
// same arguments against a schema without format, within one run);
// with it, checked, and priced so that the same arguments are refused as
// too large to validate.
func TestFormatAnnotation(t *testing.T) {
	const draft7 = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"p":{"type":"array","items":{"type":"string"%s}},"e":{"type":"string","format":"email"}}}`
	withFormat, without := fmt.Sprintf(draft7, `,"format":"regex"`), fmt.Sprintf(draft7, ``)
	args := `{"p":[` + jsonList(`"`+strings.Repeat(`\\pL{1000}`, 7)+`"`, 200) + `]}`
	s := NewServer(t)
	runs := countingTool(t, s, "format", withFormat)
	countingTool(t, s, "plain", without)
	h := Handler(s, streamhttp.Options{})
	for _, a := range []string{`{"p":["("],"e":"not an address"}`, args} {
		if w := Single(t, Post(t, h, callBody(1, "format", a), nil)); w.IsError() {
			t.Errorf("format as an annotation: %.80s refused: %.300s", a, w.Raw)
		}
	}
	if runs.Load() != 2 {
		t.Errorf("the handler ran %d times, want 2", runs.Load())
	}
	if w := Call(t, h, 2, protocol.MethodToolsList, Params(nil)); !strings.Contains(string(w.Raw), `"format":"regex"`) {
		t.Errorf("tools/list lost the declared format: %.300s", w.Raw)
	}
	if !testing.Short() {
		f, p := bestCheck(t, s, "format", args), bestCheck(t, s, "plain", args)
		t.Logf("200 regex strings: %v, without format %v: ratio %.1f", f, p, float64(f)/float64(p))
		if f > 5*p {
			t.Errorf("format regex took %v, the same arguments without format %v: more than 5 times", f, p)
		}
	}
	// Asserted: checked, and priced.
	s = NewServer(t, server.WithFormatAssertion())
	runs = countingTool(t, s, "format", withFormat)
	h = Handler(s, streamhttp.Options{})
	for _, c := range []struct{ args, text string }{
		{`{"p":["("]}`, "Invalid arguments: at /p/0: '(' is not valid regex"},
		{`{"e":"not an address"}`, "Invalid arguments: at /e: 'not an address' is not valid email"},
		{`{"p":[` + jsonList(`"`+strings.Repeat(`\\pL{1000}`, 7)+`"`, 100) + `]}`, "Invalid arguments: too large to validate"},
	} {
		w := Single(t, Post(t, h, callBody(1, "format", c.args), nil))
		if !w.IsError() || !strings.HasPrefix(w.Text(t, 0), c.text) {
			t.Errorf("format asserted: %.80s: want %q, got %.300s", c.args, c.text, w.Raw)
		}
	}
	if w := Single(t, Post(t, h, callBody(1, "format", `{"p":["^a+$"],"e":"a@example.com"}`), nil)); w.IsError() || runs.Load() != 1 {
		t.Errorf("format asserted, valid: %.300s", w.Raw)
	}
	// In every dialect: 2020-12 (the default) too, which makes format an
	// annotation by default.
	countingTool(t, s, "format2020", `{"type":"object","properties":{"e":{"type":"string","format":"email"}}}`)
	if w := Single(t, Post(t, h, callBody(1, "format2020", `{"e":"not an address"}`), nil)); !w.IsError() || w.Text(t, 0) != "Invalid arguments: at /e: 'not an address' is not valid email: missing @" {
		t.Errorf("format asserted in a 2020-12 schema: %.300s", w.Raw)
	}
}

// Arguments are bounded in values (WithMaxArgumentValues: members and
// elements), counted in a pass over the text before any value is built: a
// 4 MiB array of 1s (two million values, 113 MiB of heap at once before)
// is refused as a tool error naming the limit, allocating little more
// than the body (a ratio of bytes allocated to the body's size, within
// one run), and the handler does not run. At the limit, arguments are
// served; so are 10,000 realistic records (TestValidationWorkRealistic).
func TestArgumentValuesLimit(t *testing.T) {
	s := NewServer(t)
	runs := countingTool(t, s, "greet", `{"type":"object","properties":{"name":{"type":"string"}}}`)
	h := Handler(s, streamhttp.Options{})
	body := callBody(1, "greet", `{"name":[`+jsonList("1", (4<<20-400)/2)+`]}`)
	Post(t, h, callBody(1, "greet", `{"name":"warm"}`), nil)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w := Single(t, Post(t, h, body, nil))
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d-byte tools/call of two million values: %.1f MiB allocated (%.1f× the body)", len(body), float64(allocated)/(1<<20), float64(allocated)/float64(len(body)))
	want := fmt.Sprintf("Invalid arguments: at /: more values (object members and array elements) than the limit of %d", server.DefaultMaxArgumentValues)
	if !w.IsError() || w.Text(t, 0) != want || runs.Load() != 1 {
		t.Errorf("two million values: want the tool error %q, got %.300s", want, w.Raw)
	}
	if allocated > 6*uint64(len(body)) {
		t.Errorf("refusing a %d-byte request allocated %d bytes, %.1f times the body", len(body), allocated, float64(allocated)/float64(len(body)))
	}
	// The option, on the general and the flat path (the fast path
	// declines what the general one refuses): 10 values pass, 11 do not.
	s = NewServer(t, server.WithMaxArgumentValues(10))
	general := countingTool(t, s, "general", `{"type":"object","properties":{"a":{"type":"array","items":{"minimum":0}}}}`)
	flat := countingTool(t, s, "flat", `{"type":"object","properties":{"x":{"type":"number"}}}`)
	h = Handler(s, streamhttp.Options{})
	members := func(n int) string {
		m := make([]string, n)
		for i := range m {
			m[i] = fmt.Sprintf(`"m%d":%d`, i, i)
		}
		return "{" + strings.Join(m, ",") + "}"
	}
	for _, c := range []struct {
		tool, args string
		served     bool
	}{
		{"general", `{"a":[1,2,3,4,5,6,7,8]}`, true},
		{"general", `{"a":[1,2,3,4,5,6,7,8,9]}`, false},
		{"general", `{"a":[[],{},[[]],"[1,2,3]",{"k":[]}]}`, true},
		{"general", `{"a":[[],{},[[0]],"[1,2,3]",{"k":[0]}]}`, false},
		{"flat", members(9), true},
		{"flat", members(10), false},
	} {
		runs := map[string]*atomic.Int64{"general": general, "flat": flat}[c.tool]
		before := runs.Load()
		w := Single(t, Post(t, h, callBody(1, c.tool, c.args), nil))
		ran := runs.Load() - before
		switch {
		case c.served && (w.IsError() || ran != 1):
			t.Errorf("%s %s: want it served, got %.300s", c.tool, c.args, w.Raw)
		case !c.served && (!w.IsError() || w.Text(t, 0) != "Invalid arguments: at /: more values (object members and array elements) than the limit of 10" || ran != 0):
			t.Errorf("%s %s: want it refused for the value limit, got %.300s", c.tool, c.args, w.Raw)
		}
	}
}
