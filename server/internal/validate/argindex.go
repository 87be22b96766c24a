package validate

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

// An argIndex is what AddTool precomputes from a compiled inputSchema for
// the two checks that run on parsed arguments before the validator:
//
//   - Case variants. Arguments are validated with member names matched
//     exactly, as JSON Schema says, but the decoders most handlers use
//     (encoding/json, goccy) match them ignoring case: {"Region":"x"}
//     fills a field tagged "region", skipping the declared property's
//     constraints and its x-mcp-header (no Mcp-Param-* header is expected
//     for an absent argument). So a member whose name equals a property
//     declared at its place only ignoring case (foldKey) is refused, at
//     every depth. A name declared exactly is not a variant; a name a
//     patternProperties pattern matches still is one when it folds to a
//     declared property (the handler's decoder folds case whatever the
//     schema says: {"Region":…} matched by "^[A-Za-z]+$" would still fill
//     the field of the declared "region").
//   - Validation work. The validator (santhosh-tekuri/jsonschema) cannot
//     be interrupted, and its work is not the size of the instance times
//     the size of the schema: a subschema reached through two branches of
//     an allOf is evaluated twice, and through recursion that doubles at
//     each level of the instance; a pattern costs up to an instruction of
//     its program per byte. So the work is estimated first, on the same
//     walk, and arguments over the bound are refused before the validator
//     runs. (uniqueItems, enum and const are the runtime's own, linear
//     checks: valueCheck.) Every schema applied to an object walks all
//     its members, whatever applies to them, and a true or false schema
//     costs the validator's set-up wherever it is applied (items: true,
//     on every element): both are counted, so that the estimate bounds
//     the validator's work from above.
//
// "At its place" is every subschema that may apply at that instance
// location: reached through properties, patternProperties,
// additionalProperties, unevaluatedProperties, items, prefixItems,
// additionalItems, contains and unevaluatedItems from the root, and, in
// place, through allOf, anyOf, oneOf, not, if, then, else,
// dependentSchemas, dependencies, $ref, $dynamicRef (every schema with its
// anchor) and $recursiveRef: all of them, whether or not they end up
// applying (the union of their declared names; the sum of their work).
type argIndex struct {
	root vec // the root schema
}

// An ischema is one compiled subschema, with the keywords the checks need.
type ischema struct {
	id   int
	own  [numKinds]int64 // work of its own keywords on a value of each kind
	num  int64           // work per number weight of its keywords that make a big.Rat
	str  int64           // work per 64 bytes of a string of its keywords that scan it
	uniq bool            // uniqueItems: work in proportion to the array's contents
	// enum and const sets (valueCheck), and the most of a value their
	// lookup encodes (in valueWeight's measure)
	canon, canonCap int64
	regex           bool // format "regex" asserted: regexp.Compile of the string
	// leaf: a true or false schema, which the validator applies at once
	// (but for its set-up) without looking into the value.
	leaf bool
	// unevaluatedProperties, unevaluatedItems: the validator keeps the
	// set of the members (items) not yet evaluated, through every schema
	// applied in place.
	unevalProps, unevalItems bool
	member                   int64 // work per member of an object it applies to (objValidate's loop)

	inPlace    []*ischema // subschemas applied at the same place (repeated when reached twice)
	props      map[string]*ischema
	patterns   []patternEdge
	additional *ischema // additionalProperties, when a schema
	uneval     *ischema // unevaluatedProperties
	propNames  *ischema
	prefix     []*ischema // prefixItems, or the array form of items
	rest       []*ischema // the elements after prefix: items, additionalItems
	every      []*ischema // every element: contains, unevaluatedItems

	dynAnchor, dynRef string // $dynamicAnchor, and the anchor of $dynamicRef
	recAnchor, recRef bool   // $recursiveAnchor: true; a $recursiveRef

	agg *iagg // over the closure, once computed
}

type patternEdge struct {
	re     sjs.Regexp
	weight int64 // patternWeight
	to     *ischema
}

// iagg is what applies where one ischema is applied: its closure (itself
// and every subschema applied in place, with multiplicity) summed.
type iagg struct {
	work     [numKinds]int64
	num, str int64
	uniq     int64
	canon    int64             // enum and const lookups (valueCheck)
	canonCap int64             // the most of a value one of them encodes
	regex    int64             // format "regex" assertions
	patCost  int64             // pattern weights to match against every member name
	groupPat int64             // the pattern weights of groups: the walk matches them itself (member)
	names    map[string]vec    // declared names → what applies to their values
	sorted   []string          // the declared names, sorted
	folded   map[string]string // foldKey → a declared name, when there are many
	groups   []memberGroup     // how undeclared names map, when a pattern is involved
	other    vec               // what applies to undeclared names (no pattern involved)
	prefix   []vec             // what applies to the first elements
	rest     vec               // what applies to the others
	names0   vec               // propertyNames
	// The work per member of an object (per element of an array) of the
	// schemas of the closure themselves, whatever applies to the member:
	// each one the validator applies to an object walks all its members
	// (objValidate), and with unevaluatedProperties (unevaluatedItems) in
	// the closure each one builds and merges the set of those not yet
	// evaluated.
	member, element int64
	leaf            bool // the closure is a true or false schema alone
}

// memberGroup is one schema of a closure with patternProperties,
// additionalProperties or unevaluatedProperties, when a pattern is
// involved: what it applies to an undeclared member depends on the name.
type memberGroup struct {
	m int64
	t *ischema
}

// A vec is a sum of subschemas with multiplicities: what applies at one
// instance location. Each entry's closure applies too (its agg).
type vec []entry

type entry struct {
	s *ischema
	m int64
}

// Instance kinds, for the work of keywords that apply to one kind.
const (
	kindNull = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
	numKinds
)

// The work of validation, in units of 5 to 55 ns of the validator's time
// on an idle core (calibrated with BenchmarkValidationWork: a shape that
// costs more per unit than the others gets a larger weight).
const (
	workApply   = 10 // applying one schema to one value: the validator's set-up and type check
	workKeyword = 1  // one keyword that does not scan the value
	workNumber  = 6  // a keyword that makes a big.Rat of a number, per number weight
	workEnumNum = 20 // comparing a number with one number of an enum or const (two big.Rat)
	workBranch  = 10 // a branch of anyOf or oneOf: a failed one builds an error
	workError   = 10 // a keyword that may fail builds an error
	workPattern = 64 // a pattern of weight 1 (patternWeight), per 64 bytes of the string
	workFormat  = 64 // a format (WithFormatAssertion), per 64 bytes of the string
	workLength  = 1  // minLength or maxLength, per 64 bytes
	workUnique  = 12 // uniqueItems, per value (its canonical encoding, hashed: valueCheck)
	workName    = 4  // matching one member name against a pattern of weight 1, and workPattern per 64 bytes of it
	// workMember is one member of an object, for each schema applied to
	// the object: objValidate's loop, and the estimate's own walk of the
	// member for each entry of what applies (member).
	workMember = 2
	// workAdditional is one member of an object refused by
	// additionalProperties false: its name in the error.
	workAdditional = 3
	workUneval     = 4 // one member (item) in the set of those not yet evaluated, for each schema that builds one
	// workCanonical is an enum or const lookup (valueCheck), per value
	// encoded (valueWeight's measure).
	workCanonical = 2
)

// numberWeightDigits: a number counts one more in the validation work for
// every numberWeightDigits of its length and exponent (see numberWeight).
const numberWeightDigits = 40

// numberWeight is what a number literal counts in the validation work:
// one, and one more for every numberWeightDigits of its written length
// and of its exponent, as the validator's big.Rat conversion reads the
// whole literal and its arithmetic grows with the exponent.
func numberWeight[T ~string | ~[]byte](lit T) int64 {
	_, e, _ := numberSize(lit)
	return 1 + int64(len(lit)+e)/numberWeightDigits
}

// maxClosure bounds the sum of the closure sizes an index computes.
const maxClosure = 1 << 20

// workCap is where work sums stop growing (saturate): far above any bound.
const workCap = math.MaxInt64 / 4

func satAdd(a, b int64) int64 {
	if a > workCap-b {
		return workCap
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > workCap/b {
		return workCap
	}
	return a * b
}

// newArgIndex indexes a compiled schema (tamed: see tameSchema); dynamic
// are the schemas of it that only a $dynamicRef may reach.
func newArgIndex(root *sjs.Schema, dynamic ...*sjs.Schema) (*argIndex, error) {
	b := &ibuilder{nodes: map[*sjs.Schema]*ischema{}, clos: map[*ischema]vec{}}
	if root == nil || root.Bool != nil {
		return &argIndex{}, nil // true or false: nothing to check
	}
	r := b.node(root)
	for _, d := range dynamic {
		b.node(d)
	}
	b.linkDynamic()
	if err := b.aggregate(r); err != nil {
		return nil, err
	}
	return &argIndex{root: vec{{s: r, m: 1}}}, nil
}

type ibuilder struct {
	nodes    map[*sjs.Schema]*ischema
	all      []*ischema
	clos     map[*ischema]vec
	closSize int
}

// node makes the ischema of s, and of everything reachable from it.
func (b *ibuilder) node(s *sjs.Schema) *ischema {
	if s == nil {
		return nil
	}
	if n, ok := b.nodes[s]; ok {
		return n
	}
	n := &ischema{id: len(b.all)}
	b.nodes[s] = n
	b.all = append(b.all, n)
	if s.Bool != nil {
		// The validator's set-up for one value (a true schema), and an
		// error (false); it looks no further.
		n.leaf = true
		w := int64(workApply)
		if !*s.Bool {
			w += workError
		}
		for k := range n.own {
			n.own[k] = w
		}
		return n
	}
	n.unevalProps, n.unevalItems = s.UnevaluatedProperties != nil, s.UnevaluatedItems != nil
	n.member = workMember
	if s.AdditionalProperties == false {
		n.member += workAdditional // the name of each member it refuses, in the error
	}
	if s.PropertyNames != nil {
		n.member += workApply // a validator of its own for each name, besides the schema applied to it
	}
	n.dynAnchor, n.recAnchor = s.DynamicAnchor, s.RecursiveAnchor
	add := func(list []*ischema, t *sjs.Schema) []*ischema {
		if c := b.node(t); c != nil {
			list = append(list, c)
		}
		return list
	}
	n.own = ownWork(s)
	n.num, n.str = numberWork(s), stringWork(s)
	for _, ext := range s.Extensions {
		if c, ok := ext.(*valueCheck); ok {
			n.uniq = n.uniq || c.unique
			for _, set := range []*valueSet{c.konst, c.enum} {
				if set != nil {
					n.canon++
					n.canonCap = max(n.canonCap, set.weight+1)
				}
			}
		}
	}
	n.regex = s.Format != nil && s.Format.Name == "regex"

	for _, t := range []*sjs.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else} {
		n.inPlace = add(n.inPlace, t)
	}
	if s.DynamicRef != nil {
		n.inPlace = add(n.inPlace, s.DynamicRef.Ref)
		n.dynRef = s.DynamicRef.Anchor
	}
	n.recRef = s.RecursiveRef != nil
	for _, list := range [][]*sjs.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, t := range list {
			n.inPlace = add(n.inPlace, t)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
		n.inPlace = add(n.inPlace, s.DependentSchemas[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
		if t, ok := s.Dependencies[k].(*sjs.Schema); ok {
			n.inPlace = add(n.inPlace, t)
		}
	}

	if len(s.Properties) > 0 {
		n.props = make(map[string]*ischema, len(s.Properties))
		for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
			n.props[k] = b.node(s.Properties[k])
		}
	}
	res := make([]sjs.Regexp, 0, len(s.PatternProperties))
	for re := range s.PatternProperties {
		res = append(res, re)
	}
	sort.Slice(res, func(i, j int) bool { return res[i].String() < res[j].String() })
	for _, re := range res {
		n.patterns = append(n.patterns, patternEdge{re: re, weight: patternWeight(re), to: b.node(s.PatternProperties[re])})
	}
	if t, ok := s.AdditionalProperties.(*sjs.Schema); ok {
		n.additional = b.node(t)
	}
	n.uneval = b.node(s.UnevaluatedProperties)
	n.propNames = b.node(s.PropertyNames)

	switch it := s.Items.(type) {
	case *sjs.Schema:
		n.rest = add(n.rest, it)
	case []*sjs.Schema:
		for _, t := range it {
			n.prefix = append(n.prefix, b.node(t))
		}
	}
	if t, ok := s.AdditionalItems.(*sjs.Schema); ok {
		n.rest = add(n.rest, t)
	}
	for _, t := range s.PrefixItems {
		n.prefix = append(n.prefix, b.node(t))
	}
	n.rest = add(n.rest, s.Items2020)
	n.every = add(n.every, s.Contains)
	n.every = add(n.every, s.UnevaluatedItems)
	return n
}

// linkDynamic applies, in place of a $dynamicRef, every schema with its
// $dynamicAnchor, and in place of a $recursiveRef every schema with
// $recursiveAnchor: which one applies depends on the dynamic scope.
func (b *ibuilder) linkDynamic() {
	dyn := map[string][]*ischema{}
	var rec []*ischema
	for _, t := range b.all {
		if t.dynAnchor != "" {
			dyn[t.dynAnchor] = append(dyn[t.dynAnchor], t)
		}
		if t.recAnchor {
			rec = append(rec, t)
		}
	}
	for _, n := range b.all {
		if n.dynRef != "" {
			n.inPlace = append(n.inPlace, dyn[n.dynRef]...)
		}
		if n.recRef {
			n.inPlace = append(n.inPlace, rec...)
		}
	}
}

// ownWork is the work of the keywords of s that do not depend on the
// value's size, per kind of value.
func ownWork(s *sjs.Schema) [numKinds]int64 {
	var w [numKinds]int64
	base := int64(workApply)
	if s.Types != nil {
		base += workError
	}
	if s.Const != nil {
		base += workError // left to the validator (keepsConst)
	}
	if s.Enum != nil {
		base += workError + int64(len(s.Enum.Values))*workKeyword
	}
	for _, ext := range s.Extensions {
		if c, ok := ext.(*valueCheck); ok && (c.konst != nil || c.enum != nil) {
			base += workError
		}
	}
	base += int64(len(s.AllOf)) * workKeyword
	base += int64(len(s.AnyOf)+len(s.OneOf)) * workBranch
	if s.Not != nil || s.If != nil {
		base += workBranch
	}
	if s.Ref != nil || s.DynamicRef != nil || s.RecursiveRef != nil {
		base += workKeyword
	}
	for i := range w {
		w[i] = base
	}
	obj := int64(len(s.Required)+len(s.Properties)+len(s.Dependencies)+len(s.DependentRequired)+len(s.DependentSchemas)) * workKeyword
	if s.MinProperties != nil || s.MaxProperties != nil {
		obj += workKeyword
	}
	if s.Required != nil || s.AdditionalProperties == false {
		obj += workError
	}
	w[kindObject] += obj
	if s.MinItems != nil || s.MaxItems != nil || s.Contains != nil {
		w[kindArray] += workError
	}
	if s.Const != nil {
		// A const the validator compares itself (keepsConst): element by
		// element, numbers through big.Rat, up to the const's size.
		switch c := (*s.Const).(type) {
		case []any:
			w[kindArray] = satAdd(w[kindArray], satMul(workEnumNum, valueWeight(c, workCap)))
		case map[string]any:
			w[kindObject] = satAdd(w[kindObject], satMul(workEnumNum, valueWeight(c, workCap)))
		case string:
			w[kindString] += workLength * int64(1+len(c)/64)
		}
	}
	if s.MinLength != nil || s.MaxLength != nil || s.Pattern != nil || s.Format != nil {
		w[kindString] += workError
	}
	if s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil {
		w[kindNumber] += workError
	}
	return w
}

// numberWork is the work, per number weight, of the keywords of s that
// turn a number into a big.Rat: an integer type (for a literal with a
// fraction or an exponent), the bounds, multipleOf, and each number of
// its enum or const.
func numberWork(s *sjs.Schema) int64 {
	var w int64
	if s.Types != nil && slices.Contains(s.Types.ToStrings(), "integer") {
		w += workNumber
	}
	for _, r := range []bool{s.Minimum != nil, s.Maximum != nil, s.ExclusiveMinimum != nil, s.ExclusiveMaximum != nil, s.MultipleOf != nil} {
		if r {
			w += workNumber
		}
	}
	if s.MultipleOf != nil {
		w += 2 * workNumber // a quotient, and IsInt
	}
	isNum := func(v any) bool {
		switch v.(type) {
		case json.Number, float64, float32, int, int64, int32, uint64:
			return true
		}
		return false
	}
	if s.Const != nil && isNum(*s.Const) {
		w += workEnumNum
	}
	if s.Enum != nil {
		for _, v := range s.Enum.Values {
			if isNum(v) {
				w += workEnumNum
			}
		}
	}
	return w
}

// stringWork is the work, per 64 bytes of a string, of the keywords of s
// that scan it: a pattern by its weight (patternWeight), a format (when
// asserted: WithFormatAssertion).
func stringWork(s *sjs.Schema) int64 {
	var w int64
	if s.Pattern != nil {
		w += workPattern * patternWeight(s.Pattern)
	}
	if s.Format != nil {
		w += workFormat
	}
	if s.MinLength != nil || s.MaxLength != nil {
		w += workLength
	}
	return w
}

// closure returns n and what applies in place with it, with
// multiplicities. A cycle through in-place keywords alone is cut (the
// validator refuses it as soon as it meets it).
func (b *ibuilder) closure(n *ischema, active map[*ischema]bool) (vec, error) {
	if c, ok := b.clos[n]; ok {
		return c, nil
	}
	active[n] = true
	sum := vec{{s: n, m: 1}}
	for _, t := range n.inPlace {
		if active[t] {
			continue
		}
		c, err := b.closure(t, active)
		if err != nil {
			return nil, err
		}
		sum = append(sum, c...)
	}
	delete(active, n)
	sum = sum.normal()
	if b.closSize += len(sum); b.closSize > maxClosure {
		return nil, fmt.Errorf("its subschemas combine in too many ways (more than %d) to bound the work of validating against it", maxClosure)
	}
	b.clos[n] = sum
	return sum, nil
}

// normal merges the entries of v that name the same schema, in id order.
func (v vec) normal() vec {
	if len(v) < 2 {
		return v
	}
	sort.Slice(v, func(i, j int) bool { return v[i].s.id < v[j].s.id })
	out := v[:1]
	for _, e := range v[1:] {
		if last := &out[len(out)-1]; last.s == e.s {
			last.m = satAdd(last.m, e.m)
		} else {
			out = append(out, e)
		}
	}
	return out
}

// scaled appends m × src to dst.
func (v vec) scaled(m int64, src vec) vec {
	for _, e := range src {
		v = append(v, entry{s: e.s, m: satMul(m, e.m)})
	}
	return v
}

// leaves reports whether every schema of v is a true or false schema
// alone: nothing applies to the children of the value.
func (v vec) leaves() bool {
	for _, e := range v {
		if !e.s.agg.leaf {
			return false
		}
	}
	return true
}

// one returns the vec of a single schema, nil for none.
func one(m int64, s *ischema) vec {
	if s == nil {
		return nil
	}
	return vec{{s: s, m: m}}
}

// aggregate computes the agg of n and of every schema a child location
// may get, reachable from it.
func (b *ibuilder) aggregate(root *ischema) error {
	todo := []*ischema{root}
	for len(todo) > 0 {
		n := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if n.agg != nil {
			continue
		}
		a, err := b.agg(n)
		if err != nil {
			return err
		}
		n.agg = a
		for _, v := range a.children() {
			for _, e := range v {
				if e.s.agg == nil {
					todo = append(todo, e.s)
				}
			}
		}
		for _, g := range a.groups {
			for _, p := range g.t.patterns {
				if p.to != nil && p.to.agg == nil {
					todo = append(todo, p.to)
				}
			}
			for _, t := range []*ischema{g.t.additional, g.t.uneval} {
				if t != nil && t.agg == nil {
					todo = append(todo, t)
				}
			}
		}
	}
	return nil
}

func (a *iagg) children() []vec {
	out := []vec{a.other, a.rest, a.names0}
	out = append(out, a.prefix...)
	for _, v := range a.names {
		out = append(out, v)
	}
	return out
}

func (b *ibuilder) agg(n *ischema) (*iagg, error) {
	c, err := b.closure(n, map[*ischema]bool{})
	if err != nil {
		return nil, err
	}
	a := &iagg{leaf: n.leaf && len(c) == 1}
	names := map[string]bool{}
	withPatterns := false
	prefixLen := 0
	var applied int64 // the schemas of the closure that look into a value
	unevalProps, unevalItems := false, false
	for _, e := range c {
		t := e.s
		if !t.leaf {
			applied = satAdd(applied, e.m)
			a.member = satAdd(a.member, satMul(e.m, t.member))
		}
		unevalProps = unevalProps || t.unevalProps
		unevalItems = unevalItems || t.unevalItems
		for k := range a.work {
			a.work[k] = satAdd(a.work[k], satMul(e.m, t.own[k]))
		}
		a.num = satAdd(a.num, satMul(e.m, t.num))
		a.str = satAdd(a.str, satMul(e.m, t.str))
		if t.uniq {
			a.uniq = satAdd(a.uniq, e.m)
		}
		a.canon = satAdd(a.canon, satMul(e.m, t.canon))
		a.canonCap = max(a.canonCap, t.canonCap)
		if t.regex {
			a.regex = satAdd(a.regex, e.m)
		}
		for k := range t.props {
			names[k] = true
		}
		for _, p := range t.patterns {
			a.patCost = satAdd(a.patCost, satMul(e.m, p.weight))
		}
		withPatterns = withPatterns || len(t.patterns) > 0
		prefixLen = max(prefixLen, len(t.prefix))
		a.names0 = a.names0.scaled(e.m, one(1, t.propNames))
	}
	a.names0 = a.names0.normal()
	if unevalProps {
		a.member = satAdd(a.member, satMul(applied, workUneval))
	}
	if unevalItems {
		a.element = satMul(applied, workUneval)
	}
	a.sorted = slices.Sorted(maps.Keys(names))
	if len(a.sorted) > 0 {
		a.names = make(map[string]vec, len(a.sorted))
	}
	for _, k := range a.sorted {
		var sub vec
		for _, e := range c {
			sub = sub.scaled(e.m, memberVec(e.s, k))
		}
		a.names[k] = sub.normal()
	}
	if len(a.sorted) >= manyNames {
		a.folded = make(map[string]string, len(a.sorted))
		for _, k := range a.sorted {
			if _, dup := a.folded[foldKey(k)]; !dup {
				a.folded[foldKey(k)] = k
			}
		}
	}
	for _, e := range c {
		t := e.s
		switch {
		case withPatterns && (len(t.patterns) > 0 || t.additional != nil || t.uneval != nil):
			a.groups = append(a.groups, memberGroup{m: e.m, t: t})
		case !withPatterns:
			a.other = a.other.scaled(e.m, one(1, t.additional)).scaled(e.m, one(1, t.uneval))
		}
	}
	a.other = a.other.normal()
	for _, g := range a.groups {
		for _, p := range g.t.patterns {
			a.groupPat = satAdd(a.groupPat, p.weight)
		}
	}
	for i := range prefixLen {
		var v vec
		for _, e := range c {
			t := e.s
			if i < len(t.prefix) {
				v = v.scaled(e.m, one(1, t.prefix[i]))
			} else {
				v = v.scaled(e.m, list(t.rest))
			}
			v = v.scaled(e.m, list(t.every))
		}
		a.prefix = append(a.prefix, v.normal())
	}
	for _, e := range c {
		a.rest = a.rest.scaled(e.m, list(e.s.rest)).scaled(e.m, list(e.s.every))
	}
	a.rest = a.rest.normal()
	return a, nil
}

// list is the vec of some schemas, each once.
func list(ss []*ischema) vec {
	var v vec
	for _, s := range ss {
		v = append(v, entry{s: s, m: 1})
	}
	return v
}

// memberVec is what t itself (not its closure) applies to a member named
// k: the property, the patterns matching k, else additionalProperties;
// and unevaluatedProperties (counted always).
func memberVec(t *ischema, k string) vec {
	var v vec
	p, declared := t.props[k]
	if declared {
		v = append(v, one(1, p)...)
	}
	matched := false
	for _, pe := range t.patterns {
		if pe.re.MatchString(k) {
			matched = true
			v = append(v, one(1, pe.to)...)
		}
	}
	if !declared && !matched {
		v = append(v, one(1, t.additional)...)
	}
	return append(v, one(1, t.uneval)...)
}

// manyNames is the number of declared names from which a closure looks
// case variants up by their folded key rather than comparing with each.
const manyNames = 8

// variant returns the declared name that k, not declared itself, equals
// ignoring case (as foldKey does); "" for none.
func (a *iagg) variant(k string) string {
	if a.folded != nil {
		return a.folded[foldKey(k)]
	}
	for _, d := range a.sorted {
		if sameFolded(d, k) {
			return d
		}
	}
	return ""
}

// argScan is one walk of parsed arguments along an index.
type argScan struct {
	limit int64 // stop counting past it
	work  int64
	found caseVariants
	path  []pathSeg
	ctx   context.Context
	steps int
	err   error // the context's, when it ended
}

// scan walks v: it returns the estimated validation work (at least limit
// + 1 when over it), the case variants found (none when the work is over
// the limit: the walk stops there), and ctx's error if it ended.
func (idx *argIndex) scan(ctx context.Context, v any, limit int64) (int64, caseVariants, error) {
	s := argScan{limit: limit, ctx: ctx, steps: ctxCheckEvery}
	s.walk(v, idx.root)
	if s.err != nil {
		return 0, nil, s.err
	}
	if s.work > limit {
		return s.work, nil, nil
	}
	if len(s.found) > 1 {
		sort.Slice(s.found, func(i, j int) bool { return s.found[i].Error() < s.found[j].Error() })
	}
	return s.work, s.found, nil
}

func (s *argScan) add(w int64) { s.work = satAdd(s.work, w) }

// stopped reports whether the walk is over: the work past the limit, or
// the context ended (checked every ctxCheckEvery values).
func (s *argScan) stopped() bool {
	if s.err != nil || s.work > s.limit {
		return true
	}
	if s.steps--; s.steps <= 0 {
		s.steps = ctxCheckEvery
		if s.ctx != nil {
			s.err = s.ctx.Err()
		}
	}
	return s.err != nil
}

func (s *argScan) walk(v any, here vec) {
	if len(here) == 0 || s.stopped() {
		return
	}
	kind := kindNull
	switch x := v.(type) {
	case bool:
		kind = kindBool
	case json.Number:
		kind = kindNumber
		w := numberWeight(x)
		for _, e := range here {
			s.add(satMul(e.m, satMul(e.s.agg.num, w)))
		}
	case string:
		kind = kindString
		blocks := int64(1 + len(x)/64)
		regex := int64(-1)
		for _, e := range here {
			s.add(satMul(e.m, satMul(e.s.agg.str, blocks)))
			if e.s.agg.regex > 0 {
				if regex < 0 {
					regex = regexFormatWork(x)
				}
				s.add(satMul(e.m, satMul(e.s.agg.regex, regex)))
			}
		}
	case []any:
		kind = kindArray
		var per int64
		for _, e := range here {
			per = satAdd(per, satMul(e.m, e.s.agg.element))
		}
		s.add(satMul(per, int64(len(x))))
		if !here.leaves() {
			s.array(x, here)
		}
	case map[string]any:
		kind = kindObject
		var per int64
		for _, e := range here {
			per = satAdd(per, satMul(e.m, e.s.agg.member))
		}
		s.add(satMul(per, int64(len(x))))
		if !here.leaves() {
			s.object(x, here)
		}
	}
	canonCap := int64(0)
	for _, e := range here {
		s.add(satMul(e.m, e.s.agg.work[kind]))
		if e.s.agg.canon > 0 {
			canonCap = max(canonCap, e.s.agg.canonCap)
		}
	}
	if canonCap > 0 {
		// enum and const lookups encode v, up to their largest value.
		w := min(valueWeight(v, canonCap), canonCap)
		for _, e := range here {
			s.add(satMul(e.m, satMul(e.s.agg.canon, satMul(workCanonical, w))))
		}
	}
}

func (s *argScan) object(x map[string]any, here vec) {
	for k, val := range x {
		if s.stopped() {
			return
		}
		s.path = append(s.path, pathSeg{key: k, idx: -1})
		child := s.member(k, here)
		s.walk(val, child)
		s.path = s.path[:len(s.path)-1]
	}
}

// member returns what applies to member k of an object where here
// applies, counts the matching of its name, and records it when it is a
// case variant of a declared name.
func (s *argScan) member(k string, here vec) vec {
	declared, variantOf := false, ""
	// Matching the name against each pattern: a fixed cost, and the
	// pattern's weight per byte, as for a string (workPattern per 64 bytes).
	nameWork := int64(workName + len(k)*workPattern/64)
	for _, e := range here {
		a := e.s.agg
		if _, ok := a.names[k]; ok {
			declared = true
		} else if variantOf == "" {
			variantOf = a.variant(k)
		}
		s.add(satMul(e.m, satMul(a.patCost, nameWork)))
		if len(a.names0) > 0 {
			s.walk(k, vec(nil).scaled(e.m, a.names0)) // propertyNames, applied to the name
		}
	}
	if !declared && variantOf != "" {
		s.found = append(s.found, &ValueError{path: renderPath(s.path), reason: fmt.Sprintf("member name differs only in case from the declared property '%s'", variantOf)})
		return nil
	}
	if len(here) == 1 && here[0].m == 1 {
		a := here[0].s.agg
		if v, ok := a.names[k]; ok {
			return v
		}
		if a.groups == nil {
			return a.other
		}
	}
	var out vec
	for _, e := range here {
		a := e.s.agg
		if v, ok := a.names[k]; ok {
			out = out.scaled(e.m, v)
			continue
		}
		// The walk matches the name against the patterns of the groups
		// (memberVec), once for the entry: as costly as the validator's
		// matching, and before the validator runs.
		s.add(satMul(a.groupPat, nameWork))
		out = out.scaled(e.m, a.other)
		for _, g := range a.groups {
			out = out.scaled(satMul(e.m, g.m), memberVec(g.t, k))
		}
	}
	return out.normal()
}

func (s *argScan) array(x []any, here vec) {
	prefixLen := 0
	for _, e := range here {
		prefixLen = max(prefixLen, len(e.s.agg.prefix))
	}
	at := func(i int) vec {
		if len(here) == 1 && here[0].m == 1 {
			a := here[0].s.agg
			if i < len(a.prefix) {
				return a.prefix[i]
			}
			return a.rest
		}
		var out vec
		for _, e := range here {
			a := e.s.agg
			if i < len(a.prefix) {
				out = out.scaled(e.m, a.prefix[i])
			} else {
				out = out.scaled(e.m, a.rest)
			}
		}
		return out.normal()
	}
	rest := at(prefixLen)
	s.path = append(s.path, pathSeg{})
	for i, el := range x {
		if s.stopped() {
			break
		}
		s.path[len(s.path)-1].idx = i
		child := rest
		if i < prefixLen {
			child = at(i)
		}
		s.walk(el, child)
	}
	s.path = s.path[:len(s.path)-1]
	var uniq int64
	for _, e := range here {
		uniq = satAdd(uniq, satMul(e.m, e.s.agg.uniq))
	}
	if uniq > 0 && len(x) > 1 {
		s.add(satMul(uniq, satMul(workUnique, valueWeight(x, s.limit))))
	}
}

// valueWeight counts the values of v, a number weighing more with its
// size, stopping past limit.
func valueWeight(v any, limit int64) int64 {
	switch x := v.(type) {
	case []any:
		n := int64(1)
		for _, e := range x {
			if n = satAdd(n, valueWeight(e, limit)); n > limit {
				break
			}
		}
		return n
	case map[string]any:
		n := int64(1)
		for _, e := range x {
			if n = satAdd(n, valueWeight(e, limit)); n > limit {
				break
			}
		}
		return n
	case json.Number:
		return numberWeight(x)
	case string:
		return int64(1 + len(x)/64)
	}
	return 1
}

// caseVariants is the error of the members refused as case variants.
type caseVariants []*ValueError

// maxReported bounds the case variants one error lists.
const maxReported = 8

func (c caseVariants) Error() string {
	var b strings.Builder
	for i, e := range c {
		if i == maxReported {
			fmt.Fprintf(&b, "; and %d more", len(c)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}
