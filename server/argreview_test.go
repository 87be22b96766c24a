package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
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
	s := newServer(t)
	var runs int
	var got string
	addTool(t, s, `{"name":"route","inputSchema":{"type":"object","properties":{"region":{"type":"string","enum":["us"],"x-mcp-header":"Region"}},"patternProperties":{"^[A-Za-z]+$":{"type":"string"}}}}`,
		func(_ context.Context, _ *Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			runs++
			var in struct {
				Region string `json:"region"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			got = in.Region
			return TextResult("region=" + in.Region), nil
		})
	h := s.Handler(HTTPOptions{})
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
		w := single(t, post(t, h, callBody(1, "route", c.args), withRegion))
		switch {
		case c.code != 0:
			if w.code() != c.code || runs != 0 {
				t.Errorf("%s: want error %d, got %s (handler ran %d times)", c.args, c.code, w.raw, runs)
			}
		case c.tool != "":
			if !w.isError() || w.text(t, 0) != c.tool || runs != 0 {
				t.Errorf("%s: want the tool error %q, got %s (handler ran %d times, saw region=%q)", c.args, c.tool, w.raw, runs, got)
			}
		default:
			if w.isError() || w.code() != 0 || runs != 1 || got != "us" {
				t.Errorf("%s: want it served with region=us, got %s (handler saw %q)", c.args, w.raw, got)
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
	s := newServer(t)
	flat := countingTool(t, s, "flat", `{"type":"object","properties":{"x":{"type":"number"}}}`)
	general := countingTool(t, s, "general", `{"type":"object","properties":{"x":{"enum":[1,2,3,10]},"a":{"type":"array","items":{"type":"number","minimum":0}}}}`)
	h := s.Handler(HTTPOptions{})
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
		w := single(t, post(t, h, callBody(1, c.tool, c.args), nil))
		ran := map[string]int64{"flat": flat.Load(), "general": general.Load()}[c.tool] - runs[c.tool]
		switch {
		case c.refusal == "" && (w.isError() || ran != 1):
			t.Errorf("%s %.80s: want it served, got %.300s", c.tool, c.args, w.raw)
		case c.refusal != "" && (!w.isError() || w.text(t, 0) != "Invalid arguments: "+c.refusal || ran != 0):
			t.Errorf("%s %.80s: want the tool error %q, got %.300s (handler ran %d times)", c.tool, c.args, c.refusal, w.raw, ran)
		}
	}
	// The literal's length counts in the validation work, and the
	// canonical form of numbers (headers, integer types) refuses such an
	// exponent too.
	if long, short := numberWeight("1"+strings.Repeat("0", 99)), numberWeight("1"); long <= short {
		t.Errorf("a 100-digit number weighs %d, 1 weighs %d", long, short)
	}
	if _, ok := parseDecimal("1e" + zeros + "1"); ok {
		t.Errorf("parseDecimal accepts an exponent of a million digits")
	}
	if d, ok := parseDecimal("1e00000001"); !ok || d.digits != "1" || d.exp != 1 {
		t.Errorf("parseDecimal(1e00000001) = %+v, %v", d, ok)
	}
}
