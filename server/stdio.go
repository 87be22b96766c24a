package server

import (
	"bufio"
	"bytes"
	"context"
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
// left and returns nil; a read error is returned.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	out := &stdioWriter{w: bufio.NewWriter(w)}
	var (
		mu      sync.Mutex
		running = map[protocol.RequestId]context.CancelFunc{}
		wg      sync.WaitGroup
	)
	track := func(id protocol.RequestId, cancel context.CancelFunc) func() {
		mu.Lock()
		running[id] = cancel
		mu.Unlock()
		return func() {
			mu.Lock()
			delete(running, id)
			mu.Unlock()
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var readErr error
	for ctx.Err() == nil {
		line, tooLong, err := readLine(br, s.cfg.maxStdioLineBytes)
		if tooLong {
			out.write(s.errorOutcome(nil, &Error{Code: protocol.CodeInvalidRequestError, Message: "Invalid Request: message line too long"}).body)
		} else if len(bytes.TrimSpace(line)) > 0 {
			if id, ok := cancelledID(line); ok {
				mu.Lock()
				if c := running[id]; c != nil {
					c()
				}
				mu.Unlock()
			} else {
				msg := bytes.Clone(line)
				wg.Add(1)
				go func() {
					defer wg.Done()
					o := s.process(ctx, msg, &exchange{out: out, track: track})
					if !o.cancelled && !o.notification && o.body != nil {
						out.write(o.body)
					}
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
		return buf, false, err
	}
}

// cancelledID recognises a notifications/cancelled message.
func cancelledID(line []byte) (protocol.RequestId, bool) {
	if !bytes.Contains(line, []byte(protocol.MethodNotificationsCancelled)) {
		return protocol.RequestId{}, false
	}
	var n protocol.CancelledNotification
	if protocol.Unmarshal(line, &n) != nil {
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
