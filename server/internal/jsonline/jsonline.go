// Package jsonline keeps a JSON message on one line, as stdio (R-STDIO-01)
// and an SSE event's data line need it.
package jsonline

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Compact removes the line breaks that raw JSON members (a schema, a
// structuredContent, error or log data, kept as the handler wrote them)
// may carry. Inside valid JSON a raw CR or LF can only be white space, so
// compacting is lossless; msg is returned as it is when it has none, or
// when it is not valid JSON.
func Compact(msg []byte) []byte {
	if !bytes.ContainsAny(msg, "\r\n") {
		return msg
	}
	var b bytes.Buffer
	if err := json.Compact(&b, msg); err != nil {
		return msg
	}
	return b.Bytes()
}

// AppendString appends s as a JSON string, escaped as encoding/json
// escapes it (invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped).
func AppendString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			buf = append(buf, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			buf = append(buf, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

// SoleMember returns the value of the member called name of the
// top-level object in body: nil when body is no object that decodes up
// to its end, or has no such member, or more than one, or a member whose
// name is name but for case.
func SoleMember(body []byte, name string) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var found json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		switch {
		case key == name:
			if found != nil {
				return nil
			}
			found = v
		case strings.EqualFold(key, name):
			return nil
		}
	}
	return found
}

// AppendID writes a JSON-RPC request id as JSON: the integer n when
// isInt, else the string s (protocol.RequestId's IsInt, Int and Str).
func AppendID(buf []byte, isInt bool, n int64, s string) []byte {
	if isInt {
		return strconv.AppendInt(buf, n, 10)
	}
	return AppendString(buf, s)
}
