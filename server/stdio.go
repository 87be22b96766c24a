package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// ServeStdio serves newline-delimited JSON-RPC on r and w (R-STDIO-*): one
// message per line, standard output carrying protocol messages only.
// Requests run concurrently, so responses may come out of order;
// notifications/cancelled cancels the matching request, which then sends
// nothing. A line that is not JSON gets -32700 with no id. At end of input
// it waits for running requests (WithShutdownTimeout), cancels what is
// left and returns nil; a read error is returned. Cancelling ctx cancels
// running requests and returns nil without waiting for more input.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	c := &stdioConn{
		s:        s,
		ctx:      ctx,
		out:      &stdioWriter{w: bufio.NewWriter(w)},
		inFlight: map[protocol.RequestId]*stdioRunning{},
		slots:    make(chan struct{}, max(s.cfg.maxConcurrent, 1)),
	}
	// Lines are read in their own goroutine so that a cancelled ctx ends
	// ServeStdio even while r blocks (a read in progress is abandoned).
	type readResult struct {
		line    []byte
		tooLong bool
		err     error
	}
	lines := make(chan readResult)
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br, s.cfg.maxStdioLineBytes)
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
			c.out.write(s.errorOutcome(nil, &Error{Code: protocol.CodeInvalidRequestError, Message: "Invalid Request: message line too long"}).Body)
		} else if len(bytes.TrimSpace(line)) > 0 {
			c.line(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
	}
	c.end()
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(s.cfg.shutdownTimeout):
		cancelAll()
		<-done
	case <-ctx.Done():
		<-done
	}
	return readErr
}

// stdioConn is one ServeStdio call: its writer, its running requests and,
// once a legacy client sent initialize, its legacy session.
type stdioConn struct {
	s   *Server
	ctx context.Context
	out *stdioWriter
	// A request is registered for cancellation as soon as its line is
	// read, before the next line, so that a notifications/cancelled that
	// follows it always finds it (R-CANCEL-01).
	mu       sync.Mutex
	inFlight map[protocol.RequestId]*stdioRunning
	wg       sync.WaitGroup
	slots    chan struct{} // WithMaxConcurrent
	// sess is the legacy session (dual era), set and read by the read
	// loop; its requests get it when they start.
	sess *stdioSession
}

// stdioRunning is one running request, for cancellation.
type stdioRunning struct{ cancel context.CancelFunc }

// line serves one line, in the read loop: a cancellation at once, any
// other message in a goroutine of its own.
func (c *stdioConn) line(line []byte) {
	if id, ok := cancelledID(line); ok {
		c.cancel(id)
		return
	}
	if c.s.dual() {
		c.dualLine(line)
		return
	}
	c.spawn(line, recoverID(line), c.s.process)
}

// cancel cancels the running request id, if any.
func (c *stdioConn) cancel(id protocol.RequestId) {
	c.mu.Lock()
	if e := c.inFlight[id]; e != nil {
		e.cancel()
	}
	c.mu.Unlock()
}

// spawn runs serve on a copy of line in a goroutine of its own, within
// WithMaxConcurrent, registered under id for cancellation, and writes its
// answer. Over the limit the line is answered at once, so that a
// cancellation can still be read (backpressure would block it).
func (c *stdioConn) spawn(line []byte, id *protocol.RequestId, serve func(ctx context.Context, msg []byte, x *Exchange) Outcome) {
	msg := bytes.Clone(line)
	c.run(id, func(o Outcome) {
		if !o.Cancelled && !o.Notification && o.Body != nil {
			c.out.write(o.Body)
		}
	}, func(ctx context.Context) Outcome {
		return serve(ctx, msg, &Exchange{Notifier: c.out})
	})
}

// run runs serve in a goroutine of its own, within WithMaxConcurrent,
// registered under id for cancellation, and hands its outcome to done
// (which must not keep o.body: its buffer is recycled after). Over the
// limit done gets the -32029 refusal at once.
func (c *stdioConn) run(id *protocol.RequestId, done func(o Outcome), serve func(ctx context.Context) Outcome) {
	select {
	case c.slots <- struct{}{}:
	default:
		e := &Error{Code: CodeRateLimited, Message: "Too many concurrent requests"}
		done(c.s.errorOutcome(id, e))
		return
	}
	reqCtx, cancel := context.WithCancel(c.ctx)
	e := &stdioRunning{cancel: cancel}
	if id != nil {
		c.mu.Lock()
		c.inFlight[*id] = e
		c.mu.Unlock()
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() { <-c.slots }()
		defer cancel()
		o := serve(reqCtx)
		if id != nil {
			c.mu.Lock()
			if c.inFlight[*id] == e {
				delete(c.inFlight, *id)
			}
			c.mu.Unlock()
		}
		done(o)
		c.s.recycle(o.buf)
	}()
}

// readLine reads one line without its line end, up to max bytes; a longer
// line is discarded up to its end and reported as too long.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
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

// oneLine removes the line breaks that raw JSON members (a schema, a
// structuredContent, error or log data, kept as the handler wrote them) may
// carry: a message must be one line on stdio (R-STDIO-01) and one data
// line in an SSE event. Inside valid JSON a raw CR or LF can only be white
// space, so compacting is lossless.
func oneLine(msg []byte) []byte {
	if !bytes.ContainsAny(msg, "\r\n") {
		return msg
	}
	var b bytes.Buffer
	if err := json.Compact(&b, msg); err != nil {
		return msg
	}
	return b.Bytes()
}

// cancelledID recognises a notifications/cancelled message. A message
// with an id is a request, not a notification: it is left to process,
// which answers it (-32601), since every request gets a response.
func cancelledID(line []byte) (protocol.RequestId, bool) {
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

// stdioWriter writes whole lines, one message each, under a lock.
type stdioWriter struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (o *stdioWriter) write(msg []byte) bool {
	msg = oneLine(msg)
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

func (o *stdioWriter) Notify(msg []byte) bool { return o.write(msg) }
