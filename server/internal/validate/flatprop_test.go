package validate

import (
	"fmt"
	"strings"
	"testing"
)

// TestFlatProp: prop, which compares the names of a schema of few
// members instead of hashing, finds what the props map holds, for every
// member and for names that are not members (a prefix, a case variant,
// an extension, the empty name), below and above the count where it
// hashes.
func TestFlatProp(t *testing.T) {
	types := []string{"string", "integer", "number", "boolean"}
	for n := 0; n <= 12; n++ {
		var props []string
		for i := range n {
			props = append(props, fmt.Sprintf(`"p%d":{"type":%q}`, i, types[i%len(types)]))
		}
		f := compileFlat([]byte(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`))
		if f == nil {
			t.Fatalf("%d members: not a flat schema", n)
		}
		names := []string{"", "p", "P0", "p0x", "q", "p12"}
		for i := range n {
			names = append(names, fmt.Sprintf("p%d", i))
		}
		for _, name := range names {
			wantT, wantOK := f.props[name]
			if typ, ok := f.prop([]byte(name)); typ != wantT || ok != wantOK {
				t.Errorf("%d members: prop(%q) = %q, %v; want %q, %v", n, name, typ, ok, wantT, wantOK)
			}
		}
	}
}
