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
	out := &stdioWriter{w: bufio.NewWriter(w)}
	// A request is registered for cancellation as soon as its line is
	// read, before the next line, so that a notifications/cancelled that
	// follows it always finds it (R-CANCEL-01).
	type running struct{ cancel context.CancelFunc }
	var (
		mu       sync.Mutex
		inFlight = map[protocol.RequestId]*running{}
		wg       sync.WaitGroup
	)
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
	slots := make(chan struct{}, max(s.cfg.maxConcurrent, 1))
	acquire := func() bool {
		select {
		case slots <- struct{}{}:
			return true
		default:
			return false
		}
	}
	release := func() { <-slots }
	for ctx.Err() == nil {
		var rr readResult
		select {
		case rr = <-lines:
		case <-ctx.Done():
			continue
		}
		line, tooLong, err := rr.line, rr.tooLong, rr.err
		if tooLong {
			out.write(s.errorOutcome(nil, &Error{Code: protocol.CodeInvalidRequestError, Message: "Invalid Request: message line too long"}).body)
		} else if len(bytes.TrimSpace(line)) > 0 {
			if id, ok := cancelledID(line); ok {
				mu.Lock()
				if e := inFlight[id]; e != nil {
					e.cancel()
				}
				mu.Unlock()
			} else if !acquire() {
				// Over WithMaxConcurrent: answered at once, so that a
				// cancellation can still be read (backpressure would block it).
				e := &Error{Code: CodeRateLimited, Message: "Too many concurrent requests"}
				out.write(s.errorOutcome(recoverID(line), e).body)
			} else {
				msg := bytes.Clone(line)
				reqCtx, cancel := context.WithCancel(ctx)
				id := recoverID(msg)
				e := &running{cancel: cancel}
				if id != nil {
					mu.Lock()
					inFlight[*id] = e
					mu.Unlock()
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer release()
					defer cancel()
					o := s.process(reqCtx, msg, &exchange{out: out})
					if id != nil {
						mu.Lock()
						if inFlight[*id] == e {
							delete(inFlight, *id)
						}
						mu.Unlock()
					}
					if !o.cancelled && !o.notification && o.body != nil {
						out.write(o.body)
					}
					s.recycle(o.buf)
				}()
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
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

func (o *stdioWriter) notify(msg []byte) bool { return o.write(msg) }
