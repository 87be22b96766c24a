#!/usr/bin/env bash
# wrk.sh [-rounds N] [-d SECONDS] [-c CONNS] [ROW...]: requests per second
# of one tools/call of the typed echo tool over loopback, each row's
# server in its own process (cmd/callserve), loaded by wrk with CONNS
# connections (default 64) for SECONDS (default 10) after a 2 s warm-up.
# Rows (default bare mcpwire mcp-go gosdk) run in turn in each of N rounds
# (default 5), the order rotating, and each row's ratio to bare is the
# median over the rounds of its req/s over bare's in the same round.
# Errors are wrk's: connect, read, write, timeouts and non-2xx statuses.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=5 dur=10 conns=64
while [ $# -gt 0 ]; do
	case $1 in
	-rounds) rounds=$2; shift 2 ;;
	-d) dur=$2; shift 2 ;;
	-c) conns=$2; shift 2 ;;
	*) break ;;
	esac
done
rows=("$@")
[ ${#rows[@]} -gt 0 ] || rows=(bare mcpwire mcp-go gosdk)
[ "${rows[0]}" = bare ] || { echo "wrk.sh: the first row must be bare" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk.sh: wrk is not installed (apt-get install -y wrk)" >&2; exit 1; }
work=$(mktemp -d)
srv=
trap '[ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$work"' EXIT
(cd "$here/.." && go build -o "$work/callserve" ./cmd/callserve)
body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}},"name":"echo","arguments":{"text":"hello"}}}'
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "echo"
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %.0f %d %d\n", summary.requests, summary.requests / (summary.duration / 1e6),
    e.connect + e.read + e.write + e.timeout + e.status, latency:percentile(99)))
end
LUA
port=18931
for r in $(seq "$rounds"); do
	n=${#rows[@]}
	for k in $(seq 0 $((n - 1))); do
		row=${rows[$(((k + r) % n))]}
		port=$((port + 1))
		"$work/callserve" -row "$row" -addr "127.0.0.1:$port" >"$work/srv.out" 2>&1 &
		srv=$!
		for _ in $(seq 100); do grep -q ready "$work/srv.out" 2>/dev/null && break; sleep 0.05; done
		wrk -t2 -c"$conns" -d2s -s "$work/post.lua" "http://127.0.0.1:$port/mcp" >/dev/null
		line=$(wrk -t2 -c"$conns" -d"${dur}s" -s "$work/post.lua" "http://127.0.0.1:$port/mcp" | grep '^RESULT')
		kill "$srv"; wait "$srv" 2>/dev/null || true; srv=
		echo "$r $row $line" >>"$work/results"
	done
done
awk -v rows="${rows[*]}" '
{ rps[$1, $2] = $5; err[$2] += $6; req[$2] += $4; p99[$2] = p99[$2] " " $7 / 1000; rounds[$1] = 1 }
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	split(rows, names, " ")
	printf "%-10s %12s %16s %10s %s\n", "row", "req/s (med)", "/ bare (median)", "errors", "p99 ms per round"
	for (k = 1; k in names; k++) {
		row = names[k]; n = 0
		for (r in rounds) { n++; v[n] = rps[r, row]; q[n] = rps[r, row] / rps[r, "bare"] }
		m = median(v, n); mr = median(q, n)
		printf "%-10s %12.0f %16.2f %10d %s\n", row, m, mr, err[row], p99[row]
	}
}' "$work/results"
