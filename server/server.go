package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/sealed"
	"github.com/mcpwire/mcpwire/server/internal/validate"
)

// Defaults of the options.
const (
	DefaultPageSize        = 100
	DefaultMaxBodyBytes    = 4 << 20
	DefaultStateTTL        = 10 * time.Minute
	DefaultMaxStateBytes   = 16 << 10
	DefaultShutdownTimeout = 5 * time.Second
	// DefaultHandlerTimeout bounds one request's handler (not a listen
	// stream): past it the handler's context is done and the client gets
	// -32603 "Request timed out".
	DefaultHandlerTimeout = 5 * time.Minute
	DefaultMaxSchemaDepth = validate.DefaultMaxSchemaDepth
	// DefaultMaxSchemaNodes bounds the size of a tool schema (values in the
	// document, keywords and subschemas included), so that composition
	// keywords cannot make validation arbitrarily costly (R-SCHEMA-08).
	DefaultMaxSchemaNodes = validate.MaxSchemaNodes
	// DefaultMaxSchemaCost bounds the work of validating against a tool
	// schema, its $refs expanded (see schemaCost).
	DefaultMaxSchemaCost = validate.MaxSchemaCost
)

// CacheHint is the ttlMs/cacheScope pair put on cacheable results.
type CacheHint struct {
	TTL   time.Duration
	Scope protocol.CacheScope
}

// check refuses what the schema forbids (R-CACHE-03, R-CACHE-04).
func (h CacheHint) check() error {
	if h.TTL < 0 || (h.Scope != "" && !h.Scope.Valid()) {
		return fmt.Errorf("server: cache hint %v %q: ttl must be >= 0 and scope public or private (R-CACHE-03/04)", h.TTL, h.Scope)
	}
	return nil
}

// Option configures a Server.
type Option func(*config)

type config struct {
	instructions      string
	pageSize          int
	cache             map[string]CacheHint
	logger            *slog.Logger
	keys              []sealed.Key
	stateTTL          time.Duration
	maxStateBytes     int
	maxSchemaDepth    int
	omitServerInfo    bool
	fullServerInfo    bool
	middleware        []Middleware
	notifyMeta        func(ctx context.Context, set func(key, value string))
	completion        CompletionHandler
	shutdownTimeout   time.Duration
	declareLogging    bool
	maxStdioLineBytes int
	broker            Broker
	ownBroker         bool        // broker is the one New made: no other instance publishes to it
	exts              []Extension // WithExtension
	keepAlive         time.Duration
	handlerTimeout    time.Duration
	decode            protocol.UnmarshalOptions
	maxInputs         int
	maxConcurrent     int
	streamLifetime    time.Duration
	listenLimits      ListenLimits
	mayWatch          func(ctx context.Context, principal, uri string) bool
	rate              rate.Limit
	burst             int
	maxURIBytes       int   // WithMaxURIBytes
	maxNumberDigits   int   // WithNumberLimits; 0: the default
	maxNumberExponent int   // WithNumberLimits; 0: the default
	maxWork           int64 // WithMaxValidationWork; 0: the default
	maxValues         int   // WithMaxArgumentValues; 0: the default
	assertFormat      bool  // WithFormatAssertion
	strictNames       bool  // WithStrictNames
	errorDetails      bool  // WithErrorDetails
	maxStreamsPer     int   // WithMaxListenStreams; 0: the default, < 0: none
	maxStreams        int   // WithMaxListenStreams; 0: the default, < 0: none
}

// WithInstructions sets the instructions returned by server/discover.
func WithInstructions(s string) Option { return func(c *config) { c.instructions = s } }

// WithPageSize sets how many items one page of a list holds (default 100).
func WithPageSize(n int) Option { return func(c *config) { c.pageSize = n } }

// WithCacheHint sets the caching hint of one operation: "server/discover",
// "tools/list", "prompts/list", "resources/list", "resources/templates/list"
// or "resources/read". The default is ttlMs 0, cacheScope "private".
func WithCacheHint(method string, h CacheHint) Option {
	return func(c *config) { c.cache[method] = h }
}

// WithLogger sets where the runtime logs handler failures and server bugs
// (default: slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithStateKeys sets the secrets that seal requestState for multi
// round-trip requests. The first key seals; all keys open, so a rotation
// adds the new key first and keeps the old one until its tokens expire.
// Every instance behind one load balancer must get the same keys. Without
// this option a random key is made at start-up, which serves one instance.
func WithStateKeys(primary StateKey, older ...StateKey) Option {
	return func(c *config) {
		c.keys = append([]sealed.Key{{ID: primary.ID, Secret: primary.Secret}}, c.keys[:0]...)
		for _, k := range older {
			c.keys = append(c.keys, sealed.Key{ID: k.ID, Secret: k.Secret})
		}
	}
}

// StateKey is one versioned secret of at least 32 bytes.
type StateKey struct {
	ID     uint32
	Secret []byte
}

// WithStateLimits sets the lifetime of a sealed requestState (default 10
// minutes) and its largest encoded size (default 16 KiB).
func WithStateLimits(ttl time.Duration, maxBytes int) Option {
	return func(c *config) { c.stateTTL, c.maxStateBytes = ttl, maxBytes }
}

// WithMaxSchemaDepth bounds the nesting of tool input and output schemas
// compiled at registration (default 64).
func WithMaxSchemaDepth(n int) Option { return func(c *config) { c.maxSchemaDepth = n } }

// WithoutServerInfo leaves io.modelcontextprotocol/serverInfo out of
// result _meta (R-META-04 allows it when configured).
func WithoutServerInfo() Option { return func(c *config) { c.omitServerInfo = true } }

// WithFullServerInfo puts the whole Implementation given to New (title,
// description, icons, websiteUrl) in every result's serverInfo. Without
// it, a result's serverInfo carries the name and the version only, the
// members the schema requires (R-META-04): it is there for logs and
// debugging, and icons would repeat on every response. server/discover
// (R-DISC-03) and a legacy initialize carry the whole Implementation
// either way.
func WithFullServerInfo() Option { return func(c *config) { c.fullServerInfo = true } }

// WithCompletion installs the completion/complete handler and declares
// the completions capability.
func WithCompletion(h CompletionHandler) Option { return func(c *config) { c.completion = h } }

// WithShutdownTimeout bounds how long stdio.Serve waits for running
// handlers after end of input (default 5 s).
func WithShutdownTimeout(d time.Duration) Option { return func(c *config) { c.shutdownTimeout = d } }

// WithHandlerTimeout bounds how long one request's handler may run
// (default 5 minutes; 0 or less: no bound). Listen streams are not
// bounded by it (see WithMaxStreamLifetime).
func WithHandlerTimeout(d time.Duration) Option { return func(c *config) { c.handlerTimeout = d } }

// WithMaxStdioLine bounds one stdio message line (default 4 MiB).
func WithMaxStdioLine(n int) Option { return func(c *config) { c.maxStdioLineBytes = n } }

// Server holds what an MCP server offers. It keeps no state between
// requests (R-STATE-01): two Servers configured alike, in two processes,
// answer any request the same way. It is safe for concurrent use.
type Server struct {
	impl   protocol.Implementation
	cfg    config
	sealer *sealed.Sealer
	log    *slog.Logger
	// resultMeta is the _meta put on results that have none: serverInfo.
	// It is shared by every response and never modified.
	resultMeta *protocol.ResultMetaObject
	metaJSON   []byte // resultMeta encoded once (protocol.MarshalOptions.MetaJSON)
	// chain is the middleware around dispatch (WithMiddleware); nil: none.
	chain Handler
	// discoverMeta is server/discover's _meta: the whole Implementation.
	discoverMeta *protocol.ResultMetaObject
	// bufs recycles response body buffers (*[]byte) between requests.
	bufs sync.Pool

	limiters  *limiters     // nil without WithRateLimit
	work      workCount     // running requests, listen streams and what adapters hold, for Shutdown
	closing   chan struct{} // closed by Shutdown
	closeOnce sync.Once
	streams   streamCounts // open listen streams, for WithMaxListenStreams

	mu          sync.RWMutex
	extensions  map[string]protocol.JSONObject // capabilities.extensions
	extMethods  map[string]ExtensionMethod
	exts        map[string]*Extension // by ID (WithExtension, AddExtension)
	listenExts  []*Extension          // those with a ListenFilter, in order added
	tools       map[string]*tool
	prompts     map[string]*prompt
	resources   map[string]*resource
	templates   []*template // replaced on removal, never changed in place
	templateSeq uint64      // the last template's registration number (under mu)
	// The registries' names in order, for the lists: built by the first
	// list after a change (under mu's read lock) and reset by every change
	// (under its write lock).
	sortedTools, sortedPrompts, sortedResources atomic.Pointer[[]string]

	sharedMu sync.Mutex // guards shared, what adapters keep per Server (Adapter.Shared)
	shared   map[any]any
}

// New returns a Server that introduces itself as impl (name and version
// are required by the schema).
func New(impl protocol.Implementation, opts ...Option) (*Server, error) {
	c := config{
		pageSize:          DefaultPageSize,
		cache:             map[string]CacheHint{},
		stateTTL:          DefaultStateTTL,
		maxStateBytes:     DefaultMaxStateBytes,
		maxSchemaDepth:    DefaultMaxSchemaDepth,
		shutdownTimeout:   DefaultShutdownTimeout,
		declareLogging:    true,
		maxStdioLineBytes: DefaultMaxBodyBytes,
		keepAlive:         DefaultKeepAlive,
		handlerTimeout:    DefaultHandlerTimeout,
		decode:            DefaultDecodeLimits(),
		maxInputs:         DefaultMaxInputRequests,
		maxConcurrent:     DefaultMaxConcurrent,
		streamLifetime:    DefaultMaxStreamLifetime,
	}
	for _, o := range opts {
		o(&c)
	}
	if impl.Name == "" || impl.Version == "" {
		return nil, errors.New("server: Implementation needs a name and a version")
	}
	if c.pageSize <= 0 {
		return nil, fmt.Errorf("server: page size %d must be positive", c.pageSize)
	}
	for m, h := range c.cache {
		switch m {
		case protocol.MethodServerDiscover, protocol.MethodToolsList, protocol.MethodPromptsList,
			protocol.MethodResourcesList, protocol.MethodResourcesTemplatesList, protocol.MethodResourcesRead:
		default:
			return nil, fmt.Errorf("server: cache hint for %q, which is not cacheable", m)
		}
		if err := h.check(); err != nil {
			return nil, fmt.Errorf("server: cache hint for %s: %w", m, err)
		}
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	if c.broker == nil {
		c.broker, c.ownBroker = NewLocalBroker(), true
	}
	if len(c.keys) == 0 {
		k, err := randomKey()
		if err != nil {
			return nil, err
		}
		c.keys = []sealed.Key{k}
	}
	ring, err := sealed.NewKeyring(c.keys[0], c.keys[1:]...)
	if err != nil {
		return nil, fmt.Errorf("server: state keys: %w", err)
	}
	serverInfo := protocol.Implementation{Name: impl.Name, Version: impl.Version}
	if c.fullServerInfo {
		serverInfo = impl
	}
	fullInfo := impl
	s := &Server{
		impl:         impl,
		resultMeta:   &protocol.ResultMetaObject{ServerInfo: &serverInfo},
		discoverMeta: &protocol.ResultMetaObject{ServerInfo: &fullInfo},
		cfg:          c,
		log:          c.logger,
		sealer:       sealed.NewSealer(ring, sealed.Options{TTL: c.stateTTL, MaxBytes: c.maxStateBytes}),
		closing:      make(chan struct{}),
		shared:       map[any]any{},
		extensions:   map[string]protocol.JSONObject{},
		extMethods:   map[string]ExtensionMethod{},
		exts:         map[string]*Extension{},
		tools:        map[string]*tool{},
		prompts:      map[string]*prompt{},
		resources:    map[string]*resource{},
	}
	s.metaJSON, _ = protocol.Marshal(s.resultMeta) // nil on error: encoded with each result, which fails then
	for _, e := range c.exts {
		if e.Middleware != nil { // innermost: the server's own middleware sees the request first
			s.cfg.middleware = append(s.cfg.middleware, e.Middleware)
		}
	}
	s.chain = s.buildChain()
	for _, e := range c.exts {
		if _, err := s.addExtension(e, true); err != nil {
			return nil, err
		}
	}
	if c.rate > 0 {
		if c.burst < 1 {
			c.burst = 1
		}
		s.limiters = newLimiters(c.rate, c.burst, DefaultMaxRateLimiters)
	}
	return s, nil
}

// capabilities reports what the server offers, for server/discover.
func (s *Server) capabilities() protocol.ServerCapabilities {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var c protocol.ServerCapabilities
	// List changes and resource updates reach listen streams through the
	// broker, which every Server has (R-SUB-09, R-SUB-10).
	yes := true
	if len(s.tools) > 0 {
		c.Tools = &protocol.ServerCapabilitiesTools{ListChanged: &yes}
	}
	if len(s.prompts) > 0 {
		c.Prompts = &protocol.ServerCapabilitiesPrompts{ListChanged: &yes}
	}
	if len(s.resources) > 0 || len(s.templates) > 0 {
		c.Resources = &protocol.ServerCapabilitiesResources{ListChanged: &yes, Subscribe: &yes}
	}
	if s.cfg.completion != nil {
		c.Completions = protocol.JSONObject("{}")
	}
	if s.cfg.declareLogging {
		c.Logging = protocol.JSONObject("{}")
	}
	if len(s.extensions) > 0 {
		c.Extensions = make(map[string]protocol.JSONObject, len(s.extensions))
		for k, v := range s.extensions {
			c.Extensions[k] = v
		}
	}
	return c
}

func (s *Server) cacheHint(method string) (int64, protocol.CacheScope) {
	h, ok := s.cfg.cache[method]
	if !ok {
		return 0, protocol.CacheScopePrivate
	}
	return h.wire()
}

// resultHint is the hint of one request's result: the handler's own
// (SetCacheHint) or the method's, and private for a multi round-trip
// retry, whose result depends on this client's answers.
func (s *Server) resultHint(r *Request) (int64, protocol.CacheScope) {
	ttl, scope := s.cacheHint(r.Method)
	if r.cache != nil {
		ttl, scope = r.cache.wire()
	}
	if r.state != nil || len(r.inputResponses) > 0 {
		scope = protocol.CacheScopePrivate
	}
	return ttl, scope
}

// wire is the hint as ttlMs and cacheScope (an empty scope is private).
func (h CacheHint) wire() (int64, protocol.CacheScope) {
	scope := h.Scope
	if scope == "" {
		scope = protocol.CacheScopePrivate
	}
	return h.TTL.Milliseconds(), scope
}

// sortedKeys returns the keys of a registry in order, for deterministic
// lists.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// cachedKeys returns the sorted keys of m from cache, building them when
// the cache was reset. The caller holds s.mu (read or write), so m cannot
// change meanwhile; the slice is shared and never modified.
func cachedKeys[V any](cache *atomic.Pointer[[]string], m map[string]V) []string {
	if keys := cache.Load(); keys != nil {
		return *keys
	}
	keys := sortedKeys(m)
	cache.Store(&keys)
	return keys
}

// unregister removes key from a registry under the write lock, resets the
// registry's sorted names, and, once the lock is released, tells the
// listen streams: publishing can wait on a remote broker, and no request
// may wait behind it.
func unregister[V any](s *Server, m map[string]V, key string, sorted *atomic.Pointer[[]string], notify func() error) bool {
	s.mu.Lock()
	_, ok := m[key]
	delete(m, key)
	sorted.Store(nil)
	s.mu.Unlock()
	if ok {
		_ = notify()
	}
	return ok
}

// ctxKey keys the request in a handler's context.
type ctxKey struct{}

// RequestFrom returns the request a handler's context belongs to.
func RequestFrom(ctx context.Context) (*Request, bool) {
	r, ok := ctx.Value(ctxKey{}).(*Request)
	return r, ok
}
