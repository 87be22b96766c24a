package redisstore

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/internal/testutil"
	"github.com/mcpwire/mcpwire/server"
)

type eventT = server.Event

// recv returns the next event of ch, failing after d.
func recv(t *testing.T, ch <-chan eventT, d time.Duration) eventT {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("subscription channel closed")
		}
		return ev
	case <-time.After(d):
		t.Fatalf("no event within %v", d)
	}
	return eventT{}
}

// closedWithin reports whether ch is closed (after draining) within d.
func closedWithin(ch <-chan eventT, d time.Duration) bool {
	timeout := time.After(d)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return true
			}
		case <-timeout:
			return false
		}
	}
}

// quiet asserts that ch delivers nothing, and stays open, for d.
func quiet(t *testing.T, ch <-chan eventT, d time.Duration) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("subscription channel closed")
		}
		t.Fatalf("unexpected event %+v", ev)
	case <-time.After(d):
	}
}

func numSub(t *testing.T, rdb *redis.Client, channel string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	m, err := rdb.PubSubNumSub(ctx, channel).Result()
	if err != nil {
		t.Fatalf("PUBSUB NUMSUB: %v", err)
	}
	return m[channel]
}

func waitNumSub(t *testing.T, rdb *redis.Client, channel string, want int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := numSub(t, rdb, channel)
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("PUBSUB NUMSUB %s = %d, want %d", channel, n, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func publish(t *testing.T, b *Broker, ev eventT) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.Publish(ctx, ev); err != nil {
		t.Fatalf("Publish: %v", err)
	}
}

// Events published on one instance's broker reach the subscribers of
// every instance (the publisher's included), whole and in order.
func TestBrokerAcrossInstances(t *testing.T) {
	a, b := twoInstances(t, newBroker, WithChannel(uniqueChannel(t)))
	subA, _ := subscribe(t, a)
	subB, _ := subscribe(t, b)

	events := []eventT{
		{Kind: server.EventToolsChanged},
		{Kind: server.EventResourceUpdated, URI: "file:///a b/ü.txt"},
		{Kind: server.EventExtension, Extension: "io.modelcontextprotocol/tasks", Key: "task-1", Data: []byte(`{"taskId":"task-1","status":"working"}` + "\x00\xff")},
		{Kind: server.EventPromptsChanged},
	}
	for _, ev := range events {
		publish(t, a, ev)
	}
	for name, sub := range map[string]<-chan eventT{"A (publisher)": subA, "B": subB} {
		for i, want := range events {
			if got := recv(t, sub, 5*time.Second); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: event %d = %+v, want %+v", name, i, got, want)
			}
		}
	}
	// And the other way round.
	publish(t, b, eventT{Kind: server.EventResourcesChanged})
	if got := recv(t, subA, 5*time.Second); got.Kind != server.EventResourcesChanged {
		t.Errorf("A got %+v", got)
	}
	if got := recv(t, subB, 5*time.Second); got.Kind != server.EventResourcesChanged {
		t.Errorf("B got %+v", got)
	}
}

// A Broker's subscribers share one Redis subscription, released when the
// last one leaves; cancel and the end of the context both close a
// subscriber's channel.
func TestBrokerSharedSubscription(t *testing.T) {
	opt := testRedis(t)
	ch := uniqueChannel(t)
	rdb := newClient(t, opt)
	b := newBroker(t, newClient(t, opt), WithChannel(ch))

	ctx1, end1 := context.WithCancel(context.Background())
	defer end1()
	sub1, _, err := b.Subscribe(ctx1)
	if err != nil {
		t.Fatal(err)
	}
	sub2, stop2 := subscribe(t, b)
	sub3, stop3 := subscribe(t, b)
	if n := numSub(t, rdb, ch); n != 1 {
		t.Fatalf("3 subscribers hold %d Redis subscriptions, want 1", n)
	}
	publish(t, b, eventT{Kind: server.EventToolsChanged})
	for _, s := range []<-chan eventT{sub1, sub2, sub3} {
		recv(t, s, 5*time.Second)
	}

	end1()
	if !closedWithin(sub1, 2*time.Second) {
		t.Fatal("channel not closed when the context ended")
	}
	stop2()
	stop2() // idempotent
	if !closedWithin(sub2, time.Second) {
		t.Fatal("channel not closed by cancel")
	}
	publish(t, b, eventT{Kind: server.EventPromptsChanged})
	if got := recv(t, sub3, 5*time.Second); got.Kind != server.EventPromptsChanged {
		t.Fatalf("remaining subscriber got %+v", got)
	}
	if n := numSub(t, rdb, ch); n != 1 {
		t.Fatalf("%d Redis subscriptions with one subscriber left, want 1", n)
	}
	stop3()
	waitNumSub(t, rdb, ch, 0)

	// A new subscriber opens a new shared subscription.
	sub4, _ := subscribe(t, b)
	waitNumSub(t, rdb, ch, 1)
	publish(t, b, eventT{Kind: server.EventResourcesChanged})
	if got := recv(t, sub4, 5*time.Second); got.Kind != server.EventResourcesChanged {
		t.Fatalf("new subscriber got %+v", got)
	}

	// Close ends the subscribers and every later call.
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if !closedWithin(sub4, time.Second) {
		t.Fatal("Close left a subscriber channel open")
	}
	waitNumSub(t, rdb, ch, 0)
	if err := b.Publish(context.Background(), eventT{Kind: server.EventToolsChanged}); !errors.Is(err, ErrClosed) {
		t.Errorf("Publish after Close: %v", err)
	}
	if _, _, err := b.Subscribe(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Subscribe after Close: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}

	// A context already ended subscribes nothing.
	b2 := newBroker(t, newClient(t, opt), WithChannel(ch))
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := b2.Subscribe(done); !errors.Is(err, context.Canceled) {
		t.Errorf("Subscribe with an ended context: %v", err)
	}
	if err := b2.Publish(done, eventT{Kind: server.EventToolsChanged}); !errors.Is(err, context.Canceled) {
		t.Errorf("Publish with an ended context: %v", err)
	}
}

// A subscriber that never reads loses events once its buffer is full,
// and delays neither the publishers nor the other subscribers.
func TestBrokerSlowSubscriber(t *testing.T) {
	opt := testRedis(t)
	ch := uniqueChannel(t)
	a := newBroker(t, newClient(t, opt), WithChannel(ch))
	b := newBroker(t, newClient(t, opt), WithChannel(ch), WithBuffer(8))
	slow, _ := subscribe(t, b) // never read until the end
	fast, _ := subscribe(t, b)
	const n = 100
	start := time.Now()
	for i := range n {
		publish(t, a, eventT{Kind: server.EventResourceUpdated, URI: "test://" + string(rune('a'+i%26))})
		// One event in flight at a time: had the full slow subscriber
		// blocked the fan-out, the fast one would stall at event 9.
		recv(t, fast, 5*time.Second)
	}
	t.Logf("%d events through a broker with a stalled subscriber in %v", n, time.Since(start))
	if got := len(slow); got != 8 {
		t.Errorf("slow subscriber holds %d events, want its buffer (8)", got)
	}
	if got := b.Dropped(); got != n-8 {
		t.Errorf("Dropped() = %d, want %d", got, n-8)
	}
	// The first events are the ones kept.
	if ev := <-slow; ev.URI != "test://a" {
		t.Errorf("slow subscriber's first event %+v", ev)
	}
}

// Messages on the channel that are not events are dropped (and logged);
// the events around them arrive.
func TestBrokerIgnoresForeignMessages(t *testing.T) {
	opt := testRedis(t)
	ch := uniqueChannel(t)
	rdb := newClient(t, opt)
	logs := &testutil.SyncBuffer{}
	b := newBroker(t, newClient(t, opt), WithChannel(ch), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	sub, _ := subscribe(t, b)
	ctx := context.Background()
	for _, m := range []string{"not json", `{"kind":""}`, `[1,2]`, `{"kind":"tools","data":"%%%"}`} {
		if err := rdb.Publish(ctx, ch, m).Err(); err != nil {
			t.Fatal(err)
		}
	}
	publish(t, b, eventT{Kind: server.EventToolsChanged})
	if got := recv(t, sub, 5*time.Second); !reflect.DeepEqual(got, eventT{Kind: server.EventToolsChanged}) {
		t.Errorf("got %+v", got)
	}
	quiet(t, sub, 100*time.Millisecond)
	if n := strings.Count(logs.String(), "not an event"); n != 4 {
		t.Errorf("%d warnings for 4 foreign messages:\n%s", n, logs)
	}
}

func TestNewBrokerAndStoreOptions(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	for name, c := range map[string]struct {
		rdb  *redis.Client
		opts []Option
	}{
		"nil client":      {nil, nil},
		"empty channel":   {rdb, []Option{WithChannel("")}},
		"zero timeout":    {rdb, []Option{WithTimeout(0)}},
		"zero buffer":     {rdb, []Option{WithBuffer(0)}},
		"kindless replay": {rdb, []Option{WithReconnectEvents(eventT{})}},
	} {
		if _, err := NewBroker(c.rdb, c.opts...); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	b, err := NewBroker(rdb)
	if err != nil {
		t.Fatal(err)
	}
	if b.Channel() != "mcpwire:events" {
		t.Errorf("default channel %q", b.Channel())
	}
	if err := b.Publish(context.Background(), eventT{}); err == nil {
		t.Error("Publish of an event without a kind")
	}
	if err := b.Close(); err != nil {
		t.Error(err)
	}
	if _, err := NewTaskStore(nil); err == nil {
		t.Error("NewTaskStore(nil): no error")
	}
	if _, err := NewTaskStore(rdb, WithTimeout(-time.Second)); err == nil {
		t.Error("NewTaskStore with a negative timeout: no error")
	}
	if s, err := NewTaskStore(rdb); err != nil || s.cfg.prefix != "mcpwire:" || s.taskKey("p", "id") != "mcpwire:task:"+principalTag("p")+":id" {
		t.Errorf("NewTaskStore defaults: %v", err)
	}
}

// blackholeClient returns a client, without read and write timeouts of
// its own, on a blackhole; it is closed when the test ends.
func blackholeClient(t *testing.T) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: blackhole(t), ReadTimeout: -1, WriteTimeout: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// blackhole is a TCP server that accepts connections and never answers,
// like a Redis that hangs.
func blackhole(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// A Redis that accepts connections but never answers makes Publish and a
// first Subscribe fail by the broker's timeout, even with a client whose
// own timeouts are off.
func TestBrokerUnresponsiveRedis(t *testing.T) {
	var b *Broker
	t.Cleanup(func() { // after the black hole lets go (cleanups run last first)
		if b != nil {
			_ = b.Close()
		}
	})
	rdb := blackholeClient(t)
	var err error
	if b, err = NewBroker(rdb, WithTimeout(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}

	for range 2 {
		start := time.Now()
		err := b.Publish(context.Background(), eventT{Kind: server.EventToolsChanged})
		took := time.Since(start)
		t.Logf("Publish to a hung Redis: %v after %v", err, took)
		if err == nil || !strings.Contains(err.Error(), "no reply from Redis within 300ms") || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Publish error %v", err)
		}
		if took > 2*time.Second {
			t.Errorf("Publish took %v with a 300ms timeout", took)
		}
	}
	start := time.Now()
	_, _, err = b.Subscribe(context.Background())
	took := time.Since(start)
	t.Logf("Subscribe to a hung Redis: %v after %v", err, took)
	if err == nil || !strings.Contains(err.Error(), "redisstore: subscribing") {
		t.Errorf("Subscribe error %v", err)
	}
	if took > 2*time.Second {
		t.Errorf("Subscribe took %v with a 300ms timeout", took)
	}
}
