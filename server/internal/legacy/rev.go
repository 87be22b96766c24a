package legacy

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// String returns the revision's name, e.g. "2025-06-18".
func (r Rev) String() string {
	if int(r) < numRevs {
		return revNames[r]
	}
	return fmt.Sprintf("Rev(%d)", uint8(r))
}

// Valid reports whether r is one of the legacy revisions.
func (r Rev) Valid() bool { return int(r) < numRevs }

// ParseRev returns the revision named s ("2024-11-05", "2025-03-26",
// "2025-06-18" or "2025-11-25"), or false.
func ParseRev(s string) (Rev, bool) {
	for i, n := range revNames {
		if n == s {
			return Rev(i), true
		}
	}
	return 0, false
}

// Revisions returns the legacy revisions, newest first (the order in which
// initialize prefers them).
func Revisions() []Rev {
	out := make([]Rev, numRevs)
	for i := range out {
		out[i] = Rev(numRevs - 1 - i)
	}
	return out
}

// in reports whether r is in the set s.
func (r Rev) in(s Revs) bool { return s&(1<<r) != 0 }

// Has reports whether the set holds r.
func (s Revs) Has(r Rev) bool { return r.in(s) }

// Messages are the JSON-RPC methods of one revision, from its schema's four
// message unions (sorted), and whether it has JSON-RPC batches.
type Messages struct {
	ClientRequests, ClientNotifications, ServerRequests, ServerNotifications []string
	// Batches: the revision's JSONRPCMessage has array branches (2025-03-26
	// only, docs/dual-era.md §2.8).
	Batches bool
}

// MessagesOf returns the methods of revision r, as its schema declares
// them. They are every method of the revision, served or not: the server
// decides which it serves (docs/dual-era.md §2.3). The slices are fresh.
func MessagesOf(r Rev) Messages {
	if !r.Valid() {
		return Messages{}
	}
	m := revMessages[r]
	return Messages{
		ClientRequests:      slices.Clone(m.ClientRequests),
		ClientNotifications: slices.Clone(m.ClientNotifications),
		ServerRequests:      slices.Clone(m.ServerRequests),
		ServerNotifications: slices.Clone(m.ServerNotifications),
		Batches:             m.Batches,
	}
}

// root is one message the server sends in a session (the generated roots
// table).
type root struct {
	Kind   string // result, notification, request, error
	Method string // "" for the error response
	Type   string // Go type, package.Name
	Revs   Revs   // revisions that have the message
}

// unionBranch is one branch of a projected union and the revisions that
// have it (the generated unionBranches table).
type unionBranch struct {
	Type string // Go type of the branch, package.Name
	Disc string // its discriminator, e.g. "type=audio", "[]" for an array
	Revs Revs
}

// requiredGap is a member a revision requires and the Go type leaves
// optional (the generated requiredGaps table).
type requiredGap struct {
	Type, Member string
	Revs         Revs
}

// zeroed is the outcome of the zero pass on a root value.
type zeroed struct {
	v     any      // the value to encode: the original or a projected copy
	kind  string   // its root kind: result, notification, request, error
	strip []string // top-level members to remove from its encoding
	// legacyPkg: v is of package mcp20251125 (else of package protocol)
	legacyPkg bool
}

// errNilValue is the error for a nil pointer where a message was expected.
var errNilValue = errors.New("legacy: nil value")

// notInRev is the error for a message that revision r does not have.
func notInRev(what string, r Rev) error {
	return fmt.Errorf("legacy: %s does not exist in protocol %s", what, r)
}

// sortedKeys returns the keys of m in order, so that the zero pass over a
// map reports the same error for the same value every time.
func sortedKeys[M ~map[K]V, K cmp.Ordered, V any](m M) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sameName reports member names equal ignoring case: an undeclared member
// whose name is a case variant of one a revision declares is dropped with
// it (strict readers refuse case variants).
func sameName(a, b string) bool { return strings.EqualFold(a, b) }
