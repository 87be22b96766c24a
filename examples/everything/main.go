// Command everything is an MCP 2026-07-28 server that exposes every
// fixture the official conformance suite needs (tools, prompts, resources,
// a resource template, completion, multi round-trip tools).
//
//	go run ./examples/everything -http 127.0.0.1:8080   # serves http://127.0.0.1:8080/mcp
//	go run ./examples/everything                        # serves stdio
package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address (path /mcp); default: stdio")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	s, err := newServer(logger)
	if err != nil {
		logger.Error("building the server", "err", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		if err := s.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil {
			logger.Error("stdio", "err", err)
			os.Exit(1)
		}
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.Handler(server.HTTPOptions{}))
	hs := &http.Server{
		Addr:              *addr,
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	logger.Info("serving", "url", "http://"+*addr+"/mcp")
	if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("http", "err", err)
		os.Exit(1)
	}
}

func newServer(logger *slog.Logger) (*server.Server, error) {
	s, err := server.New(protocol.Implementation{Name: "mcpwire-everything", Version: "0.1.0"},
		server.WithLogger(logger),
		server.WithInstructions("A test server exposing every conformance fixture."),
		server.WithCompletion(complete),
	)
	if err != nil {
		return nil, err
	}
	for _, add := range []func(*server.Server) error{addTools, addMRTRTools, addPrompts, addResources} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
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
