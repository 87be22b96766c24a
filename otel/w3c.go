package mcpotel

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"reflect"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/protocol"
)

// w3cMode says whether the configured propagator is one whose Extract
// from _meta the middleware does itself (the W3C fast path), and which.
type w3cMode uint8

const (
	// w3cNone: any other propagator; its Extract is called.
	w3cNone w3cMode = iota
	// w3cTraceContext: propagation.TraceContext{} alone, or a composite
	// of it alone.
	w3cTraceContext
	// w3cTraceContextBaggage: a composite of propagation.TraceContext{}
	// and propagation.Baggage{}, once each, in either order.
	w3cTraceContextBaggage
)

// recognizeW3C returns the fast path for p: w3cTraceContext for
// propagation.TraceContext{} (or a composite of it alone),
// w3cTraceContextBaggage for a composite of TraceContext{} and
// Baggage{}, once each in either order, and w3cNone for anything else
// (a third propagator, a repeated one, a nested composite, a pointer, a
// type of its own). The two propagators are stateless empty structs and
// write different context keys, so the order of a composite does not
// change what its Extract returns. Anything unexpected is w3cNone: the
// generic path, which calls p.Extract, is always correct.
func recognizeW3C(p propagation.TextMapPropagator) w3cMode {
	if _, ok := p.(propagation.TraceContext); ok {
		return w3cTraceContext
	}
	// The type propagation.NewCompositeTextMapPropagator returns is
	// unexported: a slice of the propagators, extracted in order.
	if p == nil || reflect.TypeOf(p) != reflect.TypeOf(propagation.NewCompositeTextMapPropagator()) {
		return w3cNone
	}
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Slice {
		return w3cNone
	}
	var tc, bg int
	for i := range v.Len() {
		e := v.Index(i)
		if e.Kind() != reflect.Interface || e.IsNil() {
			return w3cNone
		}
		switch e.Elem().Interface().(type) {
		case propagation.TraceContext:
			tc++
		case propagation.Baggage:
			bg++
		default:
			return w3cNone
		}
	}
	switch {
	case tc == 1 && bg == 0:
		return w3cTraceContext
	case tc == 1 && bg == 1:
		return w3cTraceContextBaggage
	}
	return w3cNone
}

// The members of _meta the W3C propagators read.
const (
	memberTraceparent = "traceparent"
	memberTracestate  = "tracestate"
	memberBaggage     = "baggage"
)

// extractW3C is what the recognised propagator's Extract(ctx,
// metaCarrier{m}) returns, computed without it: traceparent is parsed
// from the member's JSON bytes (decoded first only when it has escapes),
// tracestate is decoded and parsed only when the traceparent is valid
// and the member is present, and baggage is handed to
// propagation.Baggage{} only when present. found is false when m holds
// none of the propagator's fields (the caller then reads the HTTP
// headers); ctx is then returned as it is.
func extractW3C(ctx context.Context, mode w3cMode, m *protocol.Members) (_ context.Context, found bool) {
	var tp, ts json.RawMessage
	var hasTP, hasTS, hasBG bool
	for _, x := range *m { // the first member of a name, as Members.Get
		switch x.Name {
		case memberTraceparent:
			if !hasTP {
				tp, hasTP = x.Value, true
			}
		case memberTracestate:
			if !hasTS {
				ts, hasTS = x.Value, true
			}
		case memberBaggage:
			hasBG = mode == w3cTraceContextBaggage
		}
	}
	if !hasTP && !hasTS && !hasBG {
		return ctx, false
	}
	if hasTP {
		if scc, ok := traceparentOf(tp); ok {
			if hasTS {
				// A tracestate that does not parse is dropped, the
				// traceparent kept, as TraceContext does (W3C: a
				// tracestate failure must not affect traceparent).
				scc.TraceState, _ = trace.ParseTraceState(jsonString(ts))
			}
			if sc := trace.NewSpanContext(scc); sc.IsValid() {
				ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
			}
		}
	}
	if hasBG {
		ctx = propagation.Baggage{}.Extract(ctx, metaCarrier{m: m})
	}
	return ctx, true
}

// traceparentOf parses the JSON value raw of a traceparent member, as
// metaCarrier.Get and TraceContext.Extract together do: a value that is
// not a JSON string is "", which is no trace context.
func traceparentOf(raw json.RawMessage) (trace.SpanContextConfig, bool) {
	if len(raw) == traceparentLen+2 && raw[0] == '"' && raw[traceparentLen+1] == '"' &&
		raw[3] == '-' && raw[36] == '-' && raw[53] == '-' {
		// The common case first: a version 00 traceparent with no white
		// space around it. When it parses, every byte of it is a hex
		// digit or a '-': it has no escape to decode.
		if scc, ok := parseTraceparent55((*[traceparentLen]byte)(raw[1 : traceparentLen+1])); ok {
			return scc, true
		}
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return trace.SpanContextConfig{}, false
	}
	if bytes.IndexByte(raw, '\\') >= 0 {
		return parseTraceparent([]byte(jsonString(raw))) // rare: a copy
	}
	return parseTraceparent([]byte(raw[1 : len(raw)-1]))
}

// parseTraceparent parses a traceparent value as TraceContext.Extract
// (OpenTelemetry Go v1.47.0) does, returning the span context's
// configuration (Remote set, no trace state) and whether it is one:
//
//   - fields are separated by '-': the version, the trace id, the span
//     id and the flags, of exactly 2, 32, 16 and 2 lower-case hex digits;
//   - version ff is invalid; version 00 allows no flag bits but sampled
//     and random and nothing after the flags (a '-' ending the value is
//     nothing); a later version allows any flags, and anything after the
//     flags' '-';
//   - only the sampled (01) and random (02) flags are kept;
//   - all-zero trace or span ids are invalid (NewSpanContext's IsValid,
//     which the caller checks).
//
// No white space is trimmed inside the value.
func parseTraceparent(h []byte) (trace.SpanContextConfig, bool) {
	if len(h) == traceparentLen && h[2] == '-' && h[35] == '-' && h[52] == '-' {
		return parseTraceparent55((*[traceparentLen]byte)(h))
	}
	var scc trace.SpanContextConfig
	var ver, flags [1]byte
	if !hexField(ver[:], &h) || ver[0] > 254 ||
		!hexField(scc.TraceID[:], &h) || !hexField(scc.SpanID[:], &h) || !hexField(flags[:], &h) {
		return trace.SpanContextConfig{}, false
	}
	if ver[0] == 0 && (len(h) != 0 || flags[0] > 3) {
		return trace.SpanContextConfig{}, false
	}
	scc.TraceFlags = trace.TraceFlags(flags[0]) & (trace.FlagsSampled | trace.FlagsRandom)
	scc.Remote = true
	return scc, true
}

// traceparentLen is the length of a version 00 traceparent.
const traceparentLen = 2 + 1 + 32 + 1 + 16 + 1 + 2

// parseTraceparent55 is parseTraceparent for the common shape: 55 bytes
// with the '-' at 2, 35 and 52, so that each field is what
// parseTraceparent would cut (a '-' elsewhere is not a hex digit, and
// nothing follows the flags), decoded at fixed offsets, the ids eight
// digits at a time (hex8).
func parseTraceparent55(h *[traceparentLen]byte) (trace.SpanContextConfig, bool) {
	var scc trace.SpanContextConfig
	ver := hexValue[h[0]]<<4 | hexValue[h[1]]
	flags := hexValue[h[53]]<<4 | hexValue[h[54]]
	bad := hexValue[h[0]] | hexValue[h[1]] | hexValue[h[53]] | hexValue[h[54]]
	t0, ok0 := hex8(binary.LittleEndian.Uint64(h[3:11]))
	t1, ok1 := hex8(binary.LittleEndian.Uint64(h[11:19]))
	t2, ok2 := hex8(binary.LittleEndian.Uint64(h[19:27]))
	t3, ok3 := hex8(binary.LittleEndian.Uint64(h[27:35]))
	s0, ok4 := hex8(binary.LittleEndian.Uint64(h[36:44]))
	s1, ok5 := hex8(binary.LittleEndian.Uint64(h[44:52]))
	if bad&0xf0 != 0 || ver > 254 || ver == 0 && flags > 3 || !(ok0 && ok1 && ok2 && ok3 && ok4 && ok5) {
		return trace.SpanContextConfig{}, false
	}
	binary.LittleEndian.PutUint32(scc.TraceID[0:4], t0)
	binary.LittleEndian.PutUint32(scc.TraceID[4:8], t1)
	binary.LittleEndian.PutUint32(scc.TraceID[8:12], t2)
	binary.LittleEndian.PutUint32(scc.TraceID[12:16], t3)
	binary.LittleEndian.PutUint32(scc.SpanID[0:4], s0)
	binary.LittleEndian.PutUint32(scc.SpanID[4:8], s1)
	scc.TraceFlags = trace.TraceFlags(flags) & (trace.FlagsSampled | trace.FlagsRandom)
	scc.Remote = true
	return scc, true
}

// Byte lanes of a uint64, for hex8.
const (
	lanes = 0x0101010101010101 // 1 in every byte
	highs = 0x8080808080808080 // the high bit of every byte
)

// hex8 decodes eight hex digits, the bytes of x in memory order (a
// little-endian load), into the four bytes they spell, in the same
// order, and reports whether all eight were lower-case hex digits. It
// works on the eight bytes at once: once no byte has its high bit set,
// adding 0x80-c to every byte sets a byte's high bit exactly when the
// byte is at least c, with no carry into the next one; a digit is at
// least '0' and not at least '9'+1, a letter at least 'a' and not at
// least 'f'+1. A digit's value is its low four bits, a letter's those
// plus 9; the values are then packed two by two.
func hex8(x uint64) (uint32, bool) {
	digit := (x + (0x80-'0')*lanes) &^ (x + (0x80-'9'-1)*lanes)
	letter := (x + (0x80-'a')*lanes) &^ (x + (0x80-'f'-1)*lanes)
	ok := (digit|letter)&^x&highs == highs // a byte with its high bit set is not one
	v := x&(0x0f*lanes) + ((letter&highs)>>7)*9
	p := (v<<4 | v>>8) & 0x00ff00ff00ff00ff // the values of bytes 2i and 2i+1 in byte 2i
	p = (p | p>>8) & 0x0000ffff0000ffff
	return uint32(p | p>>16), ok
}

// hexField cuts *h at its first '-' (all of it when it has none), leaves
// the rest in *h and decodes the field into dst: it must have exactly
// 2*len(dst) lower-case hex digits.
func hexField(dst []byte, h *[]byte) bool {
	field, rest := *h, (*h)[len(*h):]
	if i := bytes.IndexByte(field, '-'); i >= 0 {
		field, rest = field[:i], field[i+1:]
	}
	*h = rest
	if len(field) != 2*len(dst) {
		return false
	}
	bad := byte(0)
	for i := range dst {
		hi, lo := hexValue[field[2*i]], hexValue[field[2*i+1]]
		dst[i] = hi<<4 | lo
		bad |= hi | lo
	}
	return bad&0xf0 == 0
}

// hexValue maps a byte to its value as a lower-case hex digit, and
// every other byte (upper-case A-F too) to 0xff, so that OR-ing the
// values of a field tells at once whether one was not a digit: no
// digit has a bit of 0xf0.
const hexValue = "" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\x0a\x0b\x0c\x0d\x0e\x0f\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
