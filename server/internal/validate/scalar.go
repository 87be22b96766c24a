package validate

import (
	"encoding/json"
	"math"
	"strconv"
)

// LookupPath returns the member at path (member names, outermost first)
// of a parsed JSON value (ParseValue's maps), and whether it is there.
func LookupPath(v any, path []string) (any, bool) {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// ScalarEquals reports whether a parsed JSON scalar equals text (an
// Mcp-Param-* header's decoded value): a string exactly, a boolean as
// strconv writes it, a number as the same decimal (R-HDR-08).
func ScalarEquals(val any, text string) bool {
	switch x := val.(type) {
	case string:
		return x == text
	case bool:
		return strconv.FormatBool(x) == text
	case json.Number:
		// Exactly, not through float64: 9007199254740993 is not
		// 9007199254740992, though both round to the same float64. A
		// number beyond float64 is refused.
		if f, err := strconv.ParseFloat(string(x), 64); err != nil || math.IsInf(f, 0) {
			return false
		}
		a, ok1 := ParseDecimal(string(x))
		b, ok2 := ParseDecimal(text)
		return ok1 && ok2 && a == b
	}
	return false
}
