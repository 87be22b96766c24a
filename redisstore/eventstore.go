package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/redis/go-redis/v9"
)

// EventStore is a legacy.EventStore in Redis (docs/dual-era.md §7.4),
// shared by every instance using the same Redis and prefix: a client that
// lost a legacy stream served by one instance resumes it through any
// other with Last-Event-ID. Set it as legacy.Config.EventStore, with
// the SessionStore and a shared Broker.
//
// The keys, with {p} the hash tag of the principal and <h> the session
// key (the session store's layout):
//
//   - {prefix}sess:{p}:<h>:st:<stream>, a hash: the StreamMeta (requestId,
//     owner, lease, done, oldest, last), the stream's limits, the bytes
//     of its events, its last write and the end of its life ("until",
//     Unix milliseconds);
//   - {prefix}sess:{p}:<h>:ev:<stream>, a sorted set of the events scored
//     by seq, each member "<seq>:<data>";
//   - {prefix}sess:{p}:<h>:streams, a sorted set of the session's stream
//     ids scored by their last write (MaxStreams, DeleteSession).
//
// Each method is one Lua script, so a Read sees the meta and the events of
// one moment. Every key expires (PEXPIREAT "until", moved by each write
// and by Renew and Finish); as with SessionStore, expiry is judged by this
// process's clock first, and the scripts derive a session's other stream
// keys from its base name: a single Redis (or a primary with replicas),
// not Redis Cluster. Needs Redis 4.0 or later. It is safe for concurrent
// use.
type EventStore struct {
	rdb *redis.Client
	cfg config
	now func() time.Time
}

var _ legacy.EventStore = (*EventStore)(nil)

// NewEventStore returns an EventStore that keeps its logs through rdb,
// which the caller keeps and closes. WithPrefix and WithTimeout apply.
func NewEventStore(rdb *redis.Client, opts ...Option) (*EventStore, error) {
	c, err := storeConfig(rdb, opts)
	if err != nil {
		return nil, err
	}
	return &EventStore{rdb: rdb, cfg: c, now: time.Now}, nil
}

// base is what the keys of a session's streams start with.
func (s *EventStore) base(principal, session string) string {
	return s.cfg.prefix + "sess:" + principalTag(principal) + ":" + session
}

func (s *EventStore) keys(principal, session, stream string) []string {
	b := s.base(principal, session)
	return []string{b + ":st:" + stream, b + ":ev:" + stream, b + ":streams"}
}

// forever stands for "no retention limit": 100 years in milliseconds.
const forever = int64(100 * 365 * 24 * time.Hour / time.Millisecond)

func ms(t time.Time) int64 { return t.UnixMilli() }

func durMs(d time.Duration) int64 { return int64(d / time.Millisecond) }

// evLib holds the helpers every script shares: extending a key's expiry,
// and deleting a stream of the session.
const evLib = `
local function keepUntil(k, u, now)
  local t = redis.call('PTTL', k)
  if t < 0 or now + t < u then redis.call('PEXPIREAT', k, u) end
end
local function dropStream(base, streams, id)
  redis.call('DEL', base .. ':st:' .. id, base .. ':ev:' .. id)
  redis.call('ZREM', streams, id)
end
`

// KEYS: meta, events, streams. ARGV: stream, requestId, owner, lease ms,
// now ms, maxEvents, maxBytes, maxStreams, retention ms, base, forever ms,
// scopes (space separated).
var evOpenScript = redis.NewScript(evLib + `
local now = tonumber(ARGV[5])
local ret = tonumber(ARGV[9])
local u = now + ret
if ret <= 0 then u = now + tonumber(ARGV[11]) end
local cur = redis.call('HGET', KEYS[1], 'until')
if cur and tonumber(cur) > now then
  redis.call('HSET', KEYS[1], 'requestId', ARGV[2], 'owner', ARGV[3], 'lease', ARGV[4], 'done', '0',
    'maxEvents', ARGV[6], 'maxBytes', ARGV[7], 'retention', ARGV[9], 'scopes', ARGV[12])
  if u > tonumber(cur) then
    redis.call('HSET', KEYS[1], 'until', u)
    redis.call('PEXPIREAT', KEYS[1], u)
    if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIREAT', KEYS[2], u) end
  end
  keepUntil(KEYS[3], u, now)
  return 'ok'
end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
local maxS = tonumber(ARGV[8])
if maxS > 0 then
  local n = 0
  for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    local su = redis.call('HGET', ARGV[10] .. ':st:' .. id, 'until')
    if not su or tonumber(su) <= now then dropStream(ARGV[10], KEYS[3], id) else n = n + 1 end
  end
  while n >= maxS do
    local oldest = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
    dropStream(ARGV[10], KEYS[3], oldest)
    n = n - 1
  end
end
redis.call('HSET', KEYS[1], 'requestId', ARGV[2], 'owner', ARGV[3], 'lease', ARGV[4], 'done', '0',
  'oldest', '1', 'last', '0', 'bytes', '0', 'maxEvents', ARGV[6], 'maxBytes', ARGV[7], 'retention', ARGV[9],
  'until', u, 'written', now, 'scopes', ARGV[12])
redis.call('PEXPIREAT', KEYS[1], u)
redis.call('ZADD', KEYS[3], now, ARGV[1])
keepUntil(KEYS[3], u, now)
return 'ok'
`)

// KEYS: meta, events, streams. ARGV: seq, data, now ms, stream.
var evAppendScript = redis.NewScript(evLib + `
local now = tonumber(ARGV[3])
local f = redis.call('HMGET', KEYS[1], 'until', 'last', 'maxEvents', 'maxBytes', 'retention', 'bytes')
if not f[1] or tonumber(f[1]) <= now then return 'nf' end
local seq = tonumber(ARGV[1])
if seq <= tonumber(f[2]) then return 'order' end
redis.call('ZADD', KEYS[2], seq, ARGV[1] .. ':' .. ARGV[2])
local bytes = tonumber(f[6]) + #ARGV[2]
local maxE, maxB = tonumber(f[3]), tonumber(f[4])
local count = redis.call('ZCARD', KEYS[2])
while count > 0 and ((maxE > 0 and count > maxE) or (maxB > 0 and bytes > maxB)) do
  local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  local colon = string.find(first, ':', 1, true)
  bytes = bytes - (#first - colon)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, 0)
  count = count - 1
end
local oldest = seq + 1
if count > 0 then oldest = tonumber(redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2]) end
local u = tonumber(f[1])
local ret = tonumber(f[5])
if ret > 0 and now + ret > u then u = now + ret end
redis.call('HSET', KEYS[1], 'last', ARGV[1], 'oldest', oldest, 'bytes', bytes, 'until', u, 'written', now)
redis.call('PEXPIREAT', KEYS[1], u)
redis.call('PEXPIREAT', KEYS[2], u)
redis.call('ZADD', KEYS[3], now, ARGV[4])
keepUntil(KEYS[3], u, now)
return 'ok'
`)

// KEYS: meta, events. ARGV: now ms, after, max.
var evReadScript = redis.NewScript(`
local now = tonumber(ARGV[1])
local f = redis.call('HMGET', KEYS[1], 'until', 'requestId', 'owner', 'lease', 'done', 'oldest', 'last', 'scopes')
if not f[1] or tonumber(f[1]) <= now then return {'nf'} end
local out = {'ok', f[2], f[3], f[4], f[5], f[6], f[7], f[8] or ''}
if tonumber(ARGV[2]) + 1 < tonumber(f[6]) then
  out[1] = 'trunc'
  return out
end
local evs
if tonumber(ARGV[3]) > 0 then
  evs = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[2], '+inf', 'LIMIT', 0, tonumber(ARGV[3]))
else
  evs = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[2], '+inf')
end
for _, e in ipairs(evs) do table.insert(out, e) end
return out
`)

// KEYS: meta, events, streams. ARGV: now ms, lease ms.
var evRenewScript = redis.NewScript(evLib + `
local now = tonumber(ARGV[1])
local f = redis.call('HMGET', KEYS[1], 'until', 'retention')
if not f[1] or tonumber(f[1]) <= now then return 'nf' end
local u = tonumber(f[1])
local lease = tonumber(ARGV[2])
if lease > u then u = lease end
if tonumber(f[2]) > 0 and now + tonumber(f[2]) > u then u = now + tonumber(f[2]) end
redis.call('HSET', KEYS[1], 'lease', ARGV[2], 'until', u)
redis.call('PEXPIREAT', KEYS[1], u)
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIREAT', KEYS[2], u) end
keepUntil(KEYS[3], u, now)
return 'ok'
`)

// KEYS: meta, events, streams. ARGV: now ms, keepUntil ms.
var evFinishScript = redis.NewScript(evLib + `
local now = tonumber(ARGV[1])
local cur = redis.call('HGET', KEYS[1], 'until')
if not cur or tonumber(cur) <= now then return 'nf' end
local u = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'done', '1', 'until', u)
redis.call('PEXPIREAT', KEYS[1], u)
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIREAT', KEYS[2], u) end
keepUntil(KEYS[3], u, now)
return 'ok'
`)

// KEYS: streams. ARGV: base.
var evDeleteScript = redis.NewScript(evLib + `
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do dropStream(ARGV[1], KEYS[1], id) end
redis.call('DEL', KEYS[1])
return 'ok'
`)

// validStream reports whether id can name a stream in the layout: 1 to 64
// base64url characters (the runtime's are 12).
func validStream(id string) bool { return len(id) <= 64 && validKey(id) }

func eventError(op string, err error) error {
	if errors.Is(err, legacy.ErrStreamNotFound) || errors.Is(err, legacy.ErrEventsTruncated) || errors.Is(err, legacy.ErrSeqOrder) {
		return err
	}
	return fmt.Errorf("redisstore: %s an event stream: %w", op, err)
}

// status maps a script's reply.
func status(reply string) error {
	switch reply {
	case "ok":
		return nil
	case "nf":
		return legacy.ErrStreamNotFound
	case "order":
		return legacy.ErrSeqOrder
	}
	return fmt.Errorf("unexpected reply %q", reply)
}

func (s *EventStore) run(ctx context.Context, op string, sc *redis.Script, keys []string, args ...any) error {
	reply, err := within(ctx, s.cfg.timeout, func(ctx context.Context) (string, error) {
		return sc.Run(ctx, s.rdb, keys, args...).Text()
	})
	if err == nil {
		err = status(reply)
	}
	if err != nil {
		return eventError(op, err)
	}
	return nil
}

// Open implements legacy.EventStore.
func (s *EventStore) Open(ctx context.Context, principal, session, stream string, m legacy.StreamMeta, lim legacy.ReplayLimits) error {
	if !validKey(session) || !validStream(stream) {
		return eventError("opening", fmt.Errorf("session %q or stream %q is not base64url", session, stream))
	}
	return s.run(ctx, "opening", evOpenScript, s.keys(principal, session, stream),
		stream, string(m.RequestID), m.Owner, ms(m.LeaseUntil), ms(s.now()),
		lim.MaxEvents, lim.MaxBytes, lim.MaxStreams, durMs(lim.Retention), s.base(principal, session), forever, strings.Join(m.Scopes, " "))
}

// Append implements legacy.EventStore.
func (s *EventStore) Append(ctx context.Context, principal, session, stream string, ev legacy.StoredEvent) error {
	if !validKey(session) || !validStream(stream) {
		return legacy.ErrStreamNotFound
	}
	return s.run(ctx, "appending to", evAppendScript, s.keys(principal, session, stream),
		strconv.FormatInt(ev.Seq, 10), ev.Data, ms(s.now()), stream)
}

// Read implements legacy.EventStore.
func (s *EventStore) Read(ctx context.Context, principal, session, stream string, after int64, max int) ([]legacy.StoredEvent, legacy.StreamMeta, error) {
	if !validKey(session) || !validStream(stream) {
		return nil, legacy.StreamMeta{}, legacy.ErrStreamNotFound
	}
	res, err := within(ctx, s.cfg.timeout, func(ctx context.Context) ([]any, error) {
		return evReadScript.Run(ctx, s.rdb, s.keys(principal, session, stream)[:2], ms(s.now()), after, max).Slice()
	})
	if err != nil {
		return nil, legacy.StreamMeta{}, eventError("reading", err)
	}
	str := func(i int) string { v, _ := res[i].(string); return v }
	num := func(i int) int64 { n, _ := strconv.ParseInt(str(i), 10, 64); return n }
	switch str(0) {
	case "nf":
		return nil, legacy.StreamMeta{}, legacy.ErrStreamNotFound
	case "ok", "trunc":
	default:
		return nil, legacy.StreamMeta{}, eventError("reading", fmt.Errorf("unexpected reply %v", res))
	}
	if len(res) < 8 {
		return nil, legacy.StreamMeta{}, eventError("reading", fmt.Errorf("short reply %v", res))
	}
	m := legacy.StreamMeta{Owner: str(2), LeaseUntil: time.UnixMilli(num(3)).UTC(), Done: str(4) == "1", Oldest: num(5), Last: num(6), Scopes: strings.Fields(str(7))}
	if r := str(1); r != "" {
		m.RequestID = json.RawMessage(r)
	}
	if str(0) == "trunc" {
		return nil, m, legacy.ErrEventsTruncated
	}
	evs := make([]legacy.StoredEvent, 0, len(res)-8)
	for _, v := range res[8:] {
		e, _ := v.(string)
		i := 0
		for i < len(e) && e[i] != ':' {
			i++
		}
		seq, err := strconv.ParseInt(e[:i], 10, 64)
		if err != nil || i == len(e) {
			return nil, m, eventError("reading", fmt.Errorf("a malformed event %q", e))
		}
		evs = append(evs, legacy.StoredEvent{Seq: seq, Data: []byte(e[i+1:])})
	}
	return evs, m, nil
}

// Renew implements legacy.EventStore.
func (s *EventStore) Renew(ctx context.Context, principal, session, stream string, leaseUntil time.Time) error {
	if !validKey(session) || !validStream(stream) {
		return legacy.ErrStreamNotFound
	}
	return s.run(ctx, "renewing", evRenewScript, s.keys(principal, session, stream), ms(s.now()), ms(leaseUntil))
}

// Finish implements legacy.EventStore.
func (s *EventStore) Finish(ctx context.Context, principal, session, stream string, keepUntil time.Time) error {
	if !validKey(session) || !validStream(stream) {
		return legacy.ErrStreamNotFound
	}
	return s.run(ctx, "finishing", evFinishScript, s.keys(principal, session, stream), ms(s.now()), ms(keepUntil))
}

// DeleteSession implements legacy.EventStore.
func (s *EventStore) DeleteSession(ctx context.Context, principal, session string) error {
	if !validKey(session) {
		return nil
	}
	b := s.base(principal, session)
	return s.run(ctx, "deleting", evDeleteScript, []string{b + ":streams"}, b)
}
