// Command everything is an MCP server that exposes every fixture the
// official conformance suite needs (tools, prompts, resources, a resource
// template, completion, multi round-trip tools), to 2026-07-28 clients and,
// on the same endpoint, to legacy clients of 2024-11-05 to 2025-11-25 that
// open a session with initialize (-eras both, the default; -eras modern or
// -eras legacy serve one era only).
//
//	go run ./examples/everything -http 127.0.0.1:8080   # serves http://127.0.0.1:8080/mcp
//	go run ./examples/everything                        # serves stdio
//
// With -redis, the instances also keep the legacy sessions of Streamable
// HTTP and the event logs of their resumable streams in that Redis
// (redisstore.SessionStore and EventStore), so that a session
// opened on one instance is served by every other, and a broken stream is
// resumed (Last-Event-ID) on any of them.
//
// Several instances behind one load balancer share a Redis and a
// requestState key:
//
//	export MCPWIRE_STATE_KEY=$(openssl rand -hex 32)
//	go run ./examples/everything -http 127.0.0.1:8081 -redis redis://127.0.0.1:6379/0 &
//	go run ./examples/everything -http 127.0.0.1:8082 -redis redis://127.0.0.1:6379/0 &
//
// The server itself is in the package examples/everything/app (Run), so
// that the OpenTelemetry module's otel/cmd/everything serves the same
// fixtures with tracing on.
package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpwire/mcpwire/examples/everything/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := app.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var usage *app.UsageError
	if errors.As(err, &usage) {
		logger.Error("usage", "err", err)
		os.Exit(2)
	}
	logger.Error("everything", "err", err)
	os.Exit(1)
}
