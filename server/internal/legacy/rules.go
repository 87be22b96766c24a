package legacy

// The hand-written rules of docs/dual-era.md §3.7 (H1–H14) that run around
// the generated zero functions. Each one is a function with a table test in
// rules_test.go; docs/conversion.md lists them for users.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// resultRules applies the hand rules that act on a whole result, before
// the zero pass. It returns res or a copy; res is never modified.
func resultRules(res any, r Rev) (any, error) {
	switch x := res.(type) {
	case *protocol.InputRequiredResult:
		// H8: the bridge turns it into server-to-client requests.
		return nil, errors.New("legacy: an input_required result is never sent in a session: the bridge serves it")
	case *protocol.CallToolResult:
		if x == nil {
			return nil, errNilValue
		}
		x = structuredOutput(x, r)
		if m, ok := dropServerInfo(x.Meta); ok {
			c := *x
			c.Meta = m
			x = &c
		}
		return x, nil
	case *protocol.ListToolsResult:
		if x == nil {
			return nil, errNilValue
		}
		tools, err := toolSchemas(x.Tools, r)
		if err != nil {
			return nil, err
		}
		m, dropMeta := dropServerInfo(x.Meta)
		if tools != nil || dropMeta || !envelopeOK(x.CacheScope, x.TTLMs) {
			c := *x
			if tools != nil {
				c.Tools = tools
			}
			c.Meta = m
			fixEnvelope(&c.CacheScope, &c.TTLMs)
			x = &c
		}
		return x, nil
	case *protocol.ListPromptsResult:
		return cleaned(x, func(v *protocol.ListPromptsResult) envelopeFields {
			return envelopeFields{&v.Meta, &v.CacheScope, &v.TTLMs}
		})
	case *protocol.ListResourcesResult:
		return cleaned(x, func(v *protocol.ListResourcesResult) envelopeFields {
			return envelopeFields{&v.Meta, &v.CacheScope, &v.TTLMs}
		})
	case *protocol.ListResourceTemplatesResult:
		return cleaned(x, func(v *protocol.ListResourceTemplatesResult) envelopeFields {
			return envelopeFields{&v.Meta, &v.CacheScope, &v.TTLMs}
		})
	case *protocol.ReadResourceResult:
		return cleaned(x, func(v *protocol.ReadResourceResult) envelopeFields {
			return envelopeFields{&v.Meta, &v.CacheScope, &v.TTLMs}
		})
	case *protocol.GetPromptResult:
		return cleaned(x, func(v *protocol.GetPromptResult) envelopeFields { return envelopeFields{meta: &v.Meta} })
	case *protocol.CompleteResult:
		return cleaned(x, func(v *protocol.CompleteResult) envelopeFields { return envelopeFields{meta: &v.Meta} })
	}
	return res, nil
}

// envelopeFields point at a result's envelope members: its _meta and, on
// a result that has them, its caching hints (nil otherwise).
type envelopeFields struct {
	meta  **protocol.ResultMetaObject
	scope *protocol.CacheScope
	ttl   *int64
}

// cleaned returns x, or a copy of it without serverInfo in _meta (H2) and
// with valid caching hints, when either needs it; fields finds the
// envelope members of a value of x's type.
func cleaned[T any](x *T, fields func(*T) envelopeFields) (any, error) {
	if x == nil {
		return nil, errNilValue
	}
	f := fields(x)
	m, dropMeta := dropServerInfo(*f.meta)
	if !dropMeta && (f.scope == nil || envelopeOK(*f.scope, *f.ttl)) {
		return x, nil
	}
	c := *x
	f = fields(&c)
	*f.meta = m
	if f.scope != nil {
		fixEnvelope(f.scope, f.ttl)
	}
	return &c, nil
}

// dropServerInfo (H2) returns a result _meta without
// io.modelcontextprotocol/serverInfo, and whether that changed anything:
// a legacy result never names the server in _meta (stamp() is not called
// for legacy outcomes; this covers a handler that set it). A _meta left
// empty is dropped.
func dropServerInfo(m *protocol.ResultMetaObject) (*protocol.ResultMetaObject, bool) {
	if m == nil || m.ServerInfo == nil {
		return m, false
	}
	if len(m.Extra) == 0 {
		return nil, true
	}
	return &protocol.ResultMetaObject{Extra: m.Extra}, true
}

// envelopeOK reports whether the cache hints encode: they are removed
// after encoding (H2), but the encoder refuses values the schema forbids.
func envelopeOK(scope protocol.CacheScope, ttl int64) bool {
	return scope.Valid() && ttl >= 0
}

// fixEnvelope makes cache hints encodable; legacy never sends them.
func fixEnvelope(scope *protocol.CacheScope, ttl *int64) {
	if !scope.Valid() {
		*scope = protocol.CacheScopePrivate
	}
	if *ttl < 0 {
		*ttl = 0
	}
}

// structuredOutput is H4 for a tool result: structuredContent is kept only
// when r declares it (2025-06-18 on) and it is a JSON object, as those
// revisions require; otherwise it is removed and, when content would then
// be empty, a text block with its compact JSON carries it instead.
func structuredOutput(x *protocol.CallToolResult, r Rev) *protocol.CallToolResult {
	sc := x.StructuredContent
	if sc == nil || (r >= Rev20250618 && isJSONObject(sc)) {
		return x
	}
	c := *x
	c.StructuredContent = nil
	if len(c.Content) == 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, sc); err != nil {
			b.Reset()
			b.Write(sc)
		}
		c.Content = []protocol.ContentBlock{{Value: &protocol.TextContent{Text: b.String()}}}
	}
	return &c
}

// isJSONObject reports whether raw JSON holds an object.
func isJSONObject(raw []byte) bool {
	i := skipSpace(raw, 0)
	return i < len(raw) && raw[i] == '{'
}

// toolSchemas is H1 and H4 for a tools/list page: input and output
// schemas are JSON Schema and copied verbatim, except where r's schema
// constrains them (properties: objects; required: strings; an output
// schema's root: type "object"). A boolean property schema is rewritten to
// its object form (true → {}, false → {"not":{}}), which means the same.
// An output schema r cannot carry is dropped (H4); an input schema it
// cannot carry is an error naming the tool. It returns nil when no tool
// changes, else a new slice (the registry's definitions are shared).
func toolSchemas(tools []protocol.Tool, r Rev) ([]protocol.Tool, error) {
	var out []protocol.Tool
	for i := range tools {
		t := &tools[i]
		in, inChanged, ok := fitSchema(t.InputSchema.Extra, false)
		if !ok {
			return nil, fmt.Errorf("legacy: tool %q: its inputSchema cannot be expressed in protocol %s (properties must be schema objects, required a list of names)", t.Name, r)
		}
		var outSchema *protocol.ToolOutputSchema
		outChanged := false
		if t.OutputSchema != nil && r >= Rev20250618 {
			extra, changed, ok := fitSchema(t.OutputSchema.Extra, true)
			switch {
			case !ok:
				outChanged = true // H4: dropped
			case changed:
				outSchema = &protocol.ToolOutputSchema{Schema: t.OutputSchema.Schema, Extra: extra}
				outChanged = true
			}
		}
		if !inChanged && !outChanged {
			continue
		}
		if out == nil {
			out = make([]protocol.Tool, len(tools))
			copy(out, tools)
		}
		if inChanged {
			out[i].InputSchema = protocol.ToolInputSchema{Schema: t.InputSchema.Schema, Extra: in}
		}
		if outChanged {
			out[i].OutputSchema = outSchema
		}
	}
	return out, nil
}

// fitSchema checks the members of a tool schema that the legacy schemas
// constrain, and returns them fixed when a boolean property schema had to
// be rewritten. objectRoot requires "type": "object" among them (output
// schemas; an input schema's type is a const of the Go type).
func fitSchema(extra protocol.Members, objectRoot bool) (protocol.Members, bool, bool) {
	var out protocol.Members
	hasType := false
	for i, m := range extra {
		switch m.Name {
		case "type":
			var s string
			if json.Unmarshal(m.Value, &s) != nil || s != "object" {
				return nil, false, false
			}
			hasType = true
		case "required":
			var names []string
			if t := bytes.TrimSpace(m.Value); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &names) != nil {
				return nil, false, false
			}
		case "properties":
			fixed, changed, ok := fitProperties(m.Value)
			if !ok {
				return nil, false, false
			}
			if changed {
				if out == nil {
					out = append(protocol.Members(nil), extra...)
				}
				out[i].Value = fixed
			}
		}
	}
	if objectRoot && !hasType {
		return nil, false, false
	}
	if out != nil {
		return out, true, true
	}
	return extra, false, true
}

// fitProperties checks that raw is an object whose members are objects,
// rewriting boolean schemas; it reports whether it rewrote any.
func fitProperties(raw json.RawMessage) (json.RawMessage, bool, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false, false
	}
	var b bytes.Buffer
	b.WriteByte('{')
	changed := false
	for n := 0; dec.More(); n++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, false, false
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false, false
		}
		key, _ := json.Marshal(name)
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(key)
		b.WriteByte(':')
		switch t := bytes.TrimSpace(v); {
		case len(t) > 0 && t[0] == '{':
			b.Write(t)
		case bytes.Equal(t, []byte("true")):
			b.WriteString("{}")
			changed = true
		case bytes.Equal(t, []byte("false")):
			b.WriteString(`{"not":{}}`)
			changed = true
		default:
			return nil, false, false
		}
	}
	if !changed {
		return raw, false, true
	}
	b.WriteByte('}')
	return b.Bytes(), true, true
}

// notificationRules is H7: list_changed notifications go out without
// params (a session has no listen streams, so no subscriptionId), and
// resources/updated without the modern subscriptionId. It returns the
// method to write bare, or the notification (n or a copy) to project.
func notificationRules(n any) (any, string, error) {
	switch x := n.(type) {
	case *protocol.ToolListChangedNotification:
		if x == nil {
			return nil, "", errNilValue
		}
		return nil, protocol.MethodNotificationsToolsListChanged, nil
	case *protocol.PromptListChangedNotification:
		if x == nil {
			return nil, "", errNilValue
		}
		return nil, protocol.MethodNotificationsPromptsListChanged, nil
	case *protocol.ResourceListChangedNotification:
		if x == nil {
			return nil, "", errNilValue
		}
		return nil, protocol.MethodNotificationsResourcesListChanged, nil
	case *protocol.ResourceUpdatedNotification:
		if x == nil {
			return nil, "", errNilValue
		}
		if m := x.Params.Meta; m != nil && m.SubscriptionID != nil {
			c := *x
			c.Params.Meta = nil
			if len(m.Extra) > 0 {
				c.Params.Meta = &protocol.NotificationMetaObject{Extra: m.Extra}
			}
			return &c, "", nil
		}
	case *protocol.SubscriptionsAcknowledgedNotification:
		return nil, "", errors.New("legacy: notifications/subscriptions/acknowledged is never sent in a session")
	}
	return n, "", nil
}

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
