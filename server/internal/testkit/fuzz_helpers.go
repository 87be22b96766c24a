package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server"
)

// fzSeedFile is one seed file: its path and its contents.
type FzSeedFile struct {
	Path string
	Data []byte
}

// fzSeedFiles reads the files matching glob in ../testdata/fuzz/dir and
// fails when there are none.
func FzSeedFiles(f *testing.F, dir, glob string) []FzSeedFile {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join(RepoRoot(), "testdata", "fuzz", dir, glob))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	files := make([]FzSeedFile, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, FzSeedFile{Path: p, Data: b})
	}
	return files
}

// fzJSONSeeds decodes the *.json seed files of ../testdata/fuzz/dir
// strictly (no unknown fields) into Ts. The member body selects is sent
// as written, or, when it is a JSON string, its contents are (a body that
// is not JSON).
func FzJSONSeeds[T any](f *testing.F, dir string, body func(*T) *json.RawMessage) []T {
	f.Helper()
	var seeds []T
	for _, file := range FzSeedFiles(f, dir, "*.json") {
		var s T
		d := json.NewDecoder(bytes.NewReader(file.Data))
		d.DisallowUnknownFields()
		if err := d.Decode(&s); err != nil {
			f.Fatalf("%s: %v", file.Path, err)
		}
		if b := body(&s); len(*b) > 0 && (*b)[0] == '"' {
			var text string
			if err := json.Unmarshal(*b, &text); err != nil {
				f.Fatalf("%s: %v", file.Path, err)
			}
			*b = json.RawMessage(text)
		}
		seeds = append(seeds, s)
	}
	return seeds
}

// fzServeStdio runs s.ServeStdio over input with a 5 s context and returns
// what it wrote and the context's error when it returned (nil: it read to
// the end before the context ended). ServeStdio must return nil within
// 20 s.
func FzServeStdio(t *testing.T, s *server.Server, input []byte) (out []byte, ctxErr error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var buf bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- ServeStdio(ctx, s, bytes.NewReader(input), &buf) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("ServeStdio did not return within 20 s of a 5 s context")
	}
	return buf.Bytes(), ctx.Err()
}

// fzLooseMessage is what the era fuzzers' oracles read of one JSON-RPC
// message, loosely (fzMessage decodes strictly).
type FzLooseMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *WireError      `json:"error"`
}

// fzDecodeLoose decodes m loosely; it must be a JSON-RPC 2.0 message.
func FzDecodeLoose(t *testing.T, m []byte) FzLooseMessage {
	t.Helper()
	var v FzLooseMessage
	if err := json.Unmarshal(m, &v); err != nil || v.JSONRPC != "2.0" {
		t.Fatalf("not a JSON-RPC message (%v): %q", err, m)
	}
	return v
}

// fzAnswerMessages returns the messages of an answer: its body when it is
// JSON, or the events sse reads from it when it is a stream (stream true),
// which must have status 200. Any other Content-Type fails the test.
func FzAnswerMessages(t *testing.T, resp *httptest.ResponseRecorder, sse func(*testing.T, []byte) [][]byte) (msgs [][]byte, stream bool) {
	t.Helper()
	switch ct := resp.Header().Get("Content-Type"); ct {
	case "application/json":
		return [][]byte{resp.Body.Bytes()}, false
	case "text/event-stream":
		if resp.Code != http.StatusOK {
			t.Fatalf("event stream with status %d", resp.Code)
		}
		return sse(t, resp.Body.Bytes()), true
	default:
		t.Fatalf("status %d, Content-Type %q, body %q", resp.Code, ct, resp.Body.Bytes())
	}
	return nil, false
}

// FzStdioMaxLine is the line limit of the fuzzed stdio servers: small, so
// that the fuzzer reaches the too-long path.
const FzStdioMaxLine = 512
