package legacy

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
)

// initialize and the lifecycle of a legacy session (docs/dual-era.md
// §1.10, §2.1, §2.2), shared by HTTP and stdio: what the transports store
// differs, what the client is told does not.

// openedSession is what a successful initialize produces: the session's
// revision and conversion state, what its result declares, and the
// result itself.
type openedSession struct {
	rev    legacy.Rev
	conv   *legacy.Session
	caps   declaredCaps
	params *mcp20251125.InitializeRequestParams
	result *mcp20251125.InitializeResult
}

// openLegacy serves the initialize request m up to its result (§2.1):
// strict decode of the params (-32602 naming the path), negotiation
// (§1.10), the capabilities from the registrations at this moment. The
// transport then stores the session and answers with the result. The
// error, when there is one, is a method error: no session is made.
func (s *Era) openLegacy(m *rpcMessage) (*openedSession, *server.Error) {
	var p mcp20251125.InitializeRequestParams
	raw := m.params
	if raw == nil {
		raw = json.RawMessage("{}")
	}
	if err := s.legacyDecode().Unmarshal(raw, &p); err != nil {
		return nil, server.InvalidParams("Invalid params: "+strings.TrimPrefix(err.Error(), "mcp20251125: "), nil)
	}
	rev, e := s.negotiate(p.ProtocolVersion)
	if e != nil {
		return nil, e
	}
	exts, settings := servedExtensions(s.core).snapshot()
	conv, err := legacy.NewSession(rev, &p, exts)
	if err != nil {
		return nil, server.InvalidParams("Invalid params: "+err.Error(), nil)
	}
	if l := s.cfg.legacy.DefaultLogLevel; l != "" {
		conv.LogLevel = &l
	}
	f := s.legacyFeatures()
	f.Extensions = settings
	impl, instructions := s.core.Implementation()
	res, err := legacy.InitializeResult(rev, f, impl, instructions)
	if err != nil {
		s.log.Error("initialize result", "err", err)
		return nil, server.InternalError("Internal error")
	}
	return &openedSession{rev: rev, conv: conv, caps: declaredFrom(f), params: &p, result: res}, nil
}

// negotiate picks the revision of a session (§1.10): the requested one
// when it is served; under ErasBoth a modern version is refused (the
// client should send 2026-07-28 requests without initialize, §1.5,
// unless DowngradeModernInitialize); anything else gets the newest legacy
// version served, as L1125/basic/lifecycle.mdx#version-negotiation asks.
func (s *Era) negotiate(requested string) (legacy.Rev, *server.Error) {
	for _, r := range s.cfg.legacyRevs {
		if r.String() == requested {
			return r, nil
		}
	}
	if s.cfg.eras == ErasBoth && slices.Contains(s.cfg.modernVersions, requested) && !s.cfg.legacy.DowngradeModernInitialize {
		return 0, server.InvalidParams(requested+" is served without initialize: send each request with params._meta (see server/discover)",
			map[string]any{"supported": s.cfg.legacy.Versions, "requested": requested})
	}
	return s.cfg.legacyRevs[0], nil
}

// legacyFeatures reads what a session is offered from the registrations
// (§2.1): tools when one is listed for legacy clients (a tool that requires
// an extension is not, H5), prompts, resources or templates, the
// completion handler, logging.
func (s *Era) legacyFeatures() legacy.ServerFeatures {
	f := s.core.Features()
	return legacy.ServerFeatures{Tools: f.Tools, Prompts: f.Prompts, Resources: f.Resources, Completions: f.Completions, Logging: f.Logging}
}

// declaredFrom is what an initialize result built from f declares.
func declaredFrom(f legacy.ServerFeatures) declaredCaps {
	return declaredCaps{tools: f.Tools, prompts: f.Prompts, resources: f.Resources, logging: f.Logging, completions: f.Completions}
}

// initializedParams checks the params of notifications/initialized: when
// present they must be notification params (an object; §2.2).
func (s *Era) initializedParams(m *rpcMessage) bool {
	if m.params == nil {
		return true
	}
	var p mcp20251125.NotificationParams
	return s.legacyDecode().Unmarshal(m.params, &p) == nil
}

// listChanged is the notification of a list change for rev, when the
// session declared the capability (§2.4), or nil.
func listChanged(rev legacy.Rev, caps declaredCaps, kind server.EventKind) []byte {
	var n any
	switch {
	case kind == server.EventToolsChanged && caps.tools:
		n = &protocol.ToolListChangedNotification{}
	case kind == server.EventPromptsChanged && caps.prompts:
		n = &protocol.PromptListChangedNotification{}
	case kind == server.EventResourcesChanged && caps.resources:
		n = &protocol.ResourceListChangedNotification{}
	default:
		return nil
	}
	b, err := legacy.AppendNotification(nil, rev, n)
	if err != nil {
		return nil
	}
	return b
}

// resourceUpdated is notifications/resources/updated for uri, for rev.
func resourceUpdated(rev legacy.Rev, uri string) []byte {
	b, err := legacy.AppendNotification(nil, rev, &protocol.ResourceUpdatedNotification{Params: protocol.ResourceUpdatedNotificationParams{URI: uri}})
	if err != nil {
		return nil
	}
	return b
}
