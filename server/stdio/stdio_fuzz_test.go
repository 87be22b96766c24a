package stdio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// fzLineIDs lists the ids an answer to a line may carry: the values of its
// top-level members named "id" in any case that are valid request ids, as
// JSON. Whether an error about a broken line echoes one is the server's
// choice (recoverID); an answer with another id is not.
func fzLineIDs(line []byte) []string {
	d := json.NewDecoder(bytes.NewReader(line))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var ids []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return ids
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return ids
		}
		if k, _ := tok.(string); !strings.EqualFold(k, "id") {
			continue
		}
		var id protocol.RequestId
		if protocol.Unmarshal(v, &id) == nil {
			b, _ := protocol.Marshal(&id)
			ids = append(ids, string(b))
		}
	}
	return ids
}

// FuzzStdio runs ServeStdio over arbitrary input with a short context.
// Properties: it returns, with nil (the input ends in EOF); stdout holds
// whole lines, each one valid JSON-RPC message that is a response or a
// notification, never a request (R-STDIO-01..03), with an emittable error
// code; a parse error has no id; every line longer than the limit gets
// its own -32600 without an id, and no other line does; there are no
// more answers than lines, and no id is answered more often than lines
// carrying it were read.
// Seeds are ../testdata/fuzz/stdio/*.jsonl, each file one input.
func FuzzStdio(f *testing.F) {
	for _, file := range FzSeedFiles(f, "stdio", "*.jsonl") {
		f.Add(file.Data)
	}
	s := FzServer(f, Eras(legacy.ErasModern), server.WithShutdownTimeout(100*time.Millisecond), server.WithMaxStdioLine(FzStdioMaxLine)) // the oracle is ErasModern's; FuzzStdioDual fuzzes ErasBoth
	f.Fuzz(func(t *testing.T, input []byte) {
		o, ctxErr := FzServeStdio(t, s, input)
		complete := ctxErr == nil // else it stopped reading before EOF

		// What was read, line by line, as readLine splits it.
		tooLong := 0
		lines := 0              // lines that may be answered
		ids := map[string]int{} // lines that may be answered with each id
		segs := bytes.Split(input, []byte("\n"))
		for i, seg := range segs {
			if i == len(segs)-1 && len(seg) == 0 {
				break
			}
			line := bytes.TrimSuffix(seg, []byte("\r"))
			switch {
			case len(line) > FzStdioMaxLine:
				tooLong++
			case len(bytes.TrimSpace(line)) == 0:
			default:
				lines++
				seen := map[string]bool{}
				for _, id := range fzLineIDs(line) {
					if !seen[id] {
						seen[id] = true
						ids[id]++
					}
				}
			}
		}

		if len(o) == 0 {
			if complete && tooLong > 0 {
				t.Fatalf("%d lines too long and no answer", tooLong)
			}
			return
		}
		if o[len(o)-1] != '\n' {
			t.Fatalf("R-STDIO-01: output does not end with a line end: %q", o)
		}
		gotTooLong := 0
		answered := map[string]int{}
		answers := 0
		for _, line := range bytes.Split(o[:len(o)-1], []byte("\n")) {
			if len(line) == 0 || bytes.ContainsRune(line, '\r') {
				t.Fatalf("R-STDIO-01: empty line or CR in the output: %q", o)
			}
			var m protocol.JSONRPCMessage
			if err := protocol.Unmarshal(line, &m); err != nil {
				t.Fatalf("R-STDIO-02: output line is not a valid JSON-RPC message: %v: %q", err, line)
			}
			var id *protocol.RequestId
			switch v := m.Value.(type) {
			case *protocol.JSONRPCNotification:
				continue
			case *protocol.JSONRPCRequest:
				t.Fatalf("R-STDIO-03: a request on stdout: %q", line)
			case *protocol.JSONRPCResultResponse:
				id = &v.ID
			case *protocol.JSONRPCErrorResponse:
				id = v.ID
				if !EmittableCode(v.Error.Code) {
					t.Fatalf("R-BASE-12..14: error code %d: %q", v.Error.Code, line)
				}
				if v.Error.Code == protocol.CodeParseError && id != nil {
					t.Fatalf("R-BASE-07: parse error with an id: %q", line)
				}
				if v.Error.Code == protocol.CodeInvalidRequestError && strings.Contains(v.Error.Message, "too long") {
					if id != nil {
						t.Fatalf("too-long line answered with an id: %q", line)
					}
					gotTooLong++
					continue
				}
			}
			answers++
			if id != nil {
				b, _ := protocol.Marshal(id)
				answered[string(b)]++
			}
		}
		if gotTooLong > tooLong || (complete && gotTooLong != tooLong) {
			t.Fatalf("%d too-long answers for %d lines over %d bytes", gotTooLong, tooLong, FzStdioMaxLine)
		}
		if answers > lines {
			t.Fatalf("%d answers for %d lines", answers, lines)
		}
		for id, n := range answered {
			if n > ids[id] {
				t.Fatalf("id %s answered %d times, read %d times", id, n, ids[id])
			}
		}
		if ctxErr != nil && !errors.Is(ctxErr, context.DeadlineExceeded) {
			t.Fatal(ctxErr)
		}
	})
}
