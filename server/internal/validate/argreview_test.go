package validate

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Regressions of the second hostile review of tool-argument validation,
// on the estimate and the parser (the same review's regressions seen from
// a client are package server's argreview_test.go): each test fails on the
// code before its fix.

// A number whose exponent is written with a million leading zeros is 1e1
// to the exponent limit, but every conversion to big.Rat reads all of it
// (package server's TestExponentWrittenLength: refused, naming its path).
func TestExponentWrittenLength(t *testing.T) {
	zeros := strings.Repeat("0", 1_000_000)
	// The literal's length counts in the validation work, and the
	// canonical form of numbers (headers, integer types) refuses such an
	// exponent too.
	if long, short := numberWeight("1"+strings.Repeat("0", 99)), numberWeight("1"); long <= short {
		t.Errorf("a 100-digit number weighs %d, 1 weighs %d", long, short)
	}
	if _, ok := ParseDecimal("1e" + zeros + "1"); ok {
		t.Errorf("ParseDecimal accepts an exponent of a million digits")
	}
	if d, ok := ParseDecimal("1e00000001"); !ok || d.digits != "1" || d.exp != 1 {
		t.Errorf("ParseDecimal(1e00000001) = %+v, %v", d, ok)
	}
}

// unitCost is the validator's time per unit of the estimate on args, the
// work bound lifted: the shortest of three runs.
func unitCost(t *testing.T, schema, args string) (float64, int64) {
	t.Helper()
	tl := inputFor(t, schema)
	v, err := ParseValue(context.Background(), []byte(args), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	units, _, _ := tl.index.scan(context.Background(), v, math.MaxInt64)
	best := time.Duration(1 << 62)
	for range 3 {
		start := time.Now()
		_ = tl.root.Validate(v)
		best = min(best, time.Since(start))
	}
	return float64(best.Nanoseconds()) / float64(units), units
}

// A pattern's cost per byte grows with the size of its program (Go's NFA
// keeps up to a thread per instruction): [a-z]{1,1000}@, 2,002
// instructions, costs some 18 µs a byte of "aaa…", ^[a-z]+$ 12 ns. The
// estimate weighs each pattern by its program, for strings (pattern) and
// member names (patternProperties) alike, so that a unit costs about the
// same whatever the pattern: within a factor of 20 here (it was 1,500).
// (Three strings of 1 MiB against [^@\s]{1,64}@[^@\s]{1,255}, which took
// 4.4 s under the bound, are refused: package server's
// TestPatternWorkProportional.)
func TestPatternWorkProportional(t *testing.T) {
	if testing.Short() {
		t.Skip("times the validator")
	}
	const small, big = `^[a-z]+$`, `[a-z]{1,1000}@`
	str := func(p string) string {
		return `{"type":"object","properties":{"s":{"type":"string","pattern":` + strconv.Quote(p) + `}}}`
	}
	name := func(p string) string {
		return `{"type":"object","patternProperties":{` + strconv.Quote(p) + `:{}}}`
	}
	lo, hi := math.Inf(1), 0.0
	for _, c := range []struct{ what, schema, args string }{
		{"string, small pattern", str(small), `{"s":"` + strings.Repeat("a", 64<<10) + `"}`},
		{"string, big pattern", str(big), `{"s":"` + strings.Repeat("a", 1<<10) + `"}`},
		{"name, small pattern", name(small), `{"` + strings.Repeat("a", 64<<10) + `":1}`},
		{"name, big pattern", name(big), `{"` + strings.Repeat("a", 1<<10) + `":1}`},
	} {
		ns, units := unitCost(t, c.schema, c.args)
		t.Logf("%-22s %8d units, %7.1f ns/unit", c.what, units, ns)
		lo, hi = min(lo, ns), max(hi, ns)
	}
	if hi > 20*lo {
		t.Errorf("a unit costs from %.1f to %.1f ns depending on the pattern: more than 20 times", lo, hi)
	}
}

// The values of arguments are counted (countValues) as
// WithMaxArgumentValues counts them (package server's
// TestArgumentValuesLimit): 10 values pass, 11 do not.
func TestArgumentValuesLimit(t *testing.T) {
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
		if got := countValues([]byte(c.args), 1<<30); !c.served && got != 11 || c.served && got > 10 {
			t.Errorf("countValues(%s) = %d", c.args, got)
		}
	}
}
