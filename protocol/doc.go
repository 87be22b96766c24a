// Package protocol holds strict Go types for every definition of the Model
// Context Protocol schema, revision 2026-07-28, and their JSON codec.
//
// Everything in this package except this file and the tests is generated
// by ../gen from the pinned upstream schema (see ../schema); regenerate with
// go generate ./... and never edit the *_gen.go files by hand.
//
// # Mapping
//
//   - Each schema definition is a Go type with exactly the definition's name.
//     Inline objects are named after their parent and member
//     (ClientCapabilitiesElicitation), inline enums shared by several
//     definitions after the member (CacheScope).
//   - A required member is a value; an optional one is a pointer, or a nil
//     slice, map or raw value. Members the schema does not declare are kept in
//     the Extra field of every struct, in arrival order, and written back.
//   - const members (type, jsonrpc, method, error codes) are not stored: they
//     are checked on decode and always written on encode, so a zero
//     TextContent encodes "type":"text". The accessor method of the same
//     name returns the value.
//   - A union (anyOf) is a struct with one field, Value, holding one of the
//     variants; the variants implement a sealed interface. Decoding chooses
//     the variant by JSON kind, by const discriminators and by required
//     members, and never by trying variants in turn.
//   - RequestId and ProgressToken keep the JSON kind they arrived with.
//   - JSONValue, JSONObject, JSONArray and free-form members (arguments,
//     structuredContent, error data) hold raw JSON, validated on decode and
//     on encode.
//   - _meta objects have typed fields for the io.modelcontextprotocol/ keys
//     (ProtocolVersion, ClientCapabilities, ClientInfo, LogLevel, ServerInfo,
//     SubscriptionId); every other key stays in Extra.
//
// # Strictness
//
// [Unmarshal] (and UnmarshalJSON, so encoding/json too) rejects, with a
// [*DecodeError] whose Path locates the value (params.content[2].type) and
// whose Kind says why:
//
//   - malformed JSON, invalid UTF-8, lone surrogates, a byte-order mark,
//     trailing data (KindSyntax);
//   - a missing required member (KindMissing);
//   - null where the schema has no null, required or optional (KindNull);
//   - a wrong const (KindConst) or enum value (KindEnum);
//   - a value of the wrong JSON type, or a fraction where an integer is
//     required (KindType);
//   - a member name that occurs twice in one object, at any depth, raw JSON
//     included (KindDuplicate);
//   - a member that matches a declared name only case-insensitively, such as
//     "NAME" next to "name" (KindCaseVariant);
//   - an undeclared member where the schema closes the object with
//     additionalProperties: false (KindUnknown; this revision closes none);
//   - nesting deeper than UnmarshalOptions.MaxDepth, 128 by default
//     (KindDepth); integers outside int64 or below the schema's minimum
//     (KindRange).
//
// [Marshal] writes const members itself and refuses values the schema
// forbids (an enum value outside the enum, a union with no value, invalid
// raw JSON) with an [*EncodeError].
package protocol

//go:generate go run ../gen
