package legacy

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
)

// SSE event ids of legacy streams (docs/dual-era.md §4.8): <stream>.<seq>,
// where <stream> is 12 base64url characters naming the stream within its
// session and <seq> a decimal counter from 0 (the priming event).
//
// The 9 bytes of a stream id are 5 random bytes, whose first bit says
// whether it is the standalone GET stream, and 4 bytes of
// HMAC-SHA256(session key, the 5 bytes). So an id names its kind of stream
// even when its log is gone (a POST stream that cannot be resumed is 400;
// a standalone one is opened fresh), and an id of another session does
// not verify: it is refused (400 -32600) without reading any store, and a
// client cannot make one up for a session whose key it does not know.

// streamIDLen is the length of a stream id: 12 base64url characters.
const streamIDLen = 12

// maxLastEventID bounds a Last-Event-ID worth parsing: 12 + 1 + 19.
const maxLastEventID = streamIDLen + 1 + 19

const (
	streamRandBytes = 5
	streamTagBytes  = 4
	standaloneBit   = 0x80
)

func streamTag(sessionKey string, r []byte) []byte {
	mac := hmac.New(sha256.New, []byte(sessionKey))
	mac.Write([]byte("mcpwire/stream\x00"))
	mac.Write(r)
	return mac.Sum(nil)[:streamTagBytes]
}

// newSessionStreamID mints the id of a new stream of session key.
func newSessionStreamID(sessionKey string, standalone bool) (string, error) {
	b := make([]byte, streamRandBytes, streamRandBytes+streamTagBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("legacy: stream id: %w", err)
	}
	b[0] &^= standaloneBit
	if standalone {
		b[0] |= standaloneBit
	}
	b = append(b, streamTag(sessionKey, b)...)
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// checkStreamID reports whether id was minted for session key, and
// whether it names the standalone stream.
func checkStreamID(sessionKey, id string) (standalone, ok bool) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(id)
	if err != nil || len(b) != streamRandBytes+streamTagBytes {
		return false, false
	}
	if !hmac.Equal(b[streamRandBytes:], streamTag(sessionKey, b[:streamRandBytes])) {
		return false, false
	}
	return b[0]&standaloneBit != 0, true
}

// eventID formats the id of event seq of stream.
func eventID(stream string, seq int64) string {
	return stream + "." + strconv.FormatInt(seq, 10)
}

// parseLastEventID parses a Last-Event-ID strictly: it must match
// ^[A-Za-z0-9_-]{12}\.(0|[1-9][0-9]{0,18})$ and the seq must fit an int64.
func parseLastEventID(v string) (stream string, seq int64, ok bool) {
	if len(v) < streamIDLen+2 || len(v) > maxLastEventID || v[streamIDLen] != '.' {
		return "", 0, false
	}
	for i := 0; i < streamIDLen; i++ {
		c := v[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return "", 0, false
		}
	}
	digits := v[streamIDLen+1:]
	if digits[0] == '0' && len(digits) > 1 {
		return "", 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return "", 0, false
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return "", 0, false
	}
	return v[:streamIDLen], n, true
}
