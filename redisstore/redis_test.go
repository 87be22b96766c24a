package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// The integration tests run against a real Redis: the one MCP_REDIS_URL
// names (redis://host:port/db), or else a redis-server each test starts on
// a free loopback port and kills when it ends. Without either they are
// skipped, unless MCP_REDIS_REQUIRED is set (CI), which makes them fail.

// redisServer is a redis-server process owned by one test.
type redisServer struct {
	t    testing.TB
	bin  string
	port int
	out  *testutil.SyncBuffer

	mu  sync.Mutex
	cmd *exec.Cmd
}

// redisBinary returns the path of redis-server, or skips (fails under
// MCP_REDIS_REQUIRED) when it is not installed.
func redisBinary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		msg := "redis-server is not installed (apt-get install redis-server) and MCP_REDIS_URL is unset: skipping the Redis integration test"
		if os.Getenv("MCP_REDIS_REQUIRED") != "" {
			t.Fatal(msg + " (MCP_REDIS_REQUIRED is set)")
		}
		t.Skip(msg)
	}
	return bin
}

// freePort returns a loopback TCP port nobody listens on right now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startRedis starts a redis-server for this test; it is killed when the
// test ends.
func startRedis(t testing.TB) *redisServer {
	t.Helper()
	r := &redisServer{t: t, bin: redisBinary(t), out: &testutil.SyncBuffer{}}
	t.Cleanup(r.kill)
	var err error
	for range 3 { // another process may take the free port first
		r.port = freePort(t)
		if err = r.tryStart(); err == nil {
			return r
		}
	}
	t.Fatalf("starting redis-server: %v\n%s", err, r.out)
	return nil
}

func (r *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(r.port) }

// start starts redis-server again on the same port, after kill.
func (r *redisServer) start() {
	r.t.Helper()
	if err := r.tryStart(); err != nil {
		r.t.Fatalf("restarting redis-server on port %d: %v\n%s", r.port, err, r.out)
	}
}

func (r *redisServer) tryStart() error {
	cmd := exec.Command(r.bin, "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", "")
	cmd.Stdout, cmd.Stderr = r.out, r.out
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	r.mu.Lock()
	r.cmd = cmd
	r.mu.Unlock()
	// Ready when it answers PING (a raw RESP exchange: no client pools).
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			r.mu.Lock()
			r.cmd = nil
			r.mu.Unlock()
			return fmt.Errorf("redis-server exited: %v", cmd.ProcessState)
		default:
		}
		if ping(r.addr()) == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.kill()
	return fmt.Errorf("redis-server did not answer PING on %s within 10s", r.addr())
}

// kill stops redis-server at once (SIGKILL) and waits for it to be gone.
func (r *redisServer) kill() {
	r.mu.Lock()
	cmd := r.cmd
	r.cmd = nil
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && ping(r.addr()) == nil {
		time.Sleep(10 * time.Millisecond)
	}
}

func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	buf := make([]byte, 7)
	n, err := c.Read(buf)
	if err != nil {
		return err
	}
	if string(buf[:n]) != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", buf[:n])
	}
	return nil
}

// testRedis returns the options of the Redis a test uses: MCP_REDIS_URL,
// or a redis-server started for the test.
func testRedis(t testing.TB) *redis.Options {
	t.Helper()
	if u := os.Getenv("MCP_REDIS_URL"); u != "" {
		opt, err := redis.ParseURL(u)
		if err != nil {
			t.Fatalf("MCP_REDIS_URL: %v", err)
		}
		return opt
	}
	return &redis.Options{Addr: startRedis(t).addr()}
}

// newClient returns a client on opt (a copy), closed when the test ends.
// Each instance in a test gets its own, as separate processes would.
func newClient(t testing.TB, opt *redis.Options) *redis.Client {
	t.Helper()
	o := *opt
	c := redis.NewClient(&o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// uniqueChannel returns a channel name no other test uses, so that tests
// sharing one Redis (MCP_REDIS_URL) do not see each other's events.
func uniqueChannel(t testing.TB) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "mcpwire:test:" + t.Name() + ":" + hex.EncodeToString(b)
}

// twoInstances returns two of what mk builds with opts (one prefix or
// channel), each on its own client of the test's Redis: two instances of
// one deployment.
func twoInstances[T any](t testing.TB, mk func(testing.TB, *redis.Client, ...Option) T, opts ...Option) (T, T) {
	t.Helper()
	opt := testRedis(t)
	return mk(t, newClient(t, opt), opts...), mk(t, newClient(t, opt), opts...)
}

// waitAndReport waits for wg, then fails the test with each error the
// goroutines sent on errs.
func waitAndReport(t testing.TB, wg *sync.WaitGroup, errs chan error) {
	t.Helper()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// newBroker returns a broker on rdb, closed when the test ends.
func newBroker(t testing.TB, rdb *redis.Client, opts ...Option) *Broker {
	t.Helper()
	b, err := NewBroker(rdb, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// subscribe subscribes with a context that ends with the test.
func subscribe(t testing.TB, b *Broker) (<-chan eventT, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, stop, err := b.Subscribe(ctx)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	return ch, stop
}
