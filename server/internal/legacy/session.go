package legacy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// Session describes the legacy session (HTTP) or process (stdio) a request
// belongs to: what the server kept from initialize and logging/setLevel.
// The server owns it and may share it between the session's concurrent
// requests; this package only reads it. Build it with [NewSession].
type Session struct {
	// Rev is the revision negotiated at initialize.
	Rev Rev
	// ClientCapabilities are the capabilities sent at initialize,
	// converted once by [ConvertClientCapabilities]. Every request of the
	// session carries them as its io.modelcontextprotocol/clientCapabilities;
	// they must not be modified.
	ClientCapabilities protocol.ClientCapabilities
	// ClientInfo is the clientInfo sent at initialize, converted by
	// [ConvertImplementation].
	ClientInfo *protocol.Implementation
	// LogLevel is the level set by logging/setLevel (or the configured
	// default), nil while unset: requests then send no log messages,
	// as a modern request without a logLevel does.
	LogLevel *protocol.LoggingLevel
}

// NewSession returns the session opened by an initialize whose params p
// were decoded strictly with package mcp20251125, once the revision r has
// been negotiated. Negotiation, admission and storage are the server's.
// exts are the extensions a 2025-11-25 client may declare in
// capabilities.extensions (see [ConvertClientCapabilities]).
func NewSession(r Rev, p *mcp20251125.InitializeRequestParams, exts map[string]bool) (*Session, error) {
	if !r.Valid() {
		return nil, fmt.Errorf("legacy: invalid revision %d", uint8(r))
	}
	if p == nil {
		return nil, errNilValue
	}
	caps, err := ConvertClientCapabilities(&p.Capabilities, r, exts)
	if err != nil {
		return nil, err
	}
	info, err := ConvertImplementation(&p.ClientInfo)
	if err != nil {
		return nil, err
	}
	return &Session{Rev: r, ClientCapabilities: caps, ClientInfo: info}, nil
}

// ConvertClientCapabilities converts the capabilities of an initialize of
// revision r into the form handlers read (H13, docs/dual-era.md §3.2):
//
//   - roots {listChanged?} → roots {} (the modern type has no listChanged);
//   - sampling {context?, tools?} as declared;
//   - elicitation {form?, url?} as declared, {} staying {} (form only);
//     dropped before 2025-06-18, which has no elicitation, whatever the
//     client sent;
//   - tasks dropped: the modern tasks extension is another protocol;
//   - extensions, which the 2025-11-25 schema does not have, taken from
//     a 2025-11-25 client only for the extensions in exts (those that
//     serve legacy sessions: the MCP Apps extension, whose clients, built
//     on the TypeScript SDK 2.x, send capabilities.extensions at
//     2025-11-25); each of their declarations must be a JSON object.
//     Every other extension, whatever its value, an extensions member
//     that is no JSON object, and every extension of an older revision,
//     are dropped;
//   - experimental copied, and undeclared members kept.
func ConvertClientCapabilities(c *mcp20251125.ClientCapabilities, r Rev, exts map[string]bool) (protocol.ClientCapabilities, error) {
	var out protocol.ClientCapabilities
	if c == nil {
		return out, nil
	}
	if c.Roots != nil {
		out.Roots = &protocol.ClientCapabilitiesRoots{Extra: members(c.Roots.Extra)}
	}
	if s := c.Sampling; s != nil {
		out.Sampling = &protocol.ClientCapabilitiesSampling{Extra: members(s.Extra)}
		var err error
		if s.Context != nil {
			if out.Sampling.Context, err = rawObject(s.Context); err != nil {
				return out, err
			}
		}
		if s.Tools != nil {
			if out.Sampling.Tools, err = rawObject(s.Tools); err != nil {
				return out, err
			}
		}
	}
	if e := c.Elicitation; e != nil && r >= Rev20250618 {
		out.Elicitation = &protocol.ClientCapabilitiesElicitation{Extra: members(e.Extra)}
		var err error
		if e.Form != nil {
			if out.Elicitation.Form, err = rawObject(e.Form); err != nil {
				return out, err
			}
		}
		if e.URL != nil {
			if out.Elicitation.URL, err = rawObject(e.URL); err != nil {
				return out, err
			}
		}
	}
	if c.Experimental != nil {
		out.Experimental = make(map[string]protocol.JSONObject, len(c.Experimental))
		for k, v := range c.Experimental {
			raw, err := rawObject(&v)
			if err != nil {
				return out, err
			}
			out.Experimental[k] = raw
		}
	}
	for _, m := range c.Extra {
		if m.Name == "extensions" {
			// Declared by protocol: from a legacy client only for the
			// extensions that serve legacy sessions, at 2025-11-25.
			if r != Rev20251125 || len(exts) == 0 {
				continue
			}
			got, err := legacyExtensions(m.Value, exts)
			if err != nil {
				return out, err
			}
			out.Extensions = got
			continue
		}
		out.Extra = append(out.Extra, protocol.Member{Name: m.Name, Value: m.Value})
	}
	return out, nil
}

// legacyExtensions reads capabilities.extensions of a 2025-11-25
// initialize, keeping the extensions of exts: the declaration of each
// must be a JSON object, as 2026-07-28 has it, and given once. Every
// other member is dropped unread, whatever its value, and an extensions
// member that is no JSON object is taken as absent: the 2025-11-25 schema
// has no such member, so the server only checks what it serves.
func legacyExtensions(raw []byte, exts map[string]bool) (map[string]protocol.JSONObject, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	var out map[string]protocol.JSONObject
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, nil // raw was decoded before: not reached
		}
		id, _ := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, nil
		}
		if !exts[id] {
			continue
		}
		if _, twice := out[id]; twice {
			return nil, fmt.Errorf("capabilities.extensions: %s given twice", id)
		}
		key, err := json.Marshal(id)
		if err != nil {
			return nil, err
		}
		var one protocol.ClientCapabilities // the declaration, decoded strictly
		b := append(append(append(append([]byte(`{"extensions":{`), key...), ':'), v...), '}', '}')
		if err := protocol.Unmarshal(b, &one); err != nil {
			return nil, fmt.Errorf("capabilities.extensions: %w", err)
		}
		if out == nil {
			out = map[string]protocol.JSONObject{}
		}
		out[id] = one.Extensions[id]
	}
	return out, nil
}

// rawObject encodes a value of package mcp20251125 as the raw JSON object
// package protocol holds for it.
func rawObject(v any) (protocol.JSONObject, error) {
	b, err := mcp20251125.Marshal(v)
	if err != nil {
		return nil, err
	}
	return protocol.JSONObject(b), nil
}

// members converts undeclared members between the two packages.
func members(m mcp20251125.Members) protocol.Members {
	if len(m) == 0 {
		return nil
	}
	out := make(protocol.Members, len(m))
	for i, x := range m {
		out[i] = protocol.Member{Name: x.Name, Value: x.Value}
	}
	return out
}

// ConvertImplementation converts a legacy clientInfo (or any
// Implementation) into the protocol type, member for member; undeclared
// members are kept.
func ConvertImplementation(i *mcp20251125.Implementation) (*protocol.Implementation, error) {
	if i == nil {
		return nil, nil
	}
	b, err := mcp20251125.Marshal(i)
	if err != nil {
		return nil, err
	}
	var out protocol.Implementation
	if err := protocol.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("legacy: clientInfo: %w", err)
	}
	return &out, nil
}

// Meta returns the io.modelcontextprotocol _meta of a request of the
// session (H13, docs/dual-era.md §3.2): protocolVersion is the negotiated
// revision, clientCapabilities and clientInfo those of initialize,
// logLevel the session's level (nil while unset), progressToken the
// request's own, and the other keys of the request's _meta, minus every
// io.modelcontextprotocol/ key (reserved: a legacy request cannot set the
// modern per-request fields).
func (s *Session) Meta(progress *mcp20251125.ProgressToken, extra mcp20251125.Members) protocol.RequestMetaObject {
	m := protocol.RequestMetaObject{
		ProtocolVersion:    s.Rev.String(),
		ClientCapabilities: s.ClientCapabilities,
		ClientInfo:         s.ClientInfo,
		LogLevel:           s.LogLevel,
	}
	if progress != nil {
		var t protocol.ProgressToken
		if progress.IsString() {
			t = protocol.StringProgressToken(progress.Str())
		} else {
			t = protocol.IntProgressToken(progress.Int())
		}
		m.ProgressToken = &t
	}
	for _, x := range extra {
		if strings.HasPrefix(x.Name, "io.modelcontextprotocol/") {
			continue
		}
		m.Extra = append(m.Extra, protocol.Member{Name: x.Name, Value: x.Value})
	}
	return m
}

// modernOnly is the error of a legacy request carrying the members of a
// 2026-07-28 retry (docs/dual-era.md §1.6 L7).
func modernOnly(extra mcp20251125.Members) *Error {
	for _, m := range extra {
		if m.Name == "inputResponses" || m.Name == "requestState" {
			return &Error{Code: protocol.CodeInvalidParamsError, Message: "Invalid params: inputResponses and requestState belong to 2026-07-28 requests"}
		}
	}
	return nil
}

// CallTool converts the params of a legacy tools/call into those a
// handler receives, with params._meta from the session (Meta). The task
// member (2025-11-25's core tasks) is ignored; inputResponses or
// requestState are refused with -32602 (L7). Undeclared members are not
// passed on.
func (s *Session) CallTool(p *mcp20251125.CallToolRequestParams) (*protocol.CallToolRequestParams, *Error) {
	out := new(protocol.CallToolRequestParams)
	if e := s.CallToolInto(out, p); e != nil {
		return nil, e
	}
	return out, nil
}

// CallToolInto is CallTool into *out, which must be zero: a caller that
// holds memory for the converted params allocates none. On error *out is
// left zero.
func (s *Session) CallToolInto(out *protocol.CallToolRequestParams, p *mcp20251125.CallToolRequestParams) *Error {
	if p == nil {
		return invalidParams("params are required")
	}
	if e := modernOnly(p.Extra); e != nil {
		return e
	}
	out.Name, out.Arguments = p.Name, p.Arguments
	if p.Meta != nil {
		out.Meta = s.Meta(p.Meta.ProgressToken, p.Meta.Extra)
	} else {
		out.Meta = s.Meta(nil, nil)
	}
	return nil
}

// GetPrompt converts the params of a legacy prompts/get (see CallTool).
func (s *Session) GetPrompt(p *mcp20251125.GetPromptRequestParams) (*protocol.GetPromptRequestParams, *Error) {
	if p == nil {
		return nil, invalidParams("params are required")
	}
	if e := modernOnly(p.Extra); e != nil {
		return nil, e
	}
	out := &protocol.GetPromptRequestParams{Name: p.Name, Arguments: p.Arguments}
	if p.Meta != nil {
		out.Meta = s.Meta(p.Meta.ProgressToken, p.Meta.Extra)
	} else {
		out.Meta = s.Meta(nil, nil)
	}
	return out, nil
}

// ReadResource converts the params of a legacy resources/read (see
// CallTool).
func (s *Session) ReadResource(p *mcp20251125.ReadResourceRequestParams) (*protocol.ReadResourceRequestParams, *Error) {
	if p == nil {
		return nil, invalidParams("params are required")
	}
	if e := modernOnly(p.Extra); e != nil {
		return nil, e
	}
	out := &protocol.ReadResourceRequestParams{URI: p.URI}
	if p.Meta != nil {
		out.Meta = s.Meta(p.Meta.ProgressToken, p.Meta.Extra)
	} else {
		out.Meta = s.Meta(nil, nil)
	}
	return out, nil
}

// Paginated converts the params of a legacy tools/list, prompts/list,
// resources/list or resources/templates/list; p may be nil (a request
// without params).
func (s *Session) Paginated(p *mcp20251125.PaginatedRequestParams) (*protocol.PaginatedRequestParams, *Error) {
	out := &protocol.PaginatedRequestParams{}
	if p == nil {
		out.Meta = s.Meta(nil, nil)
		return out, nil
	}
	out.Cursor = p.Cursor
	if p.Meta != nil {
		out.Meta = s.Meta(p.Meta.ProgressToken, p.Meta.Extra)
	} else {
		out.Meta = s.Meta(nil, nil)
	}
	return out, nil
}

// Complete converts the params of a legacy completion/complete:
// ref/prompt and ref/resource (2024-11-05's ResourceReference, later
// ResourceTemplateReference: the same wire), the argument, and the
// context (2025-06-18 on).
func (s *Session) Complete(p *mcp20251125.CompleteRequestParams) (*protocol.CompleteRequestParams, *Error) {
	if p == nil {
		return nil, invalidParams("params are required")
	}
	out := &protocol.CompleteRequestParams{
		Argument: protocol.CompleteRequestParamsArgument{Name: p.Argument.Name, Value: p.Argument.Value, Extra: members(p.Argument.Extra)},
	}
	switch ref := p.Ref.Value.(type) {
	case *mcp20251125.PromptReference:
		out.Ref.Value = &protocol.PromptReference{Name: ref.Name, Title: ref.Title, Extra: members(ref.Extra)}
	case *mcp20251125.ResourceTemplateReference:
		out.Ref.Value = &protocol.ResourceTemplateReference{URI: ref.URI, Extra: members(ref.Extra)}
	default:
		return nil, invalidParams("params.ref: unknown reference")
	}
	if p.Context != nil {
		out.Context = &protocol.CompleteRequestParamsContext{Arguments: p.Context.Arguments, Extra: members(p.Context.Extra)}
	}
	if p.Meta != nil {
		out.Meta = s.Meta(p.Meta.ProgressToken, p.Meta.Extra)
	} else {
		out.Meta = s.Meta(nil, nil)
	}
	return out, nil
}

// ConvertParams converts the params of any legacy client request that a
// handler serves, by their type: *mcp20251125.CallToolRequestParams,
// GetPromptRequestParams, ReadResourceRequestParams,
// PaginatedRequestParams (nil for a list request without params) and
// CompleteRequestParams. The result is the matching pointer type of package
// protocol.
func (s *Session) ConvertParams(p any) (any, *Error) {
	var out any
	var err *Error
	switch x := p.(type) {
	case *mcp20251125.CallToolRequestParams:
		out, err = s.CallTool(x)
	case *mcp20251125.GetPromptRequestParams:
		out, err = s.GetPrompt(x)
	case *mcp20251125.ReadResourceRequestParams:
		out, err = s.ReadResource(x)
	case *mcp20251125.PaginatedRequestParams:
		out, err = s.Paginated(x)
	case *mcp20251125.CompleteRequestParams:
		out, err = s.Complete(x)
	case nil:
		out, err = s.Paginated(nil)
	default:
		return nil, &Error{Code: protocol.CodeInternalError, Message: fmt.Sprintf("Internal error: no conversion for %T", p)}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func invalidParams(msg string) *Error {
	return &Error{Code: protocol.CodeInvalidParamsError, Message: "Invalid params: " + msg}
}
