package server

// WithErrorDetails makes the message of a handler's plain error (one that
// is not an *Error) reach the client, as the message of the -32603
// error, instead of the generic "Internal error": for development, or for
// a server whose errors say nothing a client may not know. It applies to
// prompt, resource and completion handlers, and to the runtime's own
// unexpected failures while serving a request; a tool's plain error
// reaches the client with or without it, as a result with isError set.
// The error is logged either way. A panic's value is never shown. The
// whole text of the error is shown, wrapped errors included: a database
// driver's error may name a host, a user or a query, so turn it on only
// where that is fine. See the package documentation, "Handler errors".
func WithErrorDetails() Option { return func(c *config) { c.errorDetails = true } }

// plainError is the -32603 error a client receives for a handler's error
// that is not an *Error: "Internal error", or the error's text under
// WithErrorDetails. The error is logged with the method and target.
func (s *Server) plainError(r *Request, err error) *Error {
	s.log.Error("handler failed", "method", r.Method, "target", r.target, "err", err)
	if s.cfg.errorDetails {
		if msg := err.Error(); msg != "" {
			return InternalError(msg)
		}
	}
	return InternalError("Internal error")
}

// clientError is the error the client gets for a handler's err: an *Error
// with a code the revision allows as it is, another *Error as -32603
// "Internal error", a plain error as plainError decides. What is not sent
// as it is goes to the log.
func (s *Server) clientError(r *Request, err error) *Error {
	e, ok := asError(err)
	switch {
	case !ok:
		return s.plainError(r, err)
	case !emittable(e.Code):
		s.log.Error("handler failed", "method", r.Method, "err", err)
		return InternalError("Internal error")
	}
	return e
}
