// Command loadgen sends a bounded run of mixed MCP 2026-07-28 traffic over
// real HTTP on 127.0.0.1 to mcpwire and to the official Go SDK (stateless
// Streamable HTTP), each in its own child process, and prints a markdown
// table comparing them. The measured run of each server is split into
// -rounds slices taken in turn (mcpwire, SDK, SDK, mcpwire, ...), so that
// both run under the same conditions when the machine is shared.
//
// The mix, by operation: 70% tools/call (echo), 20% lists (tools/list,
// prompts/list, resources/list in turn), 10% MRTR round trips (tools/call
// answered input_required with an elicitation request, then the retry
// with inputResponses and requestState). Every answer is checked.
//
// It exits 1 when a request failed (non-2xx, JSON-RPC error or wrong
// answer) or a server's goroutines or RSS did not return to their
// baseline within -settle after the run, and 2 on a usage or setup error.
//
// With -legacy F, a fraction F of the clients is legacy: each opens one
// 2025-11-25 session and sends tools/call echo and the lists through it
// (docs/dual-era.md §10.7). That mix goes to mcpwire-both (ErasBoth); the
// other servers get the modern mix (by default the servers are then
// mcpwire,mcpwire-both: the modern-only run is the baseline, in the same
// interleaved rounds), and the report adds each era's requests, req/s and
// latencies.
//
// Run from bench/:
//
//	go run ./cmd/loadgen -duration 60s
//	go run ./cmd/loadgen -duration 60s -legacy 0.3
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/mcpwire/mcpwire/bench/loadtest"
)

func main() {
	loadtest.ServeIfChild()

	var o loadtest.Options
	flag.DurationVar(&o.Duration, "duration", 60e9, "measured run per server")
	flag.DurationVar(&o.Warmup, "warmup", 5e9, "unmeasured warm-up per server, before the baseline")
	flag.IntVar(&o.Clients, "clients", 200, "concurrent clients")
	flag.IntVar(&o.Rounds, "rounds", 6, "interleaved slices the measured run of each server is split into")
	flag.DurationVar(&o.Settle, "settle", 5e9, "time the server has after the run to return to its baseline")
	servers := flag.String("servers", loadtest.Mcpwire+","+loadtest.GoSDK, "servers to run, in order; the ratio is the first's req/s over each other's")
	target := flag.Float64("target", 3, "req/s ratio target shown in the report")
	minRatio := flag.Float64("min-ratio", 0, "also exit 1 when the ratio is below this (0: never)")
	flag.Float64Var(&o.Legacy, "legacy", 0, "fraction of the clients that open a 2025-11-25 session and call through it (0 to 1);\n"+
		"it applies to "+loadtest.McpwireBoth+" (mcpwire serving both eras), which must be among -servers; the others get the modern mix\n"+
		"(default servers with -legacy: "+loadtest.Mcpwire+","+loadtest.McpwireBoth+", the modern-only server as the baseline)")
	quiet := flag.Bool("q", false, "no progress lines on stderr")
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if !*quiet {
		o.Progress = os.Stderr
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if o.Legacy > 0 && !flagSet("servers") {
		*servers = loadtest.Mcpwire + "," + loadtest.McpwireBoth
	}
	if o.Legacy > 0 && !flagSet("target") {
		*target = 0 // the ratio to the modern-only baseline has no target
	}
	var names []string
	for _, name := range strings.Split(*servers, ",") {
		names = append(names, strings.TrimSpace(name))
	}
	reps, err := loadtest.RunAll(ctx, names, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadgen: %v\n", err)
		os.Exit(2)
	}
	fail := false
	for _, rep := range reps {
		fail = fail || !rep.OK()
	}
	loadtest.WriteMarkdown(os.Stdout, reps, *target)
	if *minRatio > 0 {
		for _, r := range reps[1:] {
			if reps[0].RPS/r.RPS < *minRatio {
				fail = true
			}
		}
	}
	if fail {
		fmt.Fprintln(os.Stderr, "loadgen: FAIL")
		os.Exit(1)
	}
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
