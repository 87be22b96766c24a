package typed

import (
	"encoding"
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
// MarshalText. It does not hold, and the results are validated, for
// anything else: a map (a nil one encodes as null, which the inferred
// "type": "object" refuses), []byte (encoded as a base64 string, inferred
// as an array), an array, a field tagged ",string", an embedded struct, two
// fields of the same JSON name, an interface (any: encoded as it is), or a
// type that encodes itself.
func encodesConforming(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && conforming(t, map[reflect.Type]bool{})
}

func conforming(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t.Implements(reflect.TypeFor[json.Marshaler]()) || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Marshaler]()) ||
		t.Implements(reflect.TypeFor[encoding.TextMarshaler]()) || reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
		return false
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
			if names[name] || hasOption(opts, "string") || !conforming(f.Type, seen) {
				return false
			}
			names[name] = true
		}
		return true
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
