package server_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The cost of opening a listen stream grows linearly with its filter.

// ackWriter ends the request once its listen stream is acknowledged.
type ackWriter struct {
	*httptest.ResponseRecorder
	cancel context.CancelFunc
}

func (w *ackWriter) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(`"`+protocol.MethodNotificationsSubscriptionsAcknowledged+`"`)) {
		defer w.cancel()
	}
	return w.ResponseRecorder.Write(b)
}

// docURI is the static resource i of the benchmark server: URIs of one
// length sharing a long prefix, as the files of one project do.
func docURI(i int) string {
	return fmt.Sprintf("file:///srv/share/projects/mcpwire/documentation/chapter-%06d.md", i)
}

// listenFilterBody is a listen request whose filter has n distinct
// entries of each kind named: "resources" (static resources of the
// server), "templates" (URIs matching its template users://{id}/profile),
// "noteIds" (keys of the test extension's member that name no note).
func listenFilterBody(n int, kinds ...string) []byte {
	f := M{}
	var subs []string
	for _, k := range kinds {
		switch k {
		case "resources":
			for i := range n {
				subs = append(subs, docURI(i))
			}
		case "templates":
			subs = append(subs, uris(n)...)
		case "noteIds":
			f["noteIds"] = keyList(n)
		}
	}
	if subs != nil {
		f["resourceSubscriptions"] = subs
	}
	return Rpc(1, "subscriptions/listen", tparams(notesCaps, M{"notifications": f}))
}

// benchListen times one subscriptions/listen over HTTP, from the request
// to its acknowledgement: decoding, matching every URI against the
// resources and templates, looking every extension key up, de-duplicating,
// acknowledging.
func benchListen(b *testing.B, h http.Handler, body []byte) {
	hdr := Mirror(body)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", bytes.NewReader(body))
		r.Host = Loopback
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			r.Header[k] = v
		}
		w := &ackWriter{ResponseRecorder: httptest.NewRecorder(), cancel: cancel}
		h.ServeHTTP(w, r)
		cancel()
		if !bytes.Contains(w.Body.Bytes(), []byte(protocol.MethodNotificationsSubscriptionsAcknowledged)) {
			b.Fatalf("no acknowledgement: %.300s", w.Body.Bytes())
		}
	}
}

// benchFilterSizes are the filter sizes benchmarked, n, 2n and 4n, below
// the bounds that listenBenchServer raises with WithListenLimits.
var benchFilterSizes = [3]int{2000, 4000, 8000}

// listenBenchServer is the fixture with the test extension (its
// ListenFilter.MaxKeys raised), static resources for the largest filter,
// and the listen bounds raised.
func listenBenchServer(b testing.TB) http.Handler {
	s := Fixture(b, withNotes(NewNotes(10000)), server.WithListenLimits(server.ListenLimits{MaxResources: 10000, MaxResourceBytes: 4 << 20}))
	for i := range benchFilterSizes[2] {
		err := s.AddResource(protocol.Resource{URI: docURI(i), Name: "doc"},
			func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
				return nil, server.ErrNotFound
			})
		if err != nil {
			b.Fatal(err)
		}
	}
	return Handler(s, streamhttp.Options{})
}

// BenchmarkListenFilter times opening a listen stream with filters of n,
// 2n and 4n entries of each kind. Run it with
//
//	go test -run '^$' -bench 'BenchmarkListenFilter$' -benchmem ./server/
//
// and compare ns/op from one size to the next: linear growth doubles it.
func BenchmarkListenFilter(b *testing.B) {
	h := listenBenchServer(b)
	for _, kind := range []string{"resources", "templates", "noteIds"} {
		for _, n := range benchFilterSizes {
			body := listenFilterBody(n, kind)
			b.Run(fmt.Sprintf("%s=%d", kind, n), func(b *testing.B) { benchListen(b, h, body) })
		}
	}
}

// Opening a stream whose filter is twice as long costs at most about
// twice as much (the review: 80,000 URIs took 14 s before the first
// event, 20,000 took 1 s, the de-duplication being quadratic). The test
// measures, with testing.Benchmark in one run, a filter of n resource
// URIs and n extension keys, one of 4n and 4n, and the first again; the ratio
// per doubling is the square root of the 4n time over the faster n time,
// and it must be below 3: linear growth gives 2, quadratic 4. Only
// ratios are checked, never an absolute time. Spanning two doublings
// halves, per doubling, the effect of a neighbour slowing one
// measurement; measuring n twice keeps one slowed run from hiding a
// quadratic cost; the best of up to five tries absorbs a slowed 4n run.
// (Template URIs are left out: matching one costs so much more than
// de-duplicating it that they would hide a quadratic term at these sizes;
// BenchmarkListenFilter shows them.)
func TestListenFilterLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("benchmarks for a few seconds")
	}
	h := listenBenchServer(t)
	n, n4 := benchFilterSizes[0], benchFilterSizes[2]
	small, large := listenFilterBody(n, "resources", "noteIds"), listenFilterBody(n4, "resources", "noteIds")
	measure := func(body []byte) time.Duration {
		r := testing.Benchmark(func(b *testing.B) { benchListen(b, h, body) })
		if r.N == 0 {
			t.Fatal("a benchmark failed")
		}
		return time.Duration(r.NsPerOp())
	}
	best := 0.0
	for range 5 {
		a := measure(small)
		z := measure(large)
		a = min(a, measure(small))
		ratio := math.Sqrt(float64(z) / float64(a))
		t.Logf("%d entries of each: %v/op; %d: %v/op; ratio per doubling %.2f", n, a, n4, z, ratio)
		if best == 0 || ratio < best {
			best = ratio
		}
		if best < 3 {
			break
		}
	}
	if best >= 3 {
		t.Errorf("doubling the filter multiplied the time by %.2f (want < 3: linear)", best)
	}
}

// BenchmarkListenFilterAtBounds times the costliest filters the default
// bounds let through on the fixture (one template): 1000 URIs matching
// the template and totalling the 64 KiB bound, one URI of 64 KiB
// matching it, and 1000 keys of an extension's member. Run it with
//
//	go test -run '^$' -bench BenchmarkListenFilterAtBounds -benchmem ./server/
func BenchmarkListenFilterAtBounds(b *testing.B) {
	h := Handler(Fixture(b, withNotes(NewNotes(0))), streamhttp.Options{})
	per := server.DefaultMaxListenResourceBytes / server.DefaultMaxListenResources // bytes per URI
	many := make([]string, server.DefaultMaxListenResources)
	for i := range many {
		id := fmt.Sprintf("%0*d", per-len("users:///profile"), i)
		many[i] = "users://" + id + "/profile"
	}
	one := "users://" + strings.Repeat("x", server.DefaultMaxListenResourceBytes-len("users:///profile")) + "/profile"
	for _, c := range []struct {
		name   string
		filter M
	}{
		{"templates=1000x64B", M{"resourceSubscriptions": many}},
		{"templates=1x64KiB", M{"resourceSubscriptions": []string{one}}},
		{"noteIds=1000", M{"noteIds": keyList(server.DefaultMaxListenKeys)}},
	} {
		body := Rpc(1, "subscriptions/listen", tparams(notesCaps, M{"notifications": c.filter}))
		b.Run(c.name, func(b *testing.B) { benchListen(b, h, body) })
	}
}
