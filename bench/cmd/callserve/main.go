// Command callserve serves one row of the per-call harness (package
// callbench: bare, mcpwire, mcp-go, gosdk) over HTTP on -addr, after
// checking its answer once, for a load generator in another process
// (bench/callbench/wrk.sh). It prints "ready" when it listens and serves
// until killed.
//
//	cd bench && go run ./cmd/callserve -row mcpwire -addr 127.0.0.1:8931
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mcpwire/mcpwire/bench/callbench"
)

func main() {
	row := flag.String("row", "mcpwire", "the row to serve")
	addr := flag.String("addr", "127.0.0.1:8931", "the address to listen on")
	flag.Parse()
	r, err := callbench.NewRow(*row)
	if err != nil {
		fmt.Fprintln(os.Stderr, "callserve:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "callserve:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	srv := &http.Server{Handler: r.Handler, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "callserve:", err)
		os.Exit(1)
	}
}
