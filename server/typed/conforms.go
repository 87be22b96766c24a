package typed

import (
	"encoding/json"
	"reflect"
	"strings"
)

// encodesConforming reports whether every value of t, encoded as AddTool
// encodes a result, conforms to the schema jsonschema-go infers for t, so
// that validating the encoding cannot fail (server.OutputConforms). It
// holds for a struct whose JSON fields are, recursively, booleans,
// integers, floating-point numbers, strings, pointers to such values (the
// inferred schema allows null) and slices of them other than []byte, and
// structs of the same kind, none of them with its own MarshalJSON or
// MarshalText (encodesItself). It does not hold, and the results are
// validated, for anything else: a map (a nil one encodes as null, which
// the inferred "type": "object" refuses), []byte (encoded as a base64
// string, inferred as an array), a json.Number (a number, inferred as a
// string), an array, a field tagged ",string", an embedded struct, two
// fields of the same JSON name or of names that differ only in case
// (which the validation refuses), an interface (any: encoded as it is), or
// a type that encodes itself.
func encodesConforming(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && conforming(t, map[reflect.Type]bool{})
}

func conforming(t reflect.Type, seen map[reflect.Type]bool) bool {
	if encodesItself(t) || t == reflect.TypeFor[json.Number]() { // encodesItself covers json.Marshaler and encoding.TextMarshaler
		return false // json.Number: a string kind, inferred "type": "string", encoded as a number
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	case reflect.Pointer:
		return conforming(t.Elem(), seen)
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8 && conforming(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return true // a recursive type: its fields are being checked
		}
		seen[t] = true
		names := map[string]bool{}
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				return false
			}
			tag := f.Tag.Get("json")
			if !f.IsExported() || tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			// Names that differ only in case are refused by the
			// validation as a repeated name is (validate's foldKey).
			folded := strings.ToLower(strings.ToUpper(name))
			if names[folded] || hasOption(opts, "string") || !conforming(f.Type, seen) {
				return false
			}
			names[folded] = true
		}
		return true
	}
	return false
}

// encodesItself reports whether t or *t has a method by which goccy lets
// a value write its own encoding, json.Marshaler and
// encoding.TextMarshaler among them: one named MarshalJSON (goccy calls
// MarshalJSON(context.Context) too), MarshalJSONTo (with goccy's
// jsontext.Encoder or encoding/json/jsontext's), MarshalText or
// AppendText, whatever its signature. What such a method writes need not
// conform, and goccy does not refuse duplicate member names in it
// (TestSelfEncodingNotVouched).
func encodesItself(t reflect.Type) bool {
	for _, name := range [...]string{"MarshalJSON", "MarshalJSONTo", "MarshalText", "AppendText"} {
		if _, ok := t.MethodByName(name); ok {
			return true
		}
		if _, ok := reflect.PointerTo(t).MethodByName(name); ok {
			return true
		}
	}
	return false
}

func hasOption(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// maxTrustedDepth bounds the nesting of an Out whose encoding the server
// writes unvalidated (encodesValidJSON): far under the depth the
// validation allows (protocol.DefaultMaxDepth).
const maxTrustedDepth = 32

// encodesValidJSON reports whether every encoding of t, as AddTool
// encodes a result (goccy, which validates what a type writes of itself
// and writes invalid UTF-8 as U+FFFD), is JSON the server need not
// validate again before writing it (server.StructuredContentValid): t
// encodes conforming (no maps, no type that encodes itself, no JSON name
// twice, nothing embedded: no duplicate member names), is not recursive
// and nests at most maxTrustedDepth deep, and its JSON names are
// printable ASCII with no '"' or '\\'.
func encodesValidJSON(t reflect.Type) bool {
	if !encodesConforming(t) {
		return false
	}
	d, ok := jsonDepth(t, map[reflect.Type]bool{})
	return ok && d <= maxTrustedDepth
}

// jsonDepth is the deepest nesting of objects and arrays of t's
// encodings, for a conforming t; ok is false for a recursive type or a
// field name that is not plain ASCII.
func jsonDepth(t reflect.Type, onPath map[reflect.Type]bool) (depth int, ok bool) {
	switch t.Kind() {
	case reflect.Pointer:
		return jsonDepth(t.Elem(), onPath)
	case reflect.Slice:
		d, ok := jsonDepth(t.Elem(), onPath)
		return d + 1, ok
	case reflect.Struct:
		if onPath[t] {
			return 0, false
		}
		onPath[t] = true
		defer delete(onPath, t)
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if !f.IsExported() || tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if !plainName(name) || !plainName(f.Name) {
				return 0, false
			}
			d, ok := jsonDepth(f.Type, onPath)
			if !ok {
				return 0, false
			}
			depth = max(depth, d)
		}
		return depth + 1, true
	}
	return 0, true
}

// plainName reports a name of printable ASCII other than '"' and '\\'.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
