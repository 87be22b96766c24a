package server_test

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// membersObject is an object of n members named k000000…, in an order
// that is not sorted.
func membersObject(n int) string {
	return ObjectOf(n, func(i int) string { return fmt.Sprintf(`"k%06d":0`, (i*7919)%1000000) })
}

// Every member of an object costs something for every schema applied to
// the object (package validate's TestObjectMembersCharged): the shape the
// second hostile review found uncharged, a recursive allOf of two at depth
// 16 (the first of validate's costShapes), is refused at its size of the
// review. Before the fix it took 54.7 s for 119 KB of valid arguments
// under the bound (6.9M units of 10M).
func TestObjectMembersCharged(t *testing.T) {
	const depth = 16
	sh := struct {
		schema string
		args   func(n int) []byte
	}{
		`{"$defs":{"n":{"type":["array","object"],"allOf":[{"items":{"$ref":"#/$defs/n"}},{"items":{"$ref":"#/$defs/n"}}]}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`,
		func(n int) []byte {
			return []byte(`{"a":` + strings.Repeat("[", depth) + membersObject(n) + strings.Repeat("]", depth) + `}`)
		},
	}
	// The review's reproduction, end to end: 119 KB of valid arguments.
	s := NewServer(t)
	runs := countingTool(t, s, "t", sh.schema)
	w := Single(t, Post(t, Handler(s, streamhttp.Options{}), callBody(1, "t", string(sh.args(9900))), nil))
	if !w.IsError() || !strings.Contains(w.Text(t, 0), "too large to validate") || runs.Load() != 0 {
		t.Errorf("an object of 9,900 members under a recursion of depth 16: want refused as too large to validate, got %.300s (handler ran %d)", w.Raw, runs.Load())
	}
}
