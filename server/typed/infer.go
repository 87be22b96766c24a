package typed

import (
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpwire/mcpwire/protocol"
)

// InferSchema returns the JSON Schema of T as github.com/google/jsonschema-go
// infers it with opts (nil for the defaults; TypeSchemas overrides the
// schema of chosen types, IgnoreInvalidTypes skips the fields it cannot
// describe), for editing before it goes into a tool with ToolSchemas: add
// an enum, a pattern, descriptions or bounds the Go type cannot carry.
//
// A pointer to a struct is inferred as the struct, as AddTool infers
// In (the arguments are never null); any other type as jsonschema.ForType
// infers it, as AddTool infers Out.
func InferSchema[T any](opts *jsonschema.ForOptions) (*jsonschema.Schema, error) {
	t := reflect.TypeFor[T]()
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		t = t.Elem()
	}
	sch, err := jsonschema.ForType(t, opts)
	if err != nil {
		return nil, fmt.Errorf("typed: InferSchema[%s]: %w", reflect.TypeFor[T](), err)
	}
	return sch, nil
}

// ToolSchemas sets def's inputSchema from in and its outputSchema from
// out; a nil schema leaves its member as it is. in must be an object
// schema ("type": "object"). AddTool keeps schemas set this way
// (checking them against In and Out) instead of inferring its own.
func ToolSchemas(def *protocol.Tool, in, out *jsonschema.Schema) error {
	if in != nil {
		var sch protocol.ToolInputSchema
		if err := schemaInto(in, &sch); err != nil {
			return fmt.Errorf("typed: tool %s: inputSchema: %w (a tool's arguments are an object: \"type\" must be \"object\")", def.Name, err)
		}
		def.InputSchema = sch
	}
	if out != nil {
		sch := new(protocol.ToolOutputSchema)
		if err := schemaInto(out, sch); err != nil {
			return fmt.Errorf("typed: tool %s: outputSchema: %w", def.Name, err)
		}
		def.OutputSchema = sch
	}
	return nil
}
