package legacy

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// The legacy sessions of Streamable HTTP (docs/dual-era.md §4.1, §7.1):
// what is kept about each, behind the SessionStore interface, and how
// session ids are made.
//
// The interface is the one of docs/dual-era.md §7.1, unchanged, with
// these precisions (none changes a signature): every field of
// SessionRecord has a JSON name; a limit of SessionLimits that is zero or
// less is no limit; Create evicts before it counts the total, so a
// principal at its limit can always replace its own least recently used
// session; Delete, Touch and Update report ErrSessionNotFound like Get;
// PutAnswer needs the session to be live; every method is safe for
// concurrent use.

// Errors of a SessionStore.
var (
	// ErrSessionNotFound: no live session has this key for this principal.
	// Unknown, past min(IdleUntil, ExpiresAt), evicted, deleted or another
	// principal's: the store must not tell them apart.
	ErrSessionNotFound = errors.New("legacy: session not found")
	// ErrSessionLimit: Create found the store holding SessionLimits.Total
	// live sessions.
	ErrSessionLimit = errors.New("legacy: too many sessions")
	// ErrAnswerExists: PutAnswer found an answer kept already for the
	// request (the first answer wins).
	ErrAnswerExists = errors.New("legacy: the request has an answer already")
	// ErrNoAnswer: TakeAnswer found no answer for the request.
	ErrNoAnswer = errors.New("legacy: no answer for the request")
)

// SessionRecord is everything kept about one legacy session of
// Streamable HTTP (a client of 2025-03-26 to 2025-11-25 that sent
// initialize). Every field round-trips through encoding/json, so that a
// shared store can keep records as JSON documents. The runtime owns the
// meaning of the fields; a store keeps them, enforces the lifetimes and
// limits, and applies updates atomically.
type SessionRecord struct {
	// Key is the store key: base64url(SHA-256(session id)). The id itself
	// is never stored, logged or published.
	Key string `json:"key"`
	// Principal is what the HTTP Authenticate hook returned ("" without
	// one). Only the same principal finds the session.
	Principal string `json:"principal"`
	// QuotaKey, with Principal, names the sessions that
	// SessionLimits.PerPrincipal counts together, as TaskRecord's does:
	// empty for an authenticated principal, the client's address without
	// one.
	QuotaKey string `json:"quotaKey,omitempty"`
	// QuotaNets are the wider networks of an anonymous IPv6 client (its
	// /56 and /48, as "2001:db8:0:100::/56"), each counted apart by the
	// limit of SessionLimits.PerNet at the same index; empty otherwise.
	QuotaNets []string `json:"quotaNets,omitempty"`
	// ProtocolVersion is the legacy version negotiated at initialize.
	ProtocolVersion string `json:"protocolVersion"`
	// ClientCapabilities and ClientInfo are the client's initialize
	// params, as sent (re-encoded by the strict codec of package
	// mcp20251125).
	ClientCapabilities json.RawMessage `json:"clientCapabilities,omitempty"`
	ClientInfo         json.RawMessage `json:"clientInfo,omitempty"`
	// ServerCapabilities are the capabilities the initialize result
	// declared; they gate the session's methods and notifications.
	ServerCapabilities json.RawMessage `json:"serverCapabilities,omitempty"`
	// Initialized: notifications/initialized reached the session.
	Initialized bool `json:"initialized"`
	// LogLevel is the level of logging/setLevel ("" while unset).
	LogLevel string `json:"logLevel,omitempty"`
	// Subscriptions are the URIs of resources/subscribe.
	Subscriptions []string `json:"subscriptions,omitempty"`
	// Stream names the standalone GET stream now serving the session, with
	// its instance ("" when none).
	Stream string `json:"stream,omitempty"`
	// Pending are the server-to-client requests of the input bridge, by
	// request id.
	Pending map[string]PendingRequest `json:"pending,omitempty"`
	// BadResponses counts the responses that answered no outstanding
	// request, over the session's life.
	BadResponses int `json:"badResponses,omitempty"`
	// CreatedAt is when initialize made the session; IdleUntil when it
	// expires unless used (moved by Touch); ExpiresAt when it expires
	// whatever happens (CreatedAt + Config.MaxLifetime). The
	// session lives until min(IdleUntil, ExpiresAt).
	CreatedAt time.Time `json:"createdAt"`
	IdleUntil time.Time `json:"idleUntil"`
	ExpiresAt time.Time `json:"expiresAt"`
	// Version is incremented by every Update.
	Version int64 `json:"version"`
}

// PendingRequest is one server-to-client request of the input bridge.
type PendingRequest struct {
	Method   string    `json:"method"`
	Key      string    `json:"key"`      // the handler's AskInput key
	Instance string    `json:"instance"` // the instance whose handler waits
	Deadline time.Time `json:"deadline"`
	State    string    `json:"state"` // "pending", "answered", "abandoned"
	// AnswerBytes is the size of the answer the store holds for the
	// request (SessionStore.PutAnswer) until its round takes it: 0 before
	// the answer and after. An answered request with AnswerBytes is still
	// outstanding (its round waits); without, it is a tombstone. The sum
	// over a session is bounded by Config.MaxAnswerBytes.
	AnswerBytes int64 `json:"answerBytes,omitempty"`
}

// Clone returns a deep copy (raw JSON values are shared: nothing modifies
// them in place).
func (r *SessionRecord) Clone() *SessionRecord {
	c := *r
	c.Subscriptions = slices.Clone(r.Subscriptions)
	c.QuotaNets = slices.Clone(r.QuotaNets)
	c.Pending = maps.Clone(r.Pending)
	return &c
}

// live reports whether the record is live at now.
func (r *SessionRecord) live(now time.Time) bool {
	return now.Before(r.IdleUntil) && now.Before(r.ExpiresAt)
}

// SessionLimits bound the sessions Create admits. Zero or less is no
// limit.
type SessionLimits struct {
	// PerPrincipal bounds the live sessions of one Principal and QuotaKey:
	// past it, the one with the earliest IdleUntil is evicted.
	PerPrincipal int
	// PerNet bounds the live sessions of one Principal sharing the
	// record's QuotaNets[i], for each i: past PerNet[i], the one with the
	// earliest IdleUntil among them is evicted (after PerPrincipal's, and
	// never the same one twice). A record without QuotaNets[i] is not
	// counted by it.
	PerNet []int
	// Total bounds the live sessions of the whole store: past it, Create
	// stores nothing.
	Total int
	// TotalInitBytes bounds the bytes of initialize data
	// (ClientCapabilities and ClientInfo) that the live sessions of the
	// whole store hold: past it, Create stores nothing and returns
	// ErrSessionLimit. MemorySessionStore honours it; a shared store
	// whose records live outside the process may ignore it (its memory is
	// its own server's).
	TotalInitBytes int64
}

// SessionStore keeps the legacy sessions of Streamable HTTP. The runtime
// calls it from any goroutine; implementations must be safe for
// concurrent use. With several instances behind one load balancer every
// instance uses a store shared by all (and a shared Broker), so that a
// session made through one instance is served by any:
//
//   - Create is durable before it returns: a Get on any instance finds the
//     record. It applies the limits atomically with the insert.
//   - Update is a read-modify-write, atomic across instances
//     (compare-and-set on Version, retried; fn may run several times and
//     must have no other effect).
//   - Records expire at min(IdleUntil, ExpiresAt).
//
// Every method is keyed by the principal: a record of another principal is
// ErrSessionNotFound, exactly like an unknown key. Any other error means
// the store is unreachable, and the client gets 503, never 404 (it would
// drop its session on a blip).
type SessionStore interface {
	// Create stores rec. Atomically with the insert: if rec's Principal
	// and QuotaKey already hold lim.PerPrincipal live sessions, the one
	// with the earliest IdleUntil is evicted and its key returned; so is,
	// for each network QuotaNets[i] whose live sessions (less those
	// evicted already) number lim.PerNet[i], the one of them with the
	// earliest IdleUntil; then,
	// if the store holds lim.Total live sessions, nothing is stored (and
	// nothing evicted) and ErrSessionLimit is returned.
	Create(ctx context.Context, rec *SessionRecord, lim SessionLimits) (evicted []string, err error)
	// Get returns a copy of the live session key of principal, or
	// ErrSessionNotFound (unknown, past min(IdleUntil, ExpiresAt),
	// evicted, deleted, or another principal's: indistinguishable).
	Get(ctx context.Context, principal, key string) (*SessionRecord, error)
	// Touch moves IdleUntil forward to idleUntil (never past ExpiresAt,
	// never back).
	Touch(ctx context.Context, principal, key string, idleUntil time.Time) error
	// Update applies fn to a copy and stores it with Version+1,
	// atomically across instances (fn may run again on a conflict; it
	// must have no other effect). When fn returns an error nothing is
	// stored and Update returns it. Key, Principal, QuotaKey, QuotaNets,
	// CreatedAt and ExpiresAt are kept whatever fn does. It returns the stored
	// record.
	Update(ctx context.Context, principal, key string, fn func(*SessionRecord) error) (*SessionRecord, error)
	// Delete removes the record, its answers and its index entries.
	Delete(ctx context.Context, principal, key string) error
	// PutAnswer keeps the payload of the answer to the server-to-client
	// request reqID of a live session until ttl, unless one is kept
	// already (the first answer wins; it then returns ErrAnswerExists).
	PutAnswer(ctx context.Context, principal, key, reqID string, payload []byte, ttl time.Duration) error
	// TakeAnswer returns and removes the answer to reqID (ErrNoAnswer if
	// there is none).
	TakeAnswer(ctx context.Context, principal, key, reqID string) ([]byte, error)
}

// DefaultMaxSessionRecordBytesTotal bounds the initialize data all the
// sessions of the store keep together (Config.MaxSessionRecordBytesTotal,
// SessionLimits.TotalInitBytes).
const DefaultMaxSessionRecordBytesTotal = 64 << 20

// DefaultMaxSessionRecordBytes bounds the client's initialize data a
// legacy session keeps (Config.MaxSessionRecordBytes): its
// capabilities and clientInfo, re-encoded. Real clients send well under
// a few KiB; the bound leaves room for experimental capabilities.
const DefaultMaxSessionRecordBytes = 64 << 10

// sessionIDBytes is the entropy of a session id: 256 bits (at least 128
// are asked for).
const sessionIDBytes = 32

// maxSessionIDBytes bounds the Mcp-Session-Id a client presents: a longer
// one is not found, without being hashed.
const maxSessionIDBytes = 128

// newSessionID mints a session id: 32 bytes from crypto/rand, base64url
// without padding (43 characters of [A-Za-z0-9_-], visible ASCII as
// L1125/basic/transports.mdx#session-management item 1 requires), and
// its store key.
func newSessionID() (id, key string, err error) {
	b := make([]byte, sessionIDBytes)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("legacy: session id: %w", err)
	}
	id = base64.RawURLEncoding.EncodeToString(b)
	return id, sessionKey(id), nil
}

// sessionKey is the store key of a session id: base64url(SHA-256(id)).
// Lookups hash the presented header, so that no stored value, log line or
// broker event holds a usable id, and comparing ids leaks no timing.
func sessionKey(id string) string {
	k := sessionKeyOf(id)
	return string(k[:])
}

// sessionKeyLen is the length of a store key (base64.RawURLEncoding of a
// SHA-256 sum).
const sessionKeyLen = 43

// sessionKeyOf is sessionKey in an array: a look-up that finds its
// session needs no string of the key (the record holds one).
func sessionKeyOf(id string) [sessionKeyLen]byte {
	// Hash from a stack buffer (minted ids are 43 bytes; a longer header
	// is refused before the lookup, but is hashed correctly all the same).
	var in [maxSessionIDBytes]byte
	var sum [sha256.Size]byte
	if len(id) <= len(in) {
		sum = sha256.Sum256(in[:copy(in[:], id)])
	} else {
		sum = sha256.Sum256([]byte(id))
	}
	return encodeKey(&sum)
}

// base64URL is the alphabet of base64.RawURLEncoding.
const base64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// encodeKey is base64.RawURLEncoding.Encode of a SHA-256 sum, written out
// for its one length (TestEncodeKey).
func encodeKey(sum *[sha256.Size]byte) (out [sessionKeyLen]byte) {
	for i := range 10 { // 30 bytes, 40 characters
		b := sum[3*i : 3*i+3 : 3*i+3]
		v := uint(b[0])<<16 | uint(b[1])<<8 | uint(b[2])
		o := out[4*i : 4*i+4 : 4*i+4]
		o[0], o[1], o[2], o[3] = base64URL[v>>18&63], base64URL[v>>12&63], base64URL[v>>6&63], base64URL[v&63]
	}
	v := uint(sum[30])<<16 | uint(sum[31])<<8 // the last 2 bytes, 3 characters
	out[40], out[41], out[42] = base64URL[v>>18&63], base64URL[v>>12&63], base64URL[v>>6&63]
	return out
}
