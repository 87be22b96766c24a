package auth

import (
	"container/list"
	"crypto/sha256"
	"time"
	"unsafe"
)

// tokenKey is what the verifiers' caches are keyed by: the SHA-256 of the
// token, so that no raw token is kept after its request (R-AUTH-11).
type tokenKey [sha256.Size]byte

// cacheKey is the tokenKey of token. The token's bytes are hashed in place
// (read only, never kept): a copy would cost an allocation the size of
// the token on every request.
func cacheKey(token string) tokenKey {
	return sha256.Sum256(unsafe.Slice(unsafe.StringData(token), len(token)))
}

// lru is a least-recently-used map from token keys to values, each entry
// with its own deadline, holding at most max entries (max <= 0: it stores
// nothing). It is not safe for concurrent use: its owner guards it.
type lru[V any] struct {
	max   int
	order *list.List // of *lruEntry[V], most recently used at the front
	byKey map[tokenKey]*list.Element
}

type lruEntry[V any] struct {
	key      tokenKey
	val      V
	deadline time.Time
}

func newLRU[V any](max int) *lru[V] {
	return &lru[V]{max: max, order: list.New(), byKey: make(map[tokenKey]*list.Element)}
}

// get returns the value of key if it is there and its deadline is after
// now; an expired entry is removed.
func (c *lru[V]) get(key tokenKey, now time.Time) (V, bool) {
	var zero V
	el, ok := c.byKey[key]
	if !ok {
		return zero, false
	}
	e := el.Value.(*lruEntry[V])
	if !now.Before(e.deadline) {
		c.order.Remove(el)
		delete(c.byKey, key)
		return zero, false
	}
	c.order.MoveToFront(el)
	return e.val, true
}

// put stores val under key until deadline, evicting the least recently
// used entry when the cache is full.
func (c *lru[V]) put(key tokenKey, val V, deadline time.Time) {
	if c.max <= 0 {
		return
	}
	if el, ok := c.byKey[key]; ok {
		e := el.Value.(*lruEntry[V])
		e.val, e.deadline = val, deadline
		c.order.MoveToFront(el)
		return
	}
	for c.order.Len() >= c.max {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.byKey, oldest.Value.(*lruEntry[V]).key)
	}
	c.byKey[key] = c.order.PushFront(&lruEntry[V]{key: key, val: val, deadline: deadline})
}

// len is the number of entries, expired ones not yet removed included.
func (c *lru[V]) len() int {
	return c.order.Len()
}
