package streamhttp

import "net/http"

// What the package's external tests reach of its internals.

var (
	ClientKey         = clientKey
	IsToken68         = isToken68
	InitialBodyBuffer = initialBodyBuffer
)

// Inflight returns the in-flight count and body bytes of a Handler.
func Inflight(h http.Handler) (int64, int64) {
	hh := h.(*httpHandler)
	return hh.ep.Inflight.Load(), hh.ep.BodyBytes.Load()
}
