package sealed

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/testutil"
)

// testSecret returns a deterministic 32-byte secret for key id.
func testSecret(id uint32) []byte {
	sum := sha256.Sum256(fmt.Appendf(nil, "sealed test secret %d", id))
	return sum[:]
}

func testKey(id uint32) Key { return Key{ID: id, Secret: testSecret(id)} }

func mustRing(t testing.TB, primary Key, older ...Key) *Keyring {
	t.Helper()
	r, err := NewKeyring(primary, older...)
	if err != nil {
		t.Fatalf("NewKeyring: %v", err)
	}
	return r
}

var testBinding = Binding{Method: "tools/call", Target: "deploy", Principal: "user:alice"}

// sentinels lists every error Open may wrap.
var sentinels = []error{ErrMalformed, ErrUnknownKey, ErrInvalid, ErrExpired, ErrTooLarge}

// checkErr fails unless err matches exactly one sentinel and that sentinel is
// in want.
func checkErr(t testing.TB, err error, want ...error) {
	t.Helper()
	if err == nil {
		t.Fatalf("got nil error, want one of %v", want)
	}
	matched := 0
	for _, s := range sentinels {
		if errors.Is(err, s) {
			matched++
		}
	}
	if matched != 1 {
		t.Fatalf("error %q matches %d sentinels, want exactly 1", err, matched)
	}
	for _, w := range want {
		if errors.Is(err, w) {
			return
		}
	}
	t.Fatalf("got error %q, want one of %v", err, want)
}

func mustSeal(t testing.TB, s *Sealer, b Binding, payload []byte) string {
	t.Helper()
	tok, err := s.Seal(b, payload)
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	return tok
}

func decodeRaw(t testing.TB, tok string) []byte {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		t.Fatalf("token is not base64url: %v", err)
	}
	return raw
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	s := NewSealer(mustRing(t, testKey(7)), Options{})
	cases := []struct {
		name    string
		payload []byte
	}{
		{"nil", nil},
		{"empty", []byte{}},
		{"one byte", []byte{0}},
		{"200 bytes", randomBytes(200, 1)},
		{"10 KiB", randomBytes(10<<10, 2)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok := mustSeal(t, s, testBinding, tc.payload)
			if strings.ContainsAny(tok, "+/=\r\n") {
				t.Fatalf("token is not unpadded base64url: %q", tok)
			}
			raw := decodeRaw(t, tok)
			if got, want := len(raw), overhead+len(tc.payload); got != want {
				t.Fatalf("raw token length = %d, want %d", got, want)
			}
			if raw[0] != formatV1 {
				t.Fatalf("version byte = %d, want %d", raw[0], formatV1)
			}
			if id := binary.BigEndian.Uint32(raw[1:5]); id != 7 {
				t.Fatalf("key ID = %d, want 7", id)
			}
			if len(tc.payload) >= 16 && bytes.Contains(raw, tc.payload) {
				t.Fatal("payload appears in clear in the token")
			}

			got, err := s.Open(testBinding, tok)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if !bytes.Equal(got, tc.payload) {
				t.Fatalf("Open returned %d bytes, want the %d sealed bytes", len(got), len(tc.payload))
			}

			// A fresh random nonce per Seal: same input, different token.
			if tok2 := mustSeal(t, s, testBinding, tc.payload); tok2 == tok {
				t.Fatal("two Seals of the same payload produced the same token")
			}
		})
	}
}

func TestSealDoesNotRetainPayload(t *testing.T) {
	s := NewSealer(mustRing(t, testKey(1)), Options{})
	payload := []byte("original")
	tok := mustSeal(t, s, testBinding, payload)
	copy(payload, "mutated!")
	got, err := s.Open(testBinding, tok)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if string(got) != "original" {
		t.Fatalf("Open = %q, want %q", got, "original")
	}
}

// TestFlipEveryByte flips every bit, and every whole byte, of the decoded
// token in turn and re-encodes it canonically.
func TestFlipEveryByte(t *testing.T) {
	s := NewSealer(mustRing(t, testKey(7)), Options{})
	tok := mustSeal(t, s, testBinding, randomBytes(100, 3))
	raw := decodeRaw(t, tok)

	for i := range raw {
		for _, mask := range []byte{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff} {
			mut := bytes.Clone(raw)
			mut[i] ^= mask
			_, err := s.Open(testBinding, base64.RawURLEncoding.EncodeToString(mut))
			switch {
			case i == 0:
				checkErr(t, err, ErrMalformed) // format version
			case i < nonceOffset:
				checkErr(t, err, ErrUnknownKey) // key ID; the ring has only key 7
			default:
				checkErr(t, err, ErrInvalid) // nonce, ciphertext, tag
			}
		}
	}
}

// TestFlipKeyIDWithinRing makes sure that changing the key ID to another ID
// in the same ring still fails authentication: the key ID is in the AAD and
// the keys differ.
func TestFlipKeyIDWithinRing(t *testing.T) {
	s := NewSealer(mustRing(t, testKey(1), testKey(3), testKey(5), testKey(0)), Options{})
	tok := mustSeal(t, s, testBinding, []byte("state"))
	raw := decodeRaw(t, tok)
	for _, id := range []uint32{0, 3, 5} {
		mut := bytes.Clone(raw)
		binary.BigEndian.PutUint32(mut[1:5], id)
		_, err := s.Open(testBinding, base64.RawURLEncoding.EncodeToString(mut))
		checkErr(t, err, ErrInvalid)
	}

	// Even when two IDs share a secret (and so an AES key), relabelling a
	// token fails, because the key ID is in the additional data.
	same := NewSealer(mustRing(t, Key{ID: 1, Secret: testSecret(1)}, Key{ID: 2, Secret: testSecret(1)}), Options{})
	raw = decodeRaw(t, mustSeal(t, same, testBinding, []byte("state")))
	binary.BigEndian.PutUint32(raw[1:5], 2)
	_, err := same.Open(testBinding, base64.RawURLEncoding.EncodeToString(raw))
	checkErr(t, err, ErrInvalid)
}

// TestFlipEveryCharacter replaces each character of the encoded token by
// every other byte value. That covers every alphabet substitution, non-alphabet
// bytes, and the non-canonical trailing bits of the last character.
func TestFlipEveryCharacter(t *testing.T) {
	s := NewSealer(mustRing(t, testKey(7)), Options{})
	for _, n := range []int{0, 1, 2, 3, 64} { // different lengths mod 3 give different last-character padding
		tok := mustSeal(t, s, testBinding, randomBytes(n, uint64(n)))
		for i := range len(tok) {
			for c := range 256 {
				if byte(c) == tok[i] {
					continue
				}
				mut := []byte(tok)
				mut[i] = byte(c)
				got, err := s.Open(testBinding, string(mut))
				if err == nil {
					t.Fatalf("payload %d bytes: token with char %d set to %q opened (%d bytes)", n, i, rune(c), len(got))
				}
				checkErr(t, err, ErrMalformed, ErrUnknownKey, ErrInvalid)
			}
			// Also the XOR-with-0x01 flip the brief describes (covered
			// above, but explicit).
			mut := []byte(tok)
			mut[i] ^= 0x01
			if _, err := s.Open(testBinding, string(mut)); err == nil {
				t.Fatalf("token with char %d flipped opened", i)
			}
		}
	}
}

// TestNonCanonicalEncoding checks that no alternative string form of a valid
// token is accepted.
func TestNonCanonicalEncoding(t *testing.T) {
	s := NewSealer(mustRing(t, testKey(7)), Options{})
	tok := mustSeal(t, s, testBinding, []byte("payload")) // 48 raw bytes: no trailing bits
	tok1 := mustSeal(t, s, testBinding, []byte("payload+1"))
	raw1 := decodeRaw(t, tok1)
	padded := base64.URLEncoding.EncodeToString(raw1)
	if padded == tok1 {
		t.Fatal("test needs a token whose raw length is not a multiple of 3")
	}

	variants := map[string]string{
		"leading LF":        "\n" + tok,
		"trailing LF":       tok + "\n",
		"embedded CRLF":     tok[:10] + "\r\n" + tok[10:],
		"embedded LF x4":    tok[:4] + "\n\n\n\n" + tok[4:],
		"padding appended":  padded,
		"standard alphabet": strings.NewReplacer("-", "+", "_", "/").Replace(tok1),
		"space":             tok[:5] + " " + tok[5:],
		"extra char":        tok + "A",
		"extra quad":        tok + "AAAA",
	}
	for name, v := range variants {
		if v == tok || v == tok1 {
			continue // e.g. no '-' or '_' in the token
		}
		if _, err := s.Open(testBinding, v); err == nil {
			t.Errorf("%s: non-canonical token opened", name)
		} else {
			checkErr(t, err, ErrMalformed, ErrInvalid)
		}
	}

	// Every nonzero value of the trailing bits of the last character.
	for _, tk := range []string{tok1, mustSeal(t, s, testBinding, []byte("payload+123"))} {
		raw := decodeRaw(t, tk)
		unused := 6 - (len(raw)*8)%6 // unused low bits in the last character
		if unused == 6 {
			t.Fatalf("token %q has no trailing bits", tk)
		}
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		last := strings.IndexByte(alphabet, tk[len(tk)-1])
		for bits := 1; bits < 1<<unused; bits++ {
			v := tk[:len(tk)-1] + string(alphabet[last|bits])
			if _, err := s.Open(testBinding, v); err == nil {
				t.Fatalf("token with trailing bits %b opened", bits)
			} else {
				checkErr(t, err, ErrMalformed)
			}
		}
	}
}

func TestTruncation(t *testing.T) {
	s := NewSealer(mustRing(t, testKey(7)), Options{})
	tok := mustSeal(t, s, testBinding, randomBytes(150, 4))

	for n := range len(tok) {
		_, err := s.Open(testBinding, tok[:n])
		checkErr(t, err, ErrMalformed, ErrInvalid)
	}
	raw := decodeRaw(t, tok)
	for n := range len(raw) {
		_, err := s.Open(testBinding, base64.RawURLEncoding.EncodeToString(raw[:n]))
		checkErr(t, err, ErrMalformed, ErrInvalid)
	}
	// Dropping bytes from the front (re-encoded) fails too.
	for n := 1; n < len(raw); n++ {
		_, err := s.Open(testBinding, base64.RawURLEncoding.EncodeToString(raw[n:]))
		checkErr(t, err, ErrMalformed, ErrUnknownKey, ErrInvalid)
	}
	// So does extending.
	for _, extra := range [][]byte{{0}, {0, 0, 0}, randomBytes(16, 5)} {
		_, err := s.Open(testBinding, base64.RawURLEncoding.EncodeToString(append(bytes.Clone(raw), extra...)))
		checkErr(t, err, ErrInvalid)
	}
}

func TestBindingMismatch(t *testing.T) {
	s := NewSealer(mustRing(t, testKey(7)), Options{})
	tok := mustSeal(t, s, testBinding, []byte("state"))

	wrong := map[string]Binding{
		"method":          {Method: "prompts/get", Target: testBinding.Target, Principal: testBinding.Principal},
		"target":          {Method: testBinding.Method, Target: "deploy2", Principal: testBinding.Principal},
		"principal":       {Method: testBinding.Method, Target: testBinding.Target, Principal: "user:mallory"},
		"unauthenticated": {Method: testBinding.Method, Target: testBinding.Target},
		"empty":           {},
		"target case":     {Method: testBinding.Method, Target: "Deploy", Principal: testBinding.Principal},
		"params":          {Method: testBinding.Method, Target: testBinding.Target, Principal: testBinding.Principal, Params: "other digest"},
	}
	for name, b := range wrong {
		t.Run(name, func(t *testing.T) {
			_, err := s.Open(b, tok)
			checkErr(t, err, ErrInvalid)
		})
	}
	if _, err := s.Open(testBinding, tok); err != nil {
		t.Fatalf("Open with the right binding: %v", err)
	}
}

// TestBindingUnambiguous checks that moving bytes between binding fields
// changes the AAD.
func TestBindingUnambiguous(t *testing.T) {
	s := NewSealer(mustRing(t, testKey(7)), Options{})
	pairs := [][2]Binding{
		{{Method: "ab", Target: "c"}, {Method: "a", Target: "bc"}},
		{{Target: "x", Principal: ""}, {Target: "", Principal: "x"}},
		{{Method: "tools/call", Target: "a\x00b"}, {Method: "tools/call", Target: "a", Principal: "b"}},
		{{Method: "m", Target: "t\x01p"}, {Method: "m", Target: "t", Principal: "p"}},
		{{Principal: "p", Params: "d"}, {Principal: "pd"}},
	}
	for _, p := range pairs {
		tok := mustSeal(t, s, p[0], []byte("x"))
		_, err := s.Open(p[1], tok)
		checkErr(t, err, ErrInvalid)
		if _, err := s.Open(p[0], tok); err != nil {
			t.Fatalf("Open(%+v): %v", p[0], err)
		}
	}
}

func TestExpiry(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	clock := testutil.NewClock(t0)
	const ttl = 90 * time.Second
	s := NewSealer(mustRing(t, testKey(7)), Options{TTL: ttl, Now: clock.Now})
	tok := mustSeal(t, s, testBinding, []byte("state"))

	for _, d := range []time.Duration{0, time.Second, ttl / 2, ttl - time.Millisecond} {
		clock.Set(t0.Add(d))
		if _, err := s.Open(testBinding, tok); err != nil {
			t.Fatalf("at +%v: Open: %v", d, err)
		}
	}
	for _, d := range []time.Duration{ttl, ttl + time.Millisecond, time.Hour, 1000 * time.Hour} {
		clock.Set(t0.Add(d))
		_, err := s.Open(testBinding, tok)
		checkErr(t, err, ErrExpired)
	}

	// Authentication comes before the expiry check: an expired token with
	// the wrong binding reports ErrInvalid, not ErrExpired.
	_, err := s.Open(Binding{Method: "tools/call", Target: "other"}, tok)
	checkErr(t, err, ErrInvalid)

	// A sealer with a longer TTL does not extend an existing token: the
	// expiry is inside the ciphertext.
	long := NewSealer(s.ring, Options{TTL: 24 * time.Hour, Now: clock.Now})
	clock.Set(t0.Add(ttl))
	_, err = long.Open(testBinding, tok)
	checkErr(t, err, ErrExpired)
}

func TestDefaultOptions(t *testing.T) {
	if DefaultTTL != 10*time.Minute || DefaultMaxBytes != 16<<10 {
		t.Fatalf("defaults changed: TTL %v, MaxBytes %d", DefaultTTL, DefaultMaxBytes)
	}
	s := NewSealer(mustRing(t, testKey(1)), Options{})
	if s.ttl != DefaultTTL {
		t.Errorf("default TTL = %v", s.ttl)
	}
	if s.maxBytes != DefaultMaxBytes {
		t.Errorf("default MaxBytes = %d", s.maxBytes)
	}
	if s.now == nil {
		t.Error("default Now is nil")
	}
	s = NewSealer(mustRing(t, testKey(1)), Options{TTL: -time.Second, MaxBytes: -1})
	if s.ttl != DefaultTTL || s.maxBytes != DefaultMaxBytes {
		t.Errorf("negative options not defaulted: ttl=%v maxBytes=%d", s.ttl, s.maxBytes)
	}

	// The default clock and TTL: a fresh token opens.
	tok := mustSeal(t, s, testBinding, []byte("x"))
	if _, err := s.Open(testBinding, tok); err != nil {
		t.Fatal(err)
	}
}

func TestNewSealerNilKeyringPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewSealer(nil) did not panic")
		}
	}()
	NewSealer(nil, Options{})
}

func TestRotation(t *testing.T) {
	oldKey, newKey := testKey(1), testKey(2)

	oldSealer := NewSealer(mustRing(t, oldKey), Options{})
	oldTok := mustSeal(t, oldSealer, testBinding, []byte("old"))

	// Phase 2: new key deployed verify-only; still seals with the old key.
	staged := NewSealer(mustRing(t, oldKey, newKey), Options{})
	if got, err := staged.Open(testBinding, oldTok); err != nil || string(got) != "old" {
		t.Fatalf("staged ring: Open(old token) = %q, %v", got, err)
	}
	if id := binary.BigEndian.Uint32(decodeRaw(t, mustSeal(t, staged, testBinding, nil))[1:5]); id != 1 {
		t.Fatalf("staged ring sealed with key %d, want 1", id)
	}

	// Phase 3: new key promoted, old key kept for verification.
	rotated := NewSealer(mustRing(t, newKey, oldKey), Options{})
	if got, err := rotated.Open(testBinding, oldTok); err != nil || string(got) != "old" {
		t.Fatalf("rotated ring: Open(old token) = %q, %v", got, err)
	}
	newTok := mustSeal(t, rotated, testBinding, []byte("new"))
	if id := binary.BigEndian.Uint32(decodeRaw(t, newTok)[1:5]); id != 2 {
		t.Fatalf("rotated ring sealed with key %d, want 2", id)
	}
	// Instances still in phase 2 can open the new tokens...
	if got, err := staged.Open(testBinding, newTok); err != nil || string(got) != "new" {
		t.Fatalf("staged ring: Open(new token) = %q, %v", got, err)
	}
	// ...but an instance that never got the new key cannot.
	_, err := oldSealer.Open(testBinding, newTok)
	checkErr(t, err, ErrUnknownKey)

	// Phase 4: old key dropped.
	final := NewSealer(mustRing(t, newKey), Options{})
	_, err = final.Open(testBinding, oldTok)
	checkErr(t, err, ErrUnknownKey)
	if got, err := final.Open(testBinding, newTok); err != nil || string(got) != "new" {
		t.Fatalf("final ring: Open(new token) = %q, %v", got, err)
	}

	// Same ID with a different secret: authentication fails.
	impostor := NewSealer(mustRing(t, Key{ID: 2, Secret: testSecret(99)}), Options{})
	_, err = impostor.Open(testBinding, newTok)
	checkErr(t, err, ErrInvalid)
}

// TestInstancesInteroperate builds two keyrings and sealers independently
// from the same secrets, as two server instances would.
func TestInstancesInteroperate(t *testing.T) {
	a := NewSealer(mustRing(t, Key{ID: 4, Secret: testSecret(4)}), Options{TTL: time.Minute})
	b := NewSealer(mustRing(t, Key{ID: 4, Secret: bytes.Clone(testSecret(4))}), Options{TTL: time.Minute})
	for i := range 10 {
		p := randomBytes(i*37, uint64(i))
		if got, err := b.Open(testBinding, mustSeal(t, a, testBinding, p)); err != nil || !bytes.Equal(got, p) {
			t.Fatalf("a->b: %v", err)
		}
		if got, err := a.Open(testBinding, mustSeal(t, b, testBinding, p)); err != nil || !bytes.Equal(got, p) {
			t.Fatalf("b->a: %v", err)
		}
	}
}

// TestKeyringDoesNotRetainSecret checks that the derivation happens in
// NewKeyring: changing the caller's secret slice afterwards has no effect.
func TestKeyringDoesNotRetainSecret(t *testing.T) {
	secret := bytes.Clone(testSecret(1))
	s := NewSealer(mustRing(t, Key{ID: 1, Secret: secret}), Options{})
	tok := mustSeal(t, s, testBinding, []byte("x"))
	clear(secret)
	other := NewSealer(mustRing(t, Key{ID: 1, Secret: testSecret(1)}), Options{})
	if _, err := other.Open(testBinding, tok); err != nil {
		t.Fatalf("token sealed before the secret was cleared: %v", err)
	}
	if _, err := s.Open(testBinding, mustSeal(t, other, testBinding, nil)); err != nil {
		t.Fatalf("ring built before the secret was cleared: %v", err)
	}
}

func TestSize(t *testing.T) {
	t.Run("seal boundary", func(t *testing.T) {
		for _, maxBytes := range []int{55, 56, 57, 58, 100, 256, 257, 258, 1000} {
			s := NewSealer(mustRing(t, testKey(1)), Options{MaxBytes: maxBytes})
			// Largest payload that fits.
			p := -1
			for base64.RawURLEncoding.EncodedLen(overhead+p+1) <= maxBytes {
				p++
			}
			if p < 0 {
				t.Fatalf("MaxBytes %d: even an empty payload does not fit", maxBytes)
			}
			tok, err := s.Seal(testBinding, make([]byte, p))
			if err != nil {
				t.Fatalf("MaxBytes %d: Seal(%d bytes): %v", maxBytes, p, err)
			}
			if len(tok) > maxBytes {
				t.Fatalf("MaxBytes %d: token is %d bytes", maxBytes, len(tok))
			}
			if _, err := s.Open(testBinding, tok); err != nil {
				t.Fatalf("MaxBytes %d: Open: %v", maxBytes, err)
			}
			_, err = s.Seal(testBinding, make([]byte, p+1))
			checkErr(t, err, ErrTooLarge)
		}
	})

	t.Run("default limit", func(t *testing.T) {
		s := NewSealer(mustRing(t, testKey(1)), Options{})
		if _, err := s.Seal(testBinding, make([]byte, 10<<10)); err != nil {
			t.Fatalf("10 KiB payload: %v", err)
		}
		for _, n := range []int{12<<10 + 1, 16 << 10, 1 << 20} {
			_, err := s.Seal(testBinding, make([]byte, n))
			checkErr(t, err, ErrTooLarge)
		}
	})

	t.Run("MaxBytes below minimum token", func(t *testing.T) {
		s := NewSealer(mustRing(t, testKey(1)), Options{MaxBytes: 10})
		_, err := s.Seal(testBinding, nil)
		checkErr(t, err, ErrTooLarge)
	})

	t.Run("open refuses before decoding", func(t *testing.T) {
		s := NewSealer(mustRing(t, testKey(1)), Options{MaxBytes: 1000})
		// Not base64 at all: decoding would report ErrMalformed, so
		// ErrTooLarge shows the size check came first.
		for _, n := range []int{1001, 1 << 20} {
			_, err := s.Open(testBinding, strings.Repeat("!", n))
			checkErr(t, err, ErrTooLarge)
		}
		_, err := s.Open(testBinding, strings.Repeat("!", 1000))
		checkErr(t, err, ErrMalformed)

		// A valid token from a sealer with a larger limit.
		big := NewSealer(s.ring, Options{MaxBytes: 4000})
		tok := mustSeal(t, big, testBinding, make([]byte, 1500))
		_, err = s.Open(testBinding, tok)
		checkErr(t, err, ErrTooLarge)
		if _, err := big.Open(testBinding, tok); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("open of huge input is cheap", func(t *testing.T) {
		s := NewSealer(mustRing(t, testKey(1)), Options{})
		huge := strings.Repeat("A", 64<<20)
		// The only allocations are the error's; nothing proportional to
		// the input.
		// Measured in bytes, not allocations: the race detector adds
		// allocations of its own, but none proportional to the input.
		var err error
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 20 {
			_, err = s.Open(testBinding, huge)
		}
		runtime.ReadMemStats(&after)
		checkErr(t, err, ErrTooLarge)
		if perOp := (after.TotalAlloc - before.TotalAlloc) / 20; perOp > 64<<10 {
			t.Fatalf("Open of a 64 MiB oversize token allocated %d bytes per call", perOp)
		}
	})
}

func TestNewKeyring(t *testing.T) {
	for _, n := range []int{0, 1, 16, 31} {
		if _, err := NewKeyring(Key{ID: 1, Secret: make([]byte, n)}); err == nil {
			t.Errorf("NewKeyring accepted a %d-byte primary secret", n)
		}
		if _, err := NewKeyring(testKey(1), testKey(2), Key{ID: 3, Secret: make([]byte, n)}); err == nil {
			t.Errorf("NewKeyring accepted a %d-byte older secret", n)
		}
	}
	if _, err := NewKeyring(Key{ID: 1}); err == nil {
		t.Error("NewKeyring accepted a nil secret")
	}
	for _, n := range []int{32, 33, 64, 1024} {
		if _, err := NewKeyring(Key{ID: 1, Secret: randomBytes(n, uint64(n))}); err != nil {
			t.Errorf("NewKeyring rejected a %d-byte secret: %v", n, err)
		}
	}

	dups := [][]Key{
		{testKey(1), testKey(1)},
		{testKey(1), Key{ID: 1, Secret: testSecret(2)}},
		{testKey(1), testKey(2), testKey(3), testKey(2)},
		{testKey(0), testKey(0)},
	}
	for _, keys := range dups {
		if _, err := NewKeyring(keys[0], keys[1:]...); err == nil {
			t.Errorf("NewKeyring accepted duplicate IDs in %v", ids(keys))
		}
	}
	if _, err := NewKeyring(testKey(0), testKey(1), testKey(1<<32-1)); err != nil {
		t.Errorf("NewKeyring rejected distinct IDs: %v", err)
	}
}

func ids(keys []Key) []uint32 {
	out := make([]uint32, len(keys))
	for i, k := range keys {
		out[i] = k.ID
	}
	return out
}

// TestErrorsDoNotLeakSecrets collects an error from every failure path and
// checks that none mentions the secret, the payload or the token.
func TestErrorsDoNotLeakSecrets(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789ABCDEF-very-secret")
	payload := []byte("payload-that-must-stay-confidential")
	clock := testutil.NewClock(time.Unix(1_800_000_000, 0))
	s := NewSealer(mustRing(t, Key{ID: 9, Secret: secret}), Options{Now: clock.Now, MaxBytes: 400})
	tok := mustSeal(t, s, testBinding, payload)
	raw := decodeRaw(t, tok)
	mut := bytes.Clone(raw)
	mut[len(mut)-1] ^= 1
	badVersion := bytes.Clone(raw)
	badVersion[0] = 2

	var errs []error
	_, err := NewKeyring(Key{ID: 1, Secret: secret[:20]})
	errs = append(errs, err)
	_, err = NewKeyring(Key{ID: 1, Secret: secret}, Key{ID: 1, Secret: secret})
	errs = append(errs, err)
	_, err = s.Seal(testBinding, make([]byte, 1000))
	errs = append(errs, err)
	for _, in := range []string{
		strings.Repeat("x", 401), "", "!!!", tok[:len(tok)-2] + "!!",
		base64.RawURLEncoding.EncodeToString(badVersion),
		base64.RawURLEncoding.EncodeToString(mut),
	} {
		_, err = s.Open(testBinding, in)
		errs = append(errs, err)
	}
	_, err = NewSealer(mustRing(t, testKey(1)), Options{}).Open(testBinding, tok)
	errs = append(errs, err)
	_, err = s.Open(Binding{}, tok)
	errs = append(errs, err)
	clock.Set(clock.Now().Add(time.Hour))
	_, err = s.Open(testBinding, tok)
	errs = append(errs, err)

	forbidden := []string{
		string(secret), hex.EncodeToString(secret), base64.StdEncoding.EncodeToString(secret),
		string(secret[:8]), string(payload), tok[:20],
	}
	for _, e := range errs {
		if e == nil {
			t.Fatal("expected an error")
		}
		msg := e.Error()
		if !strings.HasPrefix(msg, "sealed: ") {
			t.Errorf("error %q lacks the package prefix", msg)
		}
		for _, f := range forbidden {
			if strings.Contains(msg, f) {
				t.Errorf("error %q leaks %q", msg, f)
			}
		}
	}
}

func TestGarbageInputs(t *testing.T) {
	s := NewSealer(mustRing(t, testKey(0), testKey(1)), Options{})
	validRawV2 := make([]byte, overhead+10)
	validRawV2[0] = 2
	zeroKey := make([]byte, overhead+10)
	zeroKey[0] = formatV1 // key 0 is in the ring; all-zero nonce/ciphertext
	inputs := []string{
		"", "A", "AA", "AAA", "AAAA", "=", "====", "\x00", "\xff\xfe", "日本語",
		strings.Repeat("A", minTokenLen-1), strings.Repeat("A", minTokenLen),
		strings.Repeat("_", minTokenLen+1), strings.Repeat("-", 200),
		strings.Repeat("\n", 100), strings.Repeat("A", 4*25+1),
		base64.RawURLEncoding.EncodeToString(validRawV2),
		base64.RawURLEncoding.EncodeToString(zeroKey),
		base64.RawURLEncoding.EncodeToString(make([]byte, overhead)),
	}
	for i := range 2000 {
		inputs = append(inputs,
			base64.RawURLEncoding.EncodeToString(randomBytes(i%300, uint64(i))),
			string(randomBytes(i%300, uint64(i)+1<<32)))
	}
	for _, in := range inputs {
		got, err := s.Open(testBinding, in)
		if err == nil {
			t.Fatalf("garbage %q opened to %q", in, got)
		}
		checkErr(t, err, ErrMalformed, ErrUnknownKey, ErrInvalid)
	}
}

func TestConcurrent(t *testing.T) {
	keys := []Key{testKey(2), testKey(1)}
	// Two "instances" with their own rings, plus sealers sharing one ring.
	ringA := mustRing(t, keys[0], keys[1:]...)
	ringB := mustRing(t, keys[0], keys[1:]...)
	sealers := []*Sealer{
		NewSealer(ringA, Options{}),
		NewSealer(ringA, Options{TTL: time.Hour}),
		NewSealer(ringB, Options{}),
	}
	oldTok := mustSeal(t, NewSealer(mustRing(t, keys[1]), Options{}), testBinding, []byte("old"))

	const workers, iters = 16, 300
	var wg sync.WaitGroup
	errc := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range iters {
				b := Binding{Method: "tools/call", Target: fmt.Sprintf("tool-%d", w), Principal: fmt.Sprint(i % 3)}
				p := fmt.Appendf(nil, "worker %d iteration %d", w, i)
				tok, err := sealers[(w+i)%len(sealers)].Seal(b, p)
				if err != nil {
					errc <- err
					return
				}
				got, err := sealers[(w+i+1)%len(sealers)].Open(b, tok)
				if err != nil || !bytes.Equal(got, p) {
					errc <- fmt.Errorf("worker %d: Open = %q, %v", w, got, err)
					return
				}
				if _, err := sealers[i%len(sealers)].Open(Binding{Method: b.Method, Target: b.Target}, tok); !errors.Is(err, ErrInvalid) {
					errc <- fmt.Errorf("worker %d: wrong principal: %v", w, err)
					return
				}
				if got, err := sealers[w%len(sealers)].Open(testBinding, oldTok); err != nil || string(got) != "old" {
					errc <- fmt.Errorf("worker %d: old token: %q, %v", w, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}

// fuzzSeeds returns reproducible valid tokens: the fuzzing coordinator and
// its workers run FuzzOpen in separate processes, so seeds from Seal's random
// nonces would not match between them.
func fuzzSeeds(s *Sealer) map[string][]byte {
	seeds := map[string][]byte{}
	payloads := [][]byte{nil, []byte("x"), []byte(`{"step":2,"answers":["yes"]}`), randomBytes(200, 42), randomBytes(1000, 43)}
	for i, p := range payloads {
		var nonce [nonceSize]byte
		binary.BigEndian.PutUint64(nonce[:], uint64(i)+1)
		tok, err := s.seal(testBinding, p, &nonce)
		if err != nil {
			panic(err)
		}
		seeds[tok] = p
	}
	return seeds
}

func FuzzOpen(f *testing.F) {
	// A fixed clock keeps the seeds valid for the whole run.
	t0 := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	s := NewSealer(mustRing(f, testKey(1), testKey(0)), Options{Now: func() time.Time { return t0 }, MaxBytes: 4096})
	seeds := fuzzSeeds(s)
	for tok := range seeds {
		f.Add(tok)
		f.Add(tok[:len(tok)-1])
		f.Add(tok + "A")
	}
	for _, g := range []string{
		"", "A", "!!!!", "====", "\n\r", "日本語",
		strings.Repeat("A", minTokenLen), strings.Repeat("_", 120),
		base64.RawURLEncoding.EncodeToString(make([]byte, overhead+5)),
		base64.RawURLEncoding.EncodeToString(append([]byte{1, 0, 0, 0, 0}, make([]byte, 60)...)),
		strings.Repeat("x", 5000),
	} {
		f.Add(g)
	}

	f.Fuzz(func(t *testing.T, token string) {
		got, err := s.Open(testBinding, token)
		if err != nil {
			if want, ok := seeds[token]; ok {
				t.Fatalf("seed token failed to open: %v (payload %d bytes)", err, len(want))
			}
			checkErr(t, err, ErrMalformed, ErrUnknownKey, ErrInvalid, ErrTooLarge)
			return
		}
		want, ok := seeds[token]
		if !ok {
			t.Fatalf("non-seed input %q opened to %q", token, got)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("seed opened to %q, want %q", got, want)
		}
	})
}

func benchPayload() []byte { return randomBytes(200, 200) }

func BenchmarkSeal(b *testing.B) {
	s := NewSealer(mustRing(b, testKey(1)), Options{})
	p := benchPayload()
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Seal(testBinding, p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	s := NewSealer(mustRing(b, testKey(1)), Options{})
	p := benchPayload()
	tok, err := s.Seal(testBinding, p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Open(testBinding, tok); err != nil {
			b.Fatal(err)
		}
	}
}
