package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Options configures a run.
type Options struct {
	Clients  int           // concurrent clients (goroutines) per server; default 200
	Duration time.Duration // measured run per server; default 60 s
	// Rounds splits each server's measured run into this many slices of
	// Duration/Rounds, taken in turn (ABBA order) when RunAll is given
	// several servers, so that they all run under the same conditions on
	// a shared machine. Default 1.
	Rounds int
	Warmup time.Duration // unmeasured load before the baseline; default 0
	// Settle is how long the server has, after its last slice, to return to
	// its baseline goroutine count and RSS; default 5 s.
	Settle time.Duration
	// RequestTimeout bounds one HTTP exchange; default 30 s.
	RequestTimeout time.Duration
	// RSSSlack is how far above its baseline the settled RSS may be:
	// RSSSlackFraction of the baseline plus RSSSlackBytes. Defaults 10%
	// and 2 MiB.
	RSSSlackFraction float64
	RSSSlackBytes    int64
	// Legacy is the fraction of the clients that open a 2025-11-25
	// session and call through it (legacy.go); the others send the
	// 2026-07-28 mix. Default 0. It applies to McpwireBoth, which must be
	// among the servers; the others get the modern mix, so that a run of
	// mcpwire and mcpwire-both compares the mixed-era load with the modern
	// one under the same conditions.
	Legacy float64
	// Progress, when set, gets a line at each step.
	Progress io.Writer
}

func (o *Options) defaults() {
	if o.Clients <= 0 {
		o.Clients = 200
	}
	if o.Duration <= 0 {
		o.Duration = 60 * time.Second
	}
	if o.Rounds <= 0 {
		o.Rounds = 1
	}
	if o.Warmup < 0 {
		o.Warmup = 0
	}
	if o.Settle <= 0 {
		o.Settle = 5 * time.Second
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.RSSSlackFraction <= 0 {
		o.RSSSlackFraction = 0.10
	}
	if o.RSSSlackBytes <= 0 {
		o.RSSSlackBytes = 2 << 20
	}
	o.Legacy = min(max(o.Legacy, 0), 1)
}

// KindStats are the figures of one kind of request.
type KindStats struct {
	Kind          string
	Requests      uint64
	P50, P99, Max time.Duration
}

// Report is the outcome of one server's run.
type Report struct {
	Server     string
	GoVersion  string
	GOMAXPROCS int
	Clients    int
	Rounds     int

	Elapsed  time.Duration // the measured slices, each to its last client's end
	Requests uint64        // HTTP requests answered in the measured run
	Ops      uint64        // operations (an MRTR round trip is one op, two requests)
	RPS      float64       // Requests per second of Elapsed
	P50, P99 time.Duration // per HTTP request
	Max      time.Duration
	Kinds    []KindStats // the legacy kinds only in a mixed run
	// Eras splits a mixed run (Options.Legacy > 0) by era: the 2026-07-28
	// requests, then the 2025-11-25 ones; nil otherwise.
	Eras  []EraStats
	Conns int64 // TCP connections the clients opened in the measured run
	// ServerCPU is the CPU time (user+system) the server process used
	// during the measured slices; CPUPerRequest is ServerCPU/Requests.
	ServerCPU     time.Duration
	CPUPerRequest time.Duration

	Errors       uint64 // failed requests in the measured run
	WarmupErrors uint64
	ErrorsByKind [numErrKinds]uint64
	ErrorSamples []string

	Before, After, Settled Stats
	SettledIn              time.Duration // time to baseline, or Settle when it failed
	GoroutinesBack         bool          // Settled.Goroutines <= Before.Goroutines within Settle
	RSSBack                bool          // Settled.RSS <= RSSLimit within Settle
	RSSLimit               int64
}

// OK reports whether the run passed: no error, and goroutines and RSS back
// to baseline.
func (r *Report) OK() bool {
	return r.Errors == 0 && r.WarmupErrors == 0 && r.GoroutinesBack && r.RSSBack
}

// Run is RunAll for one server.
func Run(ctx context.Context, name string, o Options) (*Report, error) {
	reps, err := RunAll(ctx, []string{name}, o)
	if err != nil {
		return nil, err
	}
	return reps[0], nil
}

// target is one server under test and its clients.
type target struct {
	name  string
	p     *Proc
	tr    *http.Transport
	hc    *http.Client
	dials atomic.Int64
	res   loadResult
	rep   *Report
	left  int // measured slices still to run
	// legacy is the fraction of legacy clients (Options.Legacy for
	// McpwireBoth, 0 for the others).
	legacy float64
}

// RunAll starts each named server in its own child process; warms each up
// and takes its baseline; runs the measured load in o.Rounds slices per
// server, in turn; and after each server's last slice takes its "right
// after" stats and watches it settle.
func RunAll(ctx context.Context, names []string, o Options) ([]*Report, error) {
	o.defaults()
	if o.Legacy > 0 && !slices.Contains(names, McpwireBoth) {
		return nil, fmt.Errorf("a mixed-era run needs %s, the server that serves legacy sessions", McpwireBoth)
	}
	progress := func(name, format string, args ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "[%s] %s %s\n", time.Now().Format("15:04:05.000"), name, fmt.Sprintf(format, args...))
		}
	}
	var ts []*target
	defer func() {
		for _, t := range ts {
			t.tr.CloseIdleConnections()
			t.p.Close()
		}
	}()
	for _, name := range names {
		p, err := StartServer(name)
		if err != nil {
			return nil, err
		}
		t := &target{name: name, p: p, left: o.Rounds}
		if name == McpwireBoth {
			t.legacy = o.Legacy
		}
		dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
		t.tr = &http.Transport{
			Proxy: nil,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				t.dials.Add(1)
				return dialer.DialContext(ctx, network, addr)
			},
			// One keep-alive connection per client: without MaxConnsPerHost
			// the Transport races a dial against a connection being returned
			// and closes the surplus, a few hundred extra dials per run.
			MaxConnsPerHost:     o.Clients,
			MaxIdleConns:        o.Clients,
			MaxIdleConnsPerHost: o.Clients,
			IdleConnTimeout:     10 * time.Minute,
			DisableCompression:  true,
		}
		t.hc = &http.Client{Transport: t.tr, Timeout: o.RequestTimeout}
		t.rep = &Report{Server: name, GoVersion: p.GoVersion, GOMAXPROCS: p.GOMAXPROCS, Clients: o.Clients, Rounds: o.Rounds}
		ts = append(ts, t)
		progress(name, "listening on %s (pid %d)", p.Addr, p.cmd.Process.Pid)
	}

	for _, t := range ts {
		if o.Warmup > 0 {
			progress(t.name, "warm-up %v, %d clients", o.Warmup, o.Clients)
			w := load(ctx, t.hc, t.p.URL, o.Clients, t.legacy, o.Warmup, false)
			t.rep.WarmupErrors = w.errors
			t.rep.ErrorSamples = append(t.rep.ErrorSamples, w.samples...)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// Baseline: no connection open, goroutines steady, garbage collected.
		t.tr.CloseIdleConnections()
		base, err := quiesce(ctx, t.p)
		if err != nil {
			return nil, err
		}
		t.rep.Before = base
		t.rep.RSSLimit = base.RSS + int64(float64(base.RSS)*o.RSSSlackFraction) + o.RSSSlackBytes
		t.dials.Store(0)
		progress(t.name, "baseline: %d goroutines, RSS %s", base.Goroutines, mib(base.RSS))
	}

	slice := o.Duration / time.Duration(o.Rounds)
	for round := range o.Rounds {
		order := ts
		if round%2 == 1 {
			order = make([]*target, len(ts))
			for i, t := range ts {
				order[len(ts)-1-i] = t
			}
		}
		for _, t := range order {
			cpu0, err := t.p.Stats(false)
			if err != nil {
				return nil, err
			}
			r := load(ctx, t.hc, t.p.URL, o.Clients, t.legacy, slice, true)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			cpu1, err := t.p.Stats(false)
			if err != nil {
				return nil, err
			}
			t.rep.ServerCPU += cpu1.CPU - cpu0.CPU
			t.res.add(r)
			t.left--
			progress(t.name, "round %d/%d: %d requests in %v (%.0f req/s), %d errors; server connections accepted %d, closed %d",
				round+1, o.Rounds, r.requests, r.elapsed.Round(time.Millisecond), float64(r.requests)/r.elapsed.Seconds(), r.errors,
				cpu1.ConnsAccepted-cpu0.ConnsAccepted, cpu1.ConnsClosed-cpu0.ConnsClosed)
			if t.left == 0 {
				t.rep.After = cpu1
				if err := settle(ctx, t, o, progress); err != nil {
					return nil, err
				}
			}
		}
	}
	reps := make([]*Report, len(ts))
	for i, t := range ts {
		t.res.fill(t.rep, o.Clients, t.legacy)
		t.rep.Conns = t.dials.Load()
		if t.rep.Requests > 0 {
			t.rep.CPUPerRequest = t.rep.ServerCPU / time.Duration(t.rep.Requests)
		}
		reps[i] = t.rep
	}
	return reps, nil
}

// settle closes the clients' connections and gives the server o.Settle to
// get back to its baseline goroutine count and RSS.
func settle(ctx context.Context, t *target, o Options, progress func(name, format string, args ...any)) error {
	rep := t.rep
	progress(t.name, "right after: %d goroutines, RSS %s", rep.After.Goroutines, mib(rep.After.RSS))
	t.tr.CloseIdleConnections()
	start := time.Now()
	for {
		s, err := t.p.Stats(true)
		if err != nil {
			return err
		}
		rep.Settled, rep.SettledIn = s, time.Since(start)
		rep.GoroutinesBack = s.Goroutines <= rep.Before.Goroutines
		rep.RSSBack = s.RSS <= rep.RSSLimit
		if (rep.GoroutinesBack && rep.RSSBack) || time.Since(start) >= o.Settle {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	progress(t.name, "settled after %v: %d goroutines, RSS %s (limit %s)",
		rep.SettledIn.Round(time.Millisecond), rep.Settled.Goroutines, mib(rep.Settled.RSS), mib(rep.RSSLimit))
	return nil
}

// quiesce waits (up to 5 s) until the goroutine count has been the same
// for three polls 100 ms apart, and returns those stats (after a GC).
func quiesce(ctx context.Context, p *Proc) (Stats, error) {
	var last Stats
	same := 0
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, err := p.Stats(true)
		if err != nil {
			return s, err
		}
		if s.Goroutines == last.Goroutines {
			same++
		} else {
			same = 0
		}
		last = s
		if same >= 2 || time.Now().After(deadline) {
			return s, nil
		}
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// --- the load --------------------------------------------------------------

// loadResult sums the clients' figures.
type loadResult struct {
	elapsed  time.Duration
	requests uint64
	ops      uint64
	errors   uint64
	byErr    [numErrKinds]uint64
	samples  []string
	hists    [numKinds]hist
	all      hist
}

// add adds the figures of another slice.
func (r *loadResult) add(o *loadResult) {
	r.elapsed += o.elapsed
	r.requests += o.requests
	r.ops += o.ops
	r.errors += o.errors
	for k, n := range o.byErr {
		r.byErr[k] += n
	}
	r.samples = append(r.samples, o.samples[:min(len(o.samples), max(0, maxSamples-len(r.samples)))]...)
	for k := range numKinds {
		r.hists[k].merge(&o.hists[k])
	}
	r.all.merge(&o.all)
}

func (r *loadResult) fill(rep *Report, clients int, legacy float64) {
	rep.Elapsed = r.elapsed
	rep.Requests = r.requests
	rep.Ops = r.ops
	rep.RPS = float64(r.requests) / r.elapsed.Seconds()
	rep.P50, rep.P99, rep.Max = r.all.quantile(0.50), r.all.quantile(0.99), time.Duration(r.all.max)
	rep.Errors = r.errors
	rep.ErrorsByKind = r.byErr
	rep.ErrorSamples = append(rep.ErrorSamples, r.samples...)
	var eras [2]hist // modern, legacy
	for k := range numKinds {
		h := &r.hists[k]
		if isLegacy(k) {
			eras[1].merge(h)
			if legacy == 0 {
				continue
			}
		} else {
			eras[0].merge(h)
		}
		rep.Kinds = append(rep.Kinds, KindStats{
			Kind: kindNames[k], Requests: h.n,
			P50: h.quantile(0.50), P99: h.quantile(0.99), Max: time.Duration(h.max),
		})
	}
	if legacy > 0 {
		nl := legacyClients(clients, legacy)
		for i, era := range []string{revision, legacyRevision} {
			h := &eras[i]
			rep.Eras = append(rep.Eras, EraStats{
				Era: era, Clients: map[bool]int{false: clients - nl, true: nl}[i == 1], Requests: h.n,
				RPS: float64(h.n) / r.elapsed.Seconds(),
				P50: h.quantile(0.50), P99: h.quantile(0.99), Max: time.Duration(h.max),
			})
		}
	}
}

// worker is one client's figures.
type worker struct {
	requests uint64
	ops      uint64
	errors   uint64
	byErr    [numErrKinds]uint64
	samples  []string
	hists    *[numKinds]hist // nil when not recording
}

const maxSamples = 5

// fail counts err, when not nil, as a failed request.
func (w *worker) fail(err error) {
	if err == nil {
		return
	}
	w.errors++
	var re *reqError
	if errors.As(err, &re) {
		w.byErr[re.kind]++
	}
	if len(w.samples) < maxSamples {
		w.samples = append(w.samples, err.Error())
	}
}

// load runs clients goroutines sending the mix for d, each until the
// deadline passes after its current operation; it returns when all have
// stopped. The mix is by operation, in a fixed cycle of ten per client
// (offset by client so that the clients are not in step): seven tools/call
// echo, two lists (tools, prompts, resources in turn), one MRTR round trip.
//
// With legacy > 0 that fraction of the clients is legacy (legacyClient):
// each opens a 2025-11-25 session first, sends eight tools/call echo and
// two lists in every ten operations through it, and DELETEs it at the end.
func load(ctx context.Context, hc *http.Client, url string, clients int, legacy float64, d time.Duration, record bool) *loadResult {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stop atomic.Bool
	workers := make([]worker, clients)
	var wg sync.WaitGroup
	start := time.Now()
	timer := time.AfterFunc(d, func() { stop.Store(true) })
	defer timer.Stop()
	for i := range workers {
		w := &workers[i]
		if record {
			w.hists = new([numKinds]hist)
		}
		wg.Go(func() {
			c := newCaller(hc, url, i)
			rec := func(k kind, d time.Duration) {
				w.requests++
				if w.hists != nil {
					w.hists[k].record(d)
				}
			}
			lists := [3]kind{kindToolsList, kindPromptsList, kindResourcesList}
			nList := i
			legacyC := legacyClient(i, legacy)
			if legacyC {
				defer func() { w.fail(c.closeLegacy(context.WithoutCancel(ctx))) }()
			}
			for n := 0; !stop.Load() && ctx.Err() == nil; n++ {
				var err error
				switch slot := (n + 3*i) % 10; {
				case legacyC && c.sid == "":
					err = c.openLegacy(ctx, rec)
				case legacyC && slot < 8:
					err = c.legacyCall(ctx, rec)
				case legacyC:
					err = c.legacyList(ctx, rec, lists[nList%3])
					nList++
				case slot < 7:
					err = c.call(ctx, rec)
				case slot < 9:
					err = c.list(ctx, rec, lists[nList%3])
					nList++
				default:
					err = c.mrtr(ctx, rec)
				}
				w.ops++
				w.fail(err)
			}
		})
	}
	wg.Wait()
	r := &loadResult{elapsed: time.Since(start)}
	for i := range workers {
		w := &workers[i]
		r.requests += w.requests
		r.ops += w.ops
		r.errors += w.errors
		for k, n := range w.byErr {
			r.byErr[k] += n
		}
		if len(r.samples) < maxSamples {
			r.samples = append(r.samples, w.samples[:min(len(w.samples), maxSamples-len(r.samples))]...)
		}
		if w.hists != nil {
			for k := range numKinds {
				r.hists[k].merge(&w.hists[k])
				r.all.merge(&w.hists[k])
			}
		}
	}
	return r
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
