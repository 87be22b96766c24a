package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/validate"
)

// The number limits and the validation work bound seen from a client
// (WithNumberLimits, WithMaxValidationWork; R-TOOL-10, R-SCHEMA-08); their
// unit tests, and the case-variant index's, are package validate's.

// WithNumberLimits sets both limits; zero keeps a default.
func TestNumberLimitsOption(t *testing.T) {
	for _, c := range []struct {
		opts     []any
		args     string
		refusal  string // "" when served
		toolName string
	}{
		{[]any{server.WithNumberLimits(10, 20)}, `{"x":1234567890}`, "", "num"},
		{[]any{server.WithNumberLimits(10, 20)}, `{"x":12345678901}`, "at /x: number has 11 digits, more than the limit of 10", "num"},
		{[]any{server.WithNumberLimits(10, 20)}, `{"x":-0.123456789}`, "", "num"},
		{[]any{server.WithNumberLimits(10, 20)}, `{"x":1e20}`, "", "num"},
		{[]any{server.WithNumberLimits(10, 20)}, `{"x":1e-21}`, "at /x: number's exponent is beyond the limit of ±20", "num"},
		{[]any{server.WithNumberLimits(0, 0)}, `{"x":` + strings.Repeat("1", server.DefaultMaxNumberDigits) + `}`, "", "num"},
		{[]any{server.WithNumberLimits(0, 0)}, `{"x":1e401}`, "at /x: number's exponent is beyond the limit of ±400", "num"},
		{[]any{server.WithNumberLimits(200, 0)}, `{"x":` + strings.Repeat("1", 200) + `}`, "", "num"},
		{[]any{server.WithNumberLimits(200, 0)}, `{"x":1e401}`, "at /x: number's exponent is beyond the limit of ±400", "num"},
		{[]any{server.WithNumberLimits(10, 20)}, `{"a":[1,2,{"b":[12345678901]}]}`, "at /a/2/b/0: number has 11 digits", "general"},
		// big.Rat refuses these, and the validator then dereferences a nil
		// *big.Rat (minimum): no setting lets them through.
		{[]any{server.WithNumberLimits(1<<40, 1<<40)}, `{"a":[1e9999999]}`, "at /a/0: number's exponent is beyond the limit of ±500000", "general"},
		{[]any{server.WithNumberLimits(1<<40, 1<<40)}, `{"a":[1e-500001]}`, "at /a/0: number's exponent is beyond the limit of ±500000", "general"},
		{[]any{server.WithNumberLimits(1<<40, 1<<40)}, `{"a":[0.` + strings.Repeat("0", 500000) + `1]}`, "at /a/0: number has 500002 digits, more than the limit of 500000", "general"},
		{[]any{server.WithNumberLimits(1<<40, 1<<40)}, `{"a":[1e400000]}`, "", "general"},
	} {
		s := NewServer(t, c.opts...)
		runs := countingTool(t, s, "num", `{"type":"object","properties":{"x":{"type":"number"}}}`)
		runs2 := countingTool(t, s, "general", `{"type":"object","properties":{"a":{"type":"array","items":{"minimum":0}}}}`)
		w := Single(t, Post(t, Handler(s, streamhttp.Options{}), callBody(1, c.toolName, c.args), nil))
		switch {
		case c.refusal == "" && (w.IsError() || runs.Load()+runs2.Load() != 1):
			t.Errorf("%.200s: want it served, got %.300s", c.args, w.Raw)
		case c.refusal != "" && (!w.IsError() || !strings.Contains(w.Text(t, 0), c.refusal) || runs.Load()+runs2.Load() != 0):
			t.Errorf("%.200s: want a tool error %q, got %.300s", c.args, c.refusal, w.Raw)
		}
	}
}

// structuredContent checked against an outputSchema is held to the same
// number limits: over them the result is -32603 (R-TOOL-06).
func TestStructuredContentNumberLimits(t *testing.T) {
	s := NewServer(t)
	for name, sc := range map[string]string{"big": `{"n":1e999999}`, "ok": `{"n":1e300}`} {
		AddTool(t, s, `{"name":"`+name+`","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"number","minimum":0}}}}`,
			func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
				return &protocol.CallToolResult{Content: []protocol.ContentBlock{server.Text(sc)}, StructuredContent: json.RawMessage(sc)}, nil
			})
	}
	h := Handler(s, streamhttp.Options{})
	if w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "big"})); w.Code() != protocol.CodeInternalError {
		t.Errorf("1e999999 in structuredContent: %s", w.Raw)
	}
	if w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "ok"})); w.Code() != 0 {
		t.Errorf("1e300 in structuredContent: %s", w.Raw)
	}
}

// WithMaxValidationWork sets the bound; zero keeps the default.
func TestMaxValidationWorkOption(t *testing.T) {
	for _, c := range []struct {
		n      int64
		served bool
	}{{1000, false}, {0, true}, {-1, true}, {math.MaxInt64, true}} {
		s := NewServer(t, server.WithMaxValidationWork(c.n))
		runs := countingTool(t, s, "records", recordsSchema)
		w := Single(t, Post(t, Handler(s, streamhttp.Options{}), callBody(1, "records", recordsArgs(100)), nil))
		if got := !w.IsError() && runs.Load() == 1; got != c.served {
			t.Errorf("WithMaxValidationWork(%d), 100 records: served %v, want %v: %.200s", c.n, got, c.served, w.Raw)
		}
		if !c.served && !strings.Contains(w.Text(t, 0), fmt.Sprintf("too large to validate (the work of validating them is over the limit of %d)", c.n)) {
			t.Errorf("WithMaxValidationWork(%d): %s", c.n, w.Raw)
		}
	}
}

// validate.ErrorText spells out at most validate.MaxErrorLines failures.
func TestValidationTextBounded(t *testing.T) {
	s := NewServer(t)
	countingTool(t, s, "ints", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer","minimum":10}}}}`)
	w := Single(t, Post(t, Handler(s, streamhttp.Options{}), callBody(1, "ints", `{"a":[`+jsonList("1", 5000)+`]}`), nil))
	if text := w.Text(t, 0); !w.IsError() || strings.Count(text, "; at ") != validate.MaxErrorLines-1 || !strings.HasSuffix(text, fmt.Sprintf("; and %d more", 5000-validate.MaxErrorLines)) {
		t.Errorf("%d bytes: %.300s", len(text), text)
	}
}
