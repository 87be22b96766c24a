package server

import (
	"context"
	"sync"
)

// EventKind says what changed.
type EventKind string

// The events a Broker carries.
const (
	EventToolsChanged     EventKind = "tools"
	EventPromptsChanged   EventKind = "prompts"
	EventResourcesChanged EventKind = "resources"
	EventResourceUpdated  EventKind = "resource"
	// EventExtension carries an extension's event (Server.Publish):
	// Extension names it, Key what it is about (a task id), Data its
	// notification's params. The listen streams whose filter asked for
	// Key (ListenFilter) send it; the extension's own subscribers (the
	// tasks extension's runners) read it too.
	EventExtension EventKind = "extension"
	// EventResync stands for events a broker may have lost (it
	// reconnected; redisstore.Broker sends it then): whoever keeps state
	// from events re-reads it (an era's session streams re-read their
	// sessions).
	EventResync EventKind = "resync"
)

// Event is one change fanned out to every instance's listen streams.
type Event struct {
	Kind EventKind `json:"kind"`
	// URI names the resource of an EventResourceUpdated.
	URI string `json:"uri,omitempty"`
	// Extension and Key describe an EventExtension: the extension's id
	// and the key its ListenFilter matches (a task id). An adapter's own
	// kind of event may use Key too.
	Extension string `json:"ext,omitempty"`
	Key       string `json:"key,omitempty"`
	// Data is an optional payload (EventExtension: the notification's
	// params, a JSON object).
	Data []byte `json:"data,omitempty"`
	// Op and Ref describe an event of an adapter's own kind: what
	// happened and about what (package legacy: a session's store key in
	// Key, never its id; a stream or request id in Ref). They carry no
	// payload that reaches a client.
	Op  string `json:"op,omitempty"`
	Ref string `json:"ref,omitempty"`
}

// Broker fans events out to every server instance: Publish on any
// instance reaches the subscribers of all of them. The default is
// in-process; several instances behind one load balancer share a broker
// such as the Redis one (package redisstore).
type Broker interface {
	// Publish sends an event to every subscriber. It returns an error
	// when the event could not be handed to the transport.
	Publish(ctx context.Context, ev Event) error
	// Subscribe returns a channel of events until ctx ends or cancel is
	// called; the channel is closed then. A subscriber too slow to keep
	// up may lose events rather than block the publisher.
	Subscribe(ctx context.Context) (events <-chan Event, cancel func(), err error)
}

// WithBroker sets the broker that carries list changes, resource updates
// and extensions' events between instances (default: in-process).
func WithBroker(b Broker) Option { return func(c *config) { c.broker = b } }

// Broker returns the server's broker (WithBroker), for extensions that
// wait on their own events (Subscribe).
func (s *Server) Broker() Broker { return s.cfg.broker }

// Publish hands an event to the broker: every instance's listen streams
// that asked for it send it (an EventExtension to the streams whose
// filter has its Key).
func (s *Server) Publish(ctx context.Context, ev Event) error {
	return s.cfg.broker.Publish(ctx, ev)
}

// NewLocalBroker returns the in-process broker: events reach the
// subscribers of this process only.
func NewLocalBroker() Broker { return &localBroker{subs: map[*localSub]struct{}{}} }

type localBroker struct {
	mu   sync.Mutex
	subs map[*localSub]struct{}
}

type localSub struct {
	ch   chan Event
	stop chan struct{}
	once sync.Once
}

func (b *localBroker) Publish(_ context.Context, ev Event) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		select {
		case s.ch <- ev:
		default: // a stalled subscriber loses the event rather than block
		}
	}
	return nil
}

func (b *localBroker) Subscribe(ctx context.Context) (<-chan Event, func(), error) {
	s := &localSub{ch: make(chan Event, 64), stop: make(chan struct{})}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	cancel := func() {
		s.once.Do(func() {
			b.mu.Lock()
			delete(b.subs, s)
			b.mu.Unlock()
			close(s.ch)
			close(s.stop)
		})
	}
	go func() {
		select {
		case <-ctx.Done():
			cancel()
		case <-s.stop:
		}
	}()
	return s.ch, cancel, nil
}
