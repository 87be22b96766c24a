package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/validate"
)

// InputSchema parses raw, a JSON Schema written by hand, into a tool's
// inputSchema, for AddTool or for typed.AddTool to keep:
//
//	def := protocol.Tool{Name: "paint"}
//	def.InputSchema, err = server.InputSchema(`{
//		"type": "object",
//		"properties": {"color": {"enum": ["red"]}},
//		"required": ["color"]
//	}`)
//
// It checks what AddTool checks, and says where a problem is: a syntax
// error by line and column, a root that is not {"type": "object"} (a
// tool's arguments are an object), and a keyword the JSON Schema
// compiler refuses by its JSON pointer. The default dialect is 2020-12.
func InputSchema(raw string) (protocol.ToolInputSchema, error) {
	var sch protocol.ToolInputSchema
	err := parseToolSchema("inputSchema", []byte(raw), &sch)
	return sch, err
}

// InputSchemaFrom is InputSchema for a schema held as a Go value, such as
// a map[string]any: v is encoded with encoding/json first.
func InputSchemaFrom(v any) (protocol.ToolInputSchema, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return protocol.ToolInputSchema{}, fmt.Errorf("server: inputSchema: %w", err)
	}
	return InputSchema(string(b))
}

// MustInputSchema is InputSchema for a schema fixed in the source: it
// panics on an error, so that a mistake shows when the program starts.
func MustInputSchema(raw string) protocol.ToolInputSchema {
	sch, err := InputSchema(raw)
	if err != nil {
		panic(err)
	}
	return sch
}

// OutputSchema parses raw into a tool's outputSchema, checked as
// InputSchema checks an inputSchema: the structuredContent it describes
// is an object too, so its root is {"type": "object"}.
func OutputSchema(raw string) (*protocol.ToolOutputSchema, error) {
	sch := new(protocol.ToolOutputSchema)
	if err := parseToolSchema("outputSchema", []byte(raw), sch); err != nil {
		return nil, err
	}
	return sch, nil
}

// OutputSchemaFrom is OutputSchema for a schema held as a Go value.
func OutputSchemaFrom(v any) (*protocol.ToolOutputSchema, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("server: outputSchema: %w", err)
	}
	return OutputSchema(string(b))
}

// parseToolSchema checks raw as a tool schema named what and decodes it
// into dst.
func parseToolSchema(what string, raw []byte, dst interface{ UnmarshalJSON([]byte) error }) error {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("server: %s: %w", what, jsonPosError(raw, err))
	}
	if dec.More() {
		return fmt.Errorf("server: %s: line %s: more JSON after the schema", what, jsonPos(raw, dec.InputOffset()))
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("server: %s: want a JSON object, got %s", what, validate.Kind(doc))
	}
	switch t := root["type"]; {
	case t == nil:
		return fmt.Errorf(`server: %s: "type" is missing: the root must say "type": "object"`, what)
	case t != "object":
		b, _ := json.Marshal(t)
		return fmt.Errorf(`server: %s: "type" is %s: the root must be "object", since a tool's arguments and structured content are objects`, what, b)
	}
	if _, err := validate.Compile(raw, validate.Options{MaxDepth: DefaultMaxSchemaDepth}); err != nil {
		var meta *sjs.SchemaValidationError
		if errors.As(err, &meta) {
			// The meta-schema's failures, one per keyword at fault, by
			// the JSON pointer of the schema's own location.
			return fmt.Errorf("server: %s: not a valid JSON Schema: %s", what, validate.ErrorText(meta.Err))
		}
		return fmt.Errorf("server: %s: %w", what, err)
	}
	if err := dst.UnmarshalJSON(raw); err != nil {
		return fmt.Errorf("server: %s: %w", what, err)
	}
	return nil
}

// jsonPosError adds the line and column of a decoding error's offset.
func jsonPosError(raw []byte, err error) error {
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 || off > int64(len(raw)) {
		return err
	}
	return fmt.Errorf("line %s: %w", jsonPos(raw, off), err)
}

// jsonPos is "L, column C" of the byte at offset off of raw, both from 1.
func jsonPos(raw []byte, off int64) string {
	before := raw[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n') - 1
	return fmt.Sprintf("%d, column %d", line, col)
}
