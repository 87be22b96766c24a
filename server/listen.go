package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/strset"
)

// DefaultKeepAlive is how often a quiet listen stream gets an SSE comment.
const DefaultKeepAlive = 15 * time.Second

// WithKeepAlive sets the keep-alive interval of listen streams on HTTP
// (default 15 s; R-HTTP-13). Zero or less turns keep-alives off.
func WithKeepAlive(d time.Duration) Option { return func(c *config) { c.keepAlive = d } }

// Defaults of ListenLimits.
const (
	// DefaultMaxListenResources bounds the resourceSubscriptions of one
	// subscriptions/listen request.
	DefaultMaxListenResources = 1000
	// DefaultMaxListenResourceBytes bounds the total length of those
	// URIs: 64 KiB, 64 bytes a URI on average at 1000 URIs.
	DefaultMaxListenResourceBytes = 64 << 10
)

// ListenLimits bound the filter of one subscriptions/listen request
// (WithListenLimits). Zero or negative fields take the defaults. A
// request over a bound is refused with -32602 naming it, before any of
// its entries is looked at; duplicates count.
//
// The bounds are what keeps opening a stream cheap. The server looks each
// URI up among its static resources (a map look-up) and then matches it
// against every resource template in turn, at a cost that grows with the
// URI's length (about 2.5 µs a byte for a template that matches, with the
// RFC 6570 matcher used): the work is at most MaxResourceBytes times the
// number of templates, whatever the body size. A server with many
// templates may want lower bounds. The members extensions add
// (ListenFilter, such as the tasks extension's taskIds) have their own.
type ListenLimits struct {
	// MaxResources bounds the entries of notifications.resourceSubscriptions
	// (DefaultMaxListenResources).
	MaxResources int
	// MaxResourceBytes bounds the total length in bytes of those entries
	// (DefaultMaxListenResourceBytes).
	MaxResourceBytes int
}

// WithListenLimits sets the bounds of a subscriptions/listen filter
// (defaults: 1000 resourceSubscriptions totalling 64 KiB).
func WithListenLimits(l ListenLimits) Option { return func(c *config) { c.listenLimits = l } }

// Defaults of WithMaxListenStreams.
const (
	// DefaultMaxListenStreamsPerClient bounds the listen streams open at
	// once for one principal, or one client address without one.
	DefaultMaxListenStreamsPerClient = 16
	// DefaultMaxListenStreams bounds the listen streams open at once on
	// one Server.
	DefaultMaxListenStreams = 10000
)

// listenRetryAfter is the Retry-After of a listen stream over a cap: a
// slot frees when another stream of the client ends, which nothing
// predicts.
const listenRetryAfter = 10 * time.Second

// WithMaxListenStreams bounds the subscriptions/listen streams open at
// once: perClient for one principal (what the HTTP Authenticate hook
// returned) or, for requests without one, one client address, keyed as
// WithRateLimit keys it (an IPv6 address by its /64; see
// streamhttp.Options.ClientKey); total on the whole Server, every transport
// included (defaults 16 and 10,000; zero keeps a default, negative means
// no cap). A stdio stream counts against total only: on stdio there is
// one client, whose requests WithMaxConcurrent bounds already.
//
// A listen stream holds its filter and a goroutine, and a connection, for
// up to WithMaxStreamLifetime (some 100 KB with a filter of 1000 URIs of
// 60 bytes; a few KB with a small one): the caps bound that memory, at
// most total times the largest filter WithListenLimits allows. A stream
// over a cap is refused before its filter is looked at, with
// CodeRateLimited (HTTP 429, Retry-After: 10) naming the cap: the client
// should close a stream it no longer needs, or retry later.
func WithMaxListenStreams(perClient, total int) Option {
	return func(c *config) { c.maxStreamsPer, c.maxStreams = perClient, total }
}

// streamCounts counts the listen streams open on a Server, in all and per
// client. The zero value is ready.
type streamCounts struct {
	mu    sync.Mutex
	total int
	per   map[string]int
}

// acquire counts a stream of key ("": counted in total only), unless that
// takes it over perMax or totalMax (0: no cap); it returns the error
// refusing it, or nil.
func (c *streamCounts) acquire(key string, perMax, totalMax int) *Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if key != "" && perMax > 0 && c.per[key] >= perMax {
		per := "per principal"
		if strings.HasPrefix(key, "a:") {
			per = "per client address"
		}
		return RateLimited(fmt.Sprintf("Too many listen streams (at most %d %s); close one or retry later", perMax, per), listenRetryAfter)
	}
	if totalMax > 0 && c.total >= totalMax {
		return RateLimited(fmt.Sprintf("Too many listen streams (at most %d on this server); retry later", totalMax), listenRetryAfter)
	}
	c.total++
	if key != "" {
		if c.per == nil {
			c.per = map[string]int{}
		}
		c.per[key]++
	}
	return nil
}

// release forgets a stream that acquire counted.
func (c *streamCounts) release(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total--
	if key != "" {
		if c.per[key]--; c.per[key] <= 0 {
			delete(c.per, key)
		}
	}
}

// streamCaps returns the caps of WithMaxListenStreams in force, 0 for
// none.
func (s *Server) streamCaps() (perClient, total int) {
	return orDefault(s.cfg.maxStreamsPer, DefaultMaxListenStreamsPerClient), orDefault(s.cfg.maxStreams, DefaultMaxListenStreams)
}

// streamKey is the key a listen stream counts under for the cap per
// client: the principal, else the client key of an HTTP request; "" on
// stdio without a principal (total only).
func streamKey(r *Request, x *Exchange) string {
	switch {
	case r.Principal != "":
		return "p:" + r.Principal
	case x.HTTP:
		return "a:" + x.ClientKey
	}
	return ""
}

// leaver is a notifier that holds a place among the requests in flight
// of an HTTP Handler (streamhttp.Options.MaxConcurrent, MaxBodyMemory), which a
// listen stream gives back once it is accepted.
type leaver interface {
	Leave()
}

// WithSubscriptionAuthorizer sets the check that decides whether a
// principal may watch a resource: subscriptions/listen consults it for
// each resourceSubscriptions URI that names a resource or matches a
// template of this server (once per URI, duplicates and unknown URIs
// aside), and leaves a URI it refuses out of the acknowledgement and of
// the stream exactly as an unknown one, so that the refusal tells nothing
// and updates are no side channel on resources the principal may not
// read. principal is what the HTTP Authenticate hook returned ("" on
// stdio or without one); ctx is the listen request's, so RequestFrom(ctx)
// gives the Request. It runs when the stream opens, not per event: a
// permission withdrawn later takes effect at the client's next listen
// (streams end after WithMaxStreamLifetime). It must be safe for
// concurrent use. Without this option every principal may watch every
// resource it can name and read: a URI whose RequireResourceScopes the
// request's token lacks is left out the same way before mayWatch is
// asked, and each update is checked against the stream's token again.
func WithSubscriptionAuthorizer(mayWatch func(ctx context.Context, principal, uri string) bool) Option {
	return func(c *config) { c.mayWatch = mayWatch }
}

// listenLimits returns the bounds in force, defaults filled in.
func (s *Server) listenLimits() ListenLimits {
	l := s.cfg.listenLimits
	if l.MaxResources <= 0 {
		l.MaxResources = DefaultMaxListenResources
	}
	if l.MaxResourceBytes <= 0 {
		l.MaxResourceBytes = DefaultMaxListenResourceBytes
	}
	return l
}

// errSilent ends a request with no response at all: a listen stream that
// the server closed on stdio with notifications/cancelled (R-SUB-07).
var errSilent = errors.New("server: no response")

// keepAliver is a notifier that can send a keep-alive comment.
type keepAliver interface {
	KeepAlive() bool
}

// NotifyToolsChanged tells every listen stream that asked for it, on
// every instance sharing the broker, that the tool list changed. AddTool
// and RemoveTool call it themselves.
func (s *Server) NotifyToolsChanged() error {
	return s.publish(Event{Kind: EventToolsChanged})
}

// NotifyPromptsChanged is NotifyToolsChanged for prompts.
func (s *Server) NotifyPromptsChanged() error {
	return s.publish(Event{Kind: EventPromptsChanged})
}

// NotifyResourcesChanged is NotifyToolsChanged for resources and templates.
func (s *Server) NotifyResourcesChanged() error {
	return s.publish(Event{Kind: EventResourcesChanged})
}

// NotifyResourceUpdated tells the listen streams subscribed to uri that
// the resource changed (notifications/resources/updated).
func (s *Server) NotifyResourceUpdated(uri string) error {
	return s.publish(Event{Kind: EventResourceUpdated, URI: uri})
}

func (s *Server) publish(ev Event) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.cfg.broker.Publish(ctx, ev); err != nil {
		s.log.Error("publishing an event", "kind", ev.Kind, "err", err)
		return err
	}
	return nil
}

// Shutdown ends every listen stream gracefully and waits for them and
// for the requests still running (whose responses are still sent), or for
// ctx. On HTTP a stream ends with its subscriptions/listen result
// (R-SUB-06); on stdio with notifications/cancelled naming the listen
// request (R-SUB-07): see the package documentation for this choice. A
// stream whose client stopped reading ends when its pending write times
// out (streamhttp.Options.WriteTimeout, 30 s by default): give ctx longer than
// that for every stream to end. It also calls each extension's Shutdown
// (the tasks extension fails the tasks running here), and returns their
// errors joined.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() { close(s.closing) })
	s.mu.RLock()
	var exts []*Extension
	for _, e := range s.exts {
		if e.Shutdown != nil {
			exts = append(exts, e)
		}
	}
	s.mu.RUnlock()
	errs := make(chan error, len(exts))
	for _, e := range exts {
		go func() { errs <- e.Shutdown(ctx) }()
	}
	if err := s.work.wait(ctx); err != nil {
		return err
	}
	var err error
	for range exts {
		err = errors.Join(err, <-errs)
	}
	return err
}

// listen serves subscriptions/listen: an acknowledgement, then the
// notifications the client asked for, each tagged with the listen request's
// id, until the client goes away or the server shuts down.
//
// A stream over WithMaxListenStreams is refused first. One that can no
// longer be written to (the client is gone, or stopped reading and a
// write timed out: streamhttp.Options.WriteTimeout) ends with nothing more sent.
// A token already past its exp (accepted within the Verifier's leeway)
// opens no stream: 401 invalid_token, so that the client refreshes it
// rather than reopen a stream that would end at once.
func (s *Server) listen(ctx context.Context, r *Request, p *protocol.SubscriptionsListenRequestParams, x *Exchange) (wireResult, error) {
	if r.auth.TokenExpired() {
		return nil, ExpiredToken()
	}
	s.work.add()
	defer s.work.done()
	key := streamKey(r, x)
	perMax, totalMax := s.streamCaps()
	if e := s.streams.acquire(key, perMax, totalMax); e != nil {
		return nil, e
	}
	defer s.streams.release(key)
	if l, ok := x.Notifier.(leaver); ok {
		l.Leave() // counted as a stream from now on, not as a request in flight
	}
	filter, err := s.honored(ctx, r, p)
	if err != nil {
		return nil, err
	}
	gone := func() (wireResult, error) {
		if ctx.Err() == nil {
			s.log.Info("listen stream ended: writing to it failed or timed out", "id", r.ID)
		}
		return nil, errSilent
	}
	events, stop, err := s.cfg.broker.Subscribe(ctx)
	if err != nil {
		s.log.Error("subscribing to the broker", "err", err)
		return nil, InternalError("Subscriptions are unavailable")
	}
	defer stop()
	id := r.ID
	tag := &protocol.NotificationMetaObject{SubscriptionID: &id}
	ack := protocol.SubscriptionsAcknowledgedNotificationParams{Meta: tag, Notifications: filter.ack}
	for _, x := range filter.exts {
		ack.Notifications.Extra.Set(x.ext.Listen.Member, jsonText(x.acked))
	}
	if !r.sendAlways(protocol.MethodNotificationsSubscriptionsAcknowledged, &ack) {
		return gone()
	}
	filter.compact()
	// The params (a filter may list thousands of URIs) are not kept for
	// the stream's lifetime: Request.Params is nil from here on.
	r.mu.Lock()
	r.params = nil
	r.mu.Unlock()
	var tick <-chan time.Time
	if _, ok := r.out.(keepAliver); ok && s.cfg.keepAlive > 0 {
		t := time.NewTicker(s.cfg.keepAlive)
		defer t.Stop()
		tick = t.C
	}
	var lifetime <-chan time.Time
	if d := s.streamLifetime(r.auth); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		lifetime = t.C
	}
	for {
		var end bool
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.closing:
			end = true
		case <-lifetime:
			end = true
		case <-tick:
			if ka, ok := r.out.(keepAliver); ok && !ka.KeepAlive() {
				return gone()
			}
		case ev, ok := <-events:
			if !ok {
				return nil, InternalError("Subscription ended")
			}
			if !s.deliver(r, ev, filter, tag) {
				return gone()
			}
		}
		if end {
			if !x.HTTP { // stdio
				reason := "server shutting down"
				r.sendAlways(protocol.MethodNotificationsCancelled, &protocol.CancelledNotificationParams{RequestID: id, Reason: &reason})
				return nil, errSilent
			}
			return &protocol.SubscriptionsListenResult{Meta: protocol.SubscriptionsListenResultMetaObject{SubscriptionID: id}}, nil
		}
	}
}

// listenFilter is the honoured part of a listen request's filter: what
// the acknowledgement lists and deliver sends.
type listenFilter struct {
	// ack is the acknowledged filter, the extensions' members aside: its
	// resourceSubscriptions in the order asked, each once.
	ack protocol.SubscriptionFilter
	// resources holds the same URIs for deliver: once the acknowledgement
	// is sent (compact), the list above is dropped, and a stream keeps the
	// set packed in one string, sorted.
	resources strset.Set
	// exts are the extensions' members the stream asked for (ListenFilter).
	exts []extListen
}

// extListen is the honoured part of an extension's filter member.
type extListen struct {
	ext   *Extension
	acked []string   // the keys Accept kept, in order, for the acknowledgement
	keys  strset.Set // the same, for deliver
}

// compact drops what only the acknowledgement needed.
func (f *listenFilter) compact() {
	f.ack.ResourceSubscriptions = nil
	for i := range f.exts {
		f.exts[i].acked = nil
	}
}

// honored works out which of the requested notifications the server will
// send (R-SUB-03): list changes it can report, and subscriptions to URIs it
// serves and that WithSubscriptionAuthorizer lets the principal watch
// (other URIs are left out of the acknowledgement). A member an extension
// added (ListenFilter: the tasks extension's taskIds) needs the extension
// declared on this request (R-VER-04, R-TASK-13), and is honoured as its
// Accept decides.
//
// Every list is bounded (WithListenLimits, ListenFilter.MaxKeys) and
// de-duplicated with sets, so the work is linear in the filter; the
// bounds are checked first.
func (s *Server) honored(ctx context.Context, r *Request, p *protocol.SubscriptionsListenRequestParams) (*listenFilter, error) {
	want := p.Notifications
	lim := s.listenLimits()
	if n := len(want.ResourceSubscriptions); n > lim.MaxResources {
		return nil, InvalidParams(fmt.Sprintf("Invalid params: notifications.resourceSubscriptions has %d entries, more than the limit of %d", n, lim.MaxResources), nil)
	}
	size, maxURI := 0, s.maxURIBytes()
	for i, uri := range want.ResourceSubscriptions {
		if len(uri) > maxURI {
			return nil, InvalidParams(fmt.Sprintf("Invalid params: notifications.resourceSubscriptions[%d] has %d bytes, more than the limit of %d", i, len(uri), maxURI), nil)
		}
		size += len(uri)
	}
	if size > lim.MaxResourceBytes {
		return nil, InvalidParams(fmt.Sprintf("Invalid params: the URIs of notifications.resourceSubscriptions total %d bytes, more than the limit of %d", size, lim.MaxResourceBytes), nil)
	}
	asked, err := s.extListenKeys(r, want.Extra)
	if err != nil {
		return nil, err
	}
	f := &listenFilter{}
	got := &f.ack
	yes := true
	if want.ToolsListChanged != nil && *want.ToolsListChanged {
		got.ToolsListChanged = &yes
	}
	if want.PromptsListChanged != nil && *want.PromptsListChanged {
		got.PromptsListChanged = &yes
	}
	if want.ResourcesListChanged != nil && *want.ResourcesListChanged {
		got.ResourcesListChanged = &yes
	}
	if err := s.knownResources(ctx, r.auth, r.Principal, want.ResourceSubscriptions, f); err != nil {
		return nil, err
	}
	for _, a := range asked {
		if err := s.acceptKeys(ctx, r, a.ext, a.keys, f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// listenExtsSnapshot returns the extensions with a listen filter member.
func (s *Server) listenExtsSnapshot() []*Extension {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.listenExts
}

// extAsked is an extension's member of a listen filter, as asked.
type extAsked struct {
	ext  *Extension
	keys []string
}

// extListenKeys reads the extensions' members of a listen filter, those
// present, in the order the extensions were added: each needs its
// extension declared on the request (R-VER-04) and is an array of strings
// within the extension's MaxKeys.
func (s *Server) extListenKeys(r *Request, extra protocol.Members) ([]extAsked, error) {
	exts := s.listenExtsSnapshot()
	if len(exts) == 0 || len(extra) == 0 {
		return nil, nil
	}
	var asked []extAsked
	for _, e := range exts {
		l := e.Listen
		raw, ok := extra.Get(l.Member)
		if !ok {
			continue
		}
		if !r.Declares(e.ID) {
			return nil, MissingExtension(e.ID)
		}
		var entries []*string // a null entry is refused, not read as ""
		if err := json.Unmarshal(raw, &entries); err != nil || entries == nil || slices.Contains(entries, nil) {
			return nil, InvalidParams("Invalid params: notifications."+l.Member+" must be an array of strings", nil)
		}
		keys := make([]string, len(entries))
		for j, k := range entries {
			keys[j] = *k
		}
		max := l.MaxKeys
		if max <= 0 {
			max = DefaultMaxListenKeys
		}
		if n := len(keys); n > max {
			return nil, InvalidParams(fmt.Sprintf("Invalid params: notifications.%s has %d entries, more than the limit of %d", l.Member, n, max), nil)
		}
		asked = append(asked, extAsked{ext: e, keys: keys})
	}
	return asked, nil
}

// acceptKeys adds to f what e's Accept keeps of keys, de-duplicated first.
func (s *Server) acceptKeys(ctx context.Context, r *Request, e *Extension, keys []string, f *listenFilter) error {
	seen := make(map[string]struct{}, len(keys))
	unique := make([]string, 0, len(keys))
	for _, k := range keys {
		if _, dup := seen[k]; !dup {
			seen[k] = struct{}{}
			unique = append(unique, k)
		}
	}
	var kept []string
	if len(unique) > 0 {
		var err error
		if kept, err = e.Listen.Accept(ctx, r, unique); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if refusal, ok := asError(err); ok {
				return refusal
			}
			s.log.Error("listen filter", "extension", e.ID, "err", err)
			return InternalError("Internal error")
		}
	}
	// Only keys that were asked, each once: Accept is the extension's code.
	acked := make([]string, 0, len(kept))
	for _, k := range kept {
		if _, ok := seen[k]; ok {
			delete(seen, k)
			acked = append(acked, k)
		}
	}
	f.exts = append(f.exts, extListen{ext: e, acked: acked, keys: strset.Pack(acked)})
	return nil
}

// knownResources adds to f, once each and in the order asked, the URIs
// that name a resource or match a template of this server, whose scopes
// token a holds (RequireResourceScopes: the resource's, else the first
// matching template's, as resources/read decides; a nil a checks none),
// and that principal may watch. A URI refused for its scopes is left out
// exactly like an unknown one. Templates are matched, and the authorizer
// called, without holding s.mu, which a long match would otherwise hold
// against registrations (and, behind a waiting writer, every request).
func (s *Server) knownResources(ctx context.Context, a *Authorization, principal string, uris []string, f *listenFilter) error {
	if len(uris) == 0 {
		return nil
	}
	seen := make(map[string]struct{}, len(uris))
	unique := make([]string, 0, len(uris))
	for _, uri := range uris {
		if _, dup := seen[uri]; !dup {
			seen[uri] = struct{}{}
			unique = append(unique, uri)
		}
	}
	known := make([]bool, len(unique))
	found := make([]bool, len(unique)) // a resource or a template decided
	s.mu.RLock()
	for i, uri := range unique {
		if res := s.resources[uri]; res != nil {
			found[i], known[i] = true, !a.Lacks(res.scopes)
		}
	}
	// templates grows by append and is replaced on removal: the elements
	// of this snapshot never change.
	templates := s.templates
	s.mu.RUnlock()
	for i, uri := range unique {
		if found[i] {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for _, t := range templates {
			if t.tmpl.Match(uri) != nil {
				known[i] = !a.Lacks(t.scopes)
				break
			}
		}
	}
	if mayWatch := s.cfg.mayWatch; mayWatch != nil {
		for i, uri := range unique {
			if !known[i] {
				continue
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			known[i] = mayWatch(ctx, principal, uri)
		}
	}
	for i, uri := range unique {
		if known[i] {
			f.ack.ResourceSubscriptions = append(f.ack.ResourceSubscriptions, uri)
		}
	}
	f.resources = strset.Pack(f.ack.ResourceSubscriptions)
	return nil
}

// deliver sends one event if the stream asked for it. It reports false
// when the stream is gone.
func (s *Server) deliver(r *Request, ev Event, lf *listenFilter, tag *protocol.NotificationMetaObject) bool {
	on := func(b *bool) bool { return b != nil && *b }
	f := &lf.ack
	switch ev.Kind {
	case EventToolsChanged:
		if on(f.ToolsListChanged) {
			return r.sendAlways(protocol.MethodNotificationsToolsListChanged, &protocol.NotificationParams{Meta: tag})
		}
	case EventPromptsChanged:
		if on(f.PromptsListChanged) {
			return r.sendAlways(protocol.MethodNotificationsPromptsListChanged, &protocol.NotificationParams{Meta: tag})
		}
	case EventResourcesChanged:
		if on(f.ResourcesListChanged) {
			return r.sendAlways(protocol.MethodNotificationsResourcesListChanged, &protocol.NotificationParams{Meta: tag})
		}
	case EventResourceUpdated:
		if lf.resources.Has(ev.URI) && s.mayReceiveUpdate(r.auth, ev.URI) {
			return r.sendAlways(protocol.MethodNotificationsResourcesUpdated, &protocol.ResourceUpdatedNotificationParams{Meta: tag, URI: ev.URI})
		}
	case EventExtension:
		for _, x := range lf.exts {
			if x.ext.ID != ev.Extension || !x.keys.Has(ev.Key) {
				continue
			}
			// Only a key the filter honoured, and only a payload the
			// extension vouches for: the decision reads ev.Key, the client
			// gets ev.Data.
			l := x.ext.Listen
			if len(ev.Data) == 0 || l.Verify != nil && !l.Verify(ev.Key, ev.Data) {
				s.log.Warn("dropping an extension event whose data does not match its key", "extension", ev.Extension, "key", ev.Key)
				return true
			}
			b, ok := taggedParams(ev.Data, tag)
			if !ok {
				s.log.Warn("dropping an extension event whose data is not a JSON object", "extension", ev.Extension, "key", ev.Key)
				return true
			}
			return r.sendRaw(l.Method, b)
		}
	}
	return true
}

// sendAlways sends a notification on the request's own stream.
func (r *Request) sendAlways(method string, params any) bool {
	return r.send(r.ctx, method, params, nil)
}

// sendRaw sends a notification whose params are already JSON.
func (r *Request) sendRaw(method string, params []byte) bool {
	if r.cancelled() || r.out == nil {
		return false
	}
	msg := notification(method, params)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return false
	}
	return r.out.Notify(msg)
}

// taggedParams sets the subscription id in the _meta of a notification's
// params, a JSON object. It reports false, and nothing is to be sent, when
// params is not a JSON object.
func taggedParams(params []byte, tag *protocol.NotificationMetaObject) ([]byte, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil || m == nil {
		return nil, false
	}
	metaJSON, err := protocol.Marshal(tag)
	if err != nil {
		return nil, false
	}
	m["_meta"] = metaJSON
	b, err := json.Marshal(m)
	if err != nil {
		return nil, false
	}
	return b, true
}
