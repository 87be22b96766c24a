//go:build ignore

package protocol

import (
	"math/bits"
	"strconv"
	"strings"
)

// probe records which of a union's interesting member names an object has,
// and the string values of those members, so that the generated decoder can
// pick a branch before decoding the object once, into that branch.
type probe struct {
	present uint64
	vals    [][]byte
}

// has reports whether key number i was present.
func (p *probe) has(i int) bool { return p.present&(1<<uint(i)) != 0 }

// isOne reports whether key number i was present with the string value v.
func (p *probe) isOne(i int, v string) bool {
	return p.has(i) && p.vals[i] != nil && string(p.vals[i]) == v
}

// is reports whether key number i was present with one of the string values.
func (p *probe) is(i int, vals ...string) bool {
	if !p.has(i) || p.vals[i] == nil {
		return false
	}
	for _, v := range vals {
		if string(p.vals[i]) == v {
			return true
		}
	}
	return false
}

// probeObject scans the object at the current position without keeping
// anything but the keys listed in keys ("\x00"-separated, sorted; a dotted
// key "items.enum" looks one object deeper). keyOf is the generated lookup
// of a top-level name among keys: its index, or -1, and whether a dotted
// key looks inside it. The position is restored by the caller. When stop
// is the index of a key that alone decides the branch, the scan ends once
// that key and every other const key (need) have been read: the branch's
// own decoder then checks the whole object.
func (d *decoder) probeObject(p *probe, keys string, keyOf func(name []byte) (int, bool), n, stop int, need uint64) error {
	if cap(p.vals) < n {
		p.vals = make([][]byte, n)
	}
	p.vals = p.vals[:n]
	if err := d.beginObject(); err != nil {
		return err
	}
	first := true
	for {
		name, ok, err := d.nextMember(&first)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if d.escaped {
			name = append([]byte(nil), name...) // the value reuses the scratch buffer
		}
		idx, nested := keyOf(name)
		if idx < 0 {
			if k, ok := caseVariant(keys, name); ok {
				return &DecodeError{Kind: KindCaseVariant, Offset: d.pos, Path: string(name),
					Msg: "member name differs from declared member " + strconv.Quote(k) + " only in case"}
			}
		}
		if idx >= 0 {
			p.present |= 1 << uint(idx)
			if d.peek() == '"' {
				s, err := d.readStringBytes()
				if err != nil {
					return inField(err, string(name))
				}
				if d.escaped {
					s = append([]byte(nil), s...)
				}
				p.vals[idx] = s
				if stop >= 0 && p.has(stop) && p.present&need == need {
					return nil
				}
				continue
			}
		}
		if nested && d.peek() == '{' {
			prefix := string(name) + "."
			if err := d.probeNested(p, keys, prefix); err != nil {
				return inField(err, string(name))
			}
			continue
		}
		if err := d.skip(false); err != nil {
			return inField(err, string(name))
		}
	}
}

func (d *decoder) probeNested(p *probe, keys, prefix string) error {
	if err := d.beginObject(); err != nil {
		return err
	}
	first := true
	for {
		name, ok, err := d.nextMember(&first)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if idx, _ := keyIndex(keys, []byte(prefix+string(name))); idx >= 0 {
			p.present |= 1 << uint(idx)
		}
		if err := d.skip(false); err != nil {
			return inField(err, string(name))
		}
	}
}

// caseVariant reports a top-level key that equals name only when compared
// case-insensitively.
func caseVariant(keys string, name []byte) (string, bool) {
	for rest := keys; rest != ""; {
		var k string
		k, rest, _ = strings.Cut(rest, "\x00")
		if !strings.Contains(k, ".") && strings.EqualFold(k, string(name)) {
			return k, true
		}
	}
	return "", false
}

// keyIndex finds name in keys and reports whether some key nests under it.
func keyIndex(keys string, name []byte) (idx int, nested bool) {
	idx = -1
	i := 0
	for rest := keys; rest != ""; i++ {
		var k string
		k, rest, _ = strings.Cut(rest, "\x00")
		if k == string(name) {
			idx = i
		} else if len(k) > len(name) && k[len(name)] == '.' && k[:len(name)] == string(name) {
			nested = true
		}
	}
	return idx, nested
}

// variantSpec is what the chooser needs of one union branch.
type variantSpec struct {
	required uint64 // bits of the required keys
	consts   uint64 // bits of the discriminator keys the branch constrains
}

// choose picks the branch for an object. cand has a bit per branch whose
// discriminators all match. With one candidate it is taken, so that its own
// decoder reports what is wrong in detail. With several, the ones whose
// required members are all present are compared: most matched
// discriminators first, then most required members; a tie is ambiguous. When
// none has its required members, the candidate missing the fewest is taken,
// again for the detailed error.
func choose(p *probe, cand uint64, specs []variantSpec, union string, names string) (int, error) {
	if bits.OnesCount64(cand) == 1 {
		return bits.TrailingZeros64(cand), nil
	}
	best, bestConsts, bestReq := -1, -1, -1
	tie := -1
	for i, s := range specs {
		if cand&(1<<uint(i)) == 0 || s.required&^p.present != 0 {
			continue
		}
		c := bits.OnesCount64(s.consts & p.present)
		r := bits.OnesCount64(s.required)
		switch {
		case c > bestConsts || (c == bestConsts && r > bestReq):
			best, bestConsts, bestReq, tie = i, c, r, -1
		case c == bestConsts && r == bestReq:
			tie = i
		}
	}
	if best >= 0 {
		if tie >= 0 {
			return -1, &DecodeError{Kind: KindUnion, Offset: -1, Msg: "ambiguous " + union + ": matches both " + nth(names, best) + " and " + nth(names, tie)}
		}
		return best, nil
	}
	fewest, pick := 65, -1
	for i, s := range specs {
		if cand&(1<<uint(i)) == 0 {
			continue
		}
		if m := bits.OnesCount64(s.required &^ p.present); m < fewest {
			fewest, pick = m, i
		}
	}
	return pick, nil
}

// noVariant explains why no branch of a union matched, naming the
// discriminator member when there is one.
func noVariant(p *probe, union, discKey string, discIdx int, allSame string) error {
	switch {
	case discIdx < 0:
		return &DecodeError{Kind: KindUnion, Offset: -1, Msg: "value matches no variant of " + union}
	case !p.has(discIdx):
		return &DecodeError{Kind: KindMissing, Offset: -1, Path: discKey, Msg: "required member is missing"}
	case p.vals[discIdx] == nil:
		return &DecodeError{Kind: KindType, Offset: -1, Path: discKey, Msg: "expected string"}
	case allSame != "":
		return &DecodeError{Kind: KindConst, Offset: -1, Path: discKey,
			Msg: "must be " + strconv.Quote(allSame) + ", got " + strconv.Quote(truncate(string(p.vals[discIdx])))}
	default:
		return &DecodeError{Kind: KindUnion, Offset: -1, Path: discKey,
			Msg: "no variant of " + union + " has " + discKey + " " + strconv.Quote(truncate(string(p.vals[discIdx])))}
	}
}

// nth returns element i of a "\x00"-separated list.
func nth(list string, i int) string {
	for ; i > 0; i-- {
		_, list, _ = strings.Cut(list, "\x00")
	}
	s, _, _ := strings.Cut(list, "\x00")
	return s
}
