package server

import (
	"context"
	"encoding/json"
	"net/http"
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
