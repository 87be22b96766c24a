package app

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/redis/go-redis/v9"
)

// testRedisURL returns MCP_REDIS_URL, or starts a redis-server on a free
// loopback port for this test; without either the test is skipped (it
// fails under MCP_REDIS_REQUIRED, as the redisstore tests do).
func testRedisURL(t *testing.T) string {
	t.Helper()
	if u := os.Getenv("MCP_REDIS_URL"); u != "" {
		return u
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("MCP_REDIS_REQUIRED") != "" {
			t.Fatal("redis-server is not installed and MCP_REDIS_URL is unset")
		}
		t.Skip("redis-server is not installed and MCP_REDIS_URL is unset")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--logfile", "")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			return "redis://127.0.0.1:" + port + "/0"
		}
	}
	t.Fatal("redis-server did not listen within 10 s")
	return ""
}

// sessionKeys counts the legacy session records in Redis.
func sessionKeys(t *testing.T, rdb *redis.Client) int {
	t.Helper()
	keys, err := rdb.Keys(context.Background(), "mcpwire:sess:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

// With -redis, the legacy sessions of Streamable HTTP are kept in Redis
// (redisstore.SessionStore, docs/dual-era.md §7.4) whenever legacy clients
// are served; -eras modern serves none, so no store is configured and
// initialize makes no session.
func TestRedisSessionStore(t *testing.T) {
	url := testRedisURL(t)
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { _ = rdb.Close() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct {
		eras    legacy.Eras
		session bool
	}{{legacy.ErasBoth, true}, {legacy.ErasLegacy, true}, {legacy.ErasModern, false}} {
		t.Run(c.eras.String(), func(t *testing.T) {
			cl, done, err := newCluster(logger, url, c.eras)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(done)
			s, err := newServer(logger, c.eras, cl)
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(s.Handler(streamhttp.Options{}))
			t.Cleanup(hs.Close)
			before := sessionKeys(t, rdb)
			resp := postInitialize(t, hs.URL, `{}`)
			sid := resp.Header.Get("Mcp-Session-Id")
			if got := sessionKeys(t, rdb) - before; (sid != "") != c.session || got != map[bool]int{true: 1, false: 0}[c.session] {
				t.Errorf("HTTP %d, session id %q, %d new session records in Redis; want a session: %v", resp.StatusCode, sid, got, c.session)
			}
		})
	}
}
