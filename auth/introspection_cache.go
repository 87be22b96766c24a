package auth

import (
	"container/list"
	"crypto/sha256"
	"time"
)

// tokenKey is what the introspection cache is keyed by: the SHA-256 of
// the token, so that no raw token is kept after its request (R-AUTH-11).
type tokenKey [sha256.Size]byte

func keyOf(token string) tokenKey {
	return sha256.Sum256([]byte(token))
}

// introspectionResult is one answer of the authorization server: info
// for an active token, nil for an inactive one.
type introspectionResult struct {
	info *TokenInfo
}

// lruCache is a least-recently-used map from token keys to results, each
// entry with its own deadline. It is not safe for concurrent use: the
// IntrospectionVerifier guards it with its mutex.
type lruCache struct {
	max   int
	order *list.List // of *lruEntry, most recently used at the front
	byKey map[tokenKey]*list.Element
}

type lruEntry struct {
	key      tokenKey
	result   introspectionResult
	deadline time.Time
}

// newLRUCache returns a cache of at most max entries; max <= 0 gives a
// cache that stores nothing.
func newLRUCache(max int) *lruCache {
	return &lruCache{max: max, order: list.New(), byKey: make(map[tokenKey]*list.Element)}
}

// get returns the entry of key if it is there and its deadline is after
// now; an expired entry is removed.
func (c *lruCache) get(key tokenKey, now time.Time) (introspectionResult, bool) {
	el, ok := c.byKey[key]
	if !ok {
		return introspectionResult{}, false
	}
	e := el.Value.(*lruEntry)
	if !now.Before(e.deadline) {
		c.order.Remove(el)
		delete(c.byKey, key)
		return introspectionResult{}, false
	}
	c.order.MoveToFront(el)
	return e.result, true
}

// put stores result under key until deadline, evicting the least
// recently used entry when the cache is full.
func (c *lruCache) put(key tokenKey, result introspectionResult, deadline time.Time) {
	if c.max <= 0 {
		return
	}
	if el, ok := c.byKey[key]; ok {
		e := el.Value.(*lruEntry)
		e.result, e.deadline = result, deadline
		c.order.MoveToFront(el)
		return
	}
	for c.order.Len() >= c.max {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.byKey, oldest.Value.(*lruEntry).key)
	}
	c.byKey[key] = c.order.PushFront(&lruEntry{key: key, result: result, deadline: deadline})
}

// len is the number of entries, expired ones not yet removed included.
func (c *lruCache) len() int {
	return c.order.Len()
}
