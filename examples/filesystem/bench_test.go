package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time (user + system) the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSearchContentWorst measures the process CPU time of one
// search_content call with the default limits for queries whose matching
// is among the slowest per byte and instruction that Go's regexp has (a
// simulated NFA with every instruction alive on every byte), over 2 MB
// of lines each, and for substrings over 8 MB: each call does all the
// work -max-match-work allows, then stops with the budget's tool error
// (or finishes). cpu-ms/op is the figure the README gives; it must stay
// well under a second.
//
//	go test -run '^$' -bench SearchContentWorst -benchtime 3x ./examples/filesystem/
func BenchmarkSearchContentWorst(b *testing.B) {
	dir := b.TempDir()
	lines := func(line string, size int) []byte {
		return []byte(strings.Repeat(line+"\n", size/(len(line)+1)))
	}
	files := map[string][]byte{
		"a.txt":   hostileLines(),
		"s.txt":   lines(strings.Repeat("s", 1000), 2<<20),
		"k.txt":   lines(strings.Repeat("k", 1000), 2<<20),
		"mix.txt": lines("Hello, wörld 123 and some more text of a line", 2<<20),
		"sub.txt": lines(strings.Repeat("needle in a haystack ", 50), 8<<20-1),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	f, err := newFS([]string{dir}, defaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	cases := []struct {
		name, file string
		in         searchContentIn
	}{
		{"issue26", "a.txt", searchContentIn{Query: "(?:a?){500}z", Mode: "regexp"}},
		{"fold300", "s.txt", searchContentIn{Query: "(?i)(?:s?){300}z", Mode: "regexp"}},
		{"kelvin300", "k.txt", searchContentIn{Query: "(?i)(?:k?){300}z", Mode: "regexp"}},
		{"letters300", "a.txt", searchContentIn{Query: `\pL{300}z`, Mode: "regexp"}},
		{"notz300", "mix.txt", searchContentIn{Query: "[^z]{300}z", Mode: "regexp"}},
		{"lines-mix", "mix.txt", searchContentIn{Query: "(?m)(?:^?$?){300}z", Mode: "regexp"}},
		{"simple", "mix.txt", searchContentIn{Query: `w\S+d [0-9]+`, Mode: "regexp"}},
		{"substring", "sub.txt", searchContentIn{Query: "haystack!"}},
		{"substring-fold", "sub.txt", searchContentIn{Query: "HAYSTACK!", IgnoreCase: true}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			in := c.in
			in.Path = filepath.Join(dir, c.file)
			var cpu time.Duration
			over := false
			for range b.N {
				start := cpuTime(b)
				_, err := f.searchContent(context.Background(), nil, in)
				cpu += cpuTime(b) - start
				var be *matchBudgetError
				switch {
				case errors.As(err, &be):
					over = true
				case err != nil:
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
			if over {
				b.ReportMetric(1, "over-budget")
			}
		})
	}
}
