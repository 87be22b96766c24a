package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/redis/go-redis/v9"
)

// SessionStore is a legacy.SessionStore in Redis (docs/dual-era.md §7.4),
// shared by every instance using the same Redis and prefix: a legacy
// session opened through one instance is served, updated and deleted
// through any other. Set it as legacy.Config.Store, with a shared
// Broker.
//
// The keys, with {p} the hash tag of the principal (as TaskStore's) and
// <h> the session key:
//
//   - {prefix}sess:{p}:<h>, a hash: the record as JSON ("record"), its
//     Version ("version"), the revision that every write moves ("rev",
//     which Update and Touch compare and set), the end of its life in
//     Unix milliseconds ("until", min(IdleUntil, ExpiresAt)), its
//     principal and the name of its index. It expires at "until"
//     (PEXPIREAT), which Touch moves.
//   - {prefix}sessidx:{p}, or {prefix}sessidx:{p}:q:<quota key hash> for a
//     record with a QuotaKey: a sorted set of the session keys that
//     SessionLimits.PerPrincipal counts together, scored by IdleUntil in
//     Unix microseconds (the eviction order). It expires with its latest
//     member.
//   - {prefix}sessidx:{p}:n:<network hash>, for each network of a
//     record's QuotaNets: the same sorted set for SessionLimits.PerNet.
//     The record names these keys in "nets" (a JSON array).
//   - {prefix}sessall: a sorted set of every session, as {p}:<h>, scored
//     by "until" (SessionLimits.Total). It expires with its latest member.
//   - {prefix}sess:{p}:<h>:ans:<request id>: the payload of an answer
//     (PutAnswer), expiring after its ttl; {prefix}sess:{p}:<h>:answers:
//     a sorted set of the request ids of the session's answers, scored by
//     their deadline, which expires with the latest one. Delete and
//     eviction find the answers through it.
//
// Every key has an expiry: nothing is left behind when sessions end
// without a Delete. Create is one Lua script: the duplicate check,
// dropping the index entries of ended sessions, the per-principal
// eviction, the total count and the insert. Update and Touch read the
// record, change it and write it back with a compare-and-set script on
// "rev", starting again on a conflict. Delete, PutAnswer and TakeAnswer
// are one script each. The scripts name in KEYS the keys known
// beforehand and derive the others (an evicted session's, its answers')
// from them; {prefix}sessall is shared by all principals, so the scripts
// are for a single Redis (or a primary with replicas), not Redis Cluster.
// Needs Redis 4.0 or later.
//
// Session keys are the runtime's, base64url(SHA-256(id)): a key made of
// other characters than [A-Za-z0-9_-], or longer than 128 bytes, is refused
// by Create and not found by the other methods (it could otherwise name
// another key of the layout).
//
// Expiry is judged by this process's clock (Get, and the "now" each script
// is given) and by Redis's (key expiry); keep them in sync. Redis must not
// evict keys under memory pressure (maxmemory-policy noeviction): an
// evicted record is a session lost. It is safe for concurrent use.
type SessionStore struct {
	rdb *redis.Client
	cfg config
	now func() time.Time
}

var _ legacy.SessionStore = (*SessionStore)(nil)

// NewSessionStore returns a SessionStore that keeps its sessions through
// rdb, which the caller keeps and closes. WithPrefix and WithTimeout apply;
// the other options are the Broker's.
func NewSessionStore(rdb *redis.Client, opts ...Option) (*SessionStore, error) {
	c, err := storeConfig(rdb, opts)
	if err != nil {
		return nil, err
	}
	return &SessionStore{rdb: rdb, cfg: c, now: time.Now}, nil
}

// maxKeyBytes bounds a session key (the runtime's are 43 bytes).
const maxKeyBytes = 128

// validKey reports whether key can be a session key: 1 to 128 bytes of
// base64url. Nothing else can appear in the layout's key names.
func validKey(key string) bool {
	if key == "" || len(key) > maxKeyBytes {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// sessBase is what the record keys of principal start with.
func (s *SessionStore) sessBase(principal string) string {
	return s.cfg.prefix + "sess:" + principalTag(principal) + ":"
}

func (s *SessionStore) recordKey(principal, key string) string { return s.sessBase(principal) + key }

func (s *SessionStore) answerKey(principal, key, reqID string) string {
	return s.recordKey(principal, key) + ":ans:" + reqID
}

func (s *SessionStore) answersKey(principal, key string) string {
	return s.recordKey(principal, key) + ":answers"
}

// sessIndexKey is the sorted set that SessionLimits.PerPrincipal counts a
// session in. It shares the principal's hash tag.
func (s *SessionStore) sessIndexKey(principal, quotaKey string) string {
	k := s.cfg.prefix + "sessidx:" + principalTag(principal)
	if quotaKey != "" {
		k += ":q:" + shortHash(quotaKey)
	}
	return k
}

// netIndexKeys are the sorted sets that SessionLimits.PerNet counts a
// session of principal in, one per network of nets.
func (s *SessionStore) netIndexKeys(principal string, nets []string) []string {
	keys := make([]string, len(nets))
	for i, n := range nets {
		keys[i] = s.cfg.prefix + "sessidx:" + principalTag(principal) + ":n:" + shortHash(n)
	}
	return keys
}

// allKey is the sorted set of every session of the store.
func (s *SessionStore) allKey() string { return s.cfg.prefix + "sessall" }

// member names a session in allKey: the principal's tag and the key.
func member(principal, key string) string { return principalTag(principal) + ":" + key }

// ceilMs is t in Unix milliseconds, rounded up. A key expires no earlier
// than its record's end; the scripts, given now rounded up too, find a
// session live only if it is (now < end), and may find one ended up to a
// millisecond early.
func ceilMs(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.After(time.UnixMilli(ms)) {
		ms++
	}
	return ms
}

// until is when a record's session ends: min(IdleUntil, ExpiresAt).
func until(r *legacy.SessionRecord) time.Time {
	if r.ExpiresAt.Before(r.IdleUntil) {
		return r.ExpiresAt
	}
	return r.IdleUntil
}

// sessLib is the Lua shared by the session scripts.
//
// extend makes a sorted set expire with its latest member, whose score is
// in Unix milliseconds times div.
//
// drop removes a session: its record, its answers, the event logs of
// docs/dual-era.md §7.4 (found through :streams), and its entries in its
// index (the record's "idx", else idx), in its networks' indexes and in
// sessall.
const sessLib = `
local function extend(k, div)
  local last = redis.call('ZRANGE', k, -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIREAT', k, math.ceil(tonumber(last[2]) / div)) end
end
local function drop(rk, idx, all, h, member)
  local f = redis.call('HMGET', rk, 'idx', 'nets')
  if f[1] then idx = f[1] end
  if f[2] then
    for _, k in ipairs(cjson.decode(f[2])) do redis.call('ZREM', k, h) end
  end
  local ai = rk .. ':answers'
  for _, r in ipairs(redis.call('ZRANGE', ai, 0, -1)) do redis.call('UNLINK', rk .. ':ans:' .. r) end
  local sk = rk .. ':streams'
  for _, st in ipairs(redis.call('ZRANGE', sk, 0, -1)) do redis.call('UNLINK', rk .. ':ev:' .. st, rk .. ':st:' .. st) end
  redis.call('UNLINK', rk, ai, sk)
  if idx then redis.call('ZREM', idx, h) end
  redis.call('ZREM', all, member)
end
`

// sessCreateScript inserts a session (see SessionStore.Create) and
// returns {'ok', the evicted keys...}, {'dup'} or {'limit'}.
// KEYS: record, index, sessall, the networks' indexes. ARGV: record JSON,
// version, until ms, IdleUntil µs, now ms, per-principal limit, total
// limit, key, principal tag, record key base of the principal, principal,
// then the networks' limits.
var sessCreateScript = redis.NewScript(sessLib + `
if redis.call('EXISTS', KEYS[1]) == 1 then return {'dup'} end
local now = tonumber(ARGV[5])
local evicted, chosen = {}, {}
-- pick chooses the session of index idx to evict when idx holds limit
-- live sessions besides those chosen already: the first live one by
-- IdleUntil. The indexes are scored by IdleUntil (in microseconds):
-- members at or before now have ended; ExpiresAt may end one earlier.
local function pick(idx, limit)
  redis.call('ZREMRANGEBYSCORE', idx, '-inf', now * 1000)
  if limit <= 0 or redis.call('ZCARD', idx) < limit then return end
  local n, cand = 0, nil
  for _, m in ipairs(redis.call('ZRANGE', idx, 0, -1)) do
    if not chosen[m] then
      local u = redis.call('HGET', ARGV[10] .. m, 'until')
      if u and tonumber(u) > now then
        n = n + 1
        if not cand then cand = m end
      else
        drop(ARGV[10] .. m, idx, KEYS[3], m, ARGV[9] .. ':' .. m)
      end
    end
  end
  if cand and n >= limit then
    chosen[cand] = true
    evicted[#evicted + 1] = cand
  end
end
pick(KEYS[2], tonumber(ARGV[6]))
for i = 4, #KEYS do pick(KEYS[i], tonumber(ARGV[8 + i])) end
-- sessall is scored by each session's end.
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local total = tonumber(ARGV[7])
if total > 0 and redis.call('ZCARD', KEYS[3]) - #evicted >= total then return {'limit'} end
for _, e in ipairs(evicted) do drop(ARGV[10] .. e, KEYS[2], KEYS[3], e, ARGV[9] .. ':' .. e) end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'version', ARGV[2], 'rev', '0', 'until', ARGV[3],
  'principal', ARGV[11], 'idx', KEYS[2])
if #KEYS > 3 then
  local nets = {}
  for i = 4, #KEYS do
    nets[#nets + 1] = KEYS[i]
    redis.call('ZADD', KEYS[i], ARGV[4], ARGV[8])
    extend(KEYS[i], 1000)
  end
  redis.call('HSET', KEYS[1], 'nets', cjson.encode(nets))
end
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[8])
extend(KEYS[2], 1000)
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[9] .. ':' .. ARGV[8])
extend(KEYS[3], 1)
local reply = {'ok'}
for _, e in ipairs(evicted) do reply[#reply + 1] = e end
return reply
`)

// sessCASScript replaces a record if its revision is still ARGV[1], and
// moves its expiry and index scores with it: 1 done, -1 changed
// meanwhile, 0 gone.
// KEYS: record, index, sessall, the networks' indexes. ARGV: expected revision, record JSON,
// version, until ms, IdleUntil µs, key, sessall member.
var sessCASScript = redis.NewScript(sessLib + `
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return 0 end
if rev ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'version', ARGV[3], 'until', ARGV[4])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6])
extend(KEYS[2], 1000)
for i = 4, #KEYS do
  redis.call('ZADD', KEYS[i], ARGV[5], ARGV[6])
  extend(KEYS[i], 1000)
end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[7])
extend(KEYS[3], 1)
return 1
`)

// sessDeleteScript removes a session of principal ARGV[1]: 1 done, 0 not
// found (an ended session's keys are removed all the same).
// KEYS: record, sessall. ARGV: principal, now ms, key, sessall member.
var sessDeleteScript = redis.NewScript(sessLib + `
local f = redis.call('HMGET', KEYS[1], 'principal', 'until', 'idx')
if not f[1] or f[1] ~= ARGV[1] then return 0 end
drop(KEYS[1], f[3], KEYS[2], ARGV[3], ARGV[4])
if not f[2] or tonumber(f[2]) <= tonumber(ARGV[2]) then return 0 end
return 1
`)

// sessPutAnswerScript keeps an answer of a live session unless one is
// kept already: 'ok', 'exists' or 'nf'.
// KEYS: record, answer, answers. ARGV: principal, now ms, payload, ttl ms
// (0: keep nothing), request id.
var sessPutAnswerScript = redis.NewScript(sessLib + `
local now = tonumber(ARGV[2])
local f = redis.call('HMGET', KEYS[1], 'principal', 'until')
if not f[1] or f[1] ~= ARGV[1] or not f[2] or tonumber(f[2]) <= now then return 'nf' end
if redis.call('EXISTS', KEYS[2]) == 1 then return 'exists' end
local ttl = tonumber(ARGV[4])
if ttl <= 0 then return 'ok' end
-- The answer and its entry end together, by this process's clock as
-- the record does.
redis.call('SET', KEYS[2], ARGV[3])
redis.call('PEXPIREAT', KEYS[2], now + ttl)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
redis.call('ZADD', KEYS[3], now + ttl, ARGV[5])
extend(KEYS[3], 1)
return 'ok'
`)

// sessTakeAnswerScript returns and removes an answer (nil when there is
// none, or when its session has ended: its answers went with it).
// KEYS: record, answer, answers. ARGV: principal, now ms, request id.
var sessTakeAnswerScript = redis.NewScript(`
local v = redis.call('GET', KEYS[2])
if not v then return false end
local f = redis.call('HMGET', KEYS[1], 'principal', 'until')
if f[1] and f[1] ~= ARGV[1] then return false end
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[3])
if not f[1] or not f[2] or tonumber(f[2]) <= tonumber(ARGV[2]) then return false end
return v
`)

// sessionError wraps a Redis or decoding error; the store's sentinel
// errors are returned as they are.
func sessionError(op string, err error) error {
	if errors.Is(err, legacy.ErrSessionNotFound) {
		return err
	}
	return fmt.Errorf("redisstore: %s a session: %w", op, err)
}

// Create implements legacy.SessionStore: atomically, the principal's
// least recently used session (earliest IdleUntil) is evicted if rec's
// Principal and QuotaKey hold lim.PerPrincipal live sessions, and so is,
// for each network of rec's QuotaNets holding lim.PerNet live sessions
// besides those evicted already, the least recently used of them; rec is
// stored unless the store then holds lim.Total live sessions
// (legacy.ErrSessionLimit; nothing is evicted then). Limits of zero or
// less are no limits. lim.TotalInitBytes is not counted: the records are
// Redis's memory, bounded by its maxmemory. The record is in Redis when
// it returns.
func (s *SessionStore) Create(ctx context.Context, rec *legacy.SessionRecord, lim legacy.SessionLimits) ([]string, error) {
	switch {
	case rec == nil:
		return nil, errors.New("redisstore: creating a session: nil record")
	case !validKey(rec.Key):
		return nil, fmt.Errorf("redisstore: creating a session: key %q is not 1 to %d base64url characters", rec.Key, maxKeyBytes)
	case rec.IdleUntil.IsZero() || rec.ExpiresAt.IsZero():
		return nil, errors.New("redisstore: creating a session: record without IdleUntil or ExpiresAt")
	}
	enc, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("redisstore: creating a session: encoding: %w", err)
	}
	keys := append([]string{s.recordKey(rec.Principal, rec.Key), s.sessIndexKey(rec.Principal, rec.QuotaKey), s.allKey()},
		s.netIndexKeys(rec.Principal, rec.QuotaNets)...)
	args := []any{enc, strconv.FormatInt(rec.Version, 10), ceilMs(until(rec)), rec.IdleUntil.UnixMicro(), ceilMs(s.now()),
		lim.PerPrincipal, lim.Total, rec.Key, principalTag(rec.Principal), s.sessBase(rec.Principal), rec.Principal}
	for i := range rec.QuotaNets {
		n := 0
		if i < len(lim.PerNet) {
			n = lim.PerNet[i]
		}
		args = append(args, n)
	}
	res, err := within(ctx, s.cfg.timeout, func(ctx context.Context) ([]any, error) {
		return sessCreateScript.Run(ctx, s.rdb, keys, args...).Slice()
	})
	if err != nil {
		return nil, fmt.Errorf("redisstore: creating a session: %w", err)
	}
	status, _ := res[0].(string)
	switch status {
	case "ok":
		var evicted []string
		for _, v := range res[1:] {
			if ev, _ := v.(string); ev != "" {
				evicted = append(evicted, ev)
			}
		}
		return evicted, nil
	case "limit":
		return nil, legacy.ErrSessionLimit
	case "dup":
		return nil, errors.New("redisstore: creating a session: duplicate session key")
	default:
		return nil, fmt.Errorf("redisstore: creating a session: unexpected reply %v", res)
	}
}

// Get implements legacy.SessionStore: a copy of the live record, or
// legacy.ErrSessionNotFound. Any other error is Redis's (or a record it
// holds that does not decode): the session may well be live.
func (s *SessionStore) Get(ctx context.Context, principal, key string) (*legacy.SessionRecord, error) {
	g, err := within(ctx, s.cfg.timeout, func(ctx context.Context) (got, error) { return s.get(ctx, principal, key) })
	if err != nil {
		return nil, sessionError("reading", err)
	}
	return g.rec, nil
}

// got is a record as read, with its revision.
type got struct {
	rec *legacy.SessionRecord
	rev string
}

// get reads the live record of principal and its revision.
func (s *SessionStore) get(ctx context.Context, principal, key string) (got, error) {
	if !validKey(key) {
		return got{}, legacy.ErrSessionNotFound
	}
	vals, err := s.rdb.HMGet(ctx, s.recordKey(principal, key), "record", "rev").Result()
	if err != nil {
		return got{}, err
	}
	enc, ok := vals[0].(string)
	if !ok {
		return got{}, legacy.ErrSessionNotFound
	}
	rev, _ := vals[1].(string)
	rec := &legacy.SessionRecord{}
	if err := json.Unmarshal([]byte(enc), rec); err != nil {
		return got{}, fmt.Errorf("decoding the record: %w", err)
	}
	if rec.Key != key || rec.Principal != principal {
		return got{}, legacy.ErrSessionNotFound
	}
	if now := s.now(); !now.Before(rec.IdleUntil) || !now.Before(rec.ExpiresAt) {
		return got{}, legacy.ErrSessionNotFound
	}
	return got{rec, rev}, nil
}

// Touch implements legacy.SessionStore: IdleUntil moves forward to
// idleUntil, never past ExpiresAt and never back, and the record's expiry
// and its place in the eviction order move with it. Version stays.
func (s *SessionStore) Touch(ctx context.Context, principal, key string, idleUntil time.Time) error {
	_, err := s.write(ctx, principal, key, "touching", func(cur *legacy.SessionRecord) (*legacy.SessionRecord, error) {
		t := idleUntil
		if t.After(cur.ExpiresAt) {
			t = cur.ExpiresAt
		}
		if !t.After(cur.IdleUntil) {
			return nil, nil
		}
		next := cur.Clone()
		next.IdleUntil = t
		return next, nil
	})
	return err
}

// Update implements legacy.SessionStore. fn runs on the caller's
// goroutine, more than once when other instances write the same session
// at the same time (or touch it). An IdleUntil that fn changes moves the
// record's expiry and its place in the eviction order. An Update that
// fails by timeout may or may not have been stored.
func (s *SessionStore) Update(ctx context.Context, principal, key string, fn func(*legacy.SessionRecord) error) (*legacy.SessionRecord, error) {
	return s.write(ctx, principal, key, "updating", func(cur *legacy.SessionRecord) (*legacy.SessionRecord, error) {
		next := cur.Clone()
		if err := fn(next); err != nil {
			return nil, &fnError{err}
		}
		next.Key, next.Principal, next.QuotaKey, next.QuotaNets, next.CreatedAt, next.ExpiresAt = cur.Key, cur.Principal, cur.QuotaKey, cur.QuotaNets, cur.CreatedAt, cur.ExpiresAt
		next.Version = cur.Version + 1
		return next, nil
	})
}

// fnError carries the error of Update's fn through write, to be returned
// as it is.
type fnError struct{ err error }

func (e *fnError) Error() string { return e.err.Error() }

// maxSessionWriteAttempts bounds the compare-and-set rounds of one Update
// or Touch.
const maxSessionWriteAttempts = 100

// write is Update's and Touch's loop: read the record, compute the next
// one (nil: nothing to write), and store it with a compare-and-set on the
// revision; on a conflict back off a little and start again.
func (s *SessionStore) write(ctx context.Context, principal, key, op string, change func(*legacy.SessionRecord) (*legacy.SessionRecord, error)) (*legacy.SessionRecord, error) {
	ctx, cancel := deadline(ctx, s.cfg.timeout)
	defer cancel()
	for attempt := range maxSessionWriteAttempts {
		g, err := bounded(ctx, func(ctx context.Context) (got, error) { return s.get(ctx, principal, key) })
		if err != nil {
			return nil, sessionError(op, err)
		}
		cur, rev := g.rec, g.rev
		next, err := change(cur)
		if fe, ok := err.(*fnError); ok {
			return nil, fe.err
		}
		if next == nil {
			return cur, nil
		}
		enc, err := json.Marshal(next)
		if err != nil {
			return nil, fmt.Errorf("redisstore: %s a session: encoding: %w", op, err)
		}
		end := ceilMs(until(next))
		n, err := bounded(ctx, func(ctx context.Context) (int, error) {
			return sessCASScript.Run(ctx, s.rdb,
				append([]string{s.recordKey(principal, key), s.sessIndexKey(principal, cur.QuotaKey), s.allKey()}, s.netIndexKeys(principal, cur.QuotaNets)...),
				rev, enc, strconv.FormatInt(next.Version, 10), end, next.IdleUntil.UnixMicro(), key, member(principal, key)).Int()
		})
		switch {
		case err != nil:
			return nil, fmt.Errorf("redisstore: %s a session: %w", op, err)
		case n == 1:
			return next, nil
		case n == 0:
			return nil, legacy.ErrSessionNotFound // ended meanwhile
		}
		// Another instance wrote it first: back off a little, then start
		// again from the new record.
		if err := backOff(ctx, attempt); err != nil {
			return nil, fmt.Errorf("redisstore: %s a session: %w", op, err)
		}
	}
	return nil, fmt.Errorf("redisstore: %s a session: still conflicting after %d attempts", op, maxSessionWriteAttempts)
}

// Delete implements legacy.SessionStore: the record, its answers and its
// index entries go at once.
func (s *SessionStore) Delete(ctx context.Context, principal, key string) error {
	if !validKey(key) {
		return legacy.ErrSessionNotFound
	}
	n, err := within(ctx, s.cfg.timeout, func(ctx context.Context) (int, error) {
		return sessDeleteScript.Run(ctx, s.rdb, []string{s.recordKey(principal, key), s.allKey()},
			principal, ceilMs(s.now()), key, member(principal, key)).Int()
	})
	switch {
	case err != nil:
		return sessionError("deleting", err)
	case n == 0:
		return legacy.ErrSessionNotFound
	}
	return nil
}

// PutAnswer implements legacy.SessionStore: the payload is kept for ttl
// (rounded up to the millisecond) unless an answer to reqID is kept
// already (legacy.ErrAnswerExists); the session must be live
// (legacy.ErrSessionNotFound). A ttl of zero or less keeps nothing.
func (s *SessionStore) PutAnswer(ctx context.Context, principal, key, reqID string, payload []byte, ttl time.Duration) error {
	if !validKey(key) {
		return legacy.ErrSessionNotFound
	}
	ttlMs := int64(0)
	if ttl > 0 {
		ttlMs = int64((ttl + time.Millisecond - 1) / time.Millisecond)
	}
	res, err := within(ctx, s.cfg.timeout, func(ctx context.Context) (string, error) {
		return sessPutAnswerScript.Run(ctx, s.rdb,
			[]string{s.recordKey(principal, key), s.answerKey(principal, key, reqID), s.answersKey(principal, key)},
			principal, ceilMs(s.now()), payload, ttlMs, reqID).Text()
	})
	switch {
	case err != nil:
		return fmt.Errorf("redisstore: keeping an answer: %w", err)
	case res == "ok":
		return nil
	case res == "exists":
		return legacy.ErrAnswerExists
	case res == "nf":
		return legacy.ErrSessionNotFound
	default:
		return fmt.Errorf("redisstore: keeping an answer: unexpected reply %q", res)
	}
}

// TakeAnswer implements legacy.SessionStore: the answer is returned and
// removed in one step, so that exactly one caller gets it
// (legacy.ErrNoAnswer for the others, and when none is kept or its
// session has ended).
func (s *SessionStore) TakeAnswer(ctx context.Context, principal, key, reqID string) ([]byte, error) {
	if !validKey(key) {
		return nil, legacy.ErrNoAnswer
	}
	b, err := within(ctx, s.cfg.timeout, func(ctx context.Context) (string, error) {
		return sessTakeAnswerScript.Run(ctx, s.rdb,
			[]string{s.recordKey(principal, key), s.answerKey(principal, key, reqID), s.answersKey(principal, key)},
			principal, ceilMs(s.now()), reqID).Text()
	})
	switch {
	case errors.Is(err, redis.Nil):
		return nil, legacy.ErrNoAnswer
	case err != nil:
		return nil, fmt.Errorf("redisstore: taking an answer: %w", err)
	}
	return []byte(b), nil
}
