package sealed

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

const (
	// MinSecretSize is the minimum length in bytes of a Key.Secret.
	MinSecretSize = 32

	// DefaultTTL is the token lifetime used when Options.TTL is zero or
	// negative.
	DefaultTTL = 10 * time.Minute

	// DefaultMaxBytes is the maximum encoded token size used when
	// Options.MaxBytes is zero or negative.
	DefaultMaxBytes = 16 << 10
)

const (
	formatV1    byte = 1
	hkdfInfo         = "mcpwire requestState v1"
	aesKeySize       = 32 // AES-256
	idSize           = 4
	nonceSize        = 12
	expirySize       = 8
	tagSize          = 16
	nonceOffset      = 1 + idSize
	headerSize       = nonceOffset + nonceSize           // version | key ID | nonce
	overhead         = headerSize + expirySize + tagSize // raw token size for an empty payload
)

// enc is the token alphabet: base64url without padding. Strict mode
// rejects nonzero trailing bits. Open also rejects the CR/LF that the
// decoder would otherwise skip, so every token has exactly one valid string
// form.
var enc = base64.RawURLEncoding.Strict()

// minTokenLen is the encoded length of the smallest possible token.
var minTokenLen = enc.EncodedLen(overhead)

var (
	// ErrMalformed means the token is not a well-formed sealed token: it is
	// not canonical base64url, it is too short, or its format version is
	// unknown.
	ErrMalformed = errors.New("sealed: malformed token")

	// ErrUnknownKey means the token names a key ID that is not in the
	// keyring. It may be a forgery, or a token sealed with a key that has
	// already been rotated out.
	ErrUnknownKey = errors.New("sealed: unknown key")

	// ErrInvalid means authentication failed. Either the token was changed,
	// or it was sealed for a different Binding (method, target, principal
	// or params). The two cases are indistinguishable by design.
	ErrInvalid = errors.New("sealed: invalid token")

	// ErrExpired means the token is authentic but its TTL has passed.
	ErrExpired = errors.New("sealed: token expired")

	// ErrTooLarge means the token, or the token a payload would produce,
	// is longer than Options.MaxBytes.
	ErrTooLarge = errors.New("sealed: token too large")
)

// Binding is what a sealed state is bound to. Open fails with ErrInvalid if
// any field differs from the one used by Seal.
type Binding struct {
	Method    string // "tools/call", "prompts/get" or "resources/read"
	Target    string // tool name, prompt name or resource URI
	Principal string // authenticated principal ("" when unauthenticated)
	Params    string // digest of the request's salient params (tool or prompt arguments); "" for none
}

// Key is one versioned secret. ID is a small version number written into
// every token sealed with the key. Secret must hold at least MinSecretSize
// bytes from a cryptographically secure random source. It is only read by
// NewKeyring and not retained.
type Key struct {
	ID     uint32
	Secret []byte
}

// ringKey is a Key after derivation: its ID and ready-to-use AEAD.
type ringKey struct {
	id   uint32
	aead cipher.AEAD
}

// Keyring holds the derived keys of a set of versioned secrets. It seals
// with its primary key and opens with any of its keys. For rotation, build a
// new Keyring with the new key as primary and keep the old keys for
// verification until their tokens have expired (see the package
// documentation).
//
// A Keyring is immutable after construction and safe for concurrent use.
type Keyring struct {
	primary ringKey
	keys    []ringKey // every key, primary first; rings are small, so a linear scan beats a map
}

// NewKeyring derives an AES-256-GCM key from each secret with HKDF-SHA256 and
// returns a ring that seals with primary and opens with primary and older.
// It fails if any secret is shorter than MinSecretSize or two keys share an
// ID. The returned errors name key IDs but never secret material.
func NewKeyring(primary Key, older ...Key) (*Keyring, error) {
	all := make([]Key, 0, 1+len(older))
	all = append(all, primary)
	all = append(all, older...)

	r := &Keyring{keys: make([]ringKey, 0, len(all))}
	for _, k := range all {
		if len(k.Secret) < MinSecretSize {
			return nil, fmt.Errorf("sealed: key %d: secret must be at least %d bytes", k.ID, MinSecretSize)
		}
		for _, seen := range r.keys {
			if seen.id == k.ID {
				return nil, fmt.Errorf("sealed: duplicate key ID %d", k.ID)
			}
		}
		aead, err := deriveAEAD(k.Secret)
		if err != nil {
			return nil, fmt.Errorf("sealed: key %d: %w", k.ID, err)
		}
		r.keys = append(r.keys, ringKey{id: k.ID, aead: aead})
	}
	r.primary = r.keys[0]
	return r, nil
}

// deriveAEAD turns a secret into an AES-256-GCM AEAD.
func deriveAEAD(secret []byte) (cipher.AEAD, error) {
	key, err := hkdf.Key(sha256.New, secret, nil, hkdfInfo, aesKeySize)
	if err != nil {
		return nil, errors.New("key derivation failed") // don't wrap: keep secret-derived state out of errors
	}
	block, err := aes.NewCipher(key)
	clear(key)
	if err != nil {
		return nil, errors.New("creating AES cipher failed")
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, errors.New("creating GCM failed")
	}
	return aead, nil
}

// lookup returns the AEAD for key ID id, or nil if the ring lacks it.
func (r *Keyring) lookup(id uint32) cipher.AEAD {
	for i := range r.keys {
		if r.keys[i].id == id {
			return r.keys[i].aead
		}
	}
	return nil
}

// Options configures a Sealer. The zero value gives the defaults.
type Options struct {
	// TTL is how long a token can be opened after it was sealed.
	// Zero or negative means DefaultTTL (10 minutes).
	TTL time.Duration

	// MaxBytes is the maximum size of an encoded token. Seal refuses a
	// payload whose token would be larger, and Open refuses a longer input
	// before doing any other work. Zero or negative means DefaultMaxBytes
	// (16 KiB).
	MaxBytes int

	// Now returns the current time. It exists for tests. Nil means
	// time.Now.
	Now func() time.Time
}

// Sealer seals and opens request state with a Keyring. Create one with
// NewSealer; the zero value is not usable. A Sealer is safe for concurrent
// use.
type Sealer struct {
	ring     *Keyring
	ttl      time.Duration
	maxBytes int
	now      func() time.Time
}

// NewSealer returns a Sealer that uses k with opts, filling in defaults for
// zero fields. It panics if k is nil, since that is a programming error.
func NewSealer(k *Keyring, opts Options) *Sealer {
	if k == nil {
		panic("sealed: NewSealer called with a nil *Keyring")
	}
	s := &Sealer{ring: k, ttl: opts.TTL, maxBytes: opts.MaxBytes, now: opts.Now}
	if s.ttl <= 0 {
		s.ttl = DefaultTTL
	}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMaxBytes
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Seal encrypts payload under the ring's primary key, bound to b, and returns
// an opaque URL-safe token that expires after the Sealer's TTL. It fails with
// ErrTooLarge if the token would be longer than MaxBytes. Seal doesn't keep
// payload.
func (s *Sealer) Seal(b Binding, payload []byte) (string, error) {
	var nonce [nonceSize]byte
	if _, err := rand.Read(nonce[:]); err != nil { // never fails on supported platforms
		return "", errors.New("sealed: seal: reading random nonce failed")
	}
	return s.seal(b, payload, &nonce)
}

// seal is Seal with a given nonce. Tests use it to make tokens that are
// reproducible; production code must always pass a fresh random nonce.
func (s *Sealer) seal(b Binding, payload []byte, nonce *[nonceSize]byte) (string, error) {
	// The first comparison keeps the length arithmetic from overflowing.
	if len(payload) > s.maxBytes || enc.EncodedLen(overhead+len(payload)) > s.maxBytes {
		return "", fmt.Errorf("%w: seal: a %d-byte payload exceeds the %d-byte token limit",
			ErrTooLarge, len(payload), s.maxBytes)
	}
	k := s.ring.primary

	// One buffer: header | expiry | payload, then sealed in place (GCM allows
	// the output to overlap the plaintext exactly), leaving room for the tag.
	buf := make([]byte, headerSize+expirySize+len(payload), overhead+len(payload))
	buf[0] = formatV1
	binary.BigEndian.PutUint32(buf[1:nonceOffset], k.id)
	copy(buf[nonceOffset:headerSize], nonce[:])
	binary.BigEndian.PutUint64(buf[headerSize:], uint64(s.now().Add(s.ttl).UnixMilli()))
	copy(buf[headerSize+expirySize:], payload)

	aad := appendAAD(make([]byte, 0, aadSize(b)), formatV1, k.id, b)
	raw := k.aead.Seal(buf[:headerSize], buf[nonceOffset:headerSize], buf[headerSize:], aad)
	return enc.EncodeToString(raw), nil
}

// Open authenticates and decrypts token. It checks that token was sealed for
// exactly b and has not expired, and returns the payload, which the caller
// owns.
//
// Errors wrap ErrTooLarge (input longer than MaxBytes, checked before any
// decoding), ErrMalformed, ErrUnknownKey, ErrInvalid or ErrExpired. Open never
// panics, whatever the input.
func (s *Sealer) Open(b Binding, token string) ([]byte, error) {
	if len(token) > s.maxBytes {
		return nil, fmt.Errorf("%w: open: %d-byte token exceeds the %d-byte limit", ErrTooLarge, len(token), s.maxBytes)
	}
	if len(token) < minTokenLen {
		return nil, fmt.Errorf("%w: open: token too short", ErrMalformed)
	}
	raw, err := enc.DecodeString(token)
	if err != nil {
		return nil, fmt.Errorf("%w: open: not base64url: %v", ErrMalformed, err)
	}
	// The decoder skips CR and LF. Only a token free of them re-encodes to
	// its own length.
	if enc.EncodedLen(len(raw)) != len(token) {
		return nil, fmt.Errorf("%w: open: non-canonical base64url", ErrMalformed)
	}
	if len(raw) < overhead {
		return nil, fmt.Errorf("%w: open: token too short", ErrMalformed)
	}
	if raw[0] != formatV1 {
		return nil, fmt.Errorf("%w: open: unknown format version %d", ErrMalformed, raw[0])
	}
	id := binary.BigEndian.Uint32(raw[1:nonceOffset])
	aead := s.ring.lookup(id)
	if aead == nil {
		return nil, fmt.Errorf("%w: open: key ID %d is not in the keyring", ErrUnknownKey, id)
	}

	aad := appendAAD(make([]byte, 0, aadSize(b)), formatV1, id, b)
	body := raw[headerSize:]
	plain, err := aead.Open(body[:0], raw[nonceOffset:headerSize], body, aad)
	if err != nil {
		return nil, fmt.Errorf("%w: open: authentication failed (token altered or bound to another method, target, principal or params)", ErrInvalid)
	}
	// len(plain) >= expirySize because len(raw) >= overhead.
	expiry := int64(binary.BigEndian.Uint64(plain[:expirySize]))
	if s.now().UnixMilli() >= expiry {
		return nil, fmt.Errorf("%w: open: expired at %s", ErrExpired, time.UnixMilli(expiry).UTC().Format(time.RFC3339Nano))
	}
	return plain[expirySize:], nil
}

// aadSize is an upper bound on the length of the additional data for b.
func aadSize(b Binding) int {
	return 1 + idSize + 4*binary.MaxVarintLen64 + len(b.Method) + len(b.Target) + len(b.Principal) + len(b.Params)
}

// appendAAD appends the additional authenticated data: version, key ID and
// each Binding field prefixed with its uvarint length, so that distinct
// bindings never produce the same bytes.
func appendAAD(dst []byte, version byte, id uint32, b Binding) []byte {
	dst = append(dst, version)
	dst = binary.BigEndian.AppendUint32(dst, id)
	for _, f := range [...]string{b.Method, b.Target, b.Principal, b.Params} {
		dst = binary.AppendUvarint(dst, uint64(len(f)))
		dst = append(dst, f...)
	}
	return dst
}
