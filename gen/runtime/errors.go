//go:build ignore

package protocol

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrorKind classifies a [DecodeError] so that callers can branch on the
// cause without matching message text.
type ErrorKind uint8

// The kinds of decoding failure.
const (
	// KindSyntax is malformed JSON: truncated input, trailing data, a bad
	// escape, invalid UTF-8, a byte-order mark.
	KindSyntax ErrorKind = iota + 1
	// KindType is a value of the wrong JSON type (a number where a string is
	// required, a fraction where an integer is required).
	KindType
	// KindNull is null where the schema allows no null.
	KindNull
	// KindMissing is a required member that is absent.
	KindMissing
	// KindConst is a member whose value differs from the schema's const.
	KindConst
	// KindEnum is a value outside the schema's enum.
	KindEnum
	// KindDuplicate is a member name that occurs twice in one object.
	KindDuplicate
	// KindCaseVariant is a member name that equals a declared name only when
	// compared case-insensitively, such as "NAME" next to "name".
	KindCaseVariant
	// KindUnknown is an undeclared member in an object the schema closes.
	KindUnknown
	// KindUnion is a value that matches no variant of a union.
	KindUnion
	// KindDepth is nesting deeper than [UnmarshalOptions.MaxDepth].
	KindDepth
	// KindRange is a number outside the range of its Go type or below the
	// schema's minimum.
	KindRange
	// KindLimit is a string longer than UnmarshalOptions.MaxStringBytes or
	// a document with more members than UnmarshalOptions.MaxMembers.
	KindLimit
)

var kindNames = [...]string{
	KindSyntax:      "syntax",
	KindType:        "type",
	KindNull:        "null",
	KindMissing:     "missing",
	KindConst:       "const",
	KindEnum:        "enum",
	KindDuplicate:   "duplicate",
	KindCaseVariant: "case-variant",
	KindUnknown:     "unknown",
	KindUnion:       "union",
	KindDepth:       "depth",
	KindRange:       "range",
	KindLimit:       "limit",
}

// String returns a short lower-case name of the kind, such as "missing".
func (k ErrorKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "ErrorKind(" + strconv.Itoa(int(k)) + ")"
}

// DecodeError reports why a JSON document does not match the schema. Path
// locates the offending value with member names and indices, such as
// "params.content[2].type"; it is empty for the top-level value.
type DecodeError struct {
	Path   string
	Kind   ErrorKind
	Offset int // byte offset in the input where the problem was found
	Msg    string
}

// Error implements the error interface.
func (e *DecodeError) Error() string {
	if e.Path == "" {
		return "protocol: " + e.Msg
	}
	return "protocol: " + e.Path + ": " + e.Msg
}

// Is reports whether target is a *DecodeError of the same kind, so that
// errors.Is(err, &protocol.DecodeError{Kind: protocol.KindMissing}) works.
func (e *DecodeError) Is(target error) bool {
	t, ok := target.(*DecodeError)
	return ok && t.Path == "" && t.Msg == "" && t.Kind == e.Kind
}

// AsDecodeError returns the *DecodeError in err's chain, if any.
func AsDecodeError(err error) (*DecodeError, bool) {
	var de *DecodeError
	ok := errors.As(err, &de)
	return de, ok
}

// inField prefixes the path of a *DecodeError with a member name.
func inField(err error, name string) error {
	if de, ok := err.(*DecodeError); ok {
		switch {
		case de.Path == "":
			de.Path = name
		case de.Path[0] == '[':
			de.Path = name + de.Path
		default:
			de.Path = name + "." + de.Path
		}
	}
	return err
}

// inIndex prefixes the path of a *DecodeError with an array index.
func inIndex(err error, i int) error {
	if de, ok := err.(*DecodeError); ok {
		seg := "[" + strconv.Itoa(i) + "]"
		switch {
		case de.Path == "" || de.Path[0] == '[':
			de.Path = seg + de.Path
		default:
			de.Path = seg + "." + de.Path
		}
	}
	return err
}

// inKey prefixes the path of a *DecodeError with a map key.
func inKey(err error, key string) error {
	return inField(err, key)
}

// EncodeError reports a Go value that cannot be written as JSON valid for its
// schema: an enum value outside the enum, a union with no value, a number
// below the schema's minimum, or a raw JSON member that is not valid JSON.
type EncodeError struct {
	Path string
	Msg  string
}

// Error implements the error interface.
func (e *EncodeError) Error() string {
	if e.Path == "" {
		return "protocol: encode: " + e.Msg
	}
	return "protocol: encode: " + e.Path + ": " + e.Msg
}

// encodeError reports a Go value that cannot be written for its schema.
func encodeError(path, format string, args ...any) error {
	return &EncodeError{Path: path, Msg: fmt.Sprintf(format, args...)}
}
