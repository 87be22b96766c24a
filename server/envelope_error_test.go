package server_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestAppendErrorResponse: the hand-written error response is byte for
// byte what protocol.Marshal writes, for every kind of id and for messages
// with quotes, controls, non-ASCII, U+2028, invalid UTF-8 and random
// bytes; and errorOutcome builds it in one allocation.
func TestAppendErrorResponse(t *testing.T) {
	ids := []*protocol.RequestId{nil, ptrTo(protocol.IntRequestId(0)), ptrTo(protocol.IntRequestId(-9007199254740993)),
		ptrTo(protocol.StringRequestId("")), ptrTo(protocol.StringRequestId("a\"b\\c<é>\u2028\x01\xff"))}
	msgs := []string{"", "Invalid Request: session not found", "quote \" backslash \\ slash /", "<html> & é 日本 \u2028\u2029",
		"\x00\x01\x1f\x7f", "bad utf-8 \xff\xfe \xc3", strings.Repeat("x", 5000)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		msgs = append(msgs, string(b))
	}
	for _, id := range ids {
		for _, msg := range msgs {
			for _, code := range []int64{-32600, -32002, 0, 1 << 40} {
				want, err := protocol.Marshal(&protocol.JSONRPCErrorResponse{ID: id, Error: protocol.Error{Code: code, Message: msg}})
				if err != nil {
					t.Fatal(err)
				}
				if got := server.AppendErrorResponse(nil, id, code, msg); !bytes.Equal(got, want) {
					t.Fatalf("id %v, code %d, message %q (valid UTF-8 %v):\ngot  %s\nwant %s", id, code, msg, utf8.ValidString(msg), got, want)
				}
			}
		}
	}
	a := (&server.Server{}).Adapter()
	id := protocol.IntRequestId(3)
	if n := testing.AllocsPerRun(100, func() {
		_ = a.ErrorOutcome(&id, &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Session not found: start a new session with initialize (without Mcp-Session-Id)"})
	}); n > 1 {
		t.Errorf("errorOutcome allocates %v times, want 1", n)
	}
}

func ptrTo[T any](v T) *T { return &v }
