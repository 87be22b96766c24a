package validate

import (
	"math/bits"
	"regexp/syntax"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

// patternInstsPerWeight: a pattern weighs one more (see patternWeight) for
// every patternInstsPerWeight instructions of its program.
const patternInstsPerWeight = 6

// maxPatternWeight is the weight of a pattern whose program cannot be
// measured (it is not Go's syntax): as a program of 100,000 instructions.
const maxPatternWeight = 1 + 100_000/patternInstsPerWeight

// patternWeight is what matching a pattern costs per byte of the text,
// relative to a small one. Go's regexp runs in time linear in the text,
// but times the size of the pattern's program at worst: the NFA keeps up
// to one thread per instruction alive at every byte, so
// [^@\s]{1,64}@[^@\s]{1,255} (639 instructions) costs some 1.3 µs a byte
// of a string of "a", [a-z]{1,1000}@ (2,002) 18 µs, ^[a-z]+$ (6) 12 ns
// (BenchmarkValidationWork, patterns and names). The weight is
// 1 + instructions/patternInstsPerWeight, a large class counting more
// (progQuarters).
func patternWeight(re sjs.Regexp) int64 {
	p, err := syntax.Parse(re.String(), syntax.Perl) // as regexp.Compile, which compiled it
	if err != nil {
		return maxPatternWeight
	}
	prog, err := syntax.Compile(p.Simplify())
	if err != nil {
		return maxPatternWeight
	}
	return 1 + progQuarters(prog)/4/patternInstsPerWeight
}

// progQuarters is the size of a program in quarters of an instruction:
// four for each, and more for a class of more than four ranges, which
// regexp matches by a binary search over them ([\p{L}\p{N}_], some 700
// ranges, costs a step 1.7 times [a-z]'s: 2.25 instructions).
func progQuarters(prog *syntax.Prog) int64 {
	var q int64
	for _, in := range prog.Inst {
		q += 4
		if pairs := len(in.Rune) / 2; pairs > 4 && in.Op == syntax.InstRune {
			q += int64(bits.Len(uint(pairs))) / 2
		}
	}
	return q
}

// workRegexByte is the work, per byte of a string, of asserting format
// "regex" on it (WithFormatAssertion): regexp.Compile, whose parsing
// folds every rune of a case-insensitive class's range ((?i)[A-\x{1e900}],
// 17 bytes, takes 2 ms) and whose compiling expands repetitions up to a
// thousandfold (\pL{1000}, 9 bytes, 80 µs): some 150 µs a byte at worst.
const workRegexByte = 3000

// regexFormatWork is the work of asserting format "regex" on s.
func regexFormatWork(s string) int64 { return workRegexByte * int64(1+len(s)) }
