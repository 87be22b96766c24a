// Command apps is a Go port of the MCP Apps example server
// @modelcontextprotocol/server-basic-vanillajs (2.0.3): one tool, get-time,
// linked to one UI resource, ui://get-time/mcp-app.html, whose view shows
// the server's time and can ask for it again through its host. The view
// (view.html) is this example's own: the same page, written for it, with
// no framework and no build step.
//
//	go run ./examples/apps -http 127.0.0.1:8080   # Streamable HTTP at http://127.0.0.1:8080/mcp
//	go run ./examples/apps                        # stdio
//
// Both eras are served (2026-07-28 requests, and initialize sessions of
// 2024-11-05 to 2025-11-25), on both transports.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/server/stdio"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		slog.New(slog.NewTextHandler(os.Stderr, nil)).Error("apps", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fl := flag.NewFlagSet("apps", flag.ContinueOnError)
	addr := fl.String("http", "", "serve Streamable HTTP on this address (path /mcp), e.g. 127.0.0.1:8080; default stdio")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fl.Args())
	}
	s, err := newServer(time.Now)
	if err != nil {
		return err
	}
	if *addr == "" {
		return stdio.Serve(ctx, s, os.Stdin, os.Stdout, stdio.Options{})
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamhttp.Handler(s, streamhttp.Options{}))
	hs := newHTTPServer(mux)
	fmt.Fprintf(os.Stderr, "apps: MCP server at http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.Shutdown(sctx)
	return hs.Shutdown(sctx)
}

// newHTTPServer bounds how long a client may take, as examples/everything
// and examples/filesystem do, so that a slow client cannot hold
// connections: headers within 10 s, a request within 60 s, an idle
// keep-alive connection 120 s (README, limits: example server timeouts).
// There is no write timeout: listen streams stay open.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
}
