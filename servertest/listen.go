package servertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire/protocol"
)

// errClosed is what a server's write into a closed Stream returns.
var errClosed = errors.New("servertest: stream closed")

// maxEvent bounds one event-stream line a Stream reads.
const maxEvent = 16 << 20

// Notification is one notification of a listen stream.
type Notification struct {
	Method string
	Params json.RawMessage
}

// Stream is an open subscriptions/listen stream (Client.Listen).
type Stream struct {
	cancel context.CancelFunc
	pr     *io.PipeReader
	events chan Notification
	done   chan struct{} // closed when the stream has ended
	served chan struct{} // closed when ServeHTTP has returned

	mu     sync.Mutex
	result json.RawMessage
	err    error
}

// Listen opens a subscriptions/listen stream with filter (R-SUB-01) and
// returns once the server has answered with its headers: an error
// response is returned as an error. The stream runs in-process, through
// an io.Pipe in place of a socket; Close ends it.
func (c *Client) Listen(ctx context.Context, filter protocol.SubscriptionFilter, opts ...Option) (*Stream, error) {
	cfg := c.callConfig(opts)
	f, err := protocol.Marshal(&filter)
	if err != nil {
		return nil, fmt.Errorf("servertest: encode subscription filter: %w", err)
	}
	r, err := c.newRequest(ctx, &cfg, "subscriptions/listen", "", map[string]any{"notifications": json.RawMessage(f)})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(r.Context())
	r = r.WithContext(ctx)
	pr, pw := io.Pipe()
	w := &pipeWriter{h: http.Header{}, pw: pw, ready: make(chan struct{})}
	st := &Stream{cancel: cancel, pr: pr, events: make(chan Notification, 64), done: make(chan struct{}), served: make(chan struct{})}
	go func() {
		defer close(st.served)
		c.h.ServeHTTP(w, r)
		w.WriteHeader(http.StatusOK) // a handler that wrote nothing
		_ = pw.Close()
	}()
	<-w.ready
	if w.status != http.StatusOK || !strings.HasPrefix(w.header.Get("Content-Type"), "text/event-stream") {
		body, _ := io.ReadAll(pr)
		cancel()
		<-st.served
		rec := httptest.NewRecorder()
		for k, v := range w.header {
			rec.Header()[k] = v
		}
		rec.Code = w.status
		rec.Body = bytes.NewBuffer(body)
		if _, err := answer(rec, nil); err != nil {
			return nil, err
		}
		return nil, &Error{Status: w.status, Message: "subscriptions/listen answered with a result and no stream"}
	}
	go st.read(pr)
	return st, nil
}

// read parses the event stream until it ends.
func (st *Stream) read(pr *io.PipeReader) {
	defer close(st.done)
	defer func() { _ = pr.Close() }()
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 0, 64<<10), maxEvent)
	for sc.Scan() {
		d, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok || strings.TrimSpace(d) == "" {
			continue
		}
		var m message
		var params struct {
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			st.finish(nil, fmt.Errorf("servertest: listen stream: %w", err))
			return
		}
		if m.Method != "" {
			_ = json.Unmarshal([]byte(d), &params)
			select {
			case st.events <- Notification{Method: m.Method, Params: params.Params}:
			case <-st.served:
				return
			}
			continue
		}
		if m.Error != nil {
			st.finish(nil, &Error{Status: http.StatusOK, Code: m.Error.Code, Message: m.Error.Message, Data: m.Error.Data})
		} else {
			st.finish(m.Result, nil)
		}
		return
	}
	if err := sc.Err(); err != nil {
		st.finish(nil, fmt.Errorf("servertest: listen stream: %w", err))
		return
	}
	st.finish(nil, io.ErrUnexpectedEOF)
}

func (st *Stream) finish(res json.RawMessage, err error) {
	st.mu.Lock()
	st.result, st.err = res, err
	st.mu.Unlock()
}

// Next returns the next notification of the stream. When the stream has
// ended it returns io.EOF if the server ended it with its result
// (R-SUB-06), the error otherwise; Result then has the result.
func (st *Stream) Next(ctx context.Context) (*Notification, error) {
	select {
	case n := <-st.events:
		return &n, nil
	default:
	}
	select {
	case n := <-st.events:
		return &n, nil
	case <-st.done:
		select {
		case n := <-st.events:
			return &n, nil
		default:
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.err != nil {
			return nil, st.err
		}
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Result returns the listen result the server ended the stream with,
// nil before the stream has ended or when it ended without one.
func (st *Stream) Result() json.RawMessage {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.result
}

// Close ends the stream, as a client closing its connection does, and
// waits until the server's handler has returned.
func (st *Stream) Close() error {
	st.cancel()
	_ = st.pr.CloseWithError(errClosed) // a server blocked writing returns
	<-st.served
	return nil
}

// pipeWriter is an http.ResponseWriter and http.Flusher whose body goes
// into a pipe; header is the header as sent (copied at WriteHeader).
type pipeWriter struct {
	h      http.Header
	header http.Header
	pw     *io.PipeWriter
	once   sync.Once
	status int
	ready  chan struct{}
}

func (w *pipeWriter) Header() http.Header { return w.h }

func (w *pipeWriter) WriteHeader(code int) {
	w.once.Do(func() {
		w.status = code
		w.header = w.h.Clone()
		close(w.ready)
	})
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(b)
}

// Flush implements http.Flusher; the pipe holds nothing back.
func (w *pipeWriter) Flush() { w.WriteHeader(http.StatusOK) }
