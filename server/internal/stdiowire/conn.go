// Package stdiowire is the mechanics of the stdio transport that package
// stdio and the legacy era's stdio session (package legacy) share: one
// stream's line writer, its running requests and their cancellation
// (Conn), and reading lines.
package stdiowire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/jsonline"
)

// Conn is one stdio stream being served: its writer and its running
// requests, for package stdio's read loop and the legacy era's stdio
// session (package legacy).
type Conn struct {
	// Core is the server's adapter interface.
	Core *server.Adapter
	// Ctx is the stream's context: cancelled, every request is.
	Ctx context.Context
	// Out writes the stream's lines.
	Out *Writer
	// Versions is what the stream serves (server.Exchange.Versions).
	Versions []string
	// A request is registered for cancellation as soon as its line is
	// read, before the next line, so that a notifications/cancelled that
	// follows it always finds it (R-CANCEL-01).
	Mu       sync.Mutex
	InFlight map[protocol.RequestId]*Running
	WG       sync.WaitGroup
	slots    chan struct{} // WithMaxConcurrent
}

// NewConn returns the Conn of a stream written to w, running at most
// maxConcurrent requests at once (server.WithMaxConcurrent).
func NewConn(ctx context.Context, core *server.Adapter, w io.Writer, maxConcurrent int) *Conn {
	return &Conn{Core: core, Ctx: ctx, Out: &Writer{w: bufio.NewWriter(w)},
		InFlight: map[protocol.RequestId]*Running{}, slots: make(chan struct{}, max(maxConcurrent, 1))}
}

// Running is one running request, for cancellation (Conn.InFlight).
type Running struct{ cancel context.CancelFunc }

// Cancel cancels the running request id, if any.
func (c *Conn) Cancel(id protocol.RequestId) {
	c.Mu.Lock()
	if e := c.InFlight[id]; e != nil {
		e.cancel()
	}
	c.Mu.Unlock()
}

// Spawn runs serve on a copy of line in a goroutine of its own, within
// WithMaxConcurrent, registered under id for cancellation, and writes its
// answer. Over the limit the line is answered at once, so that a
// cancellation can still be read (backpressure would block it).
func (c *Conn) Spawn(line []byte, id *protocol.RequestId, serve func(ctx context.Context, msg []byte, x *server.Exchange) server.Outcome) {
	msg := bytes.Clone(line)
	c.Run(id, func(o server.Outcome) {
		if !o.Cancelled && !o.Notification && o.Body != nil {
			c.Out.Write(o.Body)
		}
	}, func(ctx context.Context) server.Outcome {
		return serve(ctx, msg, &server.Exchange{Notifier: c.Out, Versions: c.Versions})
	})
}

// Run runs serve in a goroutine of its own, within WithMaxConcurrent,
// registered under id for cancellation, and hands its outcome to done
// (which must not keep o.Body: its buffer is recycled after). Over the
// limit done gets the -32029 refusal at once.
func (c *Conn) Run(id *protocol.RequestId, done func(o server.Outcome), serve func(ctx context.Context) server.Outcome) {
	select {
	case c.slots <- struct{}{}:
	default:
		e := &server.Error{Code: server.CodeRateLimited, Message: "Too many concurrent requests"}
		done(c.Core.ErrorOutcome(id, e))
		return
	}
	reqCtx, cancel := context.WithCancel(c.Ctx)
	e := &Running{cancel: cancel}
	if id != nil {
		c.Mu.Lock()
		c.InFlight[*id] = e
		c.Mu.Unlock()
	}
	c.WG.Add(1)
	go func() {
		defer c.WG.Done()
		defer func() { <-c.slots }()
		defer cancel()
		o := serve(reqCtx)
		if id != nil {
			c.Mu.Lock()
			if c.InFlight[*id] == e {
				delete(c.InFlight, *id)
			}
			c.Mu.Unlock()
		}
		done(o)
		c.Core.Release(o)
	}()
}

// ReadLine reads one line without its line end, up to max bytes; a longer
// line is discarded up to its end and reported as too long.
func ReadLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > max+2 {
			tooLong = true
			buf = buf[:0]
		} else if !tooLong {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		if len(buf) > max {
			return nil, true, err // the line end is not part of the limit
		}
		return buf, false, err
	}
}

// CancelledID recognises a notifications/cancelled message. A message
// with an id is a request, not a notification: it is left to process,
// which answers it (-32601), since every request gets a response.
func CancelledID(line []byte) (protocol.RequestId, bool) {
	if !bytes.Contains(line, []byte(protocol.MethodNotificationsCancelled)) {
		return protocol.RequestId{}, false
	}
	var n protocol.CancelledNotification
	if protocol.Unmarshal(line, &n) != nil {
		return protocol.RequestId{}, false
	}
	if _, isRequest := n.Extra.Get("id"); isRequest {
		return protocol.RequestId{}, false
	}
	return n.Params.RequestID, true
}

// Writer writes whole lines, one message each, under a lock.
type Writer struct {
	mu sync.Mutex
	w  *bufio.Writer
}

// Write writes msg on one line; false once writing failed.
func (o *Writer) Write(msg []byte) bool {
	msg = jsonline.Compact(msg)
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err := o.w.Write(msg)
	if err == nil {
		err = o.w.WriteByte('\n')
	}
	if err == nil {
		err = o.w.Flush()
	}
	return err == nil
}

// Notify is Write, for server.Notifier.
func (o *Writer) Notify(msg []byte) bool { return o.Write(msg) }
