// Package sealed seals and opens the opaque requestState strings used by
// multi round-trip requests (MRTR).
//
// When a tools/call, prompts/get or resources/read handler needs more input
// from the client it returns an input_required result carrying state that the
// client echoes back on the retry. MCP is stateless, so that state travels
// through the client. The runtime, not the handler, seals it with a [Sealer]
// so the client can neither read nor forge it. Any server instance that
// shares the [Keyring] secrets can open it again, which is what makes this
// work behind a load balancer.
//
// # Token format
//
// A token is the unpadded base64url encoding (RFC 4648 §5) of
//
//	version (1 byte, currently 1)
//	key ID  (4 bytes, big-endian uint32)
//	nonce   (12 random bytes)
//	ciphertext || GCM tag (16 bytes)
//
// The plaintext is the expiry time (unix milliseconds, big-endian int64)
// followed by the handler's payload. Encryption is AES-256-GCM. Each [Key]
// secret goes through HKDF-SHA256 (info "mcpwire requestState v1") once, in
// [NewKeyring], to get that key's AES-256 key. The additional authenticated
// data is the version byte, the key ID and the three [Binding] fields, each
// prefixed with its length (uvarint), so no two different bindings encode to
// the same bytes. A sealed token is therefore 41 bytes plus the payload
// before encoding, or about 4/3 of that once encoded.
//
// Open only accepts the canonical encoding: no padding, no line breaks and no
// nonzero trailing bits. Every token has exactly one valid string form.
//
// # Threat model
//
// The client, and anyone who sees the token on the way, is the adversary.
// The package provides:
//
//   - Confidentiality: the payload can't be read without a ring secret. Its
//     length is not hidden; the token length reveals it. Pad the payload if
//     its length is itself sensitive.
//   - Integrity: changing any bit of a token, or splicing parts of tokens
//     together, makes Open fail with [ErrInvalid]. A token can only come
//     from a holder of a ring secret.
//   - Binding: a token is bound to the method, target (tool name, prompt
//     name or resource URI) and authenticated principal it was sealed for.
//     Presenting it for another tool, another method or another principal
//     fails with [ErrInvalid]. That failure is indistinguishable on purpose
//     from a tampered token. Tokens sealed with an empty Principal
//     (unauthenticated) can be used by any unauthenticated caller that
//     holds them. Tokens are not bound to the request arguments: a handler
//     that cares must put what it needs to check in the payload.
//   - Expiry: a token can be opened until its TTL has passed ([ErrExpired]
//     after that). The expiry is authenticated, so the client can't extend
//     it. Instances compare it with their own clocks, so clock skew between
//     instances shifts the effective lifetime.
//
// It does not provide replay protection. Within its TTL a token can be
// presented any number of times, to any instance. This is by design: the
// protocol is stateless and the runtime keeps no record of used tokens.
// Handlers must be idempotent with respect to a replayed requestState, or
// embed their own nonce in the payload and track its use in shared storage.
//
// Anyone who holds a ring secret can read and forge tokens. Secrets must come
// from a CSPRNG (at least [MinSecretSize] bytes) and be kept server-side.
// Nonces are random (96 bits), so a single key should seal well under 2^32
// tokens; rotate keys well before that.
//
// Error values never contain secret material or payload bytes. Errors tell
// [ErrMalformed], [ErrUnknownKey], [ErrInvalid], [ErrExpired] and
// [ErrTooLarge] apart (use errors.Is). Key IDs are not secret.
//
// # Key rotation
//
// Every token records the ID of the key that sealed it. A [Keyring] seals
// with its primary key and opens with any of its keys. To rotate from key N
// to key N+1 across a fleet that shares secrets:
//
//  1. Generate a new random secret with a new ID, N+1.
//  2. Deploy it everywhere as a verification-only key:
//     NewKeyring(keyN, keyN1). With a rolling deploy, this makes every
//     instance able to open N+1 tokens before any instance starts sealing
//     with it.
//  3. Promote it: NewKeyring(keyN1, keyN). New tokens use N+1, and
//     outstanding N tokens still open.
//  4. Once the TTL (plus a margin for clock skew) has passed since the last
//     instance stopped sealing with N, drop it: NewKeyring(keyN1). Leftover
//     N tokens now fail with [ErrUnknownKey].
//
// If a single instance, or every instance at once, swaps its ring, step 2
// can be skipped. Keyrings are immutable: to rotate, build a new Keyring and
// Sealer and swap them in atomically.
package sealed
