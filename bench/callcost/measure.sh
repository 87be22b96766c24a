#!/usr/bin/env bash
# measure.sh [-k K] REV...: instructions per tools/call (BenchmarkCall/modern
# and /legacy) under callgrind, for mcpwire at each git revision REV.
#
# For each REV it exports the tree (git archive) into a temporary folder,
# builds this package against it (-tags presplit when the tree predates
# server/streamhttp), and runs each sub-benchmark for 2,000 and 12,000
# calls, K times (default 3), printing (I(12000) - I(2000)) / 10000 per run:
# the start-up cost cancels out. GOGC=off, GODEBUG=asyncpreemptoff=1 and
# GOMAXPROCS=1 make the count repeatable (spread under 0.6%). Needs
# valgrind and the Go module proxy.
#
#   bench/callcost/measure.sh fa15842 HEAD      # before and after the split
set -euo pipefail
K=3
if [ "${1:-}" = -k ]; then K=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: $0 [-k K] REV..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
total() { awk '/^(summary|totals):/ {print $2; exit}' "$1"; }
for rev in "$@"; do
	commit=$(git -C "$repo" rev-parse --short "$rev")
	src=$work/src-$commit mod=$work/mod-$commit
	mkdir -p "$src" "$mod"
	git -C "$repo" archive "$commit" | tar -x -C "$src"
	tags= handler=handler_test.go
	[ -d "$src/server/streamhttp" ] || tags=presplit handler=handler_presplit_test.go
	cp "$here"/callcost_test.go "$here/$handler" "$mod"/
	(
		cd "$mod"
		go mod init callcost >/dev/null 2>&1
		go mod edit -require github.com/mcpwire/mcpwire@v0.0.0 -replace "github.com/mcpwire/mcpwire=$src"
		go mod tidy >/dev/null
		CGO_ENABLED=0 go test -tags "$tags" -c -o "$work/$commit.test" .
	)
	for x in modern legacy; do
		runs=
		for _ in $(seq "$K"); do
			for n in 2000 12000; do
				GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
					--callgrind-out-file="$work/cg.$n.out" "$work/$commit.test" -test.run '^$' \
					-test.bench "BenchmarkCall/$x\$" -test.benchtime "${n}x" >/dev/null 2>&1
			done
			a=$(total "$work/cg.2000.out") b=$(total "$work/cg.12000.out")
			runs="$runs $(((b - a) / 10000))"
		done
		echo "$rev ($commit) $x instructions/call:$runs"
	done
done
