package validate

import (
	"strconv"
	"strings"
)

// A Decimal is a number in canonical form: sign, significant digits
// without leading or trailing zeros, and the power of ten of the last
// digit. Zero is the zero value. Two Decimals are equal (==) exactly when
// they are the same number.
type Decimal struct {
	neg    bool
	digits string
	exp    int64
}

// ParseDecimal reads a decimal number (an optional sign, digits with an
// optional fraction, an optional exponent), so that 42, 42.0, 4.2e1 and
// +42 are the same number and no two different numbers are. An exponent
// written with more than maxExponentDigits digits is refused (false), as
// the number limits refuse it in arguments.
func ParseDecimal(s string) (Decimal, bool) {
	var d Decimal
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		d.neg = s[i] == '-'
		i++
	}
	digits := func() string {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return s[start:i]
	}
	whole := digits()
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		frac = digits()
	}
	if whole == "" && frac == "" {
		return Decimal{}, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		start := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if n := len(digits()); n == 0 || n > maxExponentDigits {
			return Decimal{}, false // no digits, or more than the number limits let through
		}
		e, err := strconv.ParseInt(s[start:i], 10, 32) // bounded, so the sums below cannot overflow
		if err != nil {
			return Decimal{}, false
		}
		d.exp = e
	}
	if i != len(s) {
		return Decimal{}, false
	}
	all := strings.TrimLeft(whole+frac, "0")
	d.digits = strings.TrimRight(all, "0")
	d.exp += int64(len(all)-len(d.digits)) - int64(len(frac))
	if d.digits == "" {
		return Decimal{}, true // zero, of either sign
	}
	return d, true
}
