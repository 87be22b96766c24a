package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/ext/tasks"
)

// DefaultPrefix starts the name of every key a TaskStore or a
// SessionStore writes.
const DefaultPrefix = "mcpwire:"

// WithPrefix (TaskStore, SessionStore) sets the prefix of the keys (default
// "mcpwire:"). Every instance of one deployment must use the same prefix;
// deployments sharing a Redis use different ones.
func WithPrefix(p string) Option { return func(c *config) { c.prefix = p } }

// TaskStore is a tasks.TaskStore in Redis, shared by every instance
// using the same Redis and prefix: a task created through one instance is
// read, answered, cancelled and completed through any other.
//
// A task is a hash, {prefix}task:{<principal hash>}:<id>, holding the
// record as JSON and its version, which expires at the record's ExpiresAt
// (PEXPIREAT). The limit counts the ids in a sorted set scored by
// ExpiresAt: {prefix}tasks:{<principal hash>} for the tasks of a principal
// without a QuotaKey, {prefix}tasks:{<principal hash>}:q:<quota key hash>
// for those with one (the runtime's per-address limit of anonymous
// clients). All the keys of a principal share a hash tag. Create is one
// Lua script (limit check and insert together); Update reads the record,
// applies fn, and writes it with a Lua compare-and-set on the version,
// starting again on a conflict. Needs Redis 4.0 or later.
//
// Expiry is judged by this process's clock (Get) and by Redis's (key
// expiry); keep them in sync. It is safe for concurrent use.
type TaskStore struct {
	rdb *redis.Client
	cfg config
	now func() time.Time
}

var _ tasks.TaskStore = (*TaskStore)(nil)

// NewTaskStore returns a TaskStore that keeps its records through rdb,
// which the caller keeps and closes.
func NewTaskStore(rdb *redis.Client, opts ...Option) (*TaskStore, error) {
	c, err := storeConfig(rdb, opts)
	if err != nil {
		return nil, err
	}
	return &TaskStore{rdb: rdb, cfg: c, now: time.Now}, nil
}

// principalTag is the hash tag of a principal's keys: the principal may
// be any string, and keys stay short.
func principalTag(principal string) string {
	return "{" + shortHash(principal) + "}"
}

// shortHash is 128 bits of SHA-256 of s, in hex.
func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
}

func (s *TaskStore) taskKey(principal, id string) string {
	return s.cfg.prefix + "task:" + principalTag(principal) + ":" + id
}

// indexKey is the sorted set that the limit counts a task in: the
// principal's, or the principal's for one quota key. It shares the hash
// tag of the principal's task keys, so that Create's script touches one
// cluster slot.
func (s *TaskStore) indexKey(principal, quotaKey string) string {
	k := s.cfg.prefix + "tasks:" + principalTag(principal)
	if quotaKey != "" {
		k += ":q:" + shortHash(quotaKey)
	}
	return k
}

// createScript inserts a task unless its id exists or its index already
// holds ARGV[5] (> 0) unexpired tasks.
// KEYS: task, index. ARGV: record, version, expiresAt ms, now ms, max, id.
var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 'dup' end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
local max = tonumber(ARGV[5])
if max > 0 and redis.call('ZCARD', KEYS[2]) >= max then return 'limit' end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[6])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[2], last[2])
return 'ok'
`)

// casScript replaces a task's record if its version is still ARGV[1]:
// 1 done, -1 changed meanwhile, 0 gone.
// KEYS: task. ARGV: expected version, new version, new record.
var casScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return 0 end
if v ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3])
return 1
`)

// Create implements tasks.TaskStore: it stores rec unless there are
// already max (> 0) unexpired tasks with its Principal and QuotaKey
// (tasks.ErrTaskLimit). The record is in Redis when it returns.
func (s *TaskStore) Create(ctx context.Context, rec *tasks.TaskRecord, max int) error {
	if rec == nil || rec.ID == "" {
		return errors.New("redisstore: task record without an id")
	}
	if rec.ExpiresAt.IsZero() {
		return fmt.Errorf("redisstore: task %s: record without ExpiresAt", rec.ID)
	}
	enc, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("redisstore: creating task %s: encoding: %w", rec.ID, err)
	}
	res, err := within(ctx, s.cfg.timeout, func(ctx context.Context) (string, error) {
		return createScript.Run(ctx, s.rdb, []string{s.taskKey(rec.Principal, rec.ID), s.indexKey(rec.Principal, rec.QuotaKey)},
			enc, strconv.FormatInt(rec.Version, 10), rec.ExpiresAt.UnixMilli(), s.now().UnixMilli(), max, rec.ID).Text()
	})
	switch {
	case err != nil:
		return fmt.Errorf("redisstore: creating task %s: %w", rec.ID, err)
	case res == "ok":
		return nil
	case res == "limit":
		return tasks.ErrTaskLimit
	case res == "dup":
		return fmt.Errorf("redisstore: creating task %s: duplicate task id", rec.ID)
	default:
		return fmt.Errorf("redisstore: creating task %s: unexpected reply %q", rec.ID, res)
	}
}

// Get implements tasks.TaskStore.
func (s *TaskStore) Get(ctx context.Context, principal, id string) (*tasks.TaskRecord, error) {
	rec, err := within(ctx, s.cfg.timeout, func(ctx context.Context) (*tasks.TaskRecord, error) {
		return s.get(ctx, principal, id)
	})
	if err != nil {
		return nil, taskError("reading", id, err)
	}
	return rec, nil
}

// taskError wraps a Redis or decoding error; the store's sentinel errors
// are returned as they are.
func taskError(op, id string, err error) error {
	if errors.Is(err, tasks.ErrTaskNotFound) || errors.Is(err, tasks.ErrTaskExpired) {
		return err
	}
	return fmt.Errorf("redisstore: %s task %s: %w", op, id, err)
}

func (s *TaskStore) get(ctx context.Context, principal, id string) (*tasks.TaskRecord, error) {
	b, err := s.rdb.HGet(ctx, s.taskKey(principal, id), "record").Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, tasks.ErrTaskNotFound
	}
	if err != nil {
		return nil, err
	}
	rec := &tasks.TaskRecord{}
	if err := json.Unmarshal(b, rec); err != nil {
		return nil, fmt.Errorf("decoding the record: %w", err)
	}
	if rec.ID != id || rec.Principal != principal {
		return nil, tasks.ErrTaskNotFound
	}
	if !s.now().Before(rec.ExpiresAt) {
		return nil, tasks.ErrTaskExpired
	}
	return rec, nil
}

// maxUpdateAttempts bounds the compare-and-set rounds of one Update.
const maxUpdateAttempts = 100

// Update implements tasks.TaskStore. fn runs on the caller's goroutine,
// more than once when other instances update the same task at the same
// time. An Update that fails by timeout may or may not have been stored.
func (s *TaskStore) Update(ctx context.Context, principal, id string, fn func(*tasks.TaskRecord) error) (*tasks.TaskRecord, error) {
	ctx, cancel := deadline(ctx, s.cfg.timeout)
	defer cancel()
	key := s.taskKey(principal, id)
	for attempt := range maxUpdateAttempts {
		cur, err := bounded(ctx, func(ctx context.Context) (*tasks.TaskRecord, error) {
			return s.get(ctx, principal, id)
		})
		if err != nil {
			return nil, taskError("updating", id, err)
		}
		next := cur.Clone()
		if err := fn(next); err != nil {
			return nil, err
		}
		next.ID, next.Principal, next.QuotaKey, next.ExpiresAt = cur.ID, cur.Principal, cur.QuotaKey, cur.ExpiresAt
		next.Version = cur.Version + 1
		enc, err := json.Marshal(next)
		if err != nil {
			return nil, fmt.Errorf("redisstore: updating task %s: encoding: %w", id, err)
		}
		n, err := bounded(ctx, func(ctx context.Context) (int, error) {
			return casScript.Run(ctx, s.rdb, []string{key},
				strconv.FormatInt(cur.Version, 10), strconv.FormatInt(next.Version, 10), enc).Int()
		})
		switch {
		case err != nil:
			return nil, fmt.Errorf("redisstore: updating task %s: %w", id, err)
		case n == 1:
			return next, nil
		case n == 0:
			return nil, tasks.ErrTaskNotFound // expired meanwhile
		}
		// Another instance updated it first: back off a little, then apply
		// fn to the new record.
		if err := backOff(ctx, attempt); err != nil {
			return nil, fmt.Errorf("redisstore: updating task %s: %w", id, err)
		}
	}
	return nil, fmt.Errorf("redisstore: updating task %s: still conflicting after %d attempts", id, maxUpdateAttempts)
}

// backOff waits before the next attempt of a compare-and-set that another
// instance won: a random time under 1 ms doubling with the attempt, up to
// 16 ms. It returns ctx's cause when ctx ends first.
func backOff(ctx context.Context, attempt int) error {
	t := time.NewTimer(time.Duration(rand.Int64N(int64(time.Millisecond) << min(attempt, 4))))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// storeConfig checks rdb and applies opts over the defaults: the shared
// start of NewTaskStore, NewSessionStore and NewEventStore.
func storeConfig(rdb *redis.Client, opts []Option) (config, error) {
	c := defaults()
	for _, o := range opts {
		o(&c)
	}
	switch {
	case rdb == nil:
		return c, errors.New("redisstore: nil Redis client")
	case c.timeout <= 0:
		return c, fmt.Errorf("redisstore: timeout %v must be positive", c.timeout)
	}
	return c, nil
}
