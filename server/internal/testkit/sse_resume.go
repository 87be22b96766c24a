package testkit

import "time"

// event is one whole event of a stream: its id, data and retry.
type TEvent struct{ Id, Data, Retry string }

// all reads the events until the stream ends.
func (e *LegacyEvents) All() []TEvent {
	e.T.Helper()
	var out []TEvent
	var cur TEvent
	for {
		l, ok := e.Line("the stream did not end within 5 s", out)
		if !ok {
			return out
		}
		switch l.Kind {
		case "id":
			cur.Id = l.Value
		case "retry":
			out = append(out, TEvent{Retry: l.Value})
		case "data":
			cur.Data = l.Value
			out = append(out, cur)
			cur = TEvent{}
		case "bad":
			e.T.Fatalf("an unexpected SSE line %q", l.Value)
		}
	}
}

// upTo reads events until one with data satisfying stop.
func (e *LegacyEvents) UpTo(stop func(TEvent) bool) []TEvent {
	e.T.Helper()
	var out []TEvent
	var cur TEvent
	for {
		l, ok := e.Line("nothing within 5 s", out)
		if !ok {
			e.T.Fatalf("the stream ended early; so far %v", out)
		}
		switch l.Kind {
		case "id":
			cur.Id = l.Value
		case "data":
			cur.Data = l.Value
			out = append(out, cur)
			if stop(cur) {
				return out
			}
			cur = TEvent{}
		}
	}
}

// line returns the stream's next line, false at its end; after 5 s
// without one it fails the test with timeout and the events so far.
func (e *LegacyEvents) Line(timeout string, sofar []TEvent) (SseLine, bool) {
	e.T.Helper()
	select {
	case l, ok := <-e.Ch:
		return l, ok && l.Kind != "eof"
	case <-time.After(5 * time.Second):
		e.T.Fatalf("%s; so far %v", timeout, sofar)
		return SseLine{}, false
	}
}
