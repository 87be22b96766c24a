package main

// The model is what the emitters print: one declaration per Go type, with
// everything the codecs need (required members, consts, enums, union
// classification) already decided. Building it is the layer's job; printing
// it is mechanical.

// Kind is the shape of a Go type reference.
type Kind int

// The kinds of type reference.
const (
	KString Kind = iota + 1
	KInt
	KFloat
	KBool
	KNamed // a declared type of the package
	KSlice // []Elem
	KMap   // map[string]Elem
	KRaw   // json.RawMessage holding one value (RawMode says which)
)

// RawMode says which JSON values a raw member accepts.
type RawMode int

// Raw modes, mirroring protocol's rawMode.
const (
	RawAny RawMode = iota
	RawObject
	RawJSONValue
	RawJSONObject
	RawJSONArray
)

// TypeRef is a reference to a Go type.
type TypeRef struct {
	Kind Kind
	Name string   // KNamed
	Elem *TypeRef // KSlice, KMap
	Raw  RawMode  // KRaw
}

// DeclKind is the kind of a declaration.
type DeclKind int

// The kinds of declaration.
const (
	DStruct          DeclKind = iota + 1 // object with declared members
	DUnion                               // anyOf: a struct holding a sealed interface
	DEnum                                // string enum
	DString                              // named string (Cursor)
	DScalarUnion                         // string | integer (RequestId)
	DRaw                                 // validated raw JSON (JSONValue)
	DAlias                               // $ref to another definition (EmptyResult)
	DMap                                 // object with only additionalProperties
	DList                                // array variant of a union
	DFloatEnumUnused                     // placeholder to keep values stable
)

// Decl is one Go type declaration.
type Decl struct {
	Kind   DeclKind
	Name   string
	Doc    string
	Origin string // schema location, e.g. "#/$defs/Tool" or "#/$defs/Tool/properties/inputSchema"

	// DStruct
	Fields []*Field
	Closed bool // additionalProperties: false

	// DUnion
	Variants []*Variant
	KeyNames []string // probe keys: discriminators and required members of all variants

	// DEnum
	Values []string

	// DAlias, DMap, DList, DRaw; for DScalarUnion the element of its array
	// branch, if it has one
	Target TypeRef

	// DScalarUnion: the JSON kinds it accepts, from "string", "integer",
	// "number", "boolean" and "array"
	Kinds []string
}

// Field is one declared member of a struct.
type Field struct {
	JSONName string
	GoName   string
	Doc      string
	Required bool
	Type     TypeRef
	Const    *Const // the member is a const: not stored, always written
	Minimum  *float64
	Maximum  *float64
	Nullable bool // the schema's type list includes "null"
	// NullAbsent: a JSON null decodes as if the member were absent,
	// although the schema has no null (nullAsAbsent in overrides.go).
	NullAbsent bool
}

// Const is a const member's value: a string or an integer.
type Const struct {
	Str   string
	Int   int64
	IsInt bool
}

// Variant is one branch of a union.
type Variant struct {
	Type     TypeRef // KNamed for objects and lists
	GoName   string  // Go type name of the branch
	JSONKind byte    // '{' or '['
	Consts   []VariantConst
	Required []string
	// SameAs names an earlier branch with an identical schema: both accept
	// exactly the same values, so the decoder always produces the earlier one.
	SameAs string
}

// VariantConst is a discriminating const (or enum) of a union branch.
type VariantConst struct {
	Key      string
	Values   []string
	Required bool
}

// Method is one JSON-RPC method of the revision.
type Method struct {
	Name         string // "tools/call"
	Message      string // type of the whole message, e.g. CallToolRequest
	Params       string // params type, "" when there are none
	Result       string // result type for requests, "" for notifications
	Notification bool
	Directions   []string // "client-to-server", "server-to-client"
}

// ErrorCode is a JSON-RPC error code fixed by the schema.
type ErrorCode struct {
	Name string // ParseError
	Code int64
}

// Model is the whole generated package.
type Model struct {
	Package    string
	Revision   string
	Commit     string
	SHA256     string
	Source     string // "repository path" of the schema; "" for the specification's
	Decls      map[string]*Decl
	Order      []string // sorted declaration names
	Methods    []Method
	ErrorCodes []ErrorCode
}
