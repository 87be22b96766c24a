package server

import (
	"fmt"
	"strings"
	"testing"
)

// membersObject is an object of n members named k000000…, in an order
// that is not sorted.
func membersObject(n int) string {
	return objectOf(n, func(i int) string { return fmt.Sprintf(`"k%06d":0`, (i*7919)%1000000) })
}

// objectOf is the JSON object of the n members member(0) … member(n-1)
// writes.
func objectOf(n int, member func(i int) string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(member(i))
	}
	b.WriteByte('}')
	return b.String()
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
	s := newServer(t)
	runs := countingTool(t, s, "t", sh.schema)
	w := single(t, post(t, s.Handler(HTTPOptions{}), callBody(1, "t", string(sh.args(9900))), nil))
	if !w.isError() || !strings.Contains(w.text(t, 0), "too large to validate") || runs.Load() != 0 {
		t.Errorf("an object of 9,900 members under a recursion of depth 16: want refused as too large to validate, got %.300s (handler ran %d)", w.raw, runs.Load())
	}
}
