package legacy

// The hand-written rules of docs/dual-era.md §3.7 (H1–H14) that run around
// the generated zero functions. Each one is a function with a table test in
// rules_test.go; docs/conversion.md lists them for users.

import (
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// ---- fallbacks: union branches a revision lacks (called by the zero pass) ----

// fallbackContentBlock is H3: a content block of a kind r cannot carry is
// replaced by a text block saying what it was. Audio (2024-11-05) becomes
// "[<mime> content omitted: protocol 2024-11-05 has no audio content]"; a
// resource link (before 2025-06-18) becomes "<title or name>: <uri>", with
// the description on a second line. Annotations are carried over
// (projected for r); _meta is not.
func fallbackContentBlock(v *protocol.ContentBlock, r Rev) (*protocol.ContentBlock, error) {
	var text string
	var ann *protocol.Annotations
	switch x := v.Value.(type) {
	case *protocol.AudioContent:
		text = fmt.Sprintf("[%s content omitted: protocol %s has no audio content]", x.MIMEType, r)
		ann = x.Annotations
	case *protocol.ResourceLink:
		name := x.Name
		if x.Title != nil && *x.Title != "" {
			name = *x.Title
		}
		text = name + ": " + x.URI
		if x.Description != nil && *x.Description != "" {
			text += "\n" + *x.Description
		}
		ann = x.Annotations
	default:
		return nil, &notExpressible{what: fmt.Sprintf("%T content", v.Value), rev: r}
	}
	tc, err := zeroTextContent(&protocol.TextContent{Text: text, Annotations: ann}, r)
	if err != nil {
		return nil, err
	}
	return &protocol.ContentBlock{Value: tc}, nil
}

// notExpressible is the error of a value r has no way to carry (H12).
type notExpressible struct {
	what string
	rev  Rev
}

func (e *notExpressible) Error() string {
	return fmt.Sprintf("legacy: %s cannot be expressed in protocol %s", e.what, e.rev)
}

// fallbackLegacySamplingMessageContent is H11 and H12 for sampling
// messages: before 2025-11-25 a message holds one block, so a one-block
// array is sent as that block; a longer array, tool_use and tool_result
// blocks (2025-11-25 only) and audio (not in 2024-11-05) cannot be sent.
func fallbackLegacySamplingMessageContent(v *mcp20251125.SamplingMessageContent, r Rev) (*mcp20251125.SamplingMessageContent, error) {
	switch x := v.Value.(type) {
	case mcp20251125.SamplingMessageContentList:
		if len(x) != 1 {
			return nil, &notExpressible{what: fmt.Sprintf("sampling content of %d blocks", len(x)), rev: r}
		}
		var one mcp20251125.SamplingMessageContent
		switch b := x[0].Value.(type) {
		case *mcp20251125.TextContent:
			one.Value = b
		case *mcp20251125.ImageContent:
			one.Value = b
		case *mcp20251125.AudioContent:
			one.Value = b
		case *mcp20251125.ToolUseContent:
			one.Value = b
		case *mcp20251125.ToolResultContent:
			one.Value = b
		default:
			return nil, &notExpressible{what: "an empty sampling content block", rev: r}
		}
		if _, isList := one.Value.(mcp20251125.SamplingMessageContentList); isList {
			return nil, &notExpressible{what: "nested sampling content", rev: r}
		}
		return zeroLegacySamplingMessageContent(&one, r)
	case *mcp20251125.AudioContent:
		return nil, &notExpressible{what: "audio sampling content", rev: r}
	case *mcp20251125.ToolUseContent:
		return nil, &notExpressible{what: "tool_use sampling content", rev: r}
	case *mcp20251125.ToolResultContent:
		return nil, &notExpressible{what: "tool_result sampling content", rev: r}
	}
	return nil, &notExpressible{what: fmt.Sprintf("%T sampling content", v.Value), rev: r}
}

// fallbackLegacyElicitRequestParams is H12: URL elicitation exists only in
// 2025-11-25 (and elicitation only from 2025-06-18).
func fallbackLegacyElicitRequestParams(v *mcp20251125.ElicitRequestParams, r Rev) (*mcp20251125.ElicitRequestParams, error) {
	if _, ok := v.Value.(*mcp20251125.ElicitRequestURLParams); ok {
		return nil, &notExpressible{what: "URL elicitation", rev: r}
	}
	return nil, &notExpressible{what: "elicitation", rev: r}
}

// fallbackLegacyPrimitiveSchemaDefinition is H10 and H12 for the property
// schemas of a form elicitation sent to 2025-06-18, which knows one enum
// shape, EnumSchema {type, enum, enumNames?}: a titled single-select
// ({oneOf: [{const, title}]}) becomes enum + enumNames, losslessly;
// multi-selects (type: array) cannot be sent.
func fallbackLegacyPrimitiveSchemaDefinition(v *mcp20251125.PrimitiveSchemaDefinition, r Rev) (*mcp20251125.PrimitiveSchemaDefinition, error) {
	switch x := v.Value.(type) {
	case *mcp20251125.TitledSingleSelectEnumSchema:
		e := &mcp20251125.LegacyTitledEnumSchema{Title: x.Title, Description: x.Description, Extra: x.Extra}
		for _, o := range x.OneOf {
			e.Enum = append(e.Enum, o.Const)
			e.EnumNames = append(e.EnumNames, o.Title)
		}
		z, err := zeroLegacyLegacyTitledEnumSchema(e, r)
		if err != nil {
			return nil, err
		}
		return &mcp20251125.PrimitiveSchemaDefinition{Value: z}, nil
	case *mcp20251125.UntitledMultiSelectEnumSchema, *mcp20251125.TitledMultiSelectEnumSchema:
		return nil, &notExpressible{what: "a multi-select enum property", rev: r}
	}
	return nil, &notExpressible{what: fmt.Sprintf("the property schema %T", v.Value), rev: r}
}
