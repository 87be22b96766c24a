package loadtest

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteMarkdown writes the reports as markdown tables: the summary (one
// row per server), the ratio of the first server's requests per second to
// each other's, the per-kind latencies and any error samples.
func WriteMarkdown(w io.Writer, reps []*Report, targetRatio float64) {
	if len(reps) == 0 {
		return
	}
	r0 := reps[0]
	interleave := ""
	if len(reps) > 1 && r0.Rounds > 1 {
		interleave = fmt.Sprintf(", measured in %d interleaved rounds each (a round ends when its last client's operation does)", r0.Rounds)
	}
	fmt.Fprintf(w, "%d clients per server%s, after warm-up; HTTP/1.1 keep-alive on 127.0.0.1; each server in its own process (%s, GOMAXPROCS %d).\n\n",
		r0.Clients, interleave, r0.GoVersion, r0.GOMAXPROCS)
	fmt.Fprintln(w, "| server | measured | requests | req/s | p50 | p99 | max | errors | conns | server CPU/req | RSS before | RSS right after | RSS settled | goroutines before | right after | settled | back to baseline |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|")
	for _, r := range reps {
		fmt.Fprintf(w, "| %s | %s | %d | %.0f | %s | %s | %s | %d | %d | %s | %s | %s | %s | %d | %d | %d | %s |\n",
			r.Server, dur(r.Elapsed), r.Requests, r.RPS, dur(r.P50), dur(r.P99), dur(r.Max), r.Errors+r.WarmupErrors, r.Conns, dur(r.CPUPerRequest),
			mib(r.Before.RSS), mib(r.After.RSS), mib(r.Settled.RSS),
			r.Before.Goroutines, r.After.Goroutines, r.Settled.Goroutines, settleText(r))
	}
	fmt.Fprintln(w)
	for _, r := range reps[1:] {
		ratio := r0.RPS / r.RPS
		verdict := ""
		if targetRatio > 0 {
			verdict = fmt.Sprintf(" — target ≥ %g×: %s", targetRatio, map[bool]string{true: "met", false: "NOT met"}[ratio >= targetRatio])
		}
		fmt.Fprintf(w, "**req/s ratio %s / %s: %.2f×**%s\n\n", r0.Server, r.Server, ratio, verdict)
		if r0.CPUPerRequest > 0 {
			fmt.Fprintf(w, "Server CPU per request, %s / %s: %.2f× less.\n\n", r0.Server, r.Server, float64(r.CPUPerRequest)/float64(r0.CPUPerRequest))
		}
	}
	for _, r := range reps {
		if len(r.Eras) == 0 {
			continue
		}
		fmt.Fprintf(w, "Mixed-era run, %s: requests by era (req/s over the whole measured run).\n\n", r.Server)
		fmt.Fprintln(w, "| server | era | clients | requests | req/s | p50 | p99 | max |")
		fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|")
		for _, e := range r.Eras {
			fmt.Fprintf(w, "| %s | %s | %d | %d | %.0f | %s | %s | %s |\n", r.Server, e.Era, e.Clients, e.Requests, e.RPS, dur(e.P50), dur(e.P99), dur(e.Max))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "| server | request | count | p50 | p99 | max |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|")
	for _, r := range reps {
		for _, k := range r.Kinds {
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s |\n", r.Server, k.Kind, k.Requests, dur(k.P50), dur(k.P99), dur(k.Max))
		}
	}
	fmt.Fprintln(w)
	for _, r := range reps {
		if r.Errors+r.WarmupErrors == 0 {
			continue
		}
		var parts []string
		for k, n := range r.ErrorsByKind {
			if n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", errKindNames[k], n))
			}
		}
		fmt.Fprintf(w, "%s errors: %d in the run (%s), %d in the warm-up; first ones:\n", r.Server, r.Errors, strings.Join(parts, ", "), r.WarmupErrors)
		for _, s := range r.ErrorSamples {
			fmt.Fprintf(w, "- `%s`\n", s)
		}
		fmt.Fprintln(w)
	}
}

func settleText(r *Report) string {
	var fails []string
	if !r.GoroutinesBack {
		fails = append(fails, "goroutines")
	}
	if !r.RSSBack {
		fails = append(fails, fmt.Sprintf("RSS > %s", mib(r.RSSLimit)))
	}
	if len(fails) == 0 {
		return fmt.Sprintf("pass (%v)", r.SettledIn.Round(time.Millisecond))
	}
	return fmt.Sprintf("**FAIL** after %v: %s", r.SettledIn.Round(time.Millisecond), strings.Join(fails, ", "))
}

func dur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	case d >= 10*time.Microsecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	default:
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	}
}
