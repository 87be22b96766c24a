package loadtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// envServe names the server a child process serves.
const envServe = "MCPWIRE_LOADGEN_SERVE"

// ServeIfChild returns at once in the load generator. In a child process
// started by StartServer it serves the named MCP server instead and exits
// when its stdin is closed. Call it first thing in main (or TestMain).
func ServeIfChild() {
	name := os.Getenv(envServe)
	if name == "" {
		return
	}
	if err := serveChild(name, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "loadgen server %s: %v\n", name, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Stats is what a server process reports about itself.
type Stats struct {
	Goroutines int    `json:"goroutines"` // runtime.NumGoroutine
	RSS        int64  `json:"rss"`        // bytes, VmRSS of /proc/self/status
	HeapInuse  uint64 `json:"heapInuse"`  // bytes, runtime.MemStats.HeapInuse
	NumGC      uint32 `json:"numGC"`
	// CPU is the user plus system CPU time the process has used.
	CPU time.Duration `json:"cpu"`
	// ConnsAccepted and ConnsClosed count the HTTP server's connections.
	ConnsAccepted int64 `json:"connsAccepted"`
	ConnsClosed   int64 `json:"connsClosed"`
}

// connCount counts the child's HTTP connections (http.Server.ConnState).
var connCount struct{ accepted, closed atomic.Int64 }

// The child: MCP on POST /mcp of a free loopback port, and on stdin the
// commands "stats" (Stats as they are) and "gc" (runtime.GC and
// debug.FreeOSMemory first, so that RSS counts retained memory rather than
// freed pages the Go runtime has not yet given back), each answered with
// one JSON line on stdout.
func serveChild(name string, in io.Reader, out io.Writer) error {
	h, err := NewHandler(name)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(_ net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				connCount.accepted.Add(1)
			case http.StateClosed, http.StateHijacked:
				connCount.closed.Add(1)
			}
		}}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	bw := bufio.NewWriter(out)
	fmt.Fprintf(bw, "listening %s %s %d\n", ln.Addr(), runtime.Version(), runtime.GOMAXPROCS(0))
	if err := bw.Flush(); err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		switch cmd := strings.TrimSpace(sc.Text()); cmd {
		case "gc":
			runtime.GC()
			debug.FreeOSMemory()
			fallthrough
		case "stats":
			s, err := selfStats()
			if err != nil {
				return err
			}
			b, _ := json.Marshal(s)
			bw.Write(append(b, '\n'))
		default:
			fmt.Fprintf(bw, "{\"error\":%q}\n", "unknown command "+cmd)
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	if err := srv.Close(); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return sc.Err()
}

func selfStats() (Stats, error) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := Stats{Goroutines: runtime.NumGoroutine(), HeapInuse: ms.HeapInuse, NumGC: ms.NumGC, CPU: cpuTime(),
		ConnsAccepted: connCount.accepted.Load(), ConnsClosed: connCount.closed.Load()}
	rss, err := vmRSS("/proc/self/status")
	s.RSS = rss
	return s, err
}

// vmRSS reads VmRSS (in kB) from a /proc status file, in bytes.
func vmRSS(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			f := strings.Fields(string(rest))
			if len(f) != 2 || f[1] != "kB" {
				break
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in %s", path)
}

// Proc is a server running in a child process.
type Proc struct {
	Name string
	// Addr is the host:port it listens on; URL its MCP endpoint.
	Addr, URL string
	// GoVersion and GOMAXPROCS are the child's.
	GoVersion  string
	GOMAXPROCS int

	cmd *exec.Cmd
	in  io.WriteCloser
	mu  sync.Mutex
	out *bufio.Reader
}

// StartServer starts the named server in a child process (this
// executable again, with MCPWIRE_LOADGEN_SERVE set) and waits until it
// listens. Its stderr is the caller's.
func StartServer(name string) (*Proc, error) {
	if _, err := NewHandler(name); err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envServe+"="+name)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{Name: name, cmd: cmd, in: in, out: bufio.NewReader(outPipe)}
	line, err := p.out.ReadString('\n')
	var procs int
	if err == nil {
		_, err = fmt.Sscanf(line, "listening %s %s %d\n", &p.Addr, &p.GoVersion, &procs)
	}
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("server %s did not start: %v (%q)", name, err, line)
	}
	p.GOMAXPROCS = procs
	p.URL = "http://" + p.Addr + "/mcp"
	return p, nil
}

// Stats asks the child for its Stats; with gc it first collects garbage
// and returns freed memory to the OS.
func (p *Proc) Stats(gc bool) (Stats, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cmd := "stats\n"
	if gc {
		cmd = "gc\n"
	}
	var s Stats
	if _, err := io.WriteString(p.in, cmd); err != nil {
		return s, err
	}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(line, &s); err != nil || s.RSS == 0 {
		return s, fmt.Errorf("server %s: bad stats %q: %v", p.Name, line, err)
	}
	return s, nil
}

// Close stops the child: it exits when its stdin closes; it is killed if
// it has not after 5 s.
func (p *Proc) Close() error {
	p.in.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
		return fmt.Errorf("server %s did not exit; killed", p.Name)
	}
}
