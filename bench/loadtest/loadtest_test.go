package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the child server process.
func TestMain(m *testing.M) {
	ServeIfChild()
	os.Exit(m.Run())
}

// TestLoadMcpwire is a short run of the load generator against mcpwire (in
// a child process, as in cmd/loadgen): no request may fail, and the
// server's goroutines must be back to their baseline within 5 s.
func TestLoadMcpwire(t *testing.T) {
	rep, err := Run(context.Background(), Mcpwire, Options{
		Clients:  20,
		Duration: 2 * time.Second,
		Warmup:   500 * time.Millisecond,
		Settle:   5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d requests, %.0f req/s, p50 %v, p99 %v, max %v; goroutines %d -> %d -> %d; RSS %s -> %s -> %s",
		rep.Requests, rep.RPS, rep.P50, rep.P99, rep.Max,
		rep.Before.Goroutines, rep.After.Goroutines, rep.Settled.Goroutines,
		mib(rep.Before.RSS), mib(rep.After.RSS), mib(rep.Settled.RSS))
	if rep.Errors != 0 || rep.WarmupErrors != 0 {
		t.Errorf("%d errors (%d in warm-up): %q", rep.Errors, rep.WarmupErrors, rep.ErrorSamples)
	}
	if rep.Requests == 0 {
		t.Error("no request answered")
	}
	for _, k := range rep.Kinds {
		if k.Requests == 0 {
			t.Errorf("no %s request in the mix", k.Kind)
		}
	}
	if !rep.GoroutinesBack {
		t.Errorf("goroutines %d after %v, baseline %d", rep.Settled.Goroutines, rep.SettledIn, rep.Before.Goroutines)
	}
}

// TestAnswers checks every kind of request, in process, on both servers,
// so that a server that cannot do one shows up here rather than as errors
// in a load run.
func TestAnswers(t *testing.T) {
	for _, name := range []string{Mcpwire, GoSDK} {
		t.Run(name, func(t *testing.T) {
			h, err := NewHandler(name)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			c := newCaller(srv.Client(), srv.URL, 7)
			ctx := context.Background()
			var got [numKinds]int
			rec := func(k kind, _ time.Duration) { got[k]++ }
			for range 2 {
				if err := c.call(ctx, rec); err != nil {
					t.Error(err)
				}
				for _, k := range []kind{kindToolsList, kindPromptsList, kindResourcesList} {
					if err := c.list(ctx, rec, k); err != nil {
						t.Error(err)
					}
				}
				if err := c.mrtr(ctx, rec); err != nil {
					t.Error(err)
				}
			}
			for k, n := range got {
				if isLegacy(kind(k)) {
					continue // TestLegacyAnswers
				}
				if n != 2 {
					t.Errorf("%s: %d requests, want 2", kindNames[k], n)
				}
			}
		})
	}
}

func TestHist(t *testing.T) {
	var h hist
	for i := 1; i <= 1000; i++ {
		h.record(time.Duration(i) * time.Microsecond)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}, {1, 1000 * time.Microsecond}} {
		got := h.quantile(c.q)
		if d := float64(got-c.want) / float64(c.want); d < -0.01 || d > 0.01 {
			t.Errorf("quantile(%v) = %v, want %v ±1%%", c.q, got, c.want)
		}
	}
	for v := uint64(1); v < 1<<40; v = v*3 + 1 {
		i := histIndex(v)
		if lo, hi := histLower(i), histLower(i+1); v < lo || v >= hi {
			t.Fatalf("%d in bucket %d [%d, %d)", v, i, lo, hi)
		}
	}
}

// TestChecksCatchBadAnswers makes sure a failure is counted for what it
// is: a non-2xx status, a JSON-RPC error, a wrong text, a wrong id, and an
// MRTR retry whose state the server refuses.
func TestChecksCatchBadAnswers(t *testing.T) {
	for _, c := range []struct {
		name  string
		reply func(w http.ResponseWriter, id json.RawMessage)
		want  errKind
	}{
		{"status 500", func(w http.ResponseWriter, id json.RawMessage) {
			w.WriteHeader(http.StatusInternalServerError)
		}, errStatus},
		{"JSON-RPC error", func(w http.ResponseWriter, id json.RawMessage) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"boom"}}`, id)
		}, errRPC},
		{"wrong text", func(w http.ResponseWriter, id json.RawMessage) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"nope"}]}}`, id)
		}, errAnswer},
		{"wrong id", func(w http.ResponseWriter, id json.RawMessage) {
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":12345,"result":{"content":[{"type":"text","text":"c0-1"}]}}`)
		}, errAnswer},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req struct{ ID json.RawMessage }
				_ = json.NewDecoder(r.Body).Decode(&req)
				w.Header().Set("Content-Type", "application/json")
				c.reply(w, req.ID)
			}))
			defer srv.Close()
			err := newCaller(srv.Client(), srv.URL, 0).call(context.Background(), func(kind, time.Duration) {})
			var re *reqError
			if !errors.As(err, &re) || re.kind != c.want {
				t.Errorf("got %v, want a %s error", err, errKindNames[c.want])
			}
		})
	}
	// A tampered requestState: both servers refuse it (400 with -32602),
	// so the retry fails.
	for _, name := range []string{Mcpwire, GoSDK} {
		t.Run("tampered state/"+name, func(t *testing.T) {
			h, err := NewHandler(name)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				// Flip a character of the state the client sends back.
				body = regexp.MustCompile(`"requestState":"(.)`).ReplaceAllFunc(body, func(m []byte) []byte {
					m = bytes.Clone(m)
					m[len(m)-1] ^= 1
					return m
				})
				r.Body = io.NopCloser(bytes.NewReader(body))
				r.ContentLength = int64(len(body))
				h.ServeHTTP(w, r)
			}))
			defer srv.Close()
			err = newCaller(srv.Client(), srv.URL, 0).mrtr(context.Background(), func(kind, time.Duration) {})
			var re *reqError
			if !errors.As(err, &re) || re.kind != errStatus || !strings.Contains(re.msg, "-32602") {
				t.Errorf("got %v, want status 400 with -32602", err)
			}
		})
	}
}

// TestLoadMixedEras is TestLoadMcpwire with 30% legacy clients against
// McpwireBoth: no request of either era may fail, both eras are served,
// every legacy kind is in the mix, and the server is back to its baseline
// (the sessions were deleted).
func TestLoadMixedEras(t *testing.T) {
	rep, err := Run(context.Background(), McpwireBoth, Options{
		Clients:  20,
		Duration: 2 * time.Second,
		Warmup:   500 * time.Millisecond,
		Settle:   5 * time.Second,
		Legacy:   0.3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || rep.WarmupErrors != 0 {
		t.Errorf("%d errors (%d in warm-up): %q", rep.Errors, rep.WarmupErrors, rep.ErrorSamples)
	}
	if len(rep.Eras) != 2 || rep.Eras[0].Clients != 14 || rep.Eras[1].Clients != 6 {
		t.Fatalf("eras %+v, want 14 modern and 6 legacy clients", rep.Eras)
	}
	for _, e := range rep.Eras {
		t.Logf("%s: %d clients, %d requests, %.0f req/s, p50 %v, p99 %v", e.Era, e.Clients, e.Requests, e.RPS, e.P50, e.P99)
		if e.Requests == 0 {
			t.Errorf("no %s request answered", e.Era)
		}
	}
	for _, k := range rep.Kinds {
		if k.Requests == 0 {
			t.Errorf("no %s request in the mix", k.Kind)
		}
	}
	if !rep.GoroutinesBack || !rep.RSSBack {
		t.Errorf("not back to baseline: goroutines %d (baseline %d), RSS %s (limit %s)",
			rep.Settled.Goroutines, rep.Before.Goroutines, mib(rep.Settled.RSS), mib(rep.RSSLimit))
	}
	if _, err := Run(context.Background(), Mcpwire, Options{Clients: 2, Duration: time.Second, Legacy: 0.5}); err == nil {
		t.Errorf("a mixed-era run without %s was not refused", McpwireBoth)
	}
}

// TestLegacyAnswers runs every legacy kind in process against McpwireBoth,
// then checks that the session is gone after closeLegacy (404), and that
// the legacy clients are spread as asked.
func TestLegacyAnswers(t *testing.T) {
	h, err := NewHandler(McpwireBoth)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := newCaller(srv.Client(), srv.URL, 3)
	ctx := context.Background()
	var got [numKinds]int
	rec := func(k kind, _ time.Duration) { got[k]++ }
	if err := c.openLegacy(ctx, rec); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := c.legacyCall(ctx, rec); err != nil {
			t.Error(err)
		}
		for _, k := range []kind{kindToolsList, kindPromptsList, kindResourcesList} {
			if err := c.legacyList(ctx, rec, k); err != nil {
				t.Error(err)
			}
		}
	}
	for k, n := range got {
		want := 0
		switch {
		case kind(k) == kindLegacyInit || kind(k) == kindLegacyInitialized:
			want = 1
		case isLegacy(kind(k)):
			want = 2
		}
		if n != want {
			t.Errorf("%s: %d requests, want %d", kindNames[k], n, want)
		}
	}
	sid := c.sid
	if err := c.closeLegacy(ctx); err != nil {
		t.Fatal(err)
	}
	c.sid = sid // a request in the deleted session
	var re *reqError
	if err := c.legacyCall(ctx, rec); !errors.As(err, &re) || re.kind != errStatus || !strings.Contains(re.msg, "404") {
		t.Errorf("a call after DELETE: %v, want status 404", err)
	}
	if n := legacyClients(200, 0.3); n != 60 {
		t.Errorf("legacyClients(200, 0.3) = %d, want 60", n)
	}
	if n := legacyClients(200, 0); n != 0 {
		t.Errorf("legacyClients(200, 0) = %d", n)
	}
}
