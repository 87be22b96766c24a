//go:build ignore

package protocol

// MethodInfo describes one JSON-RPC method of the generated revision: the
// Go types of its message, params and result, and who may send it.
type MethodInfo struct {
	// Name is the method, such as "tools/call".
	Name string
	// Notification is set for notifications, which have no id and no result.
	Notification bool
	// FromClient and FromServer say who sends the message; both are set for
	// a message either side may send. The server's input requests
	// (sampling, elicitation, roots) are sent inside an input_required
	// result from 2026-07-28 on, and as requests of their own before.
	FromClient, FromServer bool
	// Message, Params and Result name the Go types; Params is empty for a
	// method without params, Result for notifications.
	Message, Params, Result string
	// NewMessage, NewParams and NewResult return a pointer to a new zero
	// value of those types, or are nil when the type is absent.
	NewMessage, NewParams, NewResult func() any
}
