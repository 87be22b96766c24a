// Command calltable prints the per-call table of issue 24 (package
// callbench): for each row, ns/op, B/op and allocs/op, and the ratio of
// its time to the bare handler's, from interleaved runs: in each round
// every row runs once (testing.Benchmark for -benchtime), the order
// rotating from round to round, and a row's ratio is the median over the
// rounds of its time over bare's in the same round, so that load from
// elsewhere on a shared machine falls on both sides of each ratio.
//
//	cd bench && go run ./cmd/calltable -rounds 7 -benchtime 300ms
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/mcpwire/mcpwire/bench/callbench"
)

func main() {
	testing.Init()
	rounds := flag.Int("rounds", 7, "interleaved rounds")
	benchtime := flag.String("benchtime", "300ms", "each row's run in a round (testing's -benchtime)")
	rowList := flag.String("rows", strings.Join(callbench.Names, ","), "rows, bare first")
	flag.Parse()
	if err := flag.Set("test.benchtime", *benchtime); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	names := strings.Split(*rowList, ",")
	if names[0] != "bare" {
		fmt.Fprintln(os.Stderr, "calltable: the first row must be bare")
		os.Exit(2)
	}
	rows := make([]*callbench.Row, len(names))
	for i, n := range names {
		r, err := callbench.NewRow(n)
		if err != nil {
			fmt.Fprintln(os.Stderr, "calltable:", err)
			os.Exit(1)
		}
		rows[i] = r
	}
	ns := make([][]float64, len(rows))
	ratio := make([][]float64, len(rows))
	bytes := make([]int64, len(rows))
	allocs := make([]int64, len(rows))
	for round := range *rounds {
		got := make([]float64, len(rows))
		for k := range rows {
			i := (k + round) % len(rows)
			r := rows[i]
			res := testing.Benchmark(func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					r.Serve()
				}
			})
			got[i] = float64(res.NsPerOp())
			bytes[i], allocs[i] = res.AllocedBytesPerOp(), res.AllocsPerOp()
		}
		for i := range rows {
			ns[i] = append(ns[i], got[i])
			ratio[i] = append(ratio[i], got[i]/got[0])
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "row\tns/op (median)\tB/op\tallocs/op\tallocs - bare\ttime / bare (median of %d rounds)\trange\t\n", *rounds)
	for i, r := range rows {
		lo, hi := slices.Min(ratio[i]), slices.Max(ratio[i])
		fmt.Fprintf(tw, "%s\t%.0f\t%d\t%d\t%+d\t%.2f\t%.2f–%.2f\t\n", r.Name, median(ns[i]), bytes[i], allocs[i], allocs[i]-allocs[0], median(ratio[i]), lo, hi)
	}
	_ = tw.Flush()
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}
