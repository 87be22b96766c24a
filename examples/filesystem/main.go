// Command filesystem is an MCP server of the files under the directories
// given on its command line, and nothing else: every file operation goes
// through an os.Root, so that "..", absolute paths and symlinks leading
// outside are refused by the operating system's traversal-resistant
// calls, not by string checks.
//
//	go run ./examples/filesystem -addr 127.0.0.1:8080 ~/notes /tmp/scratch   # Streamable HTTP at http://127.0.0.1:8080/mcp
//	go run ./examples/filesystem -stdio ~/notes                              # stdio
//
// It serves 2026-07-28 clients and, on the same endpoint, legacy clients
// that open with initialize. The tools are list_allowed_directories,
// list_directory, directory_tree, read_text_file, read_media_file,
// read_multiple_files, get_file_info, search_files, search_content,
// write_file, edit_file, create_directory and move_file; every file is
// also a resource of the template file:///{+path}, and each allowed
// directory a resource of its own.
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
	addr := flag.String("addr", "", "serve Streamable HTTP on this address (path /mcp), e.g. :8080")
	stdio := flag.Bool("stdio", false, "serve stdio")
	lim := registerLimits(flag.CommandLine)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: %s (-addr host:port | -stdio) [flags] dir...\n", os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if (*addr == "") == !*stdio || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(logger, *addr, *lim, flag.Args()); err != nil {
		logger.Error("filesystem", "err", err)
		os.Exit(1)
	}
}

// run serves the directories on stdio (addr "") or over HTTP until
// SIGINT or SIGTERM.
func run(logger *slog.Logger, addr string, lim limits, dirs []string) error {
	f, err := newFS(dirs, lim)
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := newServer(logger, f)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if addr == "" {
		return stdio.Serve(ctx, s, os.Stdin, os.Stdout, stdio.Options{})
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamhttp.Handler(s, streamhttp.Options{}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second}
	logger.Info("serving", "url", "http://"+ln.Addr().String()+"/mcp", "dirs", f.paths())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Graceful stop: the server's streams and requests first, then the
	// connections, within 10 s.
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(sctx); err != nil {
		logger.Warn("requests still open at the shutdown bound", "err", err)
	}
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
