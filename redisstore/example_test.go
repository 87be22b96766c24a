package redisstore_test

import (
	"log"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/redisstore"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// Instances of one dual-era deployment share their legacy sessions (and
// their events) through Redis: a client that sent initialize to one
// instance is served by whichever the load balancer picks next. Each
// instance runs this same set-up.
func ExampleNewSessionStore() {
	rdb := redis.NewClient(&redis.Options{Addr: "redis:6379"})
	defer rdb.Close()
	events, err := redisstore.NewBroker(rdb)
	if err != nil {
		log.Fatal(err)
	}
	defer events.Close()
	sessions, err := redisstore.NewSessionStore(rdb, redisstore.WithTimeout(time.Second))
	if err != nil {
		log.Fatal(err)
	}
	s, err := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"},
		server.WithBroker(events))
	if err != nil {
		log.Fatal(err)
	}
	era, err := legacy.New(s, legacy.Config{
		Store:                   sessions,
		MaxSessions:             50000, // in all, across the instances
		MaxSessionsPerPrincipal: 20,
		IdleTimeout:             15 * time.Minute,
	})
	if err != nil {
		log.Fatal(err)
	}
	// Sessions are bound to the principal that Authenticate returns (here
	// the user that the authenticating gateway in front has verified).
	http.Handle("/mcp", streamhttp.Handler(s, streamhttp.Options{
		Legacy:       era,
		Authenticate: func(r *http.Request) (string, error) { return r.Header.Get("X-Forwarded-User"), nil },
	}))
	log.Fatal(http.ListenAndServe(":8080", nil))
}
