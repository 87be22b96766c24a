package auth

import (
	"sync"
	"time"
)

// tokenCache remembers tokens that verified, keyed by the SHA-256 of the
// token (the token itself is not kept), so that a client sending the
// same token on every request pays the signature check once. It holds at
// most max entries (the least recently used goes first), each until the
// token's exp (plus the leeway) or ttl after it was verified, whichever
// comes first. Refusals are not cached.
type tokenCache struct {
	ttl time.Duration

	mu sync.Mutex
	m  *lru[*TokenInfo]
}

func newTokenCache(max int, ttl time.Duration) *tokenCache {
	return &tokenCache{ttl: ttl, m: newLRU[*TokenInfo](max)}
}

// get returns a copy of the cached TokenInfo of key, if it is still
// valid at now.
func (c *tokenCache) get(key tokenKey, now time.Time) (*TokenInfo, bool) {
	c.mu.Lock()
	e, ok := c.m.get(key, now)
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	ti := *e // the caller may change the struct; Claims and the slices are shared, read-only
	return &ti, true
}

// put caches ti, verified at now, until min(exp+leeway, now+ttl).
func (c *tokenCache) put(key tokenKey, ti *TokenInfo, now time.Time, leeway time.Duration) {
	until := now.Add(c.ttl)
	if exp := ti.Expiry.Add(leeway); exp.Before(until) {
		until = exp
	}
	if !now.Before(until) {
		return
	}
	cp := *ti
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m.put(key, &cp, until)
}

// len is the number of entries, for tests.
func (c *tokenCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.len()
}
