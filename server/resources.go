package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpwire/mcpwire/protocol"
)

// ResourceHandler reads one resource. uri is the URI the client asked
// for; for a template it matched the template, and vars holds the values
// of its variables. It returns the contents (text or blob). Returning
// ErrNotFound (or any *Error) answers with that error, its code kept; it
// may also return an *InputRequired (R-MRTR-02 allows it on
// resources/read). Any other error is logged and answered with -32603
// "Internal error", its text shown only under WithErrorDetails (package
// documentation, "Handler errors").
type ResourceHandler func(ctx context.Context, req *Request, uri string, vars map[string]string) ([]protocol.ReadResourceResultContentsElem, error)

type resource struct {
	def     protocol.Resource
	handler ResourceHandler
	scopes  []string // set by RequireResourceScopes
}

type template struct {
	def     protocol.ResourceTemplate
	tmpl    *uritemplate.Template
	handler ResourceHandler
	scopes  []string // set by RequireResourceScopes
	seq     uint64   // registration number: its resources/templates/list cursor key
}

func resourceOptions(opts []ResourceOption) resourceOpts {
	var o resourceOpts
	for _, f := range opts {
		f(&o)
	}
	return o
}

// AddResource registers a static resource under def.URI. opts
// (RequireResourceScopes) configure it.
func (s *Server) AddResource(def protocol.Resource, h ResourceHandler, opts ...ResourceOption) error {
	if def.URI == "" || def.Name == "" {
		return fmt.Errorf("server: a resource needs a uri and a name")
	}
	if h == nil {
		return fmt.Errorf("server: resource %s: nil handler", def.URI)
	}
	s.mu.Lock()
	s.resources[def.URI] = &resource{def: def, handler: h, scopes: resourceOptions(opts).scopes}
	s.sortedResources.Store(nil)
	s.mu.Unlock()
	_ = s.NotifyResourcesChanged()
	return nil
}

// RemoveResource unregisters a static resource.
func (s *Server) RemoveResource(uri string) bool {
	return unregister(s, s.resources, uri, &s.sortedResources, s.NotifyResourcesChanged)
}

// AddResourceTemplate registers an RFC 6570 URI template
// (github.com/yosida95/uritemplate/v3). A read whose URI matches no static
// resource is tried against the templates in registration order.
//
// The handler's vars are the matched variables percent-decoded, as RFC
// 6570 expansion encodes them: they are the client's text, and may hold
// "/", "..", NUL or nothing at all ("t://a/%2E%2E%2Fetc/x" gives
// "../etc"). A handler that builds a path, a query or a key from them must
// validate them first; the raw URI is its uri argument.
//
// opts (RequireResourceScopes) configure it.
func (s *Server) AddResourceTemplate(def protocol.ResourceTemplate, h ResourceHandler, opts ...ResourceOption) error {
	t, err := uritemplate.New(def.URITemplate)
	if err != nil {
		return fmt.Errorf("server: resource template %q: %w", def.URITemplate, err)
	}
	if def.Name == "" || h == nil {
		return fmt.Errorf("server: resource template %q needs a name and a handler", def.URITemplate)
	}
	s.mu.Lock()
	s.templateSeq++
	// A new slice when there is no room, and never a write to an element a
	// reader's snapshot holds: the snapshots stay as they were.
	s.templates = append(s.templates, &template{def: def, tmpl: t, handler: h, scopes: resourceOptions(opts).scopes, seq: s.templateSeq})
	s.mu.Unlock()
	_ = s.NotifyResourcesChanged()
	return nil
}

// RemoveResourceTemplate unregisters the resource template registered
// under uriTemplate (every one, if it was added more than once) and sends
// notifications/resources/list_changed as AddResourceTemplate does. It
// reports whether there was one. Reads and lists already under way finish
// with the templates they started with.
func (s *Server) RemoveResourceTemplate(uriTemplate string) bool {
	s.mu.Lock()
	kept := make([]*template, 0, len(s.templates))
	for _, t := range s.templates {
		if t.def.URITemplate != uriTemplate {
			kept = append(kept, t)
		}
	}
	removed := len(kept) != len(s.templates)
	if removed {
		s.templates = kept // a new slice: snapshots taken before keep theirs
	}
	s.mu.Unlock()
	if removed {
		_ = s.NotifyResourcesChanged()
	}
	return removed
}

// ErrNotFound is what a resource handler returns for a URI it does not
// have; the client gets -32602 with data {"uri": ...} (never -32002, and
// never empty contents; R-BASE-14).
var ErrNotFound = errors.New("resource not found")

func resourceNotFound(uri string) *Error {
	e := InvalidParams("Resource not found", map[string]string{"uri": uri})
	e.notFound = true // H6: -32002 in a legacy session
	return e
}

func (s *Server) readResource(ctx context.Context, r *Request, p *protocol.ReadResourceRequestParams) (wireResult, error) {
	if max := s.maxURIBytes(); len(p.URI) > max {
		return nil, InvalidParams(fmt.Sprintf("Invalid params: uri has %d bytes, more than the limit of %d", len(p.URI), max), nil)
	}
	s.mu.RLock()
	res := s.resources[p.URI]
	// templates grows by append and is replaced on removal, never changed
	// in place: the elements of this snapshot never change, and matching (which costs in proportion to the URI) runs
	// without the lock, so that no registration, and no request behind it,
	// waits for it.
	templates := s.templates
	s.mu.RUnlock()
	var h ResourceHandler
	var vars map[string]string
	var need []string
	if res != nil {
		h, need = res.handler, res.scopes
	} else {
		for _, t := range templates {
			if m := t.tmpl.Match(p.URI); m != nil {
				vars = map[string]string{}
				for _, n := range t.tmpl.Varnames() {
					vars[n] = varText(m.Get(n))
				}
				h, need = t.handler, t.scopes
				break
			}
		}
	}
	if h == nil {
		return nil, resourceNotFound(p.URI)
	}
	if err := checkScopes(r, need); err != nil {
		return nil, err
	}
	if err := s.prepareMRTR(r, p.URI, nil, p.InputResponses, p.RequestState); err != nil {
		return nil, err
	}
	contents, err := h(ctx, r, p.URI, vars)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, resourceNotFound(p.URI)
		}
		return s.handlerError(r, err)
	}
	if len(contents) == 0 {
		return nil, resourceNotFound(p.URI)
	}
	ttl, scope := s.resultHint(r)
	return &protocol.ReadResourceResult{Contents: contents, TTLMs: ttl, CacheScope: scope}, nil
}

// varText is a matched template variable as text: a list or associative
// value (from an exploded variable such as {/path*}) is joined with ",",
// its RFC 6570 unexploded form, instead of being lost.
func varText(v uritemplate.Value) string {
	switch v.T {
	case uritemplate.ValueTypeList:
		return strings.Join(v.List(), ",")
	case uritemplate.ValueTypeKV:
		return strings.Join(v.KV(), ",")
	}
	return v.String()
}

// TextContents is a helper for the common case of one text resource.
func TextContents(uri, mimeType, text string) []protocol.ReadResourceResultContentsElem {
	c := &protocol.TextResourceContents{URI: uri, Text: text}
	if mimeType != "" {
		c.MIMEType = &mimeType
	}
	return []protocol.ReadResourceResultContentsElem{{Value: c}}
}

// BlobContents is a helper for one binary resource; blob is base64.
func BlobContents(uri, mimeType, blob string) []protocol.ReadResourceResultContentsElem {
	c := &protocol.BlobResourceContents{URI: uri, Blob: blob}
	if mimeType != "" {
		c.MIMEType = &mimeType
	}
	return []protocol.ReadResourceResultContentsElem{{Value: c}}
}
