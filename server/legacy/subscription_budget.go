package legacy

import (
	"fmt"
	"sync"
	"time"
)

// The byte budget of resources/subscribe (§2.4): what the subscriptions
// of a legacy session hold is bounded per session
// (Config.MaxSubscriptionBytes, atomically with the change of the
// record), per principal or client address
// (MaxSubscriptionBytesPerPrincipal) and on the whole instance
// (MaxSubscriptionBytesTotal), the last two counted by this instance over
// the sessions whose subscriptions it changed. A subscription counts its
// URI's bytes and SubscriptionOverheadBytes: what it holds in the record
// (the string header) and in the set of the session's stream.

// Defaults of the subscription byte budget.
const (
	// DefaultMaxSubscriptionBytes bounds the bytes of one session's
	// subscriptions (Config.MaxSubscriptionBytes): 1,000 URIs of 448
	// bytes.
	DefaultMaxSubscriptionBytes = 512 << 10
	// DefaultMaxSubscriptionBytesPerPrincipal bounds them for all the
	// sessions of one principal or client address
	// (Config.MaxSubscriptionBytesPerPrincipal).
	DefaultMaxSubscriptionBytesPerPrincipal = 4 << 20
	// DefaultMaxSubscriptionBytesTotal bounds them for all the sessions
	// this instance serves (Config.MaxSubscriptionBytesTotal).
	DefaultMaxSubscriptionBytesTotal = 64 << 20
)

// SubscriptionOverheadBytes is what one subscription counts besides its
// URI's bytes towards the budgets: its string header in the record and
// its entry in the set of the session's stream.
const SubscriptionOverheadBytes = 64

// subscriptionCost is what one subscription of uri counts.
func subscriptionCost(uri string) int64 { return int64(len(uri)) + SubscriptionOverheadBytes }

// subscriptionBytes is what the subscriptions uris count.
func subscriptionBytes(uris []string) int64 {
	var n int64
	for _, u := range uris {
		n += subscriptionCost(u)
	}
	return n
}

// subLimits are the limits one resources/subscribe is checked against.
type subLimits struct {
	count        int   // Config.MaxSubscriptions
	sessionBytes int64 // Config.MaxSubscriptionBytes
}

// SubscriptionBudgetError is a resources/subscribe refused by a byte
// budget: the session's subscriptions are unchanged. The client gets
// -32602 with its message.
type SubscriptionBudgetError struct {
	// Limit names the Config field: MaxSubscriptionBytes,
	// MaxSubscriptionBytesPerPrincipal or MaxSubscriptionBytesTotal.
	Limit string
	// Max is its value; Need the bytes the subscription would bring the
	// budget to.
	Max, Need int64
}

func (e *SubscriptionBudgetError) Error() string {
	what := map[string]string{
		"MaxSubscriptionBytes":             "the resource subscriptions of this session",
		"MaxSubscriptionBytesPerPrincipal": "the resource subscriptions of this principal or client address",
		"MaxSubscriptionBytesTotal":        "the resource subscriptions of all sessions",
	}[e.Limit]
	return fmt.Sprintf("Invalid params: %s would take %d bytes, more than the limit of %d (%s)", what, e.Need, e.Max, e.Limit)
}

// subLedger counts the subscription bytes of the HTTP sessions whose
// subscriptions this instance changed, per quota scope and in all, for
// MaxSubscriptionBytesPerPrincipal and MaxSubscriptionBytesTotal. An
// entry ends with its session: deleted, evicted, found gone, or past the
// end of its life as last seen here.
type subLedger struct {
	perScope, total int64 // the limits
	mu              sync.Mutex
	scopes          map[quotaScope]*scopeSubs
	byKey           map[string]quotaScope
	sum             int64
}

// scopeSubs is the ledger of one quota scope.
type scopeSubs struct {
	bytes    int64
	sessions map[string]*subEntry
}

// subEntry is one session's subscription bytes: those of its record as
// last stored here, those reserved by subscriptions being stored, and
// when the session ends unless touched.
type subEntry struct {
	stored, pending int64
	until           time.Time
}

func (e *subEntry) bytes() int64 { return e.stored + e.pending }

func newSubLedger(perScope, total int64) *subLedger {
	return &subLedger{perScope: perScope, total: total, scopes: map[quotaScope]*scopeSubs{}, byKey: map[string]quotaScope{}}
}

// reserve counts n more bytes for session key of scope, whose life ends
// at until, unless that takes the scope or the instance past its limit
// (a *SubscriptionBudgetError). Entries of the scope past their end are
// dropped first.
func (l *subLedger) reserve(scope quotaScope, key string, until, now time.Time, n int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	sc := l.scopes[scope]
	if sc == nil {
		sc = &scopeSubs{sessions: map[string]*subEntry{}}
		l.scopes[scope] = sc
	}
	for k, e := range sc.sessions {
		if k != key && !now.Before(e.until) {
			l.dropLocked(k)
		}
	}
	if need := sc.bytes + n; l.perScope > 0 && need > l.perScope {
		l.pruneLocked(scope)
		return &SubscriptionBudgetError{Limit: "MaxSubscriptionBytesPerPrincipal", Max: l.perScope, Need: need}
	}
	if need := l.sum + n; l.total > 0 && need > l.total {
		l.pruneLocked(scope)
		return &SubscriptionBudgetError{Limit: "MaxSubscriptionBytesTotal", Max: l.total, Need: need}
	}
	e := sc.sessions[key]
	if e == nil {
		e = &subEntry{}
		sc.sessions[key] = e
		l.byKey[key] = scope
	}
	e.pending += n
	e.until = until
	sc.bytes += n
	l.sum += n
	return nil
}

// settle ends a reservation of n bytes for session key: held is what
// its stored record now holds (negative when the change was not stored:
// the count of the record stays).
func (l *subLedger) settle(key string, n, held int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	scope, ok := l.byKey[key]
	if !ok {
		return // the session ended meanwhile, or was never counted here
	}
	sc := l.scopes[scope]
	e := sc.sessions[key]
	old := e.bytes()
	e.pending -= n
	if held >= 0 {
		e.stored = held
	}
	sc.bytes += e.bytes() - old
	l.sum += e.bytes() - old
	if e.bytes() <= 0 {
		l.dropLocked(key)
	}
}

// touch moves the end of session key's life to until.
func (l *subLedger) touch(key string, until time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if scope, ok := l.byKey[key]; ok {
		if e := l.scopes[scope].sessions[key]; until.After(e.until) {
			e.until = until
		}
	}
}

// forget drops the entry of session key: the session ended.
func (l *subLedger) forget(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropLocked(key)
}

// dropLocked removes the entry of key; l.mu is held.
func (l *subLedger) dropLocked(key string) {
	scope, ok := l.byKey[key]
	if !ok {
		return
	}
	delete(l.byKey, key)
	sc := l.scopes[scope]
	if e := sc.sessions[key]; e != nil {
		sc.bytes -= e.bytes()
		l.sum -= e.bytes()
		delete(sc.sessions, key)
	}
	l.pruneLocked(scope)
}

// pruneLocked removes the ledger of scope when it counts no session.
func (l *subLedger) pruneLocked(scope quotaScope) {
	if sc := l.scopes[scope]; sc != nil && len(sc.sessions) == 0 {
		delete(l.scopes, scope)
	}
}
