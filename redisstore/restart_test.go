package redisstore

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/server"
)

// Redis killed mid-test: Publish fails fast with a clear error (no hang,
// no panic), a first Subscribe too, existing subscriptions stay open; once
// Redis is back on the same port, Publish works again and the existing
// subscribers get the reconnect events, then new events.
func TestBrokerRedisRestart(t *testing.T) {
	r := startRedis(t) // always a local redis-server: this test kills it
	opt := &redis.Options{Addr: r.addr()}
	ch := uniqueChannel(t)
	const timeout = DefaultTimeout
	a := newBroker(t, newClient(t, opt), WithChannel(ch))
	b := newBroker(t, newClient(t, opt), WithChannel(ch), WithTimeout(timeout))
	sub, _ := subscribe(t, b)
	publish(t, a, eventT{Kind: server.EventToolsChanged})
	recv(t, sub, 5*time.Second)

	r.kill()
	killed := time.Now()

	// Each Publish fails, within its timeout: with the default one the
	// client's dial retries end first, with their error; a shorter one
	// ends them.
	short := newBroker(t, newClient(t, opt), WithChannel(ch), WithTimeout(300*time.Millisecond))
	for i, p := range []struct {
		b       *Broker
		timeout time.Duration
	}{{a, timeout}, {short, 300 * time.Millisecond}} {
		start := time.Now()
		err := p.b.Publish(context.Background(), eventT{Kind: server.EventToolsChanged})
		took := time.Since(start)
		t.Logf("Publish %d with Redis down: %v (%v)", i, err, took)
		if err == nil {
			t.Fatal("Publish succeeded with Redis down")
		}
		if msg := err.Error(); !strings.HasPrefix(msg, `redisstore: publishing a "tools" event on Redis channel "`+ch+`": `) {
			t.Errorf("unclear error: %v", err)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error is neither connection refused nor a timeout: %v", err)
		}
		if took > p.timeout+500*time.Millisecond {
			t.Errorf("Publish took %v with a %v timeout", took, p.timeout)
		}
	}
	// A first subscriber cannot subscribe while Redis is down.
	c := newBroker(t, newClient(t, opt), WithChannel(ch), WithTimeout(timeout))
	start := time.Now()
	if _, _, err := c.Subscribe(context.Background()); err == nil || !strings.HasPrefix(err.Error(), `redisstore: subscribing to Redis channel "`+ch+`": `) {
		t.Errorf("Subscribe with Redis down: %v", err)
	} else {
		t.Logf("Subscribe with Redis down: %v (%v)", err, time.Since(start))
	}
	if took := time.Since(start); took > timeout+500*time.Millisecond {
		t.Errorf("Subscribe took %v with a %v timeout", took, timeout)
	}
	// The existing subscription stays open and quiet.
	quiet(t, sub, 200*time.Millisecond)

	r.start()
	t.Logf("Redis down for %v", time.Since(killed))
	restarted := time.Now()

	// The subscription comes back by itself, with the reconnect events
	// standing for what was lost.
	want := map[server.EventKind]bool{server.EventToolsChanged: true, server.EventPromptsChanged: true, server.EventResourcesChanged: true, server.EventResync: true}
	for len(want) > 0 {
		ev := recv(t, sub, 10*time.Second)
		if !want[ev.Kind] {
			t.Fatalf("unexpected event %+v after the restart", ev)
		}
		delete(want, ev.Kind)
	}
	t.Logf("subscriber back after %v", time.Since(restarted))

	// Publish works again (the client redials), and reaches it.
	deadline := time.Now().Add(10 * time.Second)
	var err error
	for {
		err = a.Publish(context.Background(), eventT{Kind: server.EventResourceUpdated, URI: "test://after"})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("Publish after the restart: %v", err)
	}
	if ev := recv(t, sub, 5*time.Second); ev.URI != "test://after" {
		t.Fatalf("got %+v after the restart", ev)
	}
	// And a new subscriber works too.
	sub2, _ := subscribe(t, c)
	publish(t, a, eventT{Kind: server.EventPromptsChanged})
	for _, s := range []<-chan eventT{sub, sub2} {
		if ev := recv(t, s, 5*time.Second); ev.Kind != server.EventPromptsChanged {
			t.Fatalf("got %+v", ev)
		}
	}
}

// WithReconnectEvents() with no events replays nothing after a reconnect.
func TestBrokerNoReconnectEvents(t *testing.T) {
	r := startRedis(t)
	opt := &redis.Options{Addr: r.addr()}
	ch := uniqueChannel(t)
	a := newBroker(t, newClient(t, opt), WithChannel(ch))
	b := newBroker(t, newClient(t, opt), WithChannel(ch), WithReconnectEvents())
	sub, _ := subscribe(t, b)
	r.kill()
	r.start()
	// Publish until the resubscribed subscriber sees a marker: nothing
	// else may come first.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := a.Publish(context.Background(), eventT{Kind: server.EventExtension, Extension: "x", Key: "marker"}); err == nil {
			select {
			case ev := <-sub:
				if ev.Key != "marker" {
					t.Fatalf("got %+v, want only markers", ev)
				}
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("subscriber not back within 10s")
		}
	}
}
