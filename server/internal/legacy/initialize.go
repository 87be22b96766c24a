package legacy

import (
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// ServerFeatures says what the server offers a session, read from its
// registrations when initialize is answered (docs/dual-era.md §2.1).
type ServerFeatures struct {
	Tools       bool // at least one tool is listed for legacy clients
	Prompts     bool // at least one prompt exists
	Resources   bool // at least one resource or template exists
	Completions bool // a completion handler is set
	Logging     bool // logging is not switched off
	// Extensions are the extensions that serve legacy sessions, with
	// their settings: a 2025-11-25 result advertises them under
	// capabilities.extensions, as a 2026-07-28 server does (the
	// 2025-11-25 schema has no such member; the MCP Apps clients read it
	// there).
	Extensions map[string]protocol.JSONObject
}

// InitializeResult builds the result of an initialize negotiated to r
// (docs/dual-era.md §2.1, H7): protocolVersion r; capabilities from f
// (tools and prompts with listChanged, resources with subscribe and
// listChanged, completions from 2025-03-26 on, logging, at 2025-11-25
// f.Extensions under extensions), never tasks or experimental; serverInfo
// from info; instructions when not
// empty; no _meta. It is a value of package mcp20251125: encode it with
// AppendResult(dst, r, res), which clears what r does not declare (the
// completions capability before 2025-03-26, serverInfo's title before
// 2025-06-18, its description, icons and websiteUrl before 2025-11-25).
func InitializeResult(r Rev, f ServerFeatures, info protocol.Implementation, instructions string) (*mcp20251125.InitializeResult, error) {
	if !r.Valid() {
		return nil, fmt.Errorf("legacy: invalid revision %d", uint8(r))
	}
	b, err := protocol.Marshal(&info)
	if err != nil {
		return nil, fmt.Errorf("legacy: serverInfo: %w", err)
	}
	res := &mcp20251125.InitializeResult{ProtocolVersion: r.String()}
	if err := mcp20251125.Unmarshal(b, &res.ServerInfo); err != nil {
		return nil, fmt.Errorf("legacy: serverInfo: %w", err)
	}
	yes := true
	caps := &res.Capabilities
	if f.Tools {
		caps.Tools = &mcp20251125.ServerCapabilitiesTools{ListChanged: &yes}
	}
	if f.Prompts {
		caps.Prompts = &mcp20251125.ServerCapabilitiesPrompts{ListChanged: &yes}
	}
	if f.Resources {
		caps.Resources = &mcp20251125.ServerCapabilitiesResources{Subscribe: &yes, ListChanged: &yes}
	}
	if f.Completions && r >= Rev20250326 {
		caps.Completions = &mcp20251125.ServerCapabilitiesCompletions{}
	}
	if f.Logging {
		caps.Logging = &mcp20251125.ServerCapabilitiesLogging{}
	}
	if len(f.Extensions) > 0 && r == Rev20251125 {
		// Encoded as 2026-07-28 does, then read back as the undeclared
		// member it is in 2025-11-25.
		b, err := protocol.Marshal(&protocol.ServerCapabilities{Extensions: f.Extensions})
		var ext mcp20251125.ServerCapabilities
		if err == nil {
			err = mcp20251125.Unmarshal(b, &ext)
		}
		if err != nil {
			return nil, fmt.Errorf("legacy: extensions: %w", err)
		}
		caps.Extra = append(caps.Extra, ext.Extra...)
	}
	if instructions != "" {
		res.Instructions = &instructions
	}
	return res, nil
}

// RestoreSession rebuilds the Session of a stored session record: the
// revision, the capabilities and clientInfo as sent at initialize (the
// JSON of the mcp20251125 values, as the server stores them), and the
// log level ("" while unset). Another instance serving the session
// rebuilds it this way; it decodes strictly and converts again, so the
// server should keep the result while the record does not change.
func RestoreSession(r Rev, capabilities, clientInfo json.RawMessage, logLevel string, exts map[string]bool) (*Session, error) {
	var p mcp20251125.InitializeRequestParams
	p.ProtocolVersion = r.String()
	if len(capabilities) > 0 {
		if err := mcp20251125.Unmarshal(capabilities, &p.Capabilities); err != nil {
			return nil, fmt.Errorf("legacy: stored capabilities: %w", err)
		}
	}
	if err := mcp20251125.Unmarshal(clientInfo, &p.ClientInfo); err != nil {
		return nil, fmt.Errorf("legacy: stored clientInfo: %w", err)
	}
	s, err := NewSession(r, &p, exts)
	if err != nil {
		return nil, err
	}
	if logLevel != "" {
		l := protocol.LoggingLevel(logLevel)
		if !l.Valid() {
			return nil, fmt.Errorf("legacy: stored log level %q", logLevel)
		}
		s.LogLevel = &l
	}
	return s, nil
}
