package validate

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"strconv"
	"strings"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// The schema validator (santhosh-tekuri/jsonschema) compares values
// deeply, each number through two big.Rat, and its uniqueItems hashes
// strings and member names without their length, so that ["x\u0004x"] and
// ["x","x"] collide and 16,384 items built so cost seconds. So the
// runtime takes uniqueItems, enum and const out of the compiled schema
// the validator gets (tameSchema; the tool's declared inputSchema is not
// changed) and checks them itself, in the same place of the validation
// (a SchemaExt the validator calls where the keyword was, so that anyOf,
// oneOf, not, if and the others see the same verdict): uniqueness with a
// set, membership in an enum or const by a lookup, both over a canonical
// encoding of the values (canonical), in time linear in the values.

// tameSchema rewrites the compiled schemas reachable from roots, in
// place: uniqueItems, enum and const become a valueCheck; format becomes
// an annotation unless assertFormat. (Compiled schemas are the runtime's
// own: the tool's declared inputSchema, as tools/list lists it, is not
// changed.)
//
// One case is left to the validator: a const beside a $ref in a draft-06
// or -07 schema, which the validator checks before following the $ref
// and ignoring every other keyword (an extension would not run there);
// argIndex prices it by its size.
func tameSchema(roots []*sjs.Schema, assertFormat bool) {
	for _, s := range compiledSchemas(roots) {
		var c valueCheck
		if s.UniqueItems {
			s.UniqueItems = false
			c.unique = true
		}
		if !keepsConst(s) {
			if s.Const != nil {
				c.konst = newValueSet([]any{*s.Const})
				c.constValue = *s.Const
				s.Const = nil
			}
			if s.Enum != nil {
				c.enum = newValueSet(s.Enum.Values)
				c.enumValues = s.Enum.Values
				s.Enum = nil
			}
		}
		if c.unique || c.konst != nil || c.enum != nil {
			s.Extensions = append(s.Extensions, &c)
		}
		if s.Format != nil && !assertFormat {
			s.Format = nil
		}
	}
}

// keepsConst reports whether the validator checks s's const (or enum)
// before a $ref that makes it return early (drafts before 2019-09): the
// check stays the validator's.
func keepsConst(s *sjs.Schema) bool { return s.DraftVersion < 2019 && s.Ref != nil }

// compiledSchemas returns every compiled schema reachable from roots
// through the keywords the validator follows, each once, in a stable
// order.
func compiledSchemas(roots []*sjs.Schema) []*sjs.Schema {
	seen := map[*sjs.Schema]bool{}
	var out []*sjs.Schema
	var visit func(s *sjs.Schema)
	visit = func(s *sjs.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
		for _, t := range []*sjs.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else, s.PropertyNames,
			s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema} {
			visit(t)
		}
		if s.DynamicRef != nil {
			visit(s.DynamicRef.Ref)
		}
		for _, list := range [][]*sjs.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
			for _, t := range list {
				visit(t)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
			visit(s.Properties[k])
		}
		for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
			visit(s.DependentSchemas[k])
		}
		for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
			if t, ok := s.Dependencies[k].(*sjs.Schema); ok {
				visit(t)
			}
		}
		pats := make([]sjs.Regexp, 0, len(s.PatternProperties))
		for re := range s.PatternProperties {
			pats = append(pats, re)
		}
		slices.SortFunc(pats, func(a, b sjs.Regexp) int { return strings.Compare(a.String(), b.String()) })
		for _, re := range pats {
			visit(s.PatternProperties[re])
		}
		for _, v := range []any{s.AdditionalProperties, s.AdditionalItems, s.Items} {
			switch t := v.(type) {
			case *sjs.Schema:
				visit(t)
			case []*sjs.Schema:
				for _, u := range t {
					visit(u)
				}
			}
		}
	}
	for _, r := range roots {
		visit(r)
	}
	return out
}

// dynamicAnchorPointers returns the JSON pointers of the objects of a
// schema document that have a $dynamicAnchor: the validator may apply
// them through a $dynamicRef without any keyword leading to them, so
// compile compiles them too, for tameSchema and argIndex to see.
func dynamicAnchorPointers(doc any) []string {
	var out []string
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["$dynamicAnchor"].(string); ok && ptr != "" {
				out = append(out, ptr)
			}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], ptr+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
			}
		case []any:
			for i, e := range x {
				walk(e, ptr+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(doc, "")
	return out
}

// valueCheck is the runtime's check of uniqueItems, enum and const, in
// place of the validator's (see tameSchema). It reports the validator's
// own error kinds, so messages do not change.
type valueCheck struct {
	unique     bool
	konst      *valueSet
	constValue any
	enum       *valueSet
	enumValues []any
}

// Validate implements sjs.SchemaExt.
func (c *valueCheck) Validate(ctx *sjs.ValidatorContext, v any) {
	if c.konst != nil && !c.konst.has(v) {
		ctx.AddError(&kind.Const{Got: v, Want: c.constValue})
	}
	if c.enum != nil && !c.enum.has(v) {
		ctx.AddError(&kind.Enum{Got: v, Want: c.enumValues})
	}
	if c.unique {
		if i, j := duplicate(v); i >= 0 {
			ctx.AddError(&kind.UniqueItems{Duplicates: [2]int{i, j}})
		}
	}
}

// duplicate returns the first pair of equal items of v, an array, as the
// validator does (the first item equal to an earlier one, and the first
// earlier one it equals); -1, -1 when they are unique or v is no array.
// The items' canonical encodings are hashed with a seed of this call
// (maphash: no input can be built to collide), and compared on a match.
func duplicate(v any) (int, int) {
	arr, ok := v.([]any)
	if !ok || len(arr) < 2 {
		return -1, -1
	}
	seed := maphash.MakeSeed()
	var enc []byte                           // the encodings, one after the other
	end := make([]int, 0, len(arr))          // where each ends in enc
	prev := make([]int32, len(arr))          // the previous item of the same hash, or -1
	last := make(map[uint64]int32, len(arr)) // a hash → its last item
	for i, item := range arr {
		start := len(enc)
		var ok bool
		enc, ok = appendCanonical(enc, item, nil)
		end = append(end, len(enc))
		prev[i] = -1
		if !ok {
			continue // a number big.Rat refuses: the validator finds it equal to nothing
		}
		h := maphash.Bytes(seed, enc[start:])
		if j, seen := last[h]; seen {
			// Before the first duplicate, no two earlier items are equal:
			// the equal one found, if any, is the only one.
			for ; j >= 0; j = prev[j] {
				js := 0
				if j > 0 {
					js = end[j-1]
				}
				if bytes.Equal(enc[js:end[j]], enc[start:]) {
					return int(j), i
				}
			}
			prev[i] = last[h]
		}
		last[h] = int32(i)
	}
	return -1, -1
}

// valueSet is the canonical encodings of the values of an enum or a
// const.
type valueSet struct {
	m      map[string]struct{}
	bound  canonBound // what a member's encoding holds at most
	weight int64      // what encoding a value costs at most, in valueWeight's measure (argIndex)
}

// canonBound is what the encoding of a lookup (valueSet.has) may hold
// before it stops: a value whose encoding outgrows every member of the
// set in bytes, in values, or in the members of one of its objects is
// no member. Two values JSON Schema finds equal have the same number of
// values and objects of the same sizes, so the cut-off never misses a
// member; and it comes before the work it saves (an object's names are
// sorted only once they fit), so that a lookup costs at most the set's
// largest value (argIndex charges it so).
type canonBound struct {
	bytes   int // the longest encoding
	values  int // the most values in one member (valueCount)
	members int // the most members of one object in a member
}

func newValueSet(values []any) *valueSet {
	s := &valueSet{m: make(map[string]struct{}, len(values))}
	for _, v := range values {
		b, ok := appendCanonical(nil, v, nil)
		if !ok {
			continue // holds a number big.Rat refuses: the validator finds it equal to nothing
		}
		s.m[string(b)] = struct{}{}
		n, members := valueCount(v)
		s.bound.bytes = max(s.bound.bytes, len(b))
		s.bound.values = max(s.bound.values, n)
		s.bound.members = max(s.bound.members, members)
		s.weight = max(s.weight, valueWeight(v, workCap))
	}
	return s
}

// valueCount returns the number of values in v (itself, and every
// element and member value at every depth) and the most members of one
// of its objects.
func valueCount(v any) (n, members int) {
	n = 1
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			c, m := valueCount(e)
			n, members = n+c, max(members, m)
		}
	case map[string]any:
		members = len(x)
		for _, e := range x {
			c, m := valueCount(e)
			n, members = n+c, max(members, m)
		}
	}
	return n, members
}

// has reports whether v equals a value of s, as JSON Schema defines
// equality (numbers by value, objects whatever their member order).
func (s *valueSet) has(v any) bool {
	var arr [64]byte
	bound := s.bound
	b, ok := appendCanonical(arr[:0], v, &bound)
	if !ok {
		return false
	}
	_, in := s.m[string(b)]
	return in
}

// appendCanonical appends to b an encoding of v that two values share
// exactly when JSON Schema finds them equal: numbers by their value
// (1, 1.0, 10e-1 and 1e0 alike; -0 is 0), strings and member names by
// their bytes, each with its length (so that no two sequences of strings
// run together), objects by their members sorted by name, arrays in
// order, each kind with its own tag. It reports false when v holds a
// number big.Rat refuses (the validator finds such a number equal to
// nothing), or, with a bound, as soon as the encoding outgrows it
// (bound.values counts down as values are encoded).
func appendCanonical(b []byte, v any, bound *canonBound) ([]byte, bool) {
	if bound != nil {
		if bound.values--; bound.values < 0 || len(b) > bound.bytes {
			return b, false
		}
	}
	switch x := v.(type) {
	case nil:
		return append(b, 'z'), true
	case bool:
		if x {
			return append(b, 't'), true
		}
		return append(b, 'f'), true
	case string:
		b = append(b, 's')
		b = binary.AppendUvarint(b, uint64(len(x)))
		if bound != nil && len(b)+len(x) > bound.bytes {
			return b, false
		}
		return append(b, x...), true
	case json.Number:
		return appendCanonicalNumber(b, string(x))
	case []any:
		b = append(b, 'a')
		b = binary.AppendUvarint(b, uint64(len(x)))
		// Each element is a value, and at least a byte.
		if bound != nil && (len(x) > bound.values || len(b)+len(x) > bound.bytes) {
			return b, false
		}
		for _, e := range x {
			var ok bool
			if b, ok = appendCanonical(b, e, bound); !ok {
				return b, false
			}
		}
		return b, bound == nil || len(b) <= bound.bytes
	case map[string]any:
		b = append(b, 'o')
		b = binary.AppendUvarint(b, uint64(len(x)))
		if bound != nil && !bound.fits(len(b), x) {
			return b, false // before the names are sorted
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			b = binary.AppendUvarint(b, uint64(len(k)))
			b = append(b, k...)
			var ok bool
			if b, ok = appendCanonical(b, x[k], bound); !ok {
				return b, false
			}
		}
		return b, bound == nil || len(b) <= bound.bytes
	case float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return appendCanonicalNumber(b, fmt.Sprint(x)) // as the validator reads them
	}
	return b, false // not a JSON value: the validator refuses it
}

// fits reports whether the members of an object may still fit the bound
// after n bytes of encoding: no more of them than the largest object of
// the set has, or than the values left, and at least their names, each
// with its length, and a byte of each value, within the bytes. It reads
// the names only when there are few enough of them.
func (bound *canonBound) fits(n int, x map[string]any) bool {
	if len(x) > bound.members || len(x) > bound.values {
		return false
	}
	for k := range x {
		if n += 2 + len(k); n > bound.bytes {
			return false
		}
	}
	return true
}

// appendCanonicalNumber appends the canonical form of a decimal literal:
// its sign, its significant digits (no leading or trailing zeros) with
// their count, and the power of ten of the last one; zero is "n0". It
// reports false for what big.Rat.SetString refuses: a malformed literal,
// an exponent beyond int64, or a nonzero number whose exponent less its
// fraction digits is beyond ±1,000,000.
func appendCanonicalNumber(b []byte, lit string) ([]byte, bool) {
	i := 0
	neg := false
	if i < len(lit) && (lit[i] == '-' || lit[i] == '+') {
		neg = lit[i] == '-'
		i++
	}
	mant := i
	for i < len(lit) && (lit[i] >= '0' && lit[i] <= '9' || lit[i] == '.') {
		i++
	}
	m := lit[mant:i]
	var exp int64
	if i < len(lit) {
		if lit[i] != 'e' && lit[i] != 'E' {
			return b, false
		}
		i++
		eneg := false
		if i < len(lit) && (lit[i] == '-' || lit[i] == '+') {
			eneg = lit[i] == '-'
			i++
		}
		digits := strings.TrimLeft(lit[i:], "0")
		if i == len(lit) || len(digits) > 19 {
			return b, false
		}
		u, err := strconv.ParseUint("0"+digits, 10, 64)
		if err != nil || u > 1<<63-1 && !(eneg && u == 1<<63) {
			return b, false
		}
		if u > 1<<62 {
			u = 1 << 62 // beyond ±1,000,000 whatever the fraction (and no overflow below)
		}
		exp = int64(u)
		if eneg {
			exp = -exp
		}
	}
	// The significant digits: from the first nonzero one to the last.
	first, last, frac, dot := -1, -1, 0, -1
	for j := 0; j < len(m); j++ {
		switch c := m[j]; {
		case c == '.':
			if dot >= 0 {
				return b, false
			}
			dot = j
		case c < '0' || c > '9':
			return b, false
		default:
			if dot >= 0 {
				frac++
			}
			if c != '0' {
				if first < 0 {
					first = j
				}
				last = j
			}
		}
	}
	if len(m) == 0 || m == "." {
		return b, false
	}
	if first < 0 {
		return append(b, 'n', '0'), true // zero, of either sign
	}
	if e5 := exp - int64(frac); e5 > 1e6 || e5 < -1e6 {
		return b, false
	}
	var n uint64
	trailing := int64(0) // digits after the last significant one
	for j := last + 1; j < len(m); j++ {
		if m[j] != '.' {
			trailing++
		}
	}
	for j := first; j <= last; j++ {
		if m[j] != '.' {
			n++
		}
	}
	b = append(b, 'n')
	if neg {
		b = append(b, '-')
	} else {
		b = append(b, '+')
	}
	b = binary.AppendUvarint(b, n)
	for j := first; j <= last; j++ {
		if m[j] != '.' {
			b = append(b, m[j])
		}
	}
	// The power of ten of the last significant digit: the exponent, less
	// the fraction digits, plus the zeros after it.
	return binary.AppendVarint(b, exp-int64(frac)+trailing), true
}
