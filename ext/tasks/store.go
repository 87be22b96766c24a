package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"sync"
	"time"
)

// TaskStatus is the status of a task (tasks extension).
type TaskStatus string

// The statuses of a task. completed, failed and cancelled are terminal: a
// task never leaves them.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether the status is completed, failed or cancelled.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Errors of a TaskStore.
var (
	// ErrTaskNotFound: no task has this id for this principal (it never
	// existed, was evicted, or belongs to another principal).
	ErrTaskNotFound = errors.New("tasks: task not found")
	// ErrTaskExpired: the task existed but its retention ended.
	ErrTaskExpired = errors.New("tasks: task expired")
	// ErrTaskLimit: the principal (or, for a record with a QuotaKey, the
	// principal and quota key) already holds the most tasks allowed.
	ErrTaskLimit = errors.New("tasks: too many tasks for this principal or quota key")
)

// TaskRecord is everything the server keeps about one task. Every field
// round-trips through encoding/json, so that a store can keep records as
// JSON documents (a Redis string or hash, a SQL row).
//
// The runtime owns the meaning of the fields; a store only keeps them,
// enforces ExpiresAt and the limit per Principal and QuotaKey, and
// applies updates atomically.
type TaskRecord struct {
	// ID is the task id: at least 128 random bits, unguessable (R-TASK-18).
	ID string `json:"id"`
	// Principal created the task; only the same principal may read,
	// update or cancel it.
	Principal string `json:"principal"`
	// QuotaKey, with Principal, names the tasks that Create's limit
	// counts together: the unexpired tasks with the same Principal and
	// QuotaKey. The runtime leaves it empty for an authenticated
	// principal (the limit is per principal), and sets it to the client's
	// address for a request without a principal over HTTP (the limit is
	// per client address). It plays no part in ownership.
	QuotaKey string `json:"quotaKey,omitempty"`
	// Method and Target name what runs: "tools/call" and the tool name.
	Method string `json:"method"`
	Target string `json:"target"`

	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
	// TTLMs is the task's time to live from CreatedAt, in milliseconds,
	// as the client is told (ttlMs). It bounds the whole life of the
	// task, input rounds included.
	TTLMs int64 `json:"ttlMs"`
	// PollIntervalMs is the polling interval suggested to the client.
	PollIntervalMs int64 `json:"pollIntervalMs,omitempty"`
	// ExpiresAt is when the store may forget the record: CreatedAt +
	// TTL + the retention that lets a client read a task that failed at
	// its TTL. Stores must not return a record after it.
	ExpiresAt time.Time `json:"expiresAt"`

	// Result is the final result (a CallToolResult) of a completed task.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the JSON-RPC error object of a failed task.
	Error json.RawMessage `json:"error,omitempty"`
	// InputRequests are the outstanding input requests of a task in
	// input_required, by key, as sent to the client.
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	// InputResponses are the responses that tasks/update delivered (on
	// any instance) in the current input round, by key. The task's runner
	// reads them once no request is outstanding; they stay until the next
	// round parks the task or it ends.
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`

	// Version counts the updates; stores increment it on every Update
	// and may use it for optimistic concurrency.
	Version int64 `json:"version"`
}

// Clone returns a deep copy (raw JSON values are shared: nothing modifies
// them in place).
func (r *TaskRecord) Clone() *TaskRecord {
	c := *r
	c.InputRequests = maps.Clone(r.InputRequests)
	c.InputResponses = maps.Clone(r.InputResponses)
	return &c
}

// TaskStore keeps task records. The runtime calls it from any goroutine;
// implementations must be safe for concurrent use. With several server
// instances behind one load balancer, every instance uses a store shared
// by all (a Redis implementation, for instance) and a shared Broker:
//
//   - Create must be durable before it returns: a Get on any instance then
//     finds the record (R-TASK-07). It enforces the limit per Principal
//     and QuotaKey atomically with the insert.
//   - Update is a read-modify-write that must be atomic across instances.
//     A Redis store can WATCH the key, run fn on the decoded record and
//     write it in MULTI/EXEC, retrying on conflict (fn may run several
//     times, so it must have no side effects besides the record); or
//     compare Version in a Lua script.
//   - Records expire at ExpiresAt (a Redis store sets PEXPIREAT on the
//     key); an index per Principal and QuotaKey (a sorted set scored by
//     ExpiresAt, with expired members trimmed before counting) serves the
//     limit.
//
// Input responses cross instances through the store: tasks/update, served
// by any instance, moves the answered requests from InputRequests to
// InputResponses with Update, then publishes an EventTask on the Broker.
// The instance running the task wakes on that event (or, should the
// broker lose it, at its next periodic check, every pollIntervalMs),
// reads the record, and takes the responses with another Update.
// Cancellation travels the same way.
type TaskStore interface {
	// Create stores a new record. When max > 0 and there are already max
	// unexpired tasks with rec's Principal and QuotaKey, it stores nothing
	// and returns ErrTaskLimit.
	Create(ctx context.Context, rec *TaskRecord, max int) error
	// Get returns a copy of the task id of principal. It returns
	// ErrTaskNotFound for an unknown id and for another principal's task
	// (the two must be indistinguishable), ErrTaskNotFound or
	// ErrTaskExpired for a record past ExpiresAt.
	Get(ctx context.Context, principal, id string) (*TaskRecord, error)
	// Update applies fn to a copy of the record and stores the copy with
	// Version incremented, atomically; it returns the stored record. When
	// fn returns an error nothing is stored and Update returns that error.
	// It returns Get's errors for a missing record. ExpiresAt, ID,
	// Principal and QuotaKey are not changed by fn.
	Update(ctx context.Context, principal, id string, fn func(*TaskRecord) error) (*TaskRecord, error)
}

// MemoryTaskStore is the default TaskStore: records in memory, evicted
// once expired. It serves one instance only.
type MemoryTaskStore struct {
	now func() time.Time

	mu        sync.Mutex
	tasks     map[string]*TaskRecord
	byQuota   map[quotaScope]map[string]struct{} // the ids the limit counts together
	lastSweep time.Time
}

// quotaScope is what the limit counts tasks by: principal and quota key.
type quotaScope struct{ principal, key string }

func scopeOf(r *TaskRecord) quotaScope { return quotaScope{r.Principal, r.QuotaKey} }

// memorySweepEvery is how often Create sweeps expired records out.
const memorySweepEvery = 30 * time.Second

// NewMemoryTaskStore returns an empty in-memory store.
func NewMemoryTaskStore() *MemoryTaskStore {
	return &MemoryTaskStore{
		now:     time.Now,
		tasks:   map[string]*TaskRecord{},
		byQuota: map[quotaScope]map[string]struct{}{},
	}
}

// Len returns how many records the store holds, expired ones not yet
// evicted included.
func (m *MemoryTaskStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tasks)
}

// Create implements TaskStore.
func (m *MemoryTaskStore) Create(_ context.Context, rec *TaskRecord, max int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if now.Sub(m.lastSweep) >= memorySweepEvery {
		m.sweep(now)
		m.lastSweep = now
	}
	if _, dup := m.tasks[rec.ID]; dup {
		return errors.New("tasks: duplicate task id")
	}
	scope := scopeOf(rec)
	ids := m.byQuota[scope]
	if max > 0 && len(ids) >= max {
		for id := range ids { // count only live tasks
			if t := m.tasks[id]; !now.Before(t.ExpiresAt) {
				m.remove(t)
			}
		}
		if len(m.byQuota[scope]) >= max {
			return ErrTaskLimit
		}
	}
	if ids = m.byQuota[scope]; ids == nil {
		ids = map[string]struct{}{}
		m.byQuota[scope] = ids
	}
	ids[rec.ID] = struct{}{}
	m.tasks[rec.ID] = rec.Clone()
	return nil
}

// Get implements TaskStore.
func (m *MemoryTaskStore) Get(_ context.Context, principal, id string) (*TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookup(principal, id)
	if err != nil {
		return nil, err
	}
	return t.Clone(), nil
}

// Update implements TaskStore.
func (m *MemoryTaskStore) Update(_ context.Context, principal, id string, fn func(*TaskRecord) error) (*TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookup(principal, id)
	if err != nil {
		return nil, err
	}
	c := t.Clone()
	if err := fn(c); err != nil {
		return nil, err
	}
	c.ID, c.Principal, c.QuotaKey, c.ExpiresAt = t.ID, t.Principal, t.QuotaKey, t.ExpiresAt
	c.Version = t.Version + 1
	m.tasks[id] = c
	return c.Clone(), nil
}

func (m *MemoryTaskStore) lookup(principal, id string) (*TaskRecord, error) {
	t, ok := m.tasks[id]
	if !ok || t.Principal != principal {
		return nil, ErrTaskNotFound
	}
	if !m.now().Before(t.ExpiresAt) {
		m.remove(t)
		return nil, ErrTaskExpired
	}
	return t, nil
}

func (m *MemoryTaskStore) sweep(now time.Time) {
	for _, t := range m.tasks {
		if !now.Before(t.ExpiresAt) {
			m.remove(t)
		}
	}
}

func (m *MemoryTaskStore) remove(t *TaskRecord) {
	delete(m.tasks, t.ID)
	if ids := m.byQuota[scopeOf(t)]; ids != nil {
		delete(ids, t.ID)
		if len(ids) == 0 {
			delete(m.byQuota, scopeOf(t))
		}
	}
}
