// Package redisstore shares what mcpwire server instances must share
// through Redis, so that several instances can run behind one load
// balancer.
//
// A Server keeps no per-client state between requests: a multi round-trip
// request (input_required, then its retry) may be answered by any
// instance, provided every instance seals requestState with the same keys
// (server.WithStateKeys). What does cross instances is change events, and
// tasks. Broker carries the events over Redis pub/sub: a tool registered
// on instance A reaches the listen streams held open on instance B.
// TaskStore keeps the records of the tasks extension (package ext/tasks)
// in Redis: a task
// created through A is polled, answered and cancelled through B.
//
// Legacy clients (2025-03-26 to 2025-11-25 over Streamable HTTP, see
// package server/legacy) are the exception: they open a session with
// initialize, and the session is state. SessionStore keeps the sessions
// in Redis (legacy.Config.Store): a session opened through A is
// served, updated and deleted through B, within the limits of
// legacy.Config (per principal, with eviction, and in all), and
// expires in Redis at the end of its idle or absolute lifetime.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "redis:6379"})
//	b, err := redisstore.NewBroker(rdb)
//	...
//	defer b.Close()
//	taskStore, err := redisstore.NewTaskStore(rdb)
//	...
//	sessions, err := redisstore.NewSessionStore(rdb)
//	...
//	s, err := server.New(impl,
//		server.WithBroker(b),
//		server.WithStateKeys(key),
//		tasks.WithTasks(tasks.TaskConfig{Store: taskStore}))
//	...
//	era, err := legacy.New(s, legacy.Config{Eras: legacy.ErasBoth, Store: sessions})
//	...
//	http.Handle("/mcp", streamhttp.Handler(s, streamhttp.Options{Legacy: era}))
//
// Every call that talks to Redis is bounded by WithTimeout (default 2 s),
// whatever the client's own timeouts: an unreachable or hung Redis makes
// it fail, never hang. A SessionStore that fails this way returns the
// error (the runtime answers 503 with Retry-After), never
// legacy.ErrSessionNotFound: a client told 404 would drop its session.
//
// The stores need Redis 4.0 or later, on a single server or a primary
// with replicas (not Redis Cluster: the client is a *redis.Client).
// Every key they write has an expiry.
//
// # Delivery of events
//
// Redis pub/sub delivers at most once, to the subscribers connected at the
// time; nothing is stored. Publish returns an error when Redis does not
// take the event (Redis down or too slow): the event is then lost for every
// instance, this one included. A Broker's subscribers share one Redis
// connection, which go-redis re-establishes after a failure (Redis
// restarted, connection dropped); the subscribers' channels stay open
// meanwhile. Events published while that connection was down are lost,
// so once it is back the broker hands its subscribers the reconnect events
// (by default a list change of tools, prompts and resources; see
// WithReconnectEvents) so that clients re-fetch lists whose change they may
// have missed. Resource updates and task events of the gap are not
// replayed; task runners still see their tasks change at their next poll
// (pollIntervalMs), as the records themselves are in Redis.
//
// # Trust
//
// Redis is part of the servers' trusted base. What comes over the broker's
// channel is believed: an event published there by anyone who can reach
// Redis (a list change, a resource update, a task's status with its
// result) reaches the listen streams that asked for it, whatever its size,
// and the records in the stores are what tasks/get and the sessions
// serve. The instances check that an event's payload names the key it is
// delivered by (the task of a task event), not who sent it. So reach Redis
// only from the instances: a password or ACL user (redis://user:pass@...),
// TLS (rediss://) across hosts, and a network the clients cannot reach.
package redisstore
