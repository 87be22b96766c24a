// Package testkit is what the tests of package server and of the packages
// beside it share: request builders, an HTTP and a stdio driver, a
// legacy client, fixtures, the hostile corpus, fuzz seeds. The tests
// dot-import it. It is test support, never imported by the library.
package testkit

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/stdio"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"go.uber.org/goleak"
)

// The tests configure a server's eras beside its server options, as they
// did when the eras were server options: an EraOption among the options
// of a fixture makes the server's Era (legacy.New), which every Handler
// and stdio stream of the server then shares, as its sessions were shared
// by the Server's handlers.

// EraOption configures the Era of a test server.
type EraOption func(*legacy.Config)

// Eras sets the eras a test server serves (legacy.Config.Eras).
func Eras(e legacy.Eras) EraOption { return func(c *legacy.Config) { c.Eras = e } }

// Legacy sets the legacy configuration of a test server, all but Eras
// (and Clock, unless l sets one).
func Legacy(l legacy.Config) EraOption {
	return func(c *legacy.Config) {
		e, clock := c.Eras, c.Clock
		*c = l
		c.Eras = e
		if c.Clock == nil {
			c.Clock = clock
		}
	}
}

// Clock sets the clock of a test server's Era and of its default stores
// (legacy.Config.Clock); Legacy options keep it.
func Clock(now func() time.Time) EraOption { return func(c *legacy.Config) { c.Clock = now } }

// eras holds the Era of each test server (test processes only).
var eras sync.Map // *server.Server → *legacy.Era

// SplitOptions separates a fixture's options into server options and era
// options; anything else is a test bug.
func SplitOptions(opts []any) ([]server.Option, []EraOption) {
	var so []server.Option
	var eo []EraOption
	for _, o := range opts {
		switch v := o.(type) {
		case server.Option:
			so = append(so, v)
		case EraOption:
			eo = append(eo, v)
		case []server.Option:
			so = append(so, v...)
		default:
			panic("testkit: not a server or era option")
		}
	}
	return so, eo
}

// NewWithEras is server.New with era options among opts: it makes the
// server and its Era, and returns the error of either.
func NewWithEras(impl protocol.Implementation, opts ...any) (*server.Server, error) {
	so, eo := SplitOptions(opts)
	s, err := server.New(impl, so...)
	if err != nil {
		return nil, err
	}
	if _, err := SetEra(s, eo...); err != nil {
		return nil, err
	}
	return s, nil
}

// SetEra makes the Era of s from opts (the defaults when none) and
// records it for Handler and ServeStdio.
func SetEra(s *server.Server, opts ...EraOption) (*legacy.Era, error) {
	var c legacy.Config
	for _, o := range opts {
		o(&c)
	}
	e, err := legacy.New(s, c)
	if err != nil {
		return nil, err
	}
	eras.Store(s, e)
	return e, nil
}

// EraOf returns the Era of s: the one SetEra made, or one with the
// defaults, made now.
func EraOf(s *server.Server) *legacy.Era {
	if e, ok := eras.Load(s); ok {
		return e.(*legacy.Era)
	}
	e, _ := eras.LoadOrStore(s, legacy.Default(s))
	return e.(*legacy.Era)
}

// Handler is streamhttp.Handler with the Era of s.
func Handler(s *server.Server, opts streamhttp.Options) http.Handler {
	if opts.Legacy == nil {
		opts.Legacy = EraOf(s)
	}
	return streamhttp.Handler(s, opts)
}

// ServeStdio is stdio.Serve with the Era of s.
func ServeStdio(ctx context.Context, s *server.Server, r io.Reader, w io.Writer) error {
	return stdio.Serve(ctx, s, r, w, stdio.Options{Legacy: EraOf(s)})
}

// MustEra is SetEra for a test: a failure fails it.
func MustEra(tb testing.TB, s *server.Server, opts ...EraOption) *legacy.Era {
	tb.Helper()
	e, err := SetEra(s, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// VerifyNoLeaks runs a package's tests and fails them if any goroutine
// outlives them: handlers, listen streams, brokers and stdio readers must
// all end.
func VerifyNoLeaks(m *testing.M) {
	goleak.VerifyTestMain(m,
		// The HTTP client's idle connections are closed by the tests'
		// servers, but their read loops may still be winding down.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
	)
}

// RepoRoot is the module's root directory: the nearest directory above
// the test's working directory that holds go.mod.
func RepoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ".."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ".."
		}
	}
}
