package httpwire

import (
	"net/http/httptest"
	"testing"

	"github.com/mcpwire/mcpwire/server"
)

// TestFinishContentType: a JSON answer carries Content-Type
// application/json, once, and its value slice is its own: changing one
// response's header changes no other response's.
func TestFinishContentType(t *testing.T) {
	ep := &Endpoint{}
	var recs []*httptest.ResponseRecorder
	for range 2 {
		rec := httptest.NewRecorder()
		ep.NewStream(rec).Finish(server.Outcome{Status: 200, Body: []byte(`{}`)})
		recs = append(recs, rec)
	}
	for _, rec := range recs {
		if got := rec.Result().Header["Content-Type"]; len(got) != 1 || got[0] != "application/json" {
			t.Fatalf("Content-Type %q", got)
		}
	}
	recs[0].Header()["Content-Type"][0] = "text/plain"
	recs[0].Header().Add("Content-Type", "x")
	if got := recs[1].Header()["Content-Type"]; len(got) != 1 || got[0] != "application/json" {
		t.Fatalf("the second response's Content-Type changed with the first's: %q", got)
	}
}
