package auth

import (
	"crypto/sha256"
	"sync"
	"time"
	"unsafe"
)

// tokenCache remembers tokens that verified, keyed by the SHA-256 of the
// token (the token itself is not kept), so that a client sending the
// same token on every request pays the signature check once. It holds at
// most max entries (the oldest inserted goes first), each until the
// token's exp (plus the leeway) or ttl after it was verified, whichever
// comes first. Refusals are not cached.
type tokenCache struct {
	max int
	ttl time.Duration

	mu   sync.Mutex
	m    map[[32]byte]cacheEntry
	ring [][32]byte // insertion order, for eviction
	pos  int
	used int // slots of ring in use
}

type cacheEntry struct {
	ti    *TokenInfo
	until time.Time
}

func newTokenCache(max int, ttl time.Duration) *tokenCache {
	return &tokenCache{max: max, ttl: ttl, m: make(map[[32]byte]cacheEntry, min(max, 1024)), ring: make([][32]byte, max)}
}

// cacheKey is the SHA-256 of token. The token's bytes are hashed in
// place (read only, never kept): a copy would cost an allocation the
// size of the token on every request.
func cacheKey(token string) [32]byte {
	return sha256.Sum256(unsafe.Slice(unsafe.StringData(token), len(token)))
}

// get returns a copy of the cached TokenInfo of key, if it is still
// valid at now.
func (c *tokenCache) get(key [32]byte, now time.Time) (*TokenInfo, bool) {
	c.mu.Lock()
	e, ok := c.m[key]
	if ok && !now.Before(e.until) {
		delete(c.m, key)
		ok = false
	}
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	ti := *e.ti // the caller may change the struct; Claims and the slices are shared, read-only
	return &ti, true
}

// put caches ti, verified at now, until min(exp+leeway, now+ttl).
func (c *tokenCache) put(key [32]byte, ti *TokenInfo, now time.Time, leeway time.Duration) {
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
	if _, ok := c.m[key]; !ok {
		if c.used == c.max {
			delete(c.m, c.ring[c.pos]) // the oldest slot (its key may already be gone)
		} else {
			c.used++
		}
		c.ring[c.pos] = key
		c.pos = (c.pos + 1) % c.max
	}
	c.m[key] = cacheEntry{ti: &cp, until: until}
}

// len is the number of entries, for tests.
func (c *tokenCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
