// Package stdio serves an MCP server over standard input and output
// (basic/transports/stdio.mdx): newline-delimited JSON-RPC, one message a
// line, standard output carrying protocol messages only. Clients of
// 2024-11-05 to 2025-11-25 are served on the same stream by the legacy
// era (package legacy), beside 2026-07-28 lines.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/stdiowire"
	"github.com/mcpwire/mcpwire/server/legacy"
)

// Options configures Serve. The zero value serves both eras.
type Options struct {
	// Legacy is the era that serves clients of 2024-11-05 to 2025-11-25
	// on the stream (package legacy), and says which eras it serves. Nil:
	// legacy.Default(s), both eras.
	Legacy *legacy.Era
}

// Serve serves newline-delimited JSON-RPC on r and w (R-STDIO-*): one
// message per line, standard output carrying protocol messages only.
// Requests run concurrently, so responses may come out of order;
// notifications/cancelled cancels the matching request, which then sends
// nothing. A line that is not JSON gets -32700 with no id. At end of input
// it waits for running requests (server.WithShutdownTimeout), cancels what
// is left and returns nil; a read error is returned. Cancelling ctx
// cancels running requests and returns nil without waiting for more
// input. The first legacy initialize opens the stream's legacy session
// (package legacy); 2026-07-28 lines stay stateless beside it.
func Serve(ctx context.Context, s *server.Server, r io.Reader, w io.Writer, opts Options) error {
	core := s.Adapter()
	set := core.Settings()
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	c := stdiowire.NewConn(ctx, core, w, set.MaxConcurrent)
	era := opts.Legacy
	if era == nil {
		era = legacy.Default(s)
	}
	var side *legacy.Stdio
	if era.Dual() {
		side = era.Stdio(c)
		c.Versions = era.Versions()
	}
	// Lines are read in their own goroutine so that a cancelled ctx ends
	// Serve even while r blocks (a read in progress is abandoned).
	type readResult struct {
		line    []byte
		tooLong bool
		err     error
	}
	lines := make(chan readResult)
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := stdiowire.ReadLine(br, set.MaxLineBytes)
			select {
			case lines <- readResult{line, tooLong, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	var readErr error
	for ctx.Err() == nil {
		var rr readResult
		select {
		case rr = <-lines:
		case <-ctx.Done():
			continue
		}
		line, tooLong, err := rr.line, rr.tooLong, rr.err
		if tooLong {
			c.Out.Write(core.ErrorOutcome(nil, &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Invalid Request: message line too long"}).Body)
		} else if len(bytes.TrimSpace(line)) > 0 {
			serveLine(c, side, line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
	}
	if side != nil {
		side.End()
	}
	done := make(chan struct{})
	go func() { c.WG.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(set.ShutdownTimeout):
		cancelAll()
		<-done
	case <-ctx.Done():
		<-done
	}
	return readErr
}

// serveLine serves one line, in the read loop: a cancellation at once, any
// other message in a goroutine of its own (the legacy era decides first
// when it serves the stream).
func serveLine(c *stdiowire.Conn, side *legacy.Stdio, line []byte) {
	if id, ok := stdiowire.CancelledID(line); ok {
		c.Cancel(id)
		return
	}
	if side != nil {
		side.Line(line)
		return
	}
	c.Spawn(line, c.Core.MessageID(line), c.Core.Serve)
}
