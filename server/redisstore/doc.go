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
// TaskStore keeps the records of the tasks extension in Redis: a task
// created through A is polled, answered and cancelled through B.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "redis:6379"})
//	b, err := redisstore.NewBroker(rdb)
//	...
//	defer b.Close()
//	tasks, err := redisstore.NewTaskStore(rdb)
//	...
//	s, err := server.New(impl,
//		server.WithBroker(b),
//		server.WithStateKeys(key),
//		server.WithTasks(server.TaskConfig{Store: tasks}))
//
// Every call that talks to Redis is bounded by WithTimeout (default 2 s),
// whatever the client's own timeouts: an unreachable or hung Redis makes
// it fail, never hang.
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
package redisstore
