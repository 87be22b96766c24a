package callbench

import (
	"net/http"
	"strings"
	"testing"
)

// BenchmarkCall is one call per iteration for each row: a fresh request
// and a fresh recorder each time.
func BenchmarkCall(b *testing.B) {
	for _, name := range Names {
		b.Run(name, func(b *testing.B) {
			r, err := NewRow(name)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				r.Serve()
			}
		})
	}
}

// TestRows checks that every row answers the echo, and that the MCP rows
// refuse arguments their inputSchema refuses (so no row skips the
// validation the others do).
func TestRows(t *testing.T) {
	for _, name := range Names {
		t.Run(name, func(t *testing.T) {
			r, err := NewRow(name)
			if err != nil {
				t.Fatal(err)
			}
			if name == "bare" {
				return
			}
			r.Body = []byte(strings.Replace(string(r.Body), `"text":"hello"`, `"text":1`, 1))
			rec := r.Serve()
			if rec.Code == http.StatusOK && !strings.Contains(rec.Body.String(), `"isError":true`) && !strings.Contains(rec.Body.String(), `"error"`) {
				t.Errorf("arguments {\"text\":1} accepted: %s", rec.Body.String())
			}
		})
	}
}
