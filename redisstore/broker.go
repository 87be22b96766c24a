package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/server"
)

// Defaults of the broker options.
const (
	// DefaultChannel is the Redis pub/sub channel the events travel on.
	DefaultChannel = "mcpwire:events"
	// DefaultTimeout bounds one Publish, one TaskStore or SessionStore
	// call and the set-up of a Broker's shared subscription.
	DefaultTimeout = 2 * time.Second
	// DefaultBuffer is how many events a subscriber may fall behind
	// before it loses events.
	DefaultBuffer = 64
)

// ErrClosed is returned by a Broker after Close.
var ErrClosed = errors.New("redisstore: broker closed")

// Option configures a Broker, a TaskStore or a SessionStore; each ignores
// the options that are not its own.
type Option func(*config)

type config struct {
	channel   string
	timeout   time.Duration
	buffer    int
	logger    *slog.Logger
	reconnect []server.Event
	prefix    string
}

func defaults() config {
	return config{
		channel: DefaultChannel,
		timeout: DefaultTimeout,
		buffer:  DefaultBuffer,
		prefix:  DefaultPrefix,
		reconnect: []server.Event{
			{Kind: server.EventToolsChanged},
			{Kind: server.EventPromptsChanged},
			{Kind: server.EventResourcesChanged},
			{Kind: server.EventResync},
		},
	}
}

// WithChannel (Broker) sets the Redis pub/sub channel (default "mcpwire:events").
// Every instance of one deployment must use the same channel; deployments
// sharing a Redis use different ones.
func WithChannel(name string) Option { return func(c *config) { c.channel = name } }

// WithTimeout bounds each Publish, each TaskStore and SessionStore call
// (an Update with all its compare-and-set rounds), whatever the context
// and the client's own timeouts, and the wait for Redis to confirm the
// subscription when a Broker's first subscriber arrives (default 2 s).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithBuffer (Broker) sets how many events each subscriber may fall behind before
// further events are dropped for it (default 64).
func WithBuffer(n int) Option { return func(c *config) { c.buffer = n } }

// WithLogger (Broker) sets where the broker reports reconnections and undecodable
// messages (default: slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithReconnectEvents (Broker) sets the events handed to every subscriber when the
// subscription connection comes back after a failure, standing for the
// events that may have been lost meanwhile. The default is a list change
// of tools, prompts and resources, which makes listening clients re-fetch
// those lists, and a session resync (server.EventResync), which makes
// the legacy session streams re-read their records; no events turns this
// off.
func WithReconnectEvents(evs ...server.Event) Option {
	return func(c *config) { c.reconnect = append([]server.Event{}, evs...) }
}

// Broker is a server.Broker over Redis pub/sub: an event published on any
// instance reaches the subscribers of every instance using the same Redis
// and channel, the publishing one included. Events travel as JSON-encoded
// server.Event values.
//
// The subscribers of one Broker share one Redis connection, opened when
// the first one arrives and closed when the last one leaves. A subscriber
// that does not keep up loses events (see WithBuffer); it never delays the
// others or the publishers. It is safe for concurrent use.
type Broker struct {
	rdb *redis.Client
	cfg config

	dropped atomic.Uint64

	mu     sync.Mutex
	hub    *hub // the current shared subscription, nil when none
	closed bool
	wg     sync.WaitGroup // hub goroutines
}

// hub is one Redis subscription shared by the Broker's subscribers.
type hub struct {
	ready chan struct{} // closed once the subscription is confirmed or has failed
	err   error         // why it failed; written before ready is closed
	quit  chan struct{} // closed when the last subscriber has left
	subs  map[*subscriber]struct{}
	// stopped is set, with quit closed, when the hub has no subscribers
	// left; the hub's goroutine then closes the Redis subscription.
	stopped bool
}

type subscriber struct {
	ch  chan server.Event
	hub *hub
}

var _ server.Broker = (*Broker)(nil)

// NewBroker returns a Broker that publishes and subscribes through rdb,
// which the caller keeps and closes (after the Broker).
func NewBroker(rdb *redis.Client, opts ...Option) (*Broker, error) {
	c := defaults()
	for _, o := range opts {
		o(&c)
	}
	switch {
	case rdb == nil:
		return nil, errors.New("redisstore: nil Redis client")
	case c.channel == "":
		return nil, errors.New("redisstore: empty channel name")
	case c.timeout <= 0:
		return nil, fmt.Errorf("redisstore: timeout %v must be positive", c.timeout)
	case c.buffer <= 0:
		return nil, fmt.Errorf("redisstore: buffer %d must be positive", c.buffer)
	}
	for _, ev := range c.reconnect {
		if ev.Kind == "" {
			return nil, errors.New("redisstore: reconnect event without a kind")
		}
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	return &Broker{rdb: rdb, cfg: c}, nil
}

// Channel returns the Redis channel the broker uses.
func (b *Broker) Channel() string { return b.cfg.channel }

// Dropped returns how many events were dropped, in total, for subscribers
// that did not keep up.
func (b *Broker) Dropped() uint64 { return b.dropped.Load() }

// Publish sends ev to every subscriber of every instance. It returns once
// Redis has taken the event, or with an error when Redis is unreachable or
// has not answered when the broker's timeout or ctx ends: the event is then
// lost (or, if Redis took it just too late, delivered). Publish never waits
// for subscribers.
func (b *Broker) Publish(ctx context.Context, ev server.Event) error {
	if ev.Kind == "" {
		return errors.New("redisstore: event without a kind")
	}
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return ErrClosed
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("redisstore: encoding a %q event: %w", ev.Kind, err)
	}
	_, err = within(ctx, b.cfg.timeout, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, b.rdb.Publish(ctx, b.cfg.channel, payload).Err()
	})
	if err != nil {
		return fmt.Errorf("redisstore: publishing a %q event on Redis channel %q: %w", ev.Kind, b.cfg.channel, err)
	}
	return nil
}

// Subscribe returns a channel of the events published from now on, by any
// instance, until ctx ends or cancel is called; the channel is closed
// then. When it returns without error Redis has confirmed the
// subscription: an event published afterwards is delivered. The first
// subscriber of a Broker waits for that confirmation (at most the
// broker's timeout) and gets an error when Redis is unreachable; later ones
// join the existing subscription, which outlives Redis failures (see the
// package documentation).
func (b *Broker) Subscribe(ctx context.Context) (<-chan server.Event, func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	s := &subscriber{ch: make(chan server.Event, b.cfg.buffer)}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, nil, ErrClosed
	}
	h := b.hub
	if h == nil {
		h = &hub{ready: make(chan struct{}), quit: make(chan struct{}), subs: map[*subscriber]struct{}{}}
		b.hub = h
		b.wg.Add(1)
		go b.run(h)
	}
	h.subs[s] = struct{}{}
	s.hub = h
	b.mu.Unlock()

	timer := time.NewTimer(b.cfg.timeout)
	defer timer.Stop()
	select {
	case <-h.ready:
	case <-ctx.Done():
		b.remove(s)
		return nil, nil, ctx.Err()
	case <-timer.C: // the client's own timeouts may be longer, or off
		b.remove(s)
		return nil, nil, fmt.Errorf("redisstore: subscribing to Redis channel %q: no confirmation from Redis within %v", b.cfg.channel, b.cfg.timeout)
	}
	if h.err != nil {
		b.remove(s)
		return nil, nil, h.err
	}
	b.mu.Lock()
	_, live := h.subs[s]
	b.mu.Unlock()
	if !live { // Close ran meanwhile
		return nil, nil, ErrClosed
	}
	stop := context.AfterFunc(ctx, func() { b.remove(s) })
	cancel := func() {
		stop()
		b.remove(s)
	}
	return s.ch, cancel, nil
}

// remove ends a subscriber: its channel is closed, and the shared
// subscription is released when it was the last one.
func (b *Broker) remove(s *subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := s.hub
	if _, ok := h.subs[s]; !ok {
		return
	}
	delete(h.subs, s)
	close(s.ch)
	if len(h.subs) == 0 {
		b.stop(h)
	}
}

// stop marks h as having no subscribers; b.mu is held.
func (b *Broker) stop(h *hub) {
	if h.stopped {
		return
	}
	h.stopped = true
	close(h.quit)
	if b.hub == h {
		b.hub = nil
	}
}

// run opens the Redis subscription of h, waits for Redis to confirm it,
// then fans messages out to h's subscribers until h stops.
func (b *Broker) run(h *hub) {
	defer b.wg.Done()
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.timeout)
	ps := b.rdb.Subscribe(ctx, b.cfg.channel)
	msg, err := ps.Receive(ctx)
	cancel()
	if err == nil {
		if _, ok := msg.(*redis.Subscription); !ok {
			err = fmt.Errorf("unexpected reply %T", msg)
		}
	}
	b.mu.Lock()
	if err != nil {
		h.err = fmt.Errorf("redisstore: subscribing to Redis channel %q: %w", b.cfg.channel, err)
		b.stop(h)
	}
	close(h.ready)
	stopped := h.stopped
	b.mu.Unlock()
	if stopped {
		_ = ps.Close()
		return
	}

	// Subscription messages after the first mean go-redis reconnected and
	// subscribed again. Our fan-out never blocks, so the channel's send
	// timeout only matters while we drain it on the way out.
	msgs := ps.ChannelWithSubscriptions(redis.WithChannelSize(256), redis.WithChannelSendTimeout(time.Second))
	for {
		select {
		case <-h.quit:
			_ = ps.Close()
			for range msgs { // let go-redis's reader see the close and end
			}
			return
		case m, ok := <-msgs:
			if !ok {
				return
			}
			switch m := m.(type) {
			case *redis.Message:
				var ev server.Event
				if err := json.Unmarshal([]byte(m.Payload), &ev); err != nil || ev.Kind == "" {
					b.cfg.logger.Warn("redisstore: dropping a message that is not an event", "channel", m.Channel, "bytes", len(m.Payload))
					continue
				}
				b.dispatch(h, ev)
			case *redis.Subscription:
				if m.Kind != "subscribe" {
					continue
				}
				b.cfg.logger.Info("redisstore: subscribed again after losing the Redis connection; events published meanwhile are lost", "channel", m.Channel)
				for _, ev := range b.cfg.reconnect {
					b.dispatch(h, ev)
				}
			}
		}
	}
}

// dispatch hands ev to every subscriber of h that has room for it.
func (b *Broker) dispatch(h *hub, ev server.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range h.subs {
		select {
		case s.ch <- ev:
		default:
			b.dropped.Add(1)
		}
	}
}

// Close ends every subscription (their channels are closed) and makes
// later calls fail with ErrClosed. It waits for the shared subscription's
// goroutine to end, at most the broker's timeout (one stuck in Redis I/O
// ends by the client's own timeouts). It does not close the Redis client.
func (b *Broker) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	if h := b.hub; h != nil {
		for s := range h.subs {
			delete(h.subs, s)
			close(s.ch)
		}
		b.stop(h)
	}
	b.mu.Unlock()
	done := make(chan struct{})
	go func() {
		b.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(b.cfg.timeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	return nil
}

// within runs f with a context that ends after d (or with ctx), and
// returns at the latest then; see bounded.
func within[T any](ctx context.Context, d time.Duration, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := deadline(ctx, d)
	defer cancel()
	return bounded(ctx, f)
}

// deadline returns ctx bounded by d, whose cause says so.
func deadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("no reply from Redis within %v: %w", d, context.DeadlineExceeded))
}

// bounded runs f (Redis I/O only) aside and returns when it does or when
// ctx ends, whichever comes first: the caller is free at the deadline even
// when the client's own timeouts are longer (or off). f then ends by
// itself, by those timeouts or by its context, which has ended.
func bounded[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() != nil && (errors.Is(r.err, context.DeadlineExceeded) || errors.Is(r.err, context.Canceled)) {
			r.err = context.Cause(ctx) // says which deadline, or the caller's cause
		}
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, context.Cause(ctx)
	}
}
