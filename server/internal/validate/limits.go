package validate

// Limits bound what ParseValue and Parse hand to the schema validator, and
// the work Check lets it do. The validator (santhosh-tekuri/jsonschema)
// turns a json.Number into a big.Rat for integer types, minimum/maximum,
// multipleOf, enum, const and uniqueItems: "1e999999" becomes a
// million-digit integer (about 20 ms of CPU each) and a 100,000-digit
// literal costs as much. So no number longer or with a larger exponent
// than these limits is let through.
type Limits struct {
	MaxDigits   int   // digits of the mantissa (integer and fraction parts, leading zeros included)
	MaxExponent int   // |exponent| as written ("1e400": 400)
	MaxValues   int   // values (members and elements, the root included); 0: no bound
	MaxWork     int64 // the estimated work of the general validator (Check)
}

// The defaults of Limits (DefaultLimits).
const (
	// DefaultMaxDigits bounds the digits of one number.
	DefaultMaxDigits = 100
	// DefaultMaxExponent bounds the exponent, as written, of one number.
	DefaultMaxExponent = 400
	// DefaultMaxValues bounds the values of one tools/call's arguments.
	DefaultMaxValues = 200_000
	// DefaultMaxWork bounds the estimated work of validating one
	// tools/call's arguments.
	DefaultMaxWork = 10_000_000
)

// MaxNumberLimit is the most either number limit (MaxDigits,
// MaxExponent) can be set to. big.Rat refuses a number whose decimal
// exponent, less its fraction digits, is beyond ±1,000,000, and the
// validator then dereferences the nil *big.Rat (minimum, maximum,
// multipleOf): with both limits at most this, no number it is given can
// be refused so.
const MaxNumberLimit = 500_000

// DefaultLimits are the limits of a Server built without WithNumberLimits,
// WithMaxArgumentValues and WithMaxValidationWork.
func DefaultLimits() Limits {
	return Limits{MaxDigits: DefaultMaxDigits, MaxExponent: DefaultMaxExponent, MaxValues: DefaultMaxValues, MaxWork: DefaultMaxWork}
}
