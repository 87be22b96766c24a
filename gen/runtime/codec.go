//go:build ignore

package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
)

// DefaultMaxDepth is the nesting limit that [Unmarshal] applies: objects and
// arrays nested deeper are refused with a [KindDepth] error before they are
// parsed any further.
const DefaultMaxDepth = 128

// wireDecoder is implemented by every generated type (on its pointer).
type wireDecoder interface {
	decodeFrom(d *decoder) error
}

// wireEncoder is implemented by every generated type (on its pointer).
type wireEncoder interface {
	encodeTo(e *encoder) error
}

// UnmarshalOptions configures strict decoding. The zero value is ready to
// use and applies the defaults.
type UnmarshalOptions struct {
	// MaxDepth limits the nesting of objects and arrays; 0 means
	// DefaultMaxDepth.
	MaxDepth int
	// MaxStringBytes limits the length of one string (member names
	// included), after unescaping; 0 means DefaultMaxStringBytes.
	MaxStringBytes int
	// MaxMembers limits the object members in the whole document; 0 means
	// DefaultMaxMembers.
	MaxMembers int
}

// The default limits of UnmarshalOptions. A document over one is refused
// with a KindLimit (or KindDepth) error as soon as the limit is crossed,
// before the rest is read.
const (
	DefaultMaxStringBytes = 16 << 20
	DefaultMaxMembers     = 1 << 20
)

// decoder returns a decoder over data with o's limits.
func (o UnmarshalOptions) decoder(data []byte) decoder {
	d := decoder{buf: data, maxDepth: o.MaxDepth, maxString: o.MaxStringBytes, maxMembers: o.MaxMembers}
	if d.maxDepth <= 0 {
		d.maxDepth = DefaultMaxDepth
	}
	if d.maxString <= 0 {
		d.maxString = DefaultMaxStringBytes
	}
	if d.maxMembers <= 0 {
		d.maxMembers = DefaultMaxMembers
	}
	return d
}

// Unmarshal decodes data into v, which must be a pointer to a type of this
// package. Decoding is strict; see the package documentation for the rules.
func (o UnmarshalOptions) Unmarshal(data []byte, v any) error {
	d := o.decoder(data)
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return &DecodeError{Kind: KindSyntax, Msg: "byte-order mark before JSON text"}
	}
	ok, err := decodeStatic(&d, v)
	if !ok {
		return fmt.Errorf("protocol: Unmarshal: %T is not a pointer to a protocol type", v)
	}
	if err != nil {
		return err
	}
	return d.end()
}

// UnmarshalVariant is Unmarshal with a hint for a union that tells its
// variants apart by one member's constant value, as a request union does
// by "method": hint is the value data is expected to carry, as a
// transport learns it beside the body (Streamable HTTP's Mcp-Method
// header). When data is that variant, it is decoded once, straight into
// it, without the scan that picks the variant. In every other case (no
// hint, a wrong one, a v without such a member, data that fails) the
// result is Unmarshal's: the value and the error never depend on the
// hint, only the work does.
func (o UnmarshalOptions) UnmarshalVariant(data []byte, v any, hint string) error {
	if hint != "" {
		d := o.decoder(data)
		if known, err := decodeAsStatic(&d, v, hint); known && err == nil && d.end() == nil {
			return nil
		}
	}
	return o.Unmarshal(data, v)
}

// Unmarshal decodes data into v with the default [UnmarshalOptions].
func Unmarshal(data []byte, v any) error {
	return UnmarshalOptions{}.Unmarshal(data, v)
}

// Marshal encodes v, a value of or a pointer to a type of this package.
// Const members are always written with their schema value, and values that
// the schema forbids (an enum value outside the enum, a union with no value)
// are an *EncodeError rather than invalid output.
func Marshal(v any) ([]byte, error) {
	e := encoder{buf: make([]byte, 0, 256)}
	if ok, err := encodeStatic(&e, v); ok {
		if err != nil {
			return nil, err
		}
		return e.buf, nil
	}
	// A value rather than a pointer: encode a pointer to a copy.
	if rv := reflect.ValueOf(v); rv.IsValid() {
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		if ev, ok := p.Interface().(wireEncoder); ok {
			return Marshal(ev)
		}
	}
	return nil, fmt.Errorf("protocol: Marshal: %T is not a protocol type", v)
}

// AppendMarshal appends the encoding of v to dst, like [Marshal] without
// the allocation of a new buffer.
func AppendMarshal(dst []byte, v any) ([]byte, error) {
	return MarshalOptions{}.AppendMarshal(dst, v)
}

// MarshalOptions configures encoding. The zero value is [Marshal]'s.
type MarshalOptions struct {
	// Trusted is raw JSON that the caller vouches for, so that it is not
	// validated again: a raw member where any JSON value may go (a
	// json.RawMessage field such as CallToolResult.StructuredContent)
	// holding this very slice (the same bytes in memory and length, not
	// an equal copy) is written as it is. Every other raw value is
	// validated as Marshal validates it. The caller must know that
	// Trusted is what that validation accepts: one JSON value in valid
	// UTF-8, with no byte-order mark and no duplicate member names,
	// nested at most DefaultMaxDepth deep, no string over
	// DefaultMaxStringBytes and at most DefaultMaxMembers members; such
	// as what an encoding/json-compatible encoder writes for a struct
	// without maps, nested a few levels deep, of a size well under those
	// bounds, that no one has changed since.
	Trusted []byte
	// Meta and MetaJSON are a _meta object that the caller encoded
	// itself, shared by many values, and its encoding (as Marshal writes
	// it): a _meta member holding this very pointer is written as
	// MetaJSON, without being encoded again. The caller must not change
	// the object once it is encoded. Without MetaJSON, Meta is ignored.
	Meta     any
	MetaJSON []byte
}

// AppendMarshal appends the encoding of v to dst, as the package's
// AppendMarshal does, with the options.
func (o MarshalOptions) AppendMarshal(dst []byte, v any) ([]byte, error) {
	e := encoder{buf: dst, trusted: o.Trusted, meta: o.Meta, metaJSON: o.MetaJSON}
	ok, err := encodeStatic(&e, v)
	if !ok {
		b, err := Marshal(v)
		return append(dst, b...), err
	}
	if err != nil {
		return dst, err
	}
	return e.buf, nil
}

// Member is one object member that the schema does not declare, kept so
// that decode → encode loses nothing (vendor keys in _meta, members added by
// a later revision).
type Member struct {
	Name  string
	Value json.RawMessage // one valid JSON value
}

// Members holds undeclared object members in the order they arrived.
type Members []Member

// Get returns the raw value of the member with the given name.
func (m Members) Get(name string) (json.RawMessage, bool) {
	for _, x := range m {
		if x.Name == name {
			return x.Value, true
		}
	}
	return nil, false
}

// Set replaces the value of the named member or appends it.
func (m *Members) Set(name string, value json.RawMessage) {
	for i, x := range *m {
		if x.Name == name {
			(*m)[i].Value = value
			return
		}
	}
	*m = append(*m, Member{Name: name, Value: value})
}

// members writes undeclared members after the declared ones. A member
// whose name the type declares (the generated declared reports it) is an
// error: it would duplicate a key. So is a name that appears twice, found
// by a scan for up to linearMembers members and by a set past that.
func (e *encoder) members(first *bool, path string, m Members, declared func(name string) bool) error {
	var names map[string]struct{}
	if len(m) > linearMembers {
		names = make(map[string]struct{}, len(m))
	}
	for i, x := range m {
		if declared(x.Name) {
			return encodeError(path, "extra member %q is declared by the schema; set the field instead", x.Name)
		}
		if names != nil {
			if _, dup := names[x.Name]; dup {
				return encodeError(path, "extra member %q appears twice", x.Name)
			}
			names[x.Name] = struct{}{}
		} else {
			for _, y := range m[:i] {
				if y.Name == x.Name {
					return encodeError(path, "extra member %q appears twice", x.Name)
				}
			}
		}
		if err := validRaw(x.Value, rawAny); err != nil {
			// The member's path is built only for the error.
			return rawError(path+"."+x.Name, err)
		}
		if *first {
			*first = false
		} else {
			e.buf = append(e.buf, ',')
		}
		e.string(x.Name)
		e.buf = append(e.buf, ':')
		e.buf = append(e.buf, x.Value...)
	}
	return nil
}

// sortedKeys returns a map's keys in order, so that maps encode
// deterministically.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
