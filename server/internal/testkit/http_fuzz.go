package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// fzMaxBody is the body limit of the fuzzed handler: small, so that the
// fuzzer reaches 413 too.
const FzMaxBody = 1500

// fzHTTPSeed is one seed file of ../testdata/fuzz/http. Header fields
// follow the conventions of FuzzHTTPHandler; body is a JSON value sent as
// written, or a JSON string whose contents are sent (for bodies that are
// not JSON).
type FzHTTPSeed struct {
	Mode        uint8           `json:"mode"`
	Version     string          `json:"version"`
	Method      string          `json:"method"`
	Name        string          `json:"name"`
	Params      string          `json:"params"`
	Origin      string          `json:"origin"`
	Host        string          `json:"host"`
	ContentType string          `json:"contentType"`
	Body        json.RawMessage `json:"body"`
}

func FzHTTPSeeds(f *testing.F) []FzHTTPSeed {
	seeds := FzJSONSeeds(f, "http", func(s *FzHTTPSeed) *json.RawMessage { return &s.Body })
	return seeds
}

// fzServer is the fixture plus tools that reach the other answers: an SSE
// stream (progress and a log message with line breaks in its data), an
// error after a stream started, an application error code, a reserved code
// the runtime must replace, and a result that does not encode.
func FzServer(t testing.TB, opts ...any) *server.Server {
	t.Helper()
	s := Fixture(t, append([]any{server.WithCompletion(CompleteAll)}, opts...)...)
	notify := func(ctx context.Context, r *server.Request) {
		r.Progress(ctx, 1, 2, "half")
		r.Log(ctx, protocol.LoggingLevelInfo, "fz", json.RawMessage("{\"a\":\n[1,\r\n2],\"b\":\"\\u2028\"}"))
	}
	AddTool(t, s, `{"name":"progress","inputSchema":{"type":"object"}}`,
		func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			notify(ctx, r)
			return server.TextResult("done"), nil
		})
	AddTool(t, s, `{"name":"progerr","inputSchema":{"type":"object"}}`,
		func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			notify(ctx, r)
			return nil, server.InvalidParams("after the stream started", nil)
		})
	AddTool(t, s, `{"name":"custom","inputSchema":{"type":"object"}}`,
		func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return nil, &server.Error{Code: 7, Message: "application error", Data: json.RawMessage(`{"x":1}`)}
		})
	AddTool(t, s, `{"name":"reserved","inputSchema":{"type":"object"}}`,
		func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return nil, &server.Error{Code: -32001, Message: "reserved"}
		})
	AddTool(t, s, `{"name":"badresult","inputSchema":{"type":"object"}}`,
		func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{Content: []protocol.ContentBlock{{}}}, nil
		})
	return s
}

// fzRecorder cancels the request once a listen stream is acknowledged:
// the stream would otherwise run until the server shuts down.
type FzRecorder struct {
	*httptest.ResponseRecorder
	Cancel context.CancelFunc
	Acked  atomic.Bool
}

func (w *FzRecorder) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(`"`+protocol.MethodNotificationsSubscriptionsAcknowledged+`"`)) {
		w.Acked.Store(true)
		w.Cancel()
	}
	return w.ResponseRecorder.Write(b)
}

// fzServe serves r with h on an fzRecorder; the request must finish
// within 10 s.
func FzServe(t *testing.T, h http.Handler, r *http.Request) *FzRecorder {
	t.Helper()
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	rec := &FzRecorder{ResponseRecorder: httptest.NewRecorder(), Cancel: cancel}
	h.ServeHTTP(rec, r.WithContext(ctx))
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("the request did not finish in 10 s")
	}
	return rec
}

// fzHeaderArg sets header name from a fuzz argument: "" takes def (the
// value a conforming client sends), "\x00" leaves the header out, and
// anything else is sent, one value per line.
func FzHeaderArg(h http.Header, name, arg string, def []string) {
	key := http.CanonicalHeaderKey(name)
	switch arg {
	case "":
		if def != nil {
			h[key] = def
		}
	case "\x00":
	default:
		h[key] = strings.Split(arg, "\n")
	}
}

// emittableCode is R-BASE-12..14, written out again.
func EmittableCode(code int64) bool {
	switch code {
	case protocol.CodeParseError, protocol.CodeInvalidRequestError, protocol.CodeMethodNotFoundError,
		protocol.CodeInvalidParamsError, protocol.CodeInternalError, protocol.CodeHeaderMismatchError,
		protocol.CodeMissingRequiredClientCapabilityError, protocol.CodeUnsupportedProtocolVersionError:
		return true
	}
	return code < -32768 || code > -32000 // nothing else of the reserved ranges
}
