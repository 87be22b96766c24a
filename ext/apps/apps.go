package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/mcpwire/mcpwire/ext/apps/appsproto"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
)

// ExtensionID is the capability key of the MCP Apps extension.
const ExtensionID = "io.modelcontextprotocol/ui"

// MIMEType is the MIME type of a UI resource's HTML document, which a
// client lists in its capability's mimeTypes when it renders MCP Apps.
const MIMEType = "text/html;profile=mcp-app"

// URIScheme is the scheme every UI resource's URI has.
const URIScheme = "ui"

// MetaKey is the member of a tool's or a resource's _meta that holds the
// extension's metadata (appsproto.McpUiToolMeta on a tool,
// appsproto.McpUiResourceMeta on a resource).
const MetaKey = "ui"

// LegacyResourceURIKey is the flat _meta member of a tool that older
// hosts read the UI resource's URI from. The TypeScript SDK's
// registerAppTool still writes it beside _meta.ui.resourceUri; so does
// SetToolMeta.
const LegacyResourceURIKey = "ui/resourceUri"

// Apps is the MCP Apps extension of one server: its UI resources, and the
// tools linked to them. Make one with New, give its Option to server.New,
// then register resources (AddResource) and tools (AddTool). It is safe
// for concurrent use.
type Apps struct {
	mu        sync.RWMutex
	s         *server.Server
	resources map[string]bool // URIs of the UI resources registered here
	appOnly   map[string]bool // names of the tools registered visible to the app alone
	legacyOn  bool            // legacy.ServeExtension done
}

// New returns the extension, not yet on a server.
func New() *Apps { return &Apps{resources: map[string]bool{}, appOnly: map[string]bool{}} }

// Option adds the extension to the server being made (server.New):
// capabilities.extensions advertises io.modelcontextprotocol/ui, and a
// request whose client does not declare it sees tools without their UI
// metadata (see the package documentation).
func (a *Apps) Option() server.Option {
	return server.WithExtension(server.Extension{
		ID:         ExtensionID,
		Attach:     a.attach,
		CheckTool:  a.checkTool,
		Middleware: a.middleware,
	})
}

func (a *Apps) attach(s *server.Server) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.s = s
}

// server returns the server the extension is on, and has the legacy era
// serve the extension (once).
func (a *Apps) server() (*server.Server, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.s == nil {
		return nil, errors.New("apps: not on a server: give Apps.Option to server.New")
	}
	if !a.legacyOn {
		if err := legacy.ServeExtension(a.s, ExtensionID, nil); err != nil {
			return nil, fmt.Errorf("apps: %w", err)
		}
		a.legacyOn = true
	}
	return a.s, nil
}

// HTMLHandler returns the HTML document of a UI resource, for one
// resources/read.
type HTMLHandler func(ctx context.Context, r *server.Request) (string, error)

// StaticHTML is an HTMLHandler that always returns html.
func StaticHTML(html string) HTMLHandler {
	return func(context.Context, *server.Request) (string, error) { return html, nil }
}

// Resource is a UI resource: an HTML document that a host renders in a
// sandboxed iframe.
type Resource struct {
	// URI is the resource's ui:// URI, e.g. "ui://clock/view.html".
	URI string
	// Name is the resource's name (required), Title and Description
	// what resources/list shows of it.
	Name, Title, Description string
	// UI is the resource's _meta.ui: the CSP domains the view needs,
	// the permissions it asks for, a dedicated sandbox domain and whether
	// it prefers a border. It is checked at registration, written on the
	// resources/list entry and on the content resources/read returns.
	UI appsproto.McpUiResourceMeta
	// HTML returns the document.
	HTML HTMLHandler
}

// AddResource registers a UI resource on the server: listed by
// resources/list with MIME type text/html;profile=mcp-app and its
// _meta.ui, and read by resources/read as one text content of that type
// with the same _meta.ui. It refuses, naming the reason, a URI that is not
// ui://server[/path] (no user, query or fragment; no white space, control
// or format character, nor < > " '), a missing name or handler, and a _meta.ui that the extension's
// schema refuses or whose CSP domains are not origins (see CheckResourceMeta).
// Registering a URI again replaces the resource.
func (a *Apps) AddResource(res Resource, opts ...server.ResourceOption) error {
	if err := checkUIURI(res.URI); err != nil {
		return fmt.Errorf("apps: resource %q: %w", res.URI, err)
	}
	if res.Name == "" {
		return fmt.Errorf("apps: resource %s: a resource needs a name", res.URI)
	}
	if res.HTML == nil {
		return fmt.Errorf("apps: resource %s: no HTML handler", res.URI)
	}
	metaUI, err := CheckResourceMeta(res.UI)
	if err != nil {
		return fmt.Errorf("apps: resource %s: %w", res.URI, err)
	}
	s, err := a.server()
	if err != nil {
		return err
	}
	mime := MIMEType
	def := protocol.Resource{URI: res.URI, Name: res.Name, MIMEType: &mime}
	if res.Title != "" {
		def.Title = &res.Title
	}
	if res.Description != "" {
		def.Description = &res.Description
	}
	if metaUI != nil {
		def.Meta = &protocol.MetaObject{}
		def.Meta.Extra.Set(MetaKey, metaUI)
	}
	uri, html := res.URI, res.HTML
	h := func(ctx context.Context, r *server.Request, _ string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		doc, err := html(ctx, r)
		if err != nil {
			return nil, err
		}
		c := &protocol.TextResourceContents{URI: uri, MIMEType: &mime, Text: doc}
		if metaUI != nil {
			c.Meta = &protocol.MetaObject{}
			c.Meta.Extra.Set(MetaKey, metaUI)
		}
		return []protocol.ReadResourceResultContentsElem{{Value: c}}, nil
	}
	if err := s.AddResource(def, h, opts...); err != nil {
		return fmt.Errorf("apps: %w", err)
	}
	a.mu.Lock()
	a.resources[res.URI] = true
	a.mu.Unlock()
	return nil
}

// HasResource reports whether uri is a UI resource registered with
// AddResource.
func (a *Apps) HasResource(uri string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.resources[uri]
}

// ToolUI links a tool to a UI resource: its _meta.ui.
type ToolUI struct {
	// ResourceURI is the ui:// URI of a resource registered with
	// AddResource (required).
	ResourceURI string
	// Visibility says who may see and call the tool: VisibleToModel (the
	// agent), VisibleToApp (the view, through its host), or both. Nil
	// leaves the member out, which means both.
	Visibility []appsproto.McpUiToolVisibility
}

// Visibility values of ToolUI.
const (
	VisibleToModel = appsproto.McpUiToolVisibilityModel
	VisibleToApp   = appsproto.McpUiToolVisibilityApp
)

// AddTool registers a tool linked to a UI resource: SetToolMeta writes
// ui into def's _meta, and the tool is registered with the extension
// (Link), which refuses a resource URI that no AddResource registered.
// opts are the tool's other options.
func (a *Apps) AddTool(def protocol.Tool, h server.ToolHandler, ui ToolUI, opts ...server.ToolOption) error {
	if err := SetToolMeta(&def, ui); err != nil {
		return fmt.Errorf("apps: tool %s: %w", def.Name, err)
	}
	s, err := a.server()
	if err != nil {
		return err
	}
	was := a.isAppOnly(def.Name)
	if err := s.AddTool(def, h, append(slices.Clip(opts), a.Link(ui))...); err != nil {
		a.setAppOnly(def.Name, was) // checkTool marked it; the tool there stays as it was
		return err
	}
	return nil
}

// Link registers a tool with the extension (server.ToolExtension), for a
// tool added otherwise than by AddTool (typed.AddTool): the registration
// fails when ui names no UI resource registered with AddResource, or its
// visibility is invalid. Write the tool's _meta with SetToolMeta first.
func (a *Apps) Link(ui ToolUI) server.ToolOption {
	return server.ToolExtension(ExtensionID, ui, server.ToolExtensionOptions{})
}

// checkTool is the extension's CheckTool.
func (a *Apps) checkTool(tool string, value any) error {
	ui, ok := value.(ToolUI)
	if !ok {
		return fmt.Errorf("apps: the extension's value is a %T, want an apps.ToolUI (Apps.Link)", value)
	}
	if _, err := toolMeta(ui); err != nil {
		return err
	}
	if !a.HasResource(ui.ResourceURI) {
		return fmt.Errorf("apps: _meta.ui.resourceUri %s: no UI resource of that URI is registered (Apps.AddResource first)", ui.ResourceURI)
	}
	a.setAppOnly(tool, ui.Visibility != nil && !slices.Contains(ui.Visibility, VisibleToModel))
	return nil
}

// setAppOnly marks the tool as visible to the app alone, or not.
func (a *Apps) setAppOnly(tool string, on bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if on {
		a.appOnly[tool] = true
	} else {
		delete(a.appOnly, tool)
	}
}

// isAppOnly reports a tool registered with the extension visible to the
// app alone.
func (a *Apps) isAppOnly(tool string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.appOnly[tool]
}

// SetToolMeta writes ui into def's _meta: _meta.ui (resourceUri,
// visibility) and the flat LegacyResourceURIKey with the same URI, as the
// TypeScript SDK writes them; other _meta members are kept. It refuses a
// URI that is not ui:// and an invalid or repeated visibility.
func SetToolMeta(def *protocol.Tool, ui ToolUI) error {
	b, err := toolMeta(ui)
	if err != nil {
		return err
	}
	uri, err := json.Marshal(ui.ResourceURI)
	if err != nil {
		return err
	}
	m := &protocol.MetaObject{}
	if def.Meta != nil {
		for _, x := range def.Meta.Extra {
			if x.Name != MetaKey && x.Name != LegacyResourceURIKey {
				m.Extra = append(m.Extra, x)
			}
		}
	}
	m.Extra.Set(MetaKey, b)
	m.Extra.Set(LegacyResourceURIKey, uri)
	def.Meta = m
	return nil
}

// toolMeta checks ui and returns its _meta.ui, encoded and checked
// against the schema (McpUiToolMeta).
func toolMeta(ui ToolUI) (json.RawMessage, error) {
	if err := checkUIURI(ui.ResourceURI); err != nil {
		return nil, fmt.Errorf("_meta.ui.resourceUri %q: %w", ui.ResourceURI, err)
	}
	for i, v := range ui.Visibility {
		if !v.Valid() {
			return nil, fmt.Errorf("_meta.ui.visibility[%d] %q: want %q or %q", i, v, VisibleToModel, VisibleToApp)
		}
		if slices.Contains(ui.Visibility[:i], v) {
			return nil, fmt.Errorf("_meta.ui.visibility[%d] %q: given twice", i, v)
		}
	}
	if ui.Visibility != nil && len(ui.Visibility) == 0 {
		return nil, errors.New("_meta.ui.visibility: empty (nil means model and app; an empty list would hide the tool from both)")
	}
	uri := ui.ResourceURI
	v := appsproto.McpUiToolMeta{ResourceURI: &uri, Visibility: ui.Visibility}
	return schemaChecked(&v, new(appsproto.McpUiToolMeta))
}

// schemaChecked encodes v and decodes it strictly into fresh (of v's
// type), so that what is sent is what the extension's schema accepts.
func schemaChecked(v, fresh any) (json.RawMessage, error) {
	b, err := appsproto.Marshal(v)
	if err != nil {
		return nil, err
	}
	if err := appsproto.Unmarshal(b, fresh); err != nil {
		return nil, err
	}
	return b, nil
}

// CheckResourceMeta checks a UI resource's _meta.ui and returns it as
// JSON (nil when it is empty): against the extension's schema (closed
// objects, so no undeclared member), then each CSP domain, which must be
// an origin, scheme://host[:port] with the scheme http, https, ws or wss
// and the host a name, "*." and a name of two labels or more (a wildcard
// subdomain: *.example.com, not *.com), or an IPv4 address a.b.c.d
// without leading zeros and not 0.0.0.0 (no IPv6 literal: a CSP source
// has no form for one), without path (not even "/"), query, fragment or
// user; and domain, when set, which must be a host name or an https
// origin of one, not an IP address nor a wildcard (its exact form is the
// host's to say). The error names the member and the reason.
func CheckResourceMeta(m appsproto.McpUiResourceMeta) (json.RawMessage, error) {
	if c := m.Csp; c != nil {
		for _, d := range []struct {
			name string
			list []string
		}{{"connectDomains", c.ConnectDomains}, {"resourceDomains", c.ResourceDomains}, {"frameDomains", c.FrameDomains}, {"baseUriDomains", c.BaseURIDomains}} {
			for i, o := range d.list {
				if err := checkOrigin(o); err != nil {
					return nil, fmt.Errorf("_meta.ui.csp.%s[%d] %q: %w", d.name, i, o, err)
				}
			}
		}
	}
	if m.Domain != nil {
		if err := checkDomain(*m.Domain); err != nil {
			return nil, fmt.Errorf("_meta.ui.domain %q: %w", *m.Domain, err)
		}
	}
	b, err := schemaChecked(&m, new(appsproto.McpUiResourceMeta))
	if err != nil {
		return nil, fmt.Errorf("_meta.ui: %w", err)
	}
	if string(b) == "{}" {
		return nil, nil
	}
	return b, nil
}

// checkUIURI refuses what is not ui://server[/path]: another scheme, no
// server, a user, a query or a fragment (even empty), and any white space
// or control or format character (Unicode's, not only ASCII's) and the
// characters < > " ', which a URI never holds unescaped.
func checkUIURI(s string) error {
	for _, c := range s {
		if unicode.IsSpace(c) || unicode.IsControl(c) || unicode.Is(unicode.Cf, c) || strings.ContainsRune(`<>"'`, c) {
			return fmt.Errorf("character %q (%U) in the URI: escape it or leave it out", c, c)
		}
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("not a URI: %w", err)
	case u.Scheme != URIScheme:
		return fmt.Errorf("a UI resource's URI has the scheme %s:// (got %q)", URIScheme, u.Scheme)
	case !strings.HasPrefix(s, URIScheme+"://") || u.Host == "" && strings.Trim(u.Path, "/") == "":
		return fmt.Errorf("want %s://<server>/<path>", URIScheme)
	case u.User != nil:
		return fmt.Errorf("the URI has a user (want %s://<server>/<path>)", URIScheme)
	case u.Host == "":
		return fmt.Errorf("the URI names no server (want %s://<server>/<path>)", URIScheme)
	case u.RawQuery != "" || u.ForceQuery:
		return errors.New("the URI has a query: a UI resource is one document")
	case u.Fragment != "" || strings.Contains(s, "#"):
		return errors.New("the URI has a fragment: a UI resource is one document")
	}
	return nil
}

// checkOrigin refuses what is not a CSP source of the form
// scheme://host[:port]: the host a DNS name, "*." and a name of two
// labels or more (a wildcard over a top-level domain would allow all of
// it), or an IPv4 address in its dotted-decimal form other than 0.0.0.0.
// IPv6 literals are refused: a CSP host-source has no form for them.
func checkOrigin(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("not an origin: %w", err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	case "":
		return errors.New("not an origin: no scheme (want scheme://host[:port], e.g. https://api.example.com)")
	default:
		return fmt.Errorf("not an origin: scheme %q (want http, https, ws or wss)", u.Scheme)
	}
	switch {
	case u.User != nil:
		return errors.New("not an origin: it has a user")
	case u.Path == "/" && u.RawQuery == "" && u.Fragment == "" && !strings.ContainsAny(s, "?#"):
		return errors.New("not an origin: a trailing / is a path (write scheme://host[:port])")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(s, "?#"):
		return errors.New("not an origin: it has a path, query or fragment")
	case u.Opaque != "":
		return errors.New("not an origin: want scheme://host[:port]")
	}
	host := u.Hostname()
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("not an origin: port %q", p)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return errors.New("not an origin: an empty port")
	}
	if strings.HasPrefix(u.Host, "[") {
		return errors.New("not an origin: an IPv6 address (a CSP source has no form for it; use a host name)")
	}
	name, wildcard := strings.CutPrefix(host, "*.")
	if isNumericHost(name) {
		a, err := netip.ParseAddr(name)
		switch {
		case err != nil || !a.Is4():
			return fmt.Errorf("not an origin: host %q is neither a name nor an IPv4 address a.b.c.d (no leading zeros)", name)
		case a.IsUnspecified():
			return errors.New("not an origin: the address 0.0.0.0 names no host")
		case wildcard:
			return errors.New("not an origin: a wildcard over an IP address")
		}
		return nil
	}
	if err := checkHostName(name, true); err != nil {
		return fmt.Errorf("not an origin: %w", err)
	}
	if wildcard && !strings.Contains(name, ".") {
		return fmt.Errorf("not an origin: a wildcard over one label (*.%s) would allow a whole top-level domain; want *.example.com", name)
	}
	return nil
}

// isNumericHost reports a host whose last label is digits alone, which a
// URL reads as an IPv4 address, not as a DNS name.
func isNumericHost(h string) bool {
	l := h[strings.LastIndexByte(h, '.')+1:]
	return l != "" && strings.Trim(l, "0123456789") == ""
}

// checkDomain refuses a sandbox domain that is neither a host name nor an
// https origin of a host name. Its exact form is the host's to say (the
// schema: "Host-dependent"; a hash- or URL-derived subdomain of the
// host's own domain), so an IP address, which no host hands out as a
// view's dedicated origin, is refused, and so is a wildcard.
func checkDomain(s string) error {
	host := s
	if strings.Contains(s, "://") {
		if !strings.HasPrefix(s, "https://") {
			return errors.New("a dedicated origin is https")
		}
		if err := checkOrigin(s); err != nil {
			return err
		}
		if strings.Contains(s, "*") {
			return errors.New("a dedicated origin has no wildcard")
		}
		u, err := url.Parse(s)
		if err != nil {
			return err
		}
		host = u.Hostname()
	}
	if strings.HasPrefix(host, "[") || isNumericHost(host) || net.ParseIP(host) != nil {
		return errors.New("an IP address: a dedicated domain is a host name")
	}
	return checkHostName(host, false)
}

// checkHostName checks a DNS name: dot-separated labels of letters,
// digits and hyphens, no label empty, longer than 63 or starting or
// ending with a hyphen. A wildcard was cut off by the caller: another "*"
// is refused.
func checkHostName(h string, wildcardCut bool) error {
	if h == "" {
		return errors.New("no host")
	}
	if len(h) > 253 {
		return errors.New("host name longer than 253 characters")
	}
	for _, l := range strings.Split(h, ".") {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Errorf("host %q: label %q", h, l)
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				if c == '*' && wildcardCut {
					return fmt.Errorf("host %q: a wildcard stands only at the start (*.example.com)", h)
				}
				return fmt.Errorf("host %q: character %q", h, c)
			}
		}
	}
	return nil
}

// ClientCapabilities returns what the request's client declared for the
// extension (capabilities.extensions["io.modelcontextprotocol/ui"]), in a
// 2026-07-28 request's _meta or a 2025-11-25 session's initialize, and
// whether it declared it. A declaration that the extension's schema
// refuses is an error. It is the TypeScript SDK's getUiCapability.
func ClientCapabilities(r *server.Request) (*appsproto.McpUiClientCapabilities, bool, error) {
	raw, ok := r.ClientExtension(ExtensionID)
	if !ok {
		return nil, false, nil
	}
	var c appsproto.McpUiClientCapabilities
	if err := appsproto.Unmarshal(raw, &c); err != nil {
		return nil, true, fmt.Errorf("apps: the client's %s capability: %w", ExtensionID, err)
	}
	return &c, true, nil
}

// Supported reports whether the request's client renders MCP Apps: it
// declares the extension with MIMEType among its mimeTypes. A handler
// that is false for returns its result as text alone.
func Supported(r *server.Request) bool {
	c, ok, err := ClientCapabilities(r)
	return ok && err == nil && slices.Contains(c.MIMETypes, MIMEType)
}

// middleware removes the UI metadata from the tools of a tools/list whose
// client does not render MCP Apps (R-VER-04: an extension is used only
// with a client that declares it; and one rule for all: Supported, a
// valid declaration with MIMEType): such a client sees plain tools, and
// not those whose visibility is the app's alone, which no view of its
// can call. A tools/call of such a tool from such a client is refused
// with the error of an unknown tool before anything else is looked at, so
// that calling agrees with listing (the schema's "app: Tool callable by
// the app from this server only").
func (a *Apps) middleware(next server.Handler) server.Handler {
	return func(ctx context.Context, r *server.Request) (server.Result, error) {
		if r.Method == protocol.MethodToolsCall {
			if name := r.Name(); a.isAppOnly(name) && !Supported(r) {
				return nil, server.InvalidParams("Unknown tool: "+name, nil)
			}
		}
		res, err := next(ctx, r)
		if err != nil || r.Method != protocol.MethodToolsList || Supported(r) {
			return res, err
		}
		list, ok := res.(*protocol.ListToolsResult)
		if !ok {
			return res, err
		}
		return withoutUIMeta(list), nil
	}
}

// withoutUIMeta returns list, or a copy of it whose tools carry no
// _meta.ui nor _meta["ui/resourceUri"], without the tools visible to the
// app alone; list is not modified.
func withoutUIMeta(list *protocol.ListToolsResult) *protocol.ListToolsResult {
	if !slices.ContainsFunc(list.Tools, hasUIMeta) {
		return list
	}
	c := *list
	c.Tools = make([]protocol.Tool, 0, len(list.Tools))
	for _, t := range list.Tools {
		if !hasUIMeta(t) {
			c.Tools = append(c.Tools, t)
			continue
		}
		var kept protocol.Members
		appOnly := false
		for _, x := range t.Meta.Extra {
			if !isUIMember(x) {
				kept = append(kept, x)
			} else if x.Name == MetaKey {
				appOnly = appOnlyMeta(x.Value)
			}
		}
		if appOnly {
			continue
		}
		t.Meta = nil
		if len(kept) > 0 {
			t.Meta = &protocol.MetaObject{Extra: kept}
		}
		c.Tools = append(c.Tools, t)
	}
	return &c
}

func hasUIMeta(t protocol.Tool) bool {
	return t.Meta != nil && slices.ContainsFunc(t.Meta.Extra, isUIMember)
}

// appOnlyMeta reports a tool _meta.ui whose visibility leaves the model
// out.
func appOnlyMeta(raw json.RawMessage) bool {
	var m appsproto.McpUiToolMeta
	if appsproto.Unmarshal(raw, &m) != nil || m.Visibility == nil {
		return false
	}
	return !slices.Contains(m.Visibility, VisibleToModel)
}

func isUIMember(m protocol.Member) bool { return m.Name == MetaKey || m.Name == LegacyResourceURIKey }
