package main

import (
	"fmt"
	"strings"
)

// unifiedDiff shows the change from old to new as one hunk of a unified
// diff: the lines between the common first and last lines, with up to
// three lines of context on each side. It is not a minimal diff (two
// edits far apart make one large hunk) but it is exact, and what
// edit_file needs to show a replacement.
func unifiedDiff(name, old, new string) string {
	if old == new {
		return ""
	}
	a, b := lines(old), lines(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	const context = 3
	from, toA, toB := max(0, pre-context), min(len(a), len(a)-suf+context), min(len(b), len(b)-suf+context)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n@@ -%s +%s @@\n", name, name, span(from, toA-from), span(from, toB-from))
	for _, l := range a[from:pre] {
		sb.WriteString(" " + l)
	}
	for _, l := range a[pre : len(a)-suf] {
		sb.WriteString("-" + l)
	}
	for _, l := range b[pre : len(b)-suf] {
		sb.WriteString("+" + l)
	}
	for _, l := range a[len(a)-suf : toA] {
		sb.WriteString(" " + l)
	}
	return sb.String()
}

// lines splits s after each newline; a last line without one gets it,
// with the marker a unified diff uses.
func lines(s string) []string {
	ls := strings.SplitAfter(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	} else {
		ls[len(ls)-1] += "\n\\ No newline at end of file\n"
	}
	return ls
}

// span is a hunk range: 1-based start and length (start is the line
// before when the length is 0).
func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
