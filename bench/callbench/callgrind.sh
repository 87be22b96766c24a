#!/usr/bin/env bash
# callgrind.sh [-rev REV] [ROW...]: instructions per call of
# BenchmarkCall's rows (default: all) under callgrind, and each row's count
# over bare's. With -rev, mcpwire is the tree of git revision REV (at or
# after the commit that added this harness), built with this folder's
# harness: the before and after of a change.
#
# Each row runs for N1 and N2 calls (GOGC=off, GODEBUG=asyncpreemptoff=1 —
# callgrind aborts on Go's preemption signal otherwise — and GOMAXPROCS=1,
# which make the count repeatable; cpu.rdtscp=off because valgrind cannot
# run RDTSCP, which the runtime uses where the CPU has it) and the count per call is
# (I(N2) - I(N1)) / (N2 - N1): the start-up cost cancels out. The two
# slow peers run fewer calls. Needs valgrind; prints nothing else.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed: no instruction counts" >&2; exit 0; }
rev=
if [ "${1:-}" = -rev ]; then rev=$2; shift 2; fi
rows=("$@")
[ ${#rows[@]} -gt 0 ] || rows=(bare mcpwire mcpwire-legacy mcp-go gosdk)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg=$here
if [ -n "$rev" ]; then
	mkdir -p "$work/src"
	git -C "$(git -C "$here" rev-parse --show-toplevel)" archive "$rev" | tar -x -C "$work/src"
	cp "$here"/*.go "$work/src/bench/callbench/"
	pkg=$work/src/bench/callbench
fi
(cd "$pkg" && CGO_ENABLED=0 go test -c -o "$work/callbench.test" .)
total() { awk '/^(summary|totals):/ {print $2; exit}' "$1"; }
bare=
for row in "${rows[@]}"; do
	n1=2000 n2=12000
	case $row in mcp-go | gosdk) n1=200 n2=1200 ;; esac
	for n in $n1 $n2; do
		GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=callgrind \
			--callgrind-out-file="$work/cg.$n.out" "$work/callbench.test" -test.run '^$' \
			-test.bench "^BenchmarkCall\$/^$row\$" -test.benchtime "${n}x" >/dev/null 2>&1
	done
	per=$((($(total "$work/cg.$n2.out") - $(total "$work/cg.$n1.out")) / (n2 - n1)))
	[ "$row" = bare ] && bare=$per
	if [ -n "$bare" ]; then
		printf '%-16s %9d instructions/call  %5s× bare\n' "$row" "$per" "$(awk -v a="$per" -v b="$bare" 'BEGIN {printf "%.2f", a / b}')"
	else
		printf '%-16s %9d instructions/call\n' "$row" "$per"
	fi
done
