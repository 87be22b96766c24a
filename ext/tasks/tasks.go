package tasks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/ext/tasks/taskproto"
	"github.com/mcpwire/mcpwire/internal/netquota"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// ExtensionID is the capability key of the tasks extension.
const ExtensionID = "io.modelcontextprotocol/tasks"

// Defaults of TaskConfig.
const (
	// DefaultTaskTTL bounds a task's whole life, input rounds included.
	DefaultTaskTTL = time.Hour
	// DefaultTaskPollInterval is the pollIntervalMs suggested to clients;
	// the runner of a task also re-reads its record at this interval, in
	// case the broker lost an event.
	DefaultTaskPollInterval = time.Second
	// DefaultTaskRetention is how long a task stays readable after its TTL
	// elapsed, so that a client can see that it failed.
	DefaultTaskRetention = time.Minute
	// DefaultMaxTasksPerPrincipal caps the unexpired tasks of one principal
	// (of one client address for requests without one; see
	// TaskConfig.MaxTasksPerPrincipal).
	DefaultMaxTasksPerPrincipal = 1000
	// DefaultMaxRunningTasks caps the tasks running on one instance
	// (TaskConfig.MaxRunning).
	DefaultMaxRunningTasks = 256
	// DefaultMaxRunningTasksPerPrincipal caps the tasks of one principal
	// (of one client address without one) running on one instance
	// (TaskConfig.MaxRunningPerPrincipal): a quarter of
	// DefaultMaxRunningTasks, so that one client cannot take every slot.
	DefaultMaxRunningTasksPerPrincipal = DefaultMaxRunningTasks / 4
	// DefaultMaxRunningTasksPer56 and DefaultMaxRunningTasksPer48 cap the
	// tasks of the anonymous clients of one IPv6 /56 and of one /48
	// running on one instance (TaskConfig.MaxRunningPer56,
	// MaxRunningPer48): half and three quarters of DefaultMaxRunningTasks,
	// so that no single network takes every slot through its /64s.
	DefaultMaxRunningTasksPer56 = DefaultMaxRunningTasks / 2
	DefaultMaxRunningTasksPer48 = DefaultMaxRunningTasks * 3 / 4
	// DefaultMaxTaskArgumentBytes caps what a task keeps of the request
	// that created it (TaskConfig.MaxArgumentBytes).
	DefaultMaxTaskArgumentBytes = 256 << 10
	// DefaultMaxTaskInputResponseBytes caps the input responses a task
	// holds in one input round (TaskConfig.MaxInputResponseBytes).
	DefaultMaxTaskInputResponseBytes = 1 << 20
	// DefaultMaxTaskStatusMessageBytes caps a task's statusMessage
	// (TaskConfig.MaxStatusMessageBytes).
	DefaultMaxTaskStatusMessageBytes = 4 << 10
	// DefaultMaxTaskResultBytes caps the result (or error) a task records
	// (TaskConfig.MaxResultBytes).
	DefaultMaxTaskResultBytes = 4 << 20
	// DefaultMaxListenTasks bounds the taskIds of one subscriptions/listen
	// request: as many as one principal may hold tasks by default
	// (DefaultMaxTasksPerPrincipal), so that a client can watch all of
	// its tasks on one stream (TaskConfig.MaxListenTasks).
	DefaultMaxListenTasks = DefaultMaxTasksPerPrincipal
)

// taskQuotaRetryAfter is the Retry-After of a tools/call over the task
// quota: the store does not tell when the scope's oldest task expires (up
// to its TTL plus the retention away), so the client is asked to come back
// in a minute.
const taskQuotaRetryAfter = time.Minute

// taskBusyRetryAfter is the Retry-After of a tools/call over
// TaskConfig.MaxRunning.
const taskBusyRetryAfter = 5 * time.Second

// TaskConfig configures the tasks extension (WithTasks). Zero fields take
// the defaults.
//
// # Memory
//
// A task holds memory in two places: its runner, on the instance that
// runs it, keeps what it got from the request that created it (the
// arguments, the request's _meta and inputResponses: at most
// MaxArgumentBytes) and the input responses of the current round (at most
// MaxInputResponseBytes, also in the record) until it ends, and the
// creating request's context, for the values middleware put in it (it
// keeps the finished Request reachable, which let go of its params,
// headers and exchange when it was answered: a few KiB, and its _meta,
// which the task's copy repeats; TestTaskMemory measures 6 KB a task
// beside the arguments); its record, in
// the store, keeps a statusMessage (at most MaxStatusMessageBytes), the
// outstanding input requests (the server's own, at most
// WithMaxInputRequests of them), those input responses, and at the end a
// result or error (at most MaxResultBytes) until it expires (TTL plus
// Retention). So, with the defaults:
//
//   - tasks running on one instance: at most MaxRunning (256) ×
//     (MaxArgumentBytes + MaxInputResponseBytes) = 256 × 1.25 MiB =
//     320 MiB in all, whoever creates them;
//   - records of one principal or client address: at most
//     MaxTasksPerPrincipal (1000) × (MaxResultBytes +
//     MaxStatusMessageBytes), some 4 GiB at worst (a record holds input
//     responses only until its task ends, and fewer bytes of them than
//     of a result): a server whose tools can return large results (an
//     echo of 256 KiB of arguments stays under 1 MiB) needs a lower
//     MaxResultBytes or MaxTasksPerPrincipal, since the MemoryTaskStore
//     keeps records in the process.
//
// Each is the product of a count and a size per task: lower either to fit
// the host. The caps are checked when the task is created (arguments,
// MaxRunning, the quota), when tasks/update stores responses, when the
// handler sets a status message (truncated) and when it ends (a result
// over MaxResultBytes fails the task).
type TaskConfig struct {
	// Store keeps the task records (default: NewMemoryTaskStore(), which
	// serves one instance). Instances behind one load balancer share a
	// store and a Broker (WithBroker).
	Store TaskStore
	// TTL is the default time to live of a task (DefaultTaskTTL).
	TTL time.Duration
	// PollInterval is the default polling interval suggested to clients
	// (DefaultTaskPollInterval).
	PollInterval time.Duration
	// Retention keeps a task readable for this long after its TTL
	// (DefaultTaskRetention); negative means not at all. It is also how
	// long after the TTL a runner keeps trying to record the end of its
	// task while the store is unreachable.
	Retention time.Duration
	// MaxTasksPerPrincipal caps the unexpired tasks (those within their
	// TTL plus Retention) of one principal (DefaultMaxTasksPerPrincipal);
	// negative means no cap. A request without a principal (no
	// Authenticate hook) counts against its client address over HTTP (the
	// host part of the connection's remote address, an IPv6 address by its
	// /64, as WithRateLimit keys it: see streamhttp.Options.ClientKey and
	// IPv6PrefixLen), and against the one client on stdio. A tools/call
	// over the cap gets CodeRateLimited naming it ("per principal", "per
	// client address"), with HTTP 429 and Retry-After: 60 (a slot frees
	// only when the scope's oldest task expires).
	MaxTasksPerPrincipal int
	// MaxRunning caps the tasks running on this instance, whoever created
	// them (DefaultMaxRunningTasks); negative means no cap. A task runs
	// from its creation until it reaches a terminal status, input rounds
	// included. A tools/call over the cap gets CodeRateLimited ("too many
	// running tasks"), with HTTP 429 and Retry-After, and no task is
	// created.
	MaxRunning int
	// MaxRunningPerPrincipal caps the tasks of one principal running on
	// this instance, or of one client address for requests without a
	// principal, as MaxTasksPerPrincipal counts them
	// (DefaultMaxRunningTasksPerPrincipal); negative means no cap. It
	// keeps one client from taking all MaxRunning slots for the length of
	// its tasks' TTL. stdio, whose one client has no one to share with,
	// is not subject to it. A tools/call over it gets CodeRateLimited
	// ("too many running tasks (at most N per principal)"), HTTP 429 with
	// Retry-After, and no task is created.
	MaxRunningPerPrincipal int
	// MaxRunningPer56 and MaxRunningPer48 cap, the same way, the running
	// tasks of the requests without a principal whose client addresses
	// (IPv6, each /64 its own client) share one /56, or one /48
	// (DefaultMaxRunningTasksPer56, DefaultMaxRunningTasksPer48: 128 and
	// 192); negative means no cap. A tools/call over either gets
	// CodeRateLimited ("too many running tasks (at most N per IPv6 /56)"),
	// HTTP 429 with Retry-After.
	MaxRunningPer56 int
	MaxRunningPer48 int
	// MaxArgumentBytes caps what a task keeps of the request that created
	// it: its arguments, _meta and inputResponses, as JSON
	// (DefaultMaxTaskArgumentBytes, 256 KiB); negative means no cap. A
	// tools/call over it is refused with -32602 ("too large to run as a
	// task") before the task is created; the same call without the tasks
	// extension, synchronously, is not subject to it.
	MaxArgumentBytes int
	// MaxInputResponseBytes caps the input responses that a task holds in
	// one input round, in all (DefaultMaxTaskInputResponseBytes, 1 MiB);
	// negative means no cap. A tasks/update that would take it over is
	// refused with -32602, and stores nothing.
	MaxInputResponseBytes int
	// MaxStatusMessageBytes caps a task's statusMessage
	// (DefaultMaxTaskStatusMessageBytes, 4 KiB); negative means no cap. A
	// longer message (Task.SetStatusMessage, or the message of the error
	// a task fails with) is cut at a UTF-8 boundary and ends with
	// "… (truncated)".
	MaxStatusMessageBytes int
	// MaxResultBytes caps the result a completed task records, as JSON,
	// and the error data of a failed one (DefaultMaxTaskResultBytes,
	// 4 MiB); negative means no cap. A larger result fails the task with
	// -32603 "result too large"; larger error data is left out.
	MaxResultBytes int
	// MaxListenTasks bounds the entries of a subscriptions/listen
	// request's notifications.taskIds (DefaultMaxListenTasks); a request
	// over it gets -32602. Each id costs one TaskStore look-up when the
	// stream opens (a round trip to a shared store): a server with a
	// remote store may want a lower bound.
	MaxListenTasks int
}

// WithTasks enables the tasks extension with c: capabilities.extensions
// advertises it and tasks/get, tasks/update and tasks/cancel are served.
// Registering a tool with AsTask enables it with the defaults when this
// option was not given.
func WithTasks(c TaskConfig) server.Option { return server.WithExtension(newManager(c).extension()) }

// TaskSupport says how a tool runs under the tasks extension.
type TaskSupport int

const (
	// TaskOptional tools run as a task when the request's client declares
	// the extension, and synchronously otherwise.
	TaskOptional TaskSupport = iota + 1
	// TaskRequired tools run only as a task: a request whose client does
	// not declare the extension gets -32021 naming it (R-TASK-03), before
	// the handler runs.
	TaskRequired
)

// TaskOptions makes a tool run as a task; see AsTask.
type TaskOptions struct {
	// Support is TaskOptional or TaskRequired.
	Support TaskSupport
	// Deferred leaves the creation of the task to the handler. It is
	// called synchronously first, as for any tools/call: it may answer at
	// once, or gather input with multi round-trip input_required results
	// (R-TASK-08), and creates the task by returning RunAsTask(ctx, state).
	// The handler is then called again, inside the task, with that state.
	// Without Deferred the task is created before the handler runs.
	Deferred bool
	// TTL overrides TaskConfig.TTL for this tool.
	TTL time.Duration
	// PollInterval overrides TaskConfig.PollInterval for this tool.
	PollInterval time.Duration
}

// AsTask registers a tool with task support. Under the tasks extension
// (io.modelcontextprotocol/tasks, SEP-2663) a tools/call may answer with a
// task handle (resultType "task") instead of its result; the client then
// polls tasks/get, answers the task's input requests with tasks/update and
// may cancel it with tasks/cancel.
//
// The tool's handler is an ordinary
// ToolHandler: it runs in the background, with a context that ends when
// the task is cancelled or its TTL elapses, and asks the client for input
// the way every handler does, by returning Request.AskInput. In a task
// that parks the task in input_required with the requests, which tasks/get
// shows; once tasks/update has answered all of them the handler is called
// again with the responses (Request.InputResponse) and its state
// (Request.State), as on a multi round-trip retry. The same handler thus
// serves a client that declares the extension (as a task) and, for
// TaskOptional tools, one that does not (synchronously, with input_required
// results).
//
// AsTask enables the extension (with the defaults unless WithTasks
// configured it). The TTL bounds the task's whole life: each input round
// waits only for the time left, and a handler asking for input with no
// time left fails the task at once. A handler that ignores its context
// and returns more than a second after the TTL has its outcome replaced
// by the TTL failure, which tasks/get reports for a task still running
// two seconds after its TTL. While the task store is unreachable, the
// runtime retries the task's store calls with back-off (50 ms doubling up
// to 2 s, each failure logged): the task waits, and fails at its TTL if
// the store is not back by then; that failure, or the task's result, is
// recorded once the store is back, until the record expires (TTL plus
// TaskConfig.Retention). An input request needing a client
// capability that the creating request did not declare fails the task at
// once with -32021, as AskInput would answer synchronously. The runtime
// waits for every outstanding request to be answered before it calls the
// handler again; input request keys reaching the client are unique over
// the task's life (a key the handler reuses gets a suffix on the wire, and
// Request.InputResponse still finds it under the handler's key).
// Request.Progress and Request.Log send nothing in a task (R-TASK-14).
func AsTask(o TaskOptions) server.ToolOption {
	return server.ToolExtension(ExtensionID, &o, server.ToolExtensionOptions{
		Required: o.Support == TaskRequired, // R-TASK-03
		IfAbsent: func() server.Extension { return newManager(TaskConfig{}).extension() },
	})
}

// checkTool checks the TaskOptions of a tool registered with AsTask.
func checkTool(_ string, v any) error {
	o, ok := v.(*TaskOptions)
	switch {
	case !ok:
		return errors.New("AsTask: not TaskOptions")
	case o.Support != TaskOptional && o.Support != TaskRequired:
		return errors.New("AsTask needs Support TaskOptional or TaskRequired")
	case o.TTL < 0 || o.PollInterval < 0:
		return errors.New("AsTask: negative TTL or PollInterval")
	}
	return nil
}

// Task is a running task, as its handler sees it (TaskFrom).
type Task struct {
	m         *taskManager
	id        string
	principal string
	deadline  time.Time // CreatedAt + TTL: the end of the task's context
	expires   time.Time // the record's ExpiresAt: TTL + retention
}

// ID returns the task id.
func (t *Task) ID() string { return t.id }

// SetStatusMessage sets the task's statusMessage, which tasks/get and
// task notifications show (a progress description, for instance); one
// over TaskConfig.MaxStatusMessageBytes is truncated. It does nothing
// once the task is over. While the task store is unreachable it
// tries again with back-off, until ctx ends or the task's TTL elapses,
// whichever comes first, and then returns the store's error; pass a
// context with a shorter deadline to wait less.
func (t *Task) SetStatusMessage(ctx context.Context, msg string) error {
	ctx, cancel := context.WithDeadline(ctx, t.deadline)
	defer cancel()
	msg = truncateStatus(msg, t.m.maxStatus)
	rec, err := t.m.retryStore(ctx, t, "setting the status message", func(ctx context.Context) (*TaskRecord, error) {
		return t.m.store.Update(ctx, t.principal, t.id, func(r *TaskRecord) error {
			if r.Status.Terminal() {
				return errTaskOver
			}
			r.StatusMessage, r.UpdatedAt = msg, taskNow()
			return nil
		})
	})
	switch {
	case errors.Is(err, errTaskOver):
		return nil
	case err != nil:
		return err
	}
	t.m.changed(rec)
	return nil
}

// taskKey keys a handler's taskBinding in its context.
type taskKey struct{}

// taskBinding tells a task tool's handler where it runs.
type taskBinding struct {
	task     *Task // inside a task
	canStart bool  // a Deferred handler whose client declared the extension
}

// TaskFrom returns the task a handler runs in; it reports false when the
// handler runs synchronously.
func TaskFrom(ctx context.Context) (*Task, bool) {
	b, _ := ctx.Value(taskKey{}).(*taskBinding)
	if b == nil || b.task == nil {
		return nil, false
	}
	return b.task, true
}

// CanRunAsTask reports whether RunAsTask would create a task: the handler
// is the synchronous call of a Deferred task tool and the request's client
// declared the tasks extension.
func CanRunAsTask(ctx context.Context) bool {
	b, _ := ctx.Value(taskKey{}).(*taskBinding)
	return b != nil && b.canStart
}

// RunAsTask returns the error a Deferred task tool's handler returns to
// turn the call into a task: the client gets a CreateTaskResult and the
// handler is called again inside the task, where Request.State returns
// state and Request.InputResponse the responses of the request that
// created the task. When the client did not declare the tasks extension
// it returns the -32021 *Error instead (R-TASK-03), which the handler can
// return as it is (or, for a TaskOptional tool, check CanRunAsTask first
// and do the work synchronously).
func RunAsTask(ctx context.Context, state []byte) error {
	b, _ := ctx.Value(taskKey{}).(*taskBinding)
	switch {
	case b != nil && b.task != nil:
		return server.InternalError("Internal error: RunAsTask called inside a task")
	case b != nil && b.canStart:
		return &taskEscalation{state: state}
	case b != nil:
		return missingTasks()
	}
	if r, ok := server.RequestFrom(ctx); ok && !r.Declares(ExtensionID) {
		return missingTasks()
	}
	return server.InternalError("Internal error: RunAsTask needs a tool registered with AsTask{Deferred: true}")
}

// taskEscalation is RunAsTask's answer: create the task now.
type taskEscalation struct{ state []byte }

func (*taskEscalation) Error() string { return "tasks: run as a task" }

// errTaskOver stops an update of a task that reached a terminal status.
var errTaskOver = errors.New("tasks: task is over")

// errNoChange ends an update that has nothing to store.
var errNoChange = errors.New("tasks: no change")

// missingTasks is the -32021 error naming the tasks extension.
func missingTasks() *server.Error { return server.MissingExtension(ExtensionID) }

// newManager returns the manager of the tasks of one server, configured
// by c; the server is set when the extension is added (attach).
func newManager(c TaskConfig) *taskManager {
	m := &taskManager{store: c.Store, ttl: c.TTL, poll: c.PollInterval, retention: c.Retention, limit: c.MaxTasksPerPrincipal, signals: map[string]chan struct{}{},
		maxRunning:   orDefault(c.MaxRunning, DefaultMaxRunningTasks),
		maxRunningBy: orDefault(c.MaxRunningPerPrincipal, DefaultMaxRunningTasksPerPrincipal),
		maxRunningNet: [2]int{orDefault(c.MaxRunningPer56, DefaultMaxRunningTasksPer56),
			orDefault(c.MaxRunningPer48, DefaultMaxRunningTasksPer48)},
		runningBy:    map[string]int{},
		runs:         map[string]context.CancelCauseFunc{},
		maxArgs:      orDefault(c.MaxArgumentBytes, DefaultMaxTaskArgumentBytes),
		maxResponses: orDefault(c.MaxInputResponseBytes, DefaultMaxTaskInputResponseBytes),
		maxStatus:    orDefault(c.MaxStatusMessageBytes, DefaultMaxTaskStatusMessageBytes),
		maxResult:    orDefault(c.MaxResultBytes, DefaultMaxTaskResultBytes),
		maxListen:    c.MaxListenTasks,
	}
	if m.store == nil {
		m.store = NewMemoryTaskStore()
	}
	if m.ttl <= 0 {
		m.ttl = DefaultTaskTTL
	}
	if m.poll <= 0 {
		m.poll = DefaultTaskPollInterval
	}
	switch {
	case m.retention == 0:
		m.retention = DefaultTaskRetention
	case m.retention < 0:
		m.retention = 0
	}
	if m.limit == 0 {
		m.limit = DefaultMaxTasksPerPrincipal
	}
	if m.maxListen <= 0 {
		m.maxListen = DefaultMaxListenTasks
	}
	return m
}

// extension is the server.Extension that serves m's tasks: the three
// methods, whose Mcp-Name mirrors taskId (R-TASK-16), the tools/call of
// AsTask tools, and the taskIds member of subscriptions/listen.
func (m *taskManager) extension() server.Extension {
	return server.Extension{
		ID:     ExtensionID,
		Attach: func(s *server.Server) { m.s, m.log = s, s.Logger() },
		Methods: map[string]server.ExtensionMethod{
			"tasks/get":    {NameMember: "taskId", Handle: m.get},
			"tasks/update": {NameMember: "taskId", Handle: m.update},
			"tasks/cancel": {NameMember: "taskId", Handle: m.cancel},
		},
		CheckTool: checkTool,
		CallTool:  m.callTool,
		Shutdown:  m.shutdown,
		Listen: &server.ListenFilter{
			Member:  "taskIds",
			Method:  "notifications/tasks",
			MaxKeys: m.maxListen,
			Accept:  m.ownTasks,
			Verify:  isTask,
		},
	}
}

// taskManager runs the tasks of one Server.
type taskManager struct {
	s         *server.Server
	log       *slog.Logger
	store     TaskStore
	ttl       time.Duration
	poll      time.Duration
	retention time.Duration
	limit     int
	// The caps of TaskConfig; 0: none.
	maxRunning, maxArgs, maxResponses, maxStatus, maxResult int
	maxListen                                               int    // TaskConfig.MaxListenTasks
	maxRunningBy                                            int    // TaskConfig.MaxRunningPerPrincipal
	maxRunningNet                                           [2]int // TaskConfig.MaxRunningPer56, MaxRunningPer48

	mu      sync.Mutex
	signals map[string]chan struct{} // closed when the task's record may have changed
	running int                      // tasks running here
	// runningBy counts them by principal or client address
	// (taskScope.runKey).
	runningBy map[string]int
	// runs cancels the running tasks by id, with errShutdown on Shutdown.
	runs map[string]context.CancelCauseFunc
	// closing is set by Shutdown: no task starts any more, and drained
	// closes once the last one ran.
	closing bool
	drained chan struct{}
	subStop func() // ends the broker subscription
}

// taskNow is the time stamps are taken from, to the millisecond.
func taskNow() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// callTool serves the tools/call of a tool registered with AsTask (the
// runtime already refused a TaskRequired tool to a client that did not
// declare the extension, R-TASK-03).
func (m *taskManager) callTool(ctx context.Context, r *server.Request, call *server.ToolCall) (server.Result, error) {
	o := call.Value.(*TaskOptions)
	// R-TASK-02/R-VER-04: a task only for a client that declared the
	// extension on this very request.
	declared := r.Declares(ExtensionID)
	if declared && !o.Deferred {
		return m.start(ctx, r, call, o, r.InputResponses(), r.State())
	}
	b := &taskBinding{canStart: declared}
	res, err := call.Invoke(context.WithValue(ctx, taskKey{}, b), r)
	var esc *taskEscalation
	if errors.As(err, &esc) {
		if !declared {
			return nil, missingTasks()
		}
		return m.start(ctx, r, call, o, r.InputResponses(), esc.state)
	}
	return call.Finish(r, res, err)
}

// taskOrigin is what a task keeps of the request that created it.
type taskOrigin struct {
	// req is the creating request, detached (Request.Detach): its method,
	// id, _meta, principal, token and target.
	req *server.Request
	// values is the creating request's context without its cancellation
	// and deadline: what middleware put in it (a tenant, a span) reaches
	// the handler inside the task too.
	values context.Context
}

// newTaskID returns 144 random bits, base64url (R-TASK-18).
func newTaskID() (string, error) {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// taskScope is whom a task counts against, by the quota
// (MaxTasksPerPrincipal) and by the running cap (MaxRunningPerPrincipal):
// its principal when there is one; without one (no Authenticate hook) its
// client address over HTTP, as the rate limit keys it, so that one
// anonymous client cannot use up everyone's tasks; on stdio, where there
// is a single client, that client (whom the running cap does not count).
type taskScope struct {
	quotaKey string // TaskRecord.QuotaKey: the client address without a principal
	runKey   string // what runningBy counts by; "" for none
	per      string // how an over-limit error names the scope
	// nets are the IPv6 /56 and /48 of an anonymous client, as runningBy
	// counts them too ("n:" and the network; "" for none).
	nets [2]string
}

// netNames name the networks of taskScope.nets in an over-limit error.
var netNames = [2]string{"per IPv6 /56", "per IPv6 /48"}

// taskScopeOf returns the scope of a task that r creates; client is the
// client key of the HTTP request (ToolCall.ClientKey, "" on stdio).
func taskScopeOf(r *server.Request, client string) taskScope {
	switch {
	case r.Principal != "":
		return taskScope{runKey: "p:" + r.Principal, per: "per principal"}
	case client != "":
		sc := taskScope{quotaKey: client, runKey: "a:" + client, per: "per client address"}
		for i, n := range netquota.Networks(client, 56, 48) {
			if n != "" {
				sc.nets[i] = "n:" + n
			}
		}
		return sc
	}
	return taskScope{per: "per client"}
}

// keptBytes is the size, as JSON, of what a task keeps of the request
// that creates it: the arguments, _meta and inputResponses.
func keptBytes(r *server.Request, args json.RawMessage, responses protocol.InputResponses) int {
	n := len(args)
	if b, err := protocol.Marshal(&r.Meta); err == nil {
		n += len(b)
	}
	for k, resp := range responses {
		if b, err := protocol.Marshal(&resp); err == nil {
			n += len(k) + len(b)
		}
	}
	return n
}

// start creates the task, durably (R-TASK-07), starts its runner and
// returns the CreateTaskResult. In order, it refuses a task whose request
// is over MaxArgumentBytes, one over MaxRunning and one over the quota.
func (m *taskManager) start(ctx context.Context, r *server.Request, call *server.ToolCall, o *TaskOptions, responses protocol.InputResponses, state []byte) (server.Result, error) {
	if m.maxArgs > 0 {
		if n := keptBytes(r, call.Arguments, responses) + len(state); n > m.maxArgs {
			return nil, server.InvalidParams(fmt.Sprintf("Invalid params: arguments too large to run as a task (%d bytes of arguments, _meta and inputResponses, at most %d)", n, m.maxArgs), nil)
		}
	}
	scope := taskScopeOf(r, call.ClientKey)
	if e := m.attach(scope); e != nil {
		return nil, e
	}
	attached := true
	defer func() {
		if attached {
			m.detach(scope)
		}
	}()
	ttl, poll := m.ttl, m.poll
	if o.TTL > 0 {
		ttl = o.TTL
	}
	if o.PollInterval > 0 {
		poll = o.PollInterval
	}
	id, err := newTaskID()
	if err != nil {
		m.log.Error("task id", "err", err)
		return nil, server.InternalError("Internal error")
	}
	now := taskNow()
	rec := &TaskRecord{
		ID: id, Principal: r.Principal, QuotaKey: scope.quotaKey, Method: r.Method, Target: call.Name,
		Status: TaskWorking, CreatedAt: now, UpdatedAt: now,
		TTLMs: max(ttl.Milliseconds(), 1), PollIntervalMs: max(poll.Milliseconds(), 1),
		ExpiresAt: now.Add(ttl + m.retention),
	}
	if err := m.store.Create(ctx, rec, max(m.limit, 0)); err != nil {
		if errors.Is(err, ErrTaskLimit) {
			return nil, server.RateLimited(fmt.Sprintf("Too many tasks (at most %d %s); retry later", m.limit, scope.per), taskQuotaRetryAfter)
		}
		m.log.Error("creating a task", "tool", call.Name, "err", err)
		return nil, server.InternalError("Internal error: the task could not be created")
	}
	req, _ := r.Detach(context.Background(), nil, nil)
	origin := taskOrigin{req: req, values: context.WithoutCancel(ctx)}
	attached = false // run detaches
	go m.run(rec, scope, ttl, poll, call, origin, responses, state)
	return createResult(rec), nil
}

// errShutdown is the cause of a running task's end on Shutdown.
var errShutdown = errors.New("tasks: the server shut down")

// endError is the failure of a task whose context ended before its
// handler did: the server's shutdown, or else its TTL.
func endError(ctx context.Context) *server.Error {
	if errors.Is(context.Cause(ctx), errShutdown) {
		return server.InternalError("Internal error: the server shut down before the task finished")
	}
	return errTTL()
}

// errTTL fails a task whose time to live elapsed.
func errTTL() *server.Error {
	return server.InternalError("Task expired: its ttlMs elapsed before it finished")
}

// run executes a task to a terminal status: it calls the handler, parks
// the task in input_required while the client answers, and calls it again
// with the responses. The TTL bounds the whole run: every input round
// waits only for the time left, and one that starts with none left fails
// the task at once. Every store call it makes goes through retryStore, so
// that a short store outage delays the task instead of orphaning it.
func (m *taskManager) run(rec *TaskRecord, scope taskScope, ttl, poll time.Duration, call *server.ToolCall, o taskOrigin, responses protocol.InputResponses, state []byte) {
	defer m.detach(scope)
	deadline := rec.CreatedAt.Add(ttl)
	task := &Task{m: m, id: rec.ID, principal: rec.Principal, deadline: deadline, expires: rec.ExpiresAt}
	ctx, stopDeadline := context.WithDeadline(o.values, deadline)
	ctx, cancelCause := context.WithCancelCause(ctx)
	cancel := func() { cancelCause(context.Canceled); stopDeadline() }
	m.track(task.id, cancelCause)
	defer m.untrack(task.id)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		m.watchCancel(ctx, task, poll, cancel)
	}()
	defer func() {
		cancel()
		<-watched
		m.wake(task.id) // releases the signal channel
	}()
	issued := map[string]bool{} // every input request key sent (R-TASK-10)
	for {
		r, hctx := o.req.Detach(context.WithValue(ctx, taskKey{}, &taskBinding{task: task}), responses, state)
		res, err := m.invoke(hctx, r, call)
		if ctx.Err() != nil && err != nil {
			// Cancelled (the record says so already), out of time, or the
			// server shut down.
			m.fail(task, endError(ctx))
			return
		}
		var ir *server.InputRequired
		if !errors.As(err, &ir) {
			var esc *taskEscalation
			if errors.As(err, &esc) {
				m.fail(task, server.InternalError("Internal error: RunAsTask called inside a task"))
				return
			}
			wr, err := call.Finish(r, res, err)
			if err != nil {
				m.fail(task, m.s.ExtensionFailure("task failed: "+call.Name, err))
				return
			}
			m.complete(task, wr)
			return
		}
		// Input: checked before anything is parked, so that a request the
		// client cannot answer fails the task now (R-MRTR-05, R-META-03).
		if len(ir.Requests) == 0 && ir.State == nil {
			m.fail(task, server.InternalError("Internal error: input_required without input requests or state"))
			return
		}
		if err := r.CheckInputRequests(ir.Requests); err != nil {
			var e *server.Error
			if !errors.As(err, &e) {
				e = server.InternalError("Internal error: " + err.Error())
			}
			m.fail(task, e)
			return
		}
		if !time.Now().Before(deadline) {
			m.fail(task, errTTL())
			return
		}
		if len(ir.Requests) == 0 { // state only: call again at once
			responses, state = nil, ir.State
			continue
		}
		wire, back, err := wireRequests(ir.Requests, issued)
		if err != nil {
			m.log.Error("task input request does not encode", "tool", call.Name, "err", err)
			m.fail(task, server.InternalError("Internal error"))
			return
		}
		parked, err := m.retryStore(ctx, task, "parking the task for input", func(ctx context.Context) (*TaskRecord, error) {
			return m.store.Update(ctx, task.principal, task.id, func(r *TaskRecord) error {
				if r.Status.Terminal() {
					return errTaskOver
				}
				for wk := range wire {
					_, asked := r.InputRequests[wk]
					_, answered := r.InputResponses[wk]
					if asked || answered {
						// An earlier attempt was stored though it failed
						// (its reply lost): keep what tasks/update did since.
						return nil
					}
				}
				r.Status, r.InputRequests, r.InputResponses, r.UpdatedAt = TaskInputRequired, wire, nil, taskNow()
				return nil
			})
		})
		if err != nil {
			if !lasting(err) { // the TTL elapsed, the task was cancelled, or the server shut down
				m.fail(task, endError(ctx))
			}
			return
		}
		m.changed(parked)
		got, err := m.awaitInput(ctx, task, poll)
		if err != nil {
			if !lasting(err) {
				m.fail(task, endError(ctx))
			}
			return
		}
		responses = make(protocol.InputResponses, len(got))
		for wk, raw := range got {
			var resp protocol.InputResponse
			if k, ok := back[wk]; ok && protocol.Unmarshal(raw, &resp) == nil {
				responses[k] = resp
			}
		}
		state = ir.State
	}
}

// wireRequests encodes a round of input requests under keys never used
// before in the task (R-TASK-10): a handler key that was already sent gets
// a suffix. back maps the wire keys to the handler's.
func wireRequests(reqs map[string]protocol.InputRequest, issued map[string]bool) (map[string]json.RawMessage, map[string]string, error) {
	wire := make(map[string]json.RawMessage, len(reqs))
	back := make(map[string]string, len(reqs))
	for _, k := range sortedKeys(reqs) {
		wk := k
		for n := 2; issued[wk]; n++ {
			wk = k + "#" + strconv.Itoa(n)
		}
		req := reqs[k]
		b, err := protocol.Marshal(&req)
		if err != nil {
			return nil, nil, err
		}
		issued[wk] = true
		wire[wk], back[wk] = b, k
	}
	return wire, back, nil
}

// invoke calls the handler, in ctx, the context Request.Detach made for
// r: a Request with the creating request's method, _meta and principal,
// no transport (so no progress or log notifications, R-TASK-14), and the
// task's context. A panic fails the task with -32603.
func (m *taskManager) invoke(ctx context.Context, r *server.Request, call *server.ToolCall) (res *protocol.CallToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			m.log.Error("task handler panicked", "tool", call.Name, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, server.InternalError("Internal error")
		}
	}()
	return call.Invoke(ctx, r)
}

// Back-off of the runner's store calls (retryStore): the first retry
// comes after storeRetryFirst, each next one after twice the wait before,
// at most storeRetryMax.
const (
	storeRetryFirst = 50 * time.Millisecond
	storeRetryMax   = 2 * time.Second
)

// finishAtLeast is how long the final write of a task is tried at least,
// even when its record's ExpiresAt is nearer (the store then refuses it
// anyway, as expired).
const finishAtLeast = 10 * time.Second

// taskLateGrace is how long after its TTL a task's runner still records
// the outcome its handler returned; later, the task fails with errTTL. A
// tasks/get reports a task that is still not terminal 2×taskLateGrace
// after its TTL as failed with errTTL (overdue): the runner could not
// record it (its instance died, or the store was unreachable for it), and
// whatever it records later agrees.
const taskLateGrace = time.Second

// lasting reports whether a store error will never heal: the task is
// gone, expired or over, or there is nothing to change. Any other error
// (a timeout, a refused connection, a failover) is taken as the store
// being unreachable for a while.
func lasting(err error) bool {
	return errors.Is(err, ErrTaskNotFound) || errors.Is(err, ErrTaskExpired) ||
		errors.Is(err, errTaskOver) || errors.Is(err, errNoChange)
}

// retryStore makes call, one store call of the task's runner, until it
// succeeds or fails for good, so that a short store outage (a paused or
// failing-over Redis) delays the task instead of orphaning it. An error
// that will never heal (lasting) is returned at once. Any other is logged
// and call is made again after a back-off (50 ms, doubling up to 2 s), for
// as long as ctx lasts; once ctx ends, the returned error wraps its cause
// and the last store error. call must be safe to repeat: an Update that
// failed may have been stored all the same.
func (m *taskManager) retryStore(ctx context.Context, task *Task, op string, call func(context.Context) (*TaskRecord, error)) (*TaskRecord, error) {
	wait := storeRetryFirst
	for attempt := 1; ; attempt++ {
		rec, err := call(ctx)
		if err == nil {
			if attempt > 1 {
				m.log.Info("task store answered again", "op", op, "task", task.id, "attempts", attempt)
			}
			return rec, nil
		}
		if lasting(err) {
			return nil, err
		}
		if ctx.Err() == nil {
			m.log.Warn("task store failed; trying again", "op", op, "task", task.id, "attempt", attempt, "retryIn", wait, "err", err)
			t := time.NewTimer(wait)
			select {
			case <-t.C:
				wait = min(2*wait, storeRetryMax)
				continue
			case <-ctx.Done():
				t.Stop()
			}
		}
		cause := context.Cause(ctx)
		level := slog.LevelInfo // the runner is done, or the task was cancelled
		if errors.Is(cause, context.DeadlineExceeded) {
			level = slog.LevelError // out of time: the task's TTL, or its record's expiry
		}
		m.log.Log(context.Background(), level, "task store failed; giving up", "op", op, "task", task.id, "attempts", attempt, "cause", cause, "err", err)
		return nil, fmt.Errorf("server: %s: %w, after %d attempts: %w", op, cause, attempt, err)
	}
}

// complete records the result (R-TASK-09, R-TASK-17: a tool execution
// error is a completed task whose result has isError).
func (m *taskManager) complete(task *Task, wr server.Result) {
	res, ok := wr.(*protocol.CallToolResult)
	if !ok {
		m.fail(task, server.InternalError("Internal error"))
		return
	}
	if res.ResultType == "" {
		res.ResultType = "complete"
	}
	b, err := protocol.Marshal(res)
	if err != nil {
		m.log.Error("task result does not encode", "task", task.id, "err", err)
		m.fail(task, server.InternalError("Internal error: invalid result"))
		return
	}
	if m.maxResult > 0 && len(b) > m.maxResult {
		m.log.Error("task result too large", "task", task.id, "bytes", len(b), "max", m.maxResult)
		m.fail(task, server.InternalError(fmt.Sprintf("Internal error: result too large (%d bytes, at most %d)", len(b), m.maxResult)))
		return
	}
	m.finish(task, func(r *TaskRecord) {
		r.Status, r.Result = TaskCompleted, b
	})
}

// fail records a JSON-RPC error: status failed, error and statusMessage
// (R-TASK-17). A message over MaxStatusMessageBytes is truncated, and data
// over MaxResultBytes left out.
func (m *taskManager) fail(task *Task, e *server.Error) {
	if msg := truncateStatus(e.Message, m.maxStatus); len(msg) < len(e.Message) || m.maxResult > 0 && len(e.Data) > m.maxResult {
		c := *e
		c.Message = msg
		if m.maxResult > 0 && len(c.Data) > m.maxResult {
			c.Data = nil
		}
		e = &c
	}
	m.finish(task, failure(e))
}

// truncatedMark ends a statusMessage cut at MaxStatusMessageBytes.
const truncatedMark = "… (truncated)"

// truncateStatus cuts msg to at most max bytes (0: no cap), at a UTF-8
// boundary, ending it with truncatedMark when there is room for it.
func truncateStatus(msg string, max int) string {
	if max <= 0 || len(msg) <= max {
		return msg
	}
	mark := truncatedMark
	if max < 2*len(mark) {
		mark = ""
	}
	n := max - len(mark)
	for n > 0 && !utf8.RuneStart(msg[n]) {
		n--
	}
	return msg[:n] + mark
}

// failure returns what records e in a task: status failed, error and
// statusMessage (R-TASK-17).
func failure(e *server.Error) func(*TaskRecord) {
	b, err := protocol.Marshal(&protocol.Error{Code: e.Code, Message: e.Message, Data: e.Data})
	if err != nil {
		b, _ = protocol.Marshal(&protocol.Error{Code: e.Code, Message: e.Message})
	}
	return func(r *TaskRecord) {
		r.Status, r.Error, r.StatusMessage = TaskFailed, b, e.Message
	}
}

// ttlEnd is when the task's time to live elapses: CreatedAt + ttlMs.
func ttlEnd(r *TaskRecord) time.Time {
	return r.CreatedAt.Add(time.Duration(r.TTLMs) * time.Millisecond)
}

// overdue reports whether a task is still not terminal well after its TTL
// (see taskLateGrace): tasks/get then reports it failed, and tasks/update
// and tasks/cancel leave it alone.
func overdue(r *TaskRecord, now time.Time) bool {
	return !r.Status.Terminal() && now.After(ttlEnd(r).Add(2*taskLateGrace))
}

// overdueView is what tasks/get shows of an overdue task: failed with
// errTTL, as its runner records it if it still can.
func overdueView(r *TaskRecord) *TaskRecord {
	v := r.Clone()
	failure(errTTL())(v)
	v.InputRequests, v.InputResponses = nil, nil
	if end := ttlEnd(r); v.UpdatedAt.Before(end) {
		v.UpdatedAt = end
	}
	return v
}

// finish moves a task to a terminal status unless it is in one already
// (cancelled meanwhile). A store outage is waited out until the record
// expires (ExpiresAt, its TTL plus the retention), so that a task whose
// store comes back in that time still ends failed or completed. A result
// recorded more than taskLateGrace after the TTL becomes the TTL failure,
// which tasks/get reports by then.
func (m *taskManager) finish(task *Task, set func(*TaskRecord)) {
	until := task.expires
	if floor := time.Now().Add(finishAtLeast); until.Before(floor) {
		until = floor
	}
	ctx, cancel := context.WithDeadline(context.Background(), until)
	defer cancel()
	rec, err := m.retryStore(ctx, task, "recording the end of the task", func(ctx context.Context) (*TaskRecord, error) {
		return m.store.Update(ctx, task.principal, task.id, func(r *TaskRecord) error {
			if r.Status.Terminal() {
				return errTaskOver
			}
			now := taskNow()
			if now.After(ttlEnd(r).Add(taskLateGrace)) {
				failure(errTTL())(r)
			} else {
				set(r)
			}
			r.InputRequests, r.InputResponses, r.UpdatedAt = nil, nil, now
			return nil
		})
	})
	switch {
	case err == nil:
		m.changed(rec)
	case errors.Is(err, ErrTaskNotFound), errors.Is(err, ErrTaskExpired):
		m.log.Info("the record of a task was gone before its end could be recorded", "task", task.id, "err", err)
	}
	// errTaskOver: cancelled meanwhile. Any other error: retryStore logged
	// it, and the record expired.
}

// awaitInput waits until every outstanding input request of the task is
// answered, then returns the responses. It waits at most until ctx ends:
// the task's deadline, so each round gets only the time left. The
// responses stay in the record until the next round parks the task or it
// ends, so that reading them again (a retried store call) reads the same.
func (m *taskManager) awaitInput(ctx context.Context, task *Task, poll time.Duration) (map[string]json.RawMessage, error) {
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		sig := m.signal(task.id)
		rec, err := m.retryStore(ctx, task, "reading the task while it waits for input", func(ctx context.Context) (*TaskRecord, error) {
			return m.store.Get(ctx, task.principal, task.id)
		})
		if err != nil {
			return nil, err
		}
		if rec.Status.Terminal() {
			return nil, errTaskOver
		}
		if len(rec.InputRequests) == 0 {
			if rec.Status != TaskWorking { // tasks/update normally did it, and told everyone
				moved, err := m.retryStore(ctx, task, "resuming the task", func(ctx context.Context) (*TaskRecord, error) {
					return m.store.Update(ctx, task.principal, task.id, func(r *TaskRecord) error {
						switch {
						case r.Status.Terminal():
							return errTaskOver
						case r.Status == TaskWorking:
							return errNoChange
						}
						r.Status, r.UpdatedAt = TaskWorking, taskNow()
						return nil
					})
				})
				switch {
				case err == nil:
					m.changed(moved)
				case !errors.Is(err, errNoChange):
					return nil, err
				}
			}
			return rec.InputResponses, nil
		}
		select {
		case <-sig:
		case <-tick.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// watchCancel ends a running task's context once its record says it was
// cancelled, or is gone, whichever instance served the tasks/cancel.
func (m *taskManager) watchCancel(ctx context.Context, task *Task, poll time.Duration, cancel context.CancelFunc) {
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		sig := m.signal(task.id)
		rec, err := m.retryStore(ctx, task, "checking whether the task was cancelled", func(ctx context.Context) (*TaskRecord, error) {
			return m.store.Get(ctx, task.principal, task.id)
		})
		switch {
		case errors.Is(err, ErrTaskNotFound), errors.Is(err, ErrTaskExpired), err == nil && rec.Status == TaskCancelled:
			cancel()
			return
		case err != nil, rec.Status.Terminal(): // ctx ended, or the task is over
			return
		}
		select {
		case <-sig:
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}

// signal returns a channel that closes at the next change of the task.
func (m *taskManager) signal(id string) <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	ch, ok := m.signals[id]
	if !ok {
		ch = make(chan struct{})
		m.signals[id] = ch
	}
	return ch
}

// wake tells this instance's waiters that the task may have changed.
func (m *taskManager) wake(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ch, ok := m.signals[id]; ok {
		close(ch)
		delete(m.signals, id)
	}
}

// changed publishes the task on the broker, then wakes the local waiters:
// the listen streams that asked for it send notifications/tasks, and the
// instance running it (maybe another) wakes up. Publishing first keeps the
// events of one task in order: a runner woken by this change publishes
// its own next change after this one.
func (m *taskManager) changed(rec *TaskRecord) {
	defer m.wake(rec.ID)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	data, err := notificationParams(rec)
	if err != nil {
		m.log.Error("a task does not encode", "task", rec.ID, "err", err)
		return
	}
	if err := m.s.Publish(ctx, server.Event{Kind: server.EventExtension, Extension: ExtensionID, Key: rec.ID, Data: data}); err != nil {
		m.log.Error("publishing a task event", "task", rec.ID, "err", err)
	}
}

// attach counts a task running here, of scope, and, for the first,
// subscribes to the broker, whose task events wake the runners (updates
// served by other instances). It counts nothing and returns the error
// refusing the task when MaxRunning tasks run here already, or
// MaxRunningPerPrincipal of scope, or MaxRunningPer56 or MaxRunningPer48
// of its networks, or the server is shutting down.
func (m *taskManager) attach(scope taskScope) *server.Error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.closing:
		return server.InternalError("Internal error: the server is shutting down")
	case m.maxRunning > 0 && m.running >= m.maxRunning:
		return server.RateLimited(fmt.Sprintf("Too many running tasks (at most %d on this server); retry later", m.maxRunning), taskBusyRetryAfter)
	case scope.runKey != "" && m.maxRunningBy > 0 && m.runningBy[scope.runKey] >= m.maxRunningBy:
		return server.RateLimited(fmt.Sprintf("Too many running tasks (at most %d %s); retry later", m.maxRunningBy, scope.per), taskBusyRetryAfter)
	}
	if scope.runKey != "" { // stdio counts against MaxRunning only
		for i, n := range scope.nets {
			if n != "" && m.maxRunningNet[i] > 0 && m.runningBy[n] >= m.maxRunningNet[i] {
				return server.RateLimited(fmt.Sprintf("Too many running tasks (at most %d %s); retry later", m.maxRunningNet[i], netNames[i]), taskBusyRetryAfter)
			}
		}
	}
	m.running++
	if scope.runKey != "" {
		m.runningBy[scope.runKey]++
		for _, n := range scope.nets {
			if n != "" {
				m.runningBy[n]++
			}
		}
	}
	b := m.s.Broker()
	if m.subStop != nil || b == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	events, stop, err := b.Subscribe(ctx)
	if err != nil {
		cancel()
		m.log.Error("subscribing to task events; runners fall back to polling", "err", err)
		return nil
	}
	m.subStop = func() { stop(); cancel() }
	go func() {
		for ev := range events {
			if ev.Kind == server.EventExtension && ev.Extension == ExtensionID && ev.Key != "" {
				m.wake(ev.Key)
			}
		}
	}()
	return nil
}

// detach ends the subscription when no task runs here any more.
func (m *taskManager) detach(scope taskScope) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.running--
	if scope.runKey != "" {
		for _, k := range append([]string{scope.runKey}, scope.nets[:]...) {
			if k == "" {
				continue
			}
			if m.runningBy[k]--; m.runningBy[k] <= 0 {
				delete(m.runningBy, k)
			}
		}
	}
	if m.running == 0 && m.subStop != nil {
		m.subStop()
		m.subStop = nil
	}
	if m.running == 0 && m.drained != nil {
		close(m.drained)
		m.drained = nil
	}
}

// track records how to end a running task on Shutdown.
func (m *taskManager) track(id string, cancel context.CancelCauseFunc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.runs[id] = cancel
	if m.closing {
		cancel(errShutdown) // started while Shutdown ran
	}
}

func (m *taskManager) untrack(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.runs, id)
}

// shutdown is the extension's part of Server.Shutdown: no task starts any
// more, and the tasks running here end, each failed with -32603 ("the
// server shut down before the task finished") once its handler returns,
// so that a client polling another instance learns it at once rather than
// at the task's TTL (the work, held in this process, cannot go on
// elsewhere). It returns when the last one ended, or with ctx's error.
func (m *taskManager) shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.closing = true
	for _, cancel := range m.runs {
		cancel(errShutdown)
	}
	var drained chan struct{}
	if m.running > 0 {
		if m.drained == nil {
			m.drained = make(chan struct{})
		}
		drained = m.drained
	}
	m.mu.Unlock()
	if drained == nil {
		return nil
	}
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// common is what every status of a task shows (R-TASK-06).
type common struct {
	createdAt, lastUpdatedAt string
	pollIntervalMs, ttlMs    *int64
	statusMessage            *string
}

func commonOf(rec *TaskRecord) common {
	c := common{createdAt: isoTime(rec.CreatedAt), lastUpdatedAt: isoTime(rec.UpdatedAt), ttlMs: protocolInt(rec.TTLMs)}
	if rec.PollIntervalMs > 0 {
		c.pollIntervalMs = protocolInt(rec.PollIntervalMs)
	}
	if rec.StatusMessage != "" {
		msg := rec.StatusMessage
		c.statusMessage = &msg
	}
	return c
}

func protocolInt(v int64) *int64 { return &v }

// createResult is the CreateTaskResult of a new task: the Task only.
func createResult(rec *TaskRecord) *taskproto.CreateTaskResult {
	c := commonOf(rec)
	return &taskproto.CreateTaskResult{
		TaskID: rec.ID, Status: taskproto.TaskStatus(rec.Status), StatusMessage: c.statusMessage,
		CreatedAt: c.createdAt, LastUpdatedAt: c.lastUpdatedAt, TTLMs: c.ttlMs, PollIntervalMs: c.pollIntervalMs,
	}
}

// detailedTask is the DetailedTask of a record (R-TASK-06, R-TASK-09):
// the Task, plus inputRequests, result or error by status.
func detailedTask(rec *TaskRecord) (*taskproto.DetailedTask, error) {
	c := commonOf(rec)
	var v taskproto.DetailedTaskValue
	switch rec.Status {
	case TaskWorking:
		v = &taskproto.WorkingTask{TaskID: rec.ID, StatusMessage: c.statusMessage, CreatedAt: c.createdAt, LastUpdatedAt: c.lastUpdatedAt, TTLMs: c.ttlMs, PollIntervalMs: c.pollIntervalMs}
	case TaskInputRequired:
		reqs := make(protocol.InputRequests, len(rec.InputRequests))
		for k, raw := range rec.InputRequests {
			var q protocol.InputRequest
			if err := protocol.Unmarshal(raw, &q); err != nil {
				return nil, fmt.Errorf("tasks: input request %s of task %s: %w", k, rec.ID, err)
			}
			reqs[k] = q
		}
		v = &taskproto.InputRequiredTask{TaskID: rec.ID, InputRequests: reqs, StatusMessage: c.statusMessage, CreatedAt: c.createdAt, LastUpdatedAt: c.lastUpdatedAt, TTLMs: c.ttlMs, PollIntervalMs: c.pollIntervalMs}
	case TaskCompleted:
		v = &taskproto.CompletedTask{TaskID: rec.ID, Result: rec.Result, StatusMessage: c.statusMessage, CreatedAt: c.createdAt, LastUpdatedAt: c.lastUpdatedAt, TTLMs: c.ttlMs, PollIntervalMs: c.pollIntervalMs}
	case TaskFailed:
		var e protocol.Error
		if err := protocol.Unmarshal(rec.Error, &e); err != nil {
			return nil, fmt.Errorf("tasks: error of task %s: %w", rec.ID, err)
		}
		v = &taskproto.FailedTask{TaskID: rec.ID, Error: e, StatusMessage: c.statusMessage, CreatedAt: c.createdAt, LastUpdatedAt: c.lastUpdatedAt, TTLMs: c.ttlMs, PollIntervalMs: c.pollIntervalMs}
	case TaskCancelled:
		v = &taskproto.CancelledTask{TaskID: rec.ID, StatusMessage: c.statusMessage, CreatedAt: c.createdAt, LastUpdatedAt: c.lastUpdatedAt, TTLMs: c.ttlMs, PollIntervalMs: c.pollIntervalMs}
	default:
		return nil, fmt.Errorf("tasks: task %s has the unknown status %q", rec.ID, rec.Status)
	}
	return &taskproto.DetailedTask{Value: v}, nil
}

// notificationParams are the params of notifications/tasks for a record:
// its DetailedTask, to which each listen stream adds its _meta.
func notificationParams(rec *TaskRecord) ([]byte, error) {
	d, err := detailedTask(rec)
	if err != nil {
		return nil, err
	}
	return taskproto.Marshal(d)
}

// isTask reports whether data, an event's payload, is the DetailedTask
// of the task id (ListenFilter.Verify): what a stream sends is the task
// its filter named.
func isTask(id string, data json.RawMessage) bool {
	var d taskproto.DetailedTask
	if taskproto.Unmarshal(data, &d) != nil {
		return false
	}
	switch v := d.Value.(type) {
	case *taskproto.WorkingTask:
		return v.TaskID == id
	case *taskproto.InputRequiredTask:
		return v.TaskID == id
	case *taskproto.CompletedTask:
		return v.TaskID == id
	case *taskproto.FailedTask:
		return v.TaskID == id
	case *taskproto.CancelledTask:
		return v.TaskID == id
	}
	return false
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// invalidParams is the -32602 of params that do not decode as their
// generated type.
func invalidParams(err error) *server.Error {
	return server.InvalidParams("Invalid params: "+strings.TrimPrefix(err.Error(), "taskproto: "), nil)
}

// storeError turns a store error into the error of a tasks/* request: an
// unknown, foreign or expired task is -32602 (R-TASK-15).
func (m *taskManager) storeError(op string, err error) error {
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return server.InvalidParams(op+": Task not found", nil)
	case errors.Is(err, ErrTaskExpired):
		return server.InvalidParams(op+": Task has expired", nil)
	}
	var e *server.Error
	if errors.As(err, &e) {
		return e
	}
	m.log.Error("task store", "op", op, "err", err)
	return server.InternalError("Internal error")
}

// get serves tasks/get (R-TASK-09): the DetailedTask, which the envelope
// (resultType, _meta) makes a GetTaskResult. A task still not terminal
// well after its TTL is reported failed with the TTL error (overdue),
// whatever its record says: its runner could not record the failure.
func (m *taskManager) get(ctx context.Context, r *server.Request, raw json.RawMessage) (server.Result, error) {
	if !r.Declares(ExtensionID) {
		return nil, missingTasks() // R-TASK-15
	}
	var p taskproto.GetTaskRequestParams
	if err := taskproto.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams(err)
	}
	rec, err := m.store.Get(ctx, r.Principal, p.TaskID)
	if err != nil {
		return nil, m.storeError("Failed to retrieve task", err)
	}
	if overdue(rec, time.Now()) {
		rec = overdueView(rec) // no task stays working past its TTL
	}
	d, err := detailedTask(rec)
	if err != nil {
		m.log.Error("a task does not encode", "task", rec.ID, "err", err)
		return nil, server.InternalError("Internal error")
	}
	return d, nil
}

// update serves tasks/update (R-TASK-11): responses to outstanding
// requests are stored for the runner, others ignored; once none is
// outstanding the task is working again. A terminal or overdue task
// ignores them. An answer that is not its request's result, or an
// accepted form whose content does not match its requestedSchema
// (R-ELIC-11), is -32602, and nothing is stored.
func (m *taskManager) update(ctx context.Context, r *server.Request, raw json.RawMessage) (server.Result, error) {
	if !r.Declares(ExtensionID) {
		return nil, missingTasks()
	}
	taskID, responses, err := updateParams(raw)
	if err != nil {
		return nil, err
	}
	checked := map[string]error{} // by key: fn may run more than once, a key's request never changes
	rec, err := m.store.Update(ctx, r.Principal, taskID, func(t *TaskRecord) error {
		if t.Status.Terminal() || overdue(t, time.Now()) {
			return errNoChange
		}
		taken := false
		for _, k := range sortedKeys(responses) {
			req, ok := t.InputRequests[k]
			if !ok {
				continue // not outstanding: ignored
			}
			err, done := checked[k]
			if !done {
				err = m.s.CheckInputResponse(ctx, k, req, responses[k])
				checked[k] = err
			}
			if err != nil {
				return err
			}
			if t.InputResponses == nil {
				t.InputResponses = map[string]json.RawMessage{}
			}
			t.InputResponses[k] = responses[k]
			delete(t.InputRequests, k)
			taken = true
		}
		if !taken {
			return errNoChange
		}
		if m.maxResponses > 0 {
			n := 0
			for k, v := range t.InputResponses {
				n += len(k) + len(v)
			}
			if n > m.maxResponses {
				return server.InvalidParams(fmt.Sprintf("Invalid params: the task's inputResponses would total %d bytes, more than the limit of %d", n, m.maxResponses), nil)
			}
		}
		if len(t.InputRequests) == 0 {
			t.InputRequests = nil
			t.Status = TaskWorking
		}
		t.UpdatedAt = taskNow()
		return nil
	})
	if err := m.settle(rec, err, "Failed to update task"); err != nil {
		return nil, err
	}
	return &taskproto.UpdateTaskResult{}, nil
}

// settle ends a tasks/update or tasks/cancel after its store update: a
// change is published, no change is nothing, anything else the request's
// error (storeError, op naming it).
func (m *taskManager) settle(rec *TaskRecord, err error, op string) error {
	switch {
	case err == nil:
		m.changed(rec)
	case errors.Is(err, errNoChange):
	default:
		return m.storeError(op, err)
	}
	return nil
}

// updateParams reads the params of tasks/update. The schema types
// inputResponses as a map of InputResponse (taskproto.UpdateTaskRequestParams),
// but R-TASK-11 has the server ignore the responses to keys that are not
// outstanding, whatever they hold, so the map cannot be decoded whole: the
// params are decoded with the generated core RequestParams, and each
// response is kept as JSON, to be decoded strictly (and checked against
// its request) only when its key is outstanding (Server.CheckInputResponse).
func updateParams(raw json.RawMessage) (string, map[string]json.RawMessage, error) {
	var rp protocol.RequestParams
	if err := protocol.Unmarshal(raw, &rp); err != nil {
		return "", nil, server.InvalidParams("Invalid params: "+strings.TrimPrefix(err.Error(), "protocol: "), nil)
	}
	var id string
	v, ok := rp.Extra.Get("taskId")
	if !ok || json.Unmarshal(v, &id) != nil {
		return "", nil, server.InvalidParams("Invalid params: taskId must be a string", nil)
	}
	var responses map[string]json.RawMessage
	v, ok = rp.Extra.Get("inputResponses")
	if !ok || string(v) == "null" || json.Unmarshal(v, &responses) != nil {
		return "", nil, server.InvalidParams("Invalid params: inputResponses must be an object", nil)
	}
	return id, responses, nil
}

// cancel serves tasks/cancel (R-TASK-12): a task not yet terminal is
// cancelled at once and its handler's context ends; a terminal one (or an
// overdue one, which tasks/get reports failed) is left as it is. Both get
// the empty acknowledgement.
func (m *taskManager) cancel(ctx context.Context, r *server.Request, raw json.RawMessage) (server.Result, error) {
	if !r.Declares(ExtensionID) {
		return nil, missingTasks()
	}
	var p taskproto.CancelTaskRequestParams
	if err := taskproto.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams(err)
	}
	rec, err := m.store.Update(ctx, r.Principal, p.TaskID, func(t *TaskRecord) error {
		if t.Status.Terminal() || overdue(t, time.Now()) {
			return errNoChange
		}
		t.Status, t.StatusMessage = TaskCancelled, "The task was cancelled at the client's request."
		t.InputRequests, t.InputResponses, t.UpdatedAt = nil, nil, taskNow()
		return nil
	})
	if err := m.settle(rec, err, "Failed to cancel task"); err != nil {
		return nil, err
	}
	return &taskproto.CancelTaskResult{}, nil
}

// ownTasks is the listen filter's Accept for taskIds (R-TASK-13): the ids,
// in order, of tasks that exist and belong to the request's principal
// (R-TASK-18, as TaskStore.Get decides), so that an id of another
// principal's task is left out exactly like an unknown one. A task's owner
// never changes, so this check at acknowledgement time holds for the life
// of the stream; an id that names no task yet is left out for good (ids
// are unguessable: a client learns one when it creates the task, then
// listens). Each id costs one store round trip (TaskConfig.MaxListenTasks
// bounds them).
func (m *taskManager) ownTasks(ctx context.Context, r *server.Request, ids []string) ([]string, error) {
	var kept []string
	for _, id := range ids {
		_, err := m.store.Get(ctx, r.Principal, id)
		switch {
		case err == nil:
			kept = append(kept, id)
		case errors.Is(err, ErrTaskNotFound), errors.Is(err, ErrTaskExpired):
			// unknown, another principal's, or gone: left out alike
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			m.log.Error("task store", "op", "subscriptions/listen", "err", err)
			return nil, server.InternalError("Internal error: the task store is unavailable")
		}
	}
	return kept, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// orDefault is an option's value: def for zero, 0 (no cap) for negative.
func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return max(v, 0)
}
