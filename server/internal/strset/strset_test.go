package strset_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/server/internal/strset"
)

func TestSet(t *testing.T) {
	members := []string{"b", "a", "ab", "", "abc", "test://x"}
	p := strset.Pack(members)
	for _, m := range members {
		if !p.Has(m) {
			t.Errorf("%q not found", m)
		}
	}
	for _, v := range []string{"c", "aa", "abcd", "test://", "test://xy"} {
		if p.Has(v) {
			t.Errorf("%q found", v)
		}
	}
	var empty strset.Set
	if empty.Has("") || strset.Pack(nil).Has("a") {
		t.Error("the empty set has a member")
	}
}
