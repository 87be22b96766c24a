// Package app is the MCP server of the command examples/everything (see
// there): Run parses the command's flags and serves, so that another
// command can serve the same fixtures with options of its own (the
// OpenTelemetry module's otel/cmd/everything adds its middleware).
package app

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/redisstore"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/stdio"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// UsageError is Run's error for bad flags or flag values (the command
// exits with status 2 on it).
type UsageError struct{ Err error }

// Error returns the flag error's text.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the flag error.
func (e *UsageError) Unwrap() error { return e.Err }

// Run is the command examples/everything: it parses args (the flags,
// without the program name), serves stdio on stdin and stdout, or
// Streamable HTTP with -http, until ctx ends, and logs to stderr. extra
// are server options added after the command's own. It returns nil after
// a stop, a *UsageError for bad flags, or the error that ended serving.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, extra ...server.Option) error {
	fs := flag.NewFlagSet("everything", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("http", "", "serve Streamable HTTP on this address (path /mcp); default: stdio")
	redisURL := fs.String("redis", "", "share list changes, resource updates and tasks with the other instances through this Redis\n"+
		"(redis://[:password@]host:port/db); every instance must also get the same "+stateKeyEnv+"\n"+
		"(hex or base64, at least 32 bytes; comma-separated to rotate: new key first), which is read\n"+
		"with or without -redis; without it each instance seals requestState with its own random key")
	erasFlag := fs.String("eras", "both", "the protocol eras served: both (2026-07-28 and legacy initialize sessions on the same endpoint),\n"+
		"modern (2026-07-28 only) or legacy (2024-11-05 to 2025-11-25 only)")
	rateLimit := fs.Float64("rate", 0, "limit tools/call to this many calls per second per principal or client address\n"+
		"(bursts of twice as many; 0: no limit); over it: HTTP 429 with Retry-After, JSON-RPC code -31429")
	authFl := registerAuthFlags(fs)
	if err := fs.Parse(args); err != nil {
		return &UsageError{Err: err}
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	eras, err := parseEras(*erasFlag)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("-eras: %w", err)}
	}
	cl, closeCluster, err := newCluster(logger, *redisURL, eras)
	if err != nil {
		return fmt.Errorf("configuring the instance: %w", err)
	}
	defer closeCluster()
	if *rateLimit > 0 {
		cl.opts = append(cl.opts, server.WithRateLimit(rate.Limit(*rateLimit), max(2*int(*rateLimit), 1)))
	}
	cl.opts = append(cl.opts, extra...)
	s, err := newServer(logger, eras, cl)
	if err != nil {
		return fmt.Errorf("building the server: %w", err)
	}
	if *addr == "" {
		if err := s.ServeStdio(ctx, stdin, stdout); err != nil {
			return fmt.Errorf("stdio: %w", err)
		}
		return nil
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("http: %w", err)
	}
	mux, err := newMux(ctx, s, authFl, "http://"+ln.Addr().String()+"/mcp")
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("authorization: %w", err)
	}
	hs := newHTTPServer(*addr, mux)
	logger.Info("serving", "url", "http://"+ln.Addr().String()+"/mcp")
	if err := serveHTTP(ctx, logger, s.Server, hs, ln, shutdownTimeout); err != nil {
		return fmt.Errorf("http: %w", err)
	}
	return nil
}

// shutdownTimeout bounds a graceful stop (serveHTTP). A listen stream
// whose client stopped reading ends when its write times out
// (streamhttp.Options.WriteTimeout, 30 s by default); such streams are
// closed when the bound passes.
const shutdownTimeout = 10 * time.Second

// serveHTTP serves hs on ln until ctx ends (SIGINT or SIGTERM), then stops
// gracefully within timeout: first s.Shutdown, so that every listen stream
// ends with its subscriptions/listen result (R-SUB-06) and the requests
// still running get their responses; then hs.Shutdown, which stops
// accepting connections and waits until the responses are written. What
// is still open when the bound passes is closed. It returns nil after a
// stop, or the error that ended serving.
func serveHTTP(ctx context.Context, logger *slog.Logger, s *server.Server, hs *http.Server, ln net.Listener, timeout time.Duration) error {
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := s.Shutdown(sctx); err != nil {
		logger.Warn("listen streams or requests still open at the shutdown bound", "err", err)
	}
	if err := hs.Shutdown(sctx); err != nil {
		logger.Warn("connections still open at the shutdown bound; closing them", "err", err)
		_ = hs.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// parseEras reads the -eras flag: both, modern or legacy.
func parseEras(v string) (legacy.Eras, error) {
	for _, e := range []legacy.Eras{legacy.ErasBoth, legacy.ErasModern, legacy.ErasLegacy} {
		if v == e.String() {
			return e, nil
		}
	}
	return 0, fmt.Errorf("%q: want both, modern or legacy", v)
}

// instance is this example's server: the MCP server and the era that
// serves its legacy clients, shared by its HTTP endpoint and its stdio
// stream.
type instance struct {
	*server.Server
	era *legacy.Era
}

// Handler is the Streamable HTTP endpoint of the instance, both eras on
// one URL (streamhttp.Handler with the instance's era).
func (s *instance) Handler(opts streamhttp.Options) http.Handler {
	opts.Legacy = s.era
	return streamhttp.Handler(s.Server, opts)
}

// ServeStdio serves the instance on a stdio stream (stdio.Serve with the
// instance's era).
func (s *instance) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	return stdio.Serve(ctx, s.Server, r, w, stdio.Options{Legacy: s.era})
}

func newServer(logger *slog.Logger, eras legacy.Eras, cl cluster) (*instance, error) {
	s, err := server.New(protocol.Implementation{Name: "mcpwire-everything", Version: "0.1.0"},
		append([]server.Option{
			server.WithLogger(logger),
			server.WithInstructions("A test server exposing every conformance fixture."),
			server.WithCompletion(complete),
			tasks.WithTasks(tasks.TaskConfig{Store: cl.tasks, TTL: 10 * time.Minute, PollInterval: 500 * time.Millisecond}),
		}, cl.opts...)...,
	)
	if err != nil {
		return nil, err
	}
	for _, add := range []func(*server.Server) error{addTools, addMRTRTools, addLegacyTools, addTaskTools, addPrompts, addResources} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	lc := cl.legacy
	lc.Eras = eras
	era, err := legacy.New(s, lc)
	if err != nil {
		return nil, err
	}
	return &instance{Server: s, era: era}, nil
}

func complete(_ context.Context, _ *server.Request, p *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
	var values []string
	for _, v := range []string{"test", "testing", "tested", "value"} {
		if len(p.Argument.Value) <= len(v) && v[:len(p.Argument.Value)] == p.Argument.Value {
			values = append(values, v)
		}
	}
	total := int64(len(values))
	return &protocol.CompleteResult{Completion: protocol.CompleteResultCompletion{Values: values, Total: &total}}, nil
}

func describe(name, description string) protocol.Tool {
	return protocol.Tool{Name: name, Description: &description}
}

// stateKeyEnv names the environment variable holding the requestState
// secret(s) that instances behind one load balancer share.
const stateKeyEnv = "MCPWIRE_STATE_KEY"

// cluster is what this instance shares with others: server options (the
// broker, the state keys, the legacy session store) and the task store
// (nil: in memory).
type cluster struct {
	opts   []server.Option
	legacy legacy.Config
	tasks  tasks.TaskStore
}

// newCluster reads MCPWIRE_STATE_KEY and, when redisURL is set, connects
// to Redis (checked with a PING) for the broker, the task store and, when
// eras serves legacy clients, the session and event stores. The returned func
// releases them.
func newCluster(logger *slog.Logger, redisURL string, eras legacy.Eras) (cluster, func(), error) {
	var cl cluster
	done := func() {}
	if v := os.Getenv(stateKeyEnv); v != "" {
		keys, err := parseStateKeys(v)
		if err != nil {
			return cl, done, fmt.Errorf("%s: %w", stateKeyEnv, err)
		}
		cl.opts = append(cl.opts, server.WithStateKeys(keys[0], keys[1:]...))
	} else if redisURL != "" {
		logger.Warn(stateKeyEnv + " is not set: this instance seals requestState with its own key, so a multi round-trip retry served by another instance fails")
	}
	if redisURL == "" {
		return cl, done, nil
	}
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return cl, done, fmt.Errorf("-redis: %w", err)
	}
	rdb := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		return cl, done, fmt.Errorf("-redis %s: %w", opt.Addr, err)
	}
	b, err := redisstore.NewBroker(rdb, redisstore.WithLogger(logger))
	if err != nil {
		_ = rdb.Close()
		return cl, done, err
	}
	closeAll := func() {
		_ = b.Close()
		_ = rdb.Close()
	}
	ts, err := redisstore.NewTaskStore(rdb)
	if err != nil {
		closeAll()
		return cl, done, err
	}
	cl.opts = append(cl.opts, server.WithBroker(b))
	cl.tasks = ts
	if eras != legacy.ErasModern {
		ss, err := redisstore.NewSessionStore(rdb)
		if err != nil {
			closeAll()
			return cl, done, err
		}
		es, err := redisstore.NewEventStore(rdb)
		if err != nil {
			closeAll()
			return cl, done, err
		}
		// The event logs of resumability are shared with the sessions: a
		// client whose stream broke resumes with Last-Event-ID on whichever
		// instance the load balancer picks.
		cl.legacy = legacy.Config{Store: ss, EventStore: es}
		logger.Info("keeping legacy sessions and their event logs in Redis", "addr", opt.Addr, "db", opt.DB)
	}
	logger.Info("sharing events and tasks through Redis", "addr", opt.Addr, "db", opt.DB, "channel", b.Channel())
	var once sync.Once
	return cl, func() { once.Do(closeAll) }, nil
}

// parseStateKeys decodes comma-separated secrets, each hex or base64 (std
// or URL alphabet, padded or not) of at least 32 bytes. The first seals.
// Each key's ID is derived from its secret, so that every instance gives
// a key the same ID whatever its place in the list.
func parseStateKeys(v string) ([]server.StateKey, error) {
	var keys []server.StateKey
	for i, part := range strings.Split(v, ",") {
		secret, err := decodeSecret(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i+1, err)
		}
		if len(secret) < 32 {
			return nil, fmt.Errorf("key %d: %d bytes, want at least 32", i+1, len(secret))
		}
		sum := sha256.Sum256(secret)
		keys = append(keys, server.StateKey{ID: binary.BigEndian.Uint32(sum[:4]), Secret: secret})
	}
	return keys, nil
}

func decodeSecret(s string) ([]byte, error) {
	if b, err := hex.DecodeString(s); err == nil {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("neither hex nor base64")
}

// newHTTPServer bounds how long a client may take, so that a slow-loris
// client cannot hold connections: headers within 10 s, a request within
// 60 s, an idle keep-alive connection 120 s. There is no write timeout:
// listen streams stay open (the server bounds them by WithMaxStreamLifetime
// and keeps them alive with comments).
func newHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
}
