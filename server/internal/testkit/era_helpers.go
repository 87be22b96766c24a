package testkit

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// eraBody is a JSON-RPC request with raw params ("" leaves them out).
func EraBody(id any, method, params string) string {
	b, _ := json.Marshal(id)
	s := `{"jsonrpc":"2.0","id":` + string(b) + `,"method":"` + method + `"`
	if params != "" {
		s += `,"params":` + params
	}
	return s + "}"
}

// eraNote is a JSON-RPC notification with raw params.
func EraNote(method, params string) string {
	s := `{"jsonrpc":"2.0","method":"` + method + `"`
	if params != "" {
		s += `,"params":` + params
	}
	return s + "}"
}

// eraRequest sends one request with exactly the given headers (name,
// value pairs, a name given twice adds a second value), none mirrored.
func EraRequest(t testing.TB, h http.Handler, verb, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(verb, "/mcp", strings.NewReader(body))
	r.Host = Loopback
	if verb == http.MethodPost {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Add(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
