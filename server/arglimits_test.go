package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/validate"
)

// The number limits and the validation work bound seen from a client
// (WithNumberLimits, WithMaxValidationWork; R-TOOL-10, R-SCHEMA-08); their
// unit tests, and the case-variant index's, are package validate's.

// WithNumberLimits sets both limits; zero keeps a default.
func TestNumberLimitsOption(t *testing.T) {
	for _, c := range []struct {
		opts     []Option
		args     string
		refusal  string // "" when served
		toolName string
	}{
		{[]Option{WithNumberLimits(10, 20)}, `{"x":1234567890}`, "", "num"},
		{[]Option{WithNumberLimits(10, 20)}, `{"x":12345678901}`, "at /x: number has 11 digits, more than the limit of 10", "num"},
		{[]Option{WithNumberLimits(10, 20)}, `{"x":-0.123456789}`, "", "num"},
		{[]Option{WithNumberLimits(10, 20)}, `{"x":1e20}`, "", "num"},
		{[]Option{WithNumberLimits(10, 20)}, `{"x":1e-21}`, "at /x: number's exponent is beyond the limit of ±20", "num"},
		{[]Option{WithNumberLimits(0, 0)}, `{"x":` + strings.Repeat("1", DefaultMaxNumberDigits) + `}`, "", "num"},
		{[]Option{WithNumberLimits(0, 0)}, `{"x":1e401}`, "at /x: number's exponent is beyond the limit of ±400", "num"},
		{[]Option{WithNumberLimits(200, 0)}, `{"x":` + strings.Repeat("1", 200) + `}`, "", "num"},
		{[]Option{WithNumberLimits(200, 0)}, `{"x":1e401}`, "at /x: number's exponent is beyond the limit of ±400", "num"},
		{[]Option{WithNumberLimits(10, 20)}, `{"a":[1,2,{"b":[12345678901]}]}`, "at /a/2/b/0: number has 11 digits", "general"},
		// big.Rat refuses these, and the validator then dereferences a nil
		// *big.Rat (minimum): no setting lets them through.
		{[]Option{WithNumberLimits(1<<40, 1<<40)}, `{"a":[1e9999999]}`, "at /a/0: number's exponent is beyond the limit of ±500000", "general"},
		{[]Option{WithNumberLimits(1<<40, 1<<40)}, `{"a":[1e-500001]}`, "at /a/0: number's exponent is beyond the limit of ±500000", "general"},
		{[]Option{WithNumberLimits(1<<40, 1<<40)}, `{"a":[0.` + strings.Repeat("0", 500000) + `1]}`, "at /a/0: number has 500002 digits, more than the limit of 500000", "general"},
		{[]Option{WithNumberLimits(1<<40, 1<<40)}, `{"a":[1e400000]}`, "", "general"},
	} {
		s := newServer(t, c.opts...)
		runs := countingTool(t, s, "num", `{"type":"object","properties":{"x":{"type":"number"}}}`)
		runs2 := countingTool(t, s, "general", `{"type":"object","properties":{"a":{"type":"array","items":{"minimum":0}}}}`)
		w := single(t, post(t, s.Handler(HTTPOptions{}), callBody(1, c.toolName, c.args), nil))
		switch {
		case c.refusal == "" && (w.isError() || runs.Load()+runs2.Load() != 1):
			t.Errorf("%.200s: want it served, got %.300s", c.args, w.raw)
		case c.refusal != "" && (!w.isError() || !strings.Contains(w.text(t, 0), c.refusal) || runs.Load()+runs2.Load() != 0):
			t.Errorf("%.200s: want a tool error %q, got %.300s", c.args, c.refusal, w.raw)
		}
	}
}

// structuredContent checked against an outputSchema is held to the same
// number limits: over them the result is -32603 (R-TOOL-06).
func TestStructuredContentNumberLimits(t *testing.T) {
	s := newServer(t)
	for name, sc := range map[string]string{"big": `{"n":1e999999}`, "ok": `{"n":1e300}`} {
		addTool(t, s, `{"name":"`+name+`","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"number","minimum":0}}}}`,
			func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
				return &protocol.CallToolResult{Content: []protocol.ContentBlock{Text(sc)}, StructuredContent: json.RawMessage(sc)}, nil
			})
	}
	h := s.Handler(HTTPOptions{})
	if w := call(t, h, 1, protocol.MethodToolsCall, params(M{"name": "big"})); w.code() != protocol.CodeInternalError {
		t.Errorf("1e999999 in structuredContent: %s", w.raw)
	}
	if w := call(t, h, 1, protocol.MethodToolsCall, params(M{"name": "ok"})); w.code() != 0 {
		t.Errorf("1e300 in structuredContent: %s", w.raw)
	}
}

// WithMaxValidationWork sets the bound; zero keeps the default.
func TestMaxValidationWorkOption(t *testing.T) {
	for _, c := range []struct {
		n      int64
		served bool
	}{{1000, false}, {0, true}, {-1, true}, {math.MaxInt64, true}} {
		s := newServer(t, WithMaxValidationWork(c.n))
		runs := countingTool(t, s, "records", recordsSchema)
		w := single(t, post(t, s.Handler(HTTPOptions{}), callBody(1, "records", recordsArgs(100)), nil))
		if got := !w.isError() && runs.Load() == 1; got != c.served {
			t.Errorf("WithMaxValidationWork(%d), 100 records: served %v, want %v: %.200s", c.n, got, c.served, w.raw)
		}
		if !c.served && !strings.Contains(w.text(t, 0), fmt.Sprintf("too large to validate (the work of validating them is over the limit of %d)", c.n)) {
			t.Errorf("WithMaxValidationWork(%d): %s", c.n, w.raw)
		}
	}
}

// validate.ErrorText spells out at most validate.MaxErrorLines failures.
func TestValidationTextBounded(t *testing.T) {
	s := newServer(t)
	countingTool(t, s, "ints", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer","minimum":10}}}}`)
	w := single(t, post(t, s.Handler(HTTPOptions{}), callBody(1, "ints", `{"a":[`+jsonList("1", 5000)+`]}`), nil))
	if text := w.text(t, 0); !w.isError() || strings.Count(text, "; at ") != validate.MaxErrorLines-1 || !strings.HasSuffix(text, fmt.Sprintf("; and %d more", 5000-validate.MaxErrorLines)) {
		t.Errorf("%d bytes: %.300s", len(text), text)
	}
}
