package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Defaults of JWTConfig.
const (
	// DefaultLeeway is the clock skew allowed on exp and nbf.
	DefaultLeeway = 30 * time.Second
	// DefaultMinRefreshInterval is the least time between two fetches of
	// the JWKS that an unknown kid triggers: a flood of tokens with
	// made-up key ids costs the issuer one request a minute.
	DefaultMinRefreshInterval = time.Minute
	// DefaultMaxTokenBytes bounds a token's length, checked before it is
	// parsed. Real access tokens are a few KiB at most.
	DefaultMaxTokenBytes = 16 << 10
	// DefaultMaxJWKSBytes bounds the body of a JWKS or metadata response.
	DefaultMaxJWKSBytes = 1 << 20
	// DefaultCacheSize is how many verified tokens a JWTVerifier
	// remembers (JWTConfig.CacheSize).
	DefaultCacheSize = 4096
	// DefaultCacheTTL is the longest a verified token is remembered
	// (JWTConfig.CacheTTL); never past its exp.
	DefaultCacheTTL = 5 * time.Minute
	// DefaultJWKSMaxAge is how long a fetched JWKS is trusted before it is
	// fetched again (JWTConfig.JWKSMaxAge).
	DefaultJWKSMaxAge = time.Hour
	// DefaultHTTPTimeout bounds one fetch of a JWKS or metadata document
	// when JWTConfig.HTTPClient is nil.
	DefaultHTTPTimeout = 10 * time.Second
)

// DefaultAlgorithms returns the signature algorithms a JWTVerifier
// accepts by default: every asymmetric JWS algorithm go-jose verifies
// (RSA PKCS#1 v1.5 and PSS, ECDSA on P-256/384/521, Ed25519). Never
// "none", never an HMAC algorithm: a resource server holds no shared
// secret with the issuer, and an HMAC "signed" with a public key is the
// classic key-confusion forgery.
func DefaultAlgorithms() []string {
	return []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
}

// JWTConfig configures a JWTVerifier.
type JWTConfig struct {
	// Issuer is the authorization server's issuer identifier; a token's
	// "iss" must equal it exactly. Required.
	Issuer string
	// Audience is this MCP server's canonical URI (R-AUTH-12); a token's
	// "aud" (a string or an array) must name it, compared with
	// SameResource. Required.
	Audience string
	// JWKSURL is the issuer's JSON Web Key Set. Empty: discovered from
	// Issuer, through RFC 8414 metadata
	// (/.well-known/oauth-authorization-server) and then OpenID Connect
	// discovery (/.well-known/openid-configuration); the document's
	// issuer must equal Issuer.
	JWKSURL string
	// Algorithms is the allow-list of "alg" values (default
	// DefaultAlgorithms). Only asymmetric algorithms may be listed:
	// "none" and HS256/384/512 are refused by NewJWTVerifier.
	Algorithms []string
	// Leeway is the clock skew allowed on exp and nbf (default
	// DefaultLeeway; negative: none).
	Leeway time.Duration
	// MinRefreshInterval is the least time between two JWKS fetches,
	// whether triggered by an unknown kid or by JWKSMaxAge, and whether
	// the last one succeeded or failed (default
	// DefaultMinRefreshInterval; negative: no bound, for tests only).
	// Concurrent misses share one fetch. Within the interval an unknown
	// kid is refused as ErrInvalidToken only if the last fetch succeeded
	// (the set is known to lack it); if it failed, the error does not
	// wrap ErrInvalidToken (the verifier cannot decide: 503).
	MinRefreshInterval time.Duration
	// JWKSMaxAge is how long a fetched JWKS is trusted: the first token
	// verified after it starts a fetch of the set in the background
	// (within MinRefreshInterval of the last attempt, at most once), so
	// that a key the issuer removed stops verifying once it is done
	// (default DefaultJWKSMaxAge; negative: never, only an unknown kid
	// refreshes). No token waits for it: one whose kid the held set has
	// is verified with the held keys at once. If that fetch fails, the
	// keys held are used, the failure is logged, and it is tried again
	// MinRefreshInterval later.
	JWKSMaxAge time.Duration
	// MaxTokenBytes bounds a token's length, checked before anything is
	// parsed (default DefaultMaxTokenBytes).
	MaxTokenBytes int
	// MaxJWKSBytes bounds the body of the JWKS and of the discovery
	// documents (default DefaultMaxJWKSBytes).
	MaxJWKSBytes int64
	// HTTPClient fetches the metadata and the JWKS (default: a client with
	// DefaultHTTPTimeout). Its Timeout bounds each fetch; a JWKS fetch
	// is bounded by DefaultHTTPTimeout when the client has none.
	HTTPClient *http.Client
	// Logger receives a warning when a JWKS fetch fails (at most one per
	// MinRefreshInterval). Default: slog.Default().
	Logger *slog.Logger
	// CacheSize bounds the verified-token cache (default
	// DefaultCacheSize; negative: no cache). A token that verified is
	// remembered by its SHA-256 (the token itself is not kept) until its
	// exp plus Leeway or CacheTTL, whichever is first, so that a client
	// sending the same token again skips the signature check; when the
	// cache is full the least recently used entry goes. Refusals are never cached.
	CacheSize int
	// CacheTTL bounds how long a verified token is remembered (default
	// DefaultCacheTTL). A key removed from the JWKS stops verifying new
	// tokens once the set is fetched again (JWKSMaxAge), but a token it
	// signed that is cached stays accepted until its entry expires.
	CacheTTL time.Duration
}

// JWTVerifier verifies JWT access tokens (RFC 9068) against the issuer's
// JWKS. It implements Verifier and is safe for concurrent use.
//
// A token is accepted when all of these hold, in this order (the error
// wraps ErrInvalidToken otherwise):
//   - it is at most MaxTokenBytes long, a JWS in compact serialization
//     with one signature, and its "alg" is in the allow-list;
//   - its "typ" header is "at+jwt" or "application/at+jwt" (RFC 9068
//     §2.1), or "JWT", "application/jwt" or absent: many authorization
//     servers issue access tokens with a plain JWT type, so only another
//     explicit type (an ID token's, a logout token's) is refused;
//   - a key of the JWKS with its "kid" (any key when it has none) fits
//     the algorithm (kty and curve, the key's own "alg" and "use" when
//     set) and verifies the signature. An unknown kid refreshes the set
//     once, at most once per MinRefreshInterval; it is invalid only when
//     the last fetch succeeded without it (after a failed fetch the error
//     does not wrap ErrInvalidToken until a fetch succeeds);
//   - "iss" equals Issuer; "aud" names Audience; "exp" is present and
//     not past, "nbf" (when present) not ahead, both with Leeway; "sub"
//     is present (it is half of the principal).
//
// RFC 9068 also makes iat, jti and client_id mandatory; they are not
// checked, since several authorization servers leave one out and none
// bears on whether this server may accept the token.
type JWTVerifier struct {
	issuer   string
	audience string // canonical
	algs     []jose.SignatureAlgorithm
	leeway   time.Duration
	maxToken int
	keys     *keySet
	cache    *tokenCache // nil: CacheSize < 0
	now      func() time.Time
}

// NewJWTVerifier checks cfg, discovers the JWKS URL when cfg.JWKSURL is
// empty, and fetches the key set once: an issuer that cannot be reached
// at start is an error, not a server that refuses every token.
func NewJWTVerifier(ctx context.Context, cfg JWTConfig) (*JWTVerifier, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("auth: JWTConfig.Issuer is required")
	}
	aud, err := CanonicalResource(cfg.Audience)
	if err != nil {
		return nil, fmt.Errorf("auth: JWTConfig.Audience: %w", err)
	}
	names := cfg.Algorithms
	if len(names) == 0 {
		names = DefaultAlgorithms()
	}
	allowed := DefaultAlgorithms()
	var algs []jose.SignatureAlgorithm
	for _, a := range names {
		if !slices.Contains(allowed, a) {
			return nil, fmt.Errorf("auth: JWTConfig.Algorithms: %q is not an asymmetric signature algorithm (allowed: %s)", a, strings.Join(allowed, " "))
		}
		algs = append(algs, jose.SignatureAlgorithm(a))
	}
	switch {
	case cfg.Leeway == 0:
		cfg.Leeway = DefaultLeeway
	case cfg.Leeway < 0:
		cfg.Leeway = 0
	}
	switch {
	case cfg.MinRefreshInterval == 0:
		cfg.MinRefreshInterval = DefaultMinRefreshInterval
	case cfg.MinRefreshInterval < 0:
		cfg.MinRefreshInterval = 0
	}
	switch {
	case cfg.JWKSMaxAge == 0:
		cfg.JWKSMaxAge = DefaultJWKSMaxAge
	case cfg.JWKSMaxAge < 0:
		cfg.JWKSMaxAge = 0
	}
	if cfg.MaxTokenBytes <= 0 {
		cfg.MaxTokenBytes = DefaultMaxTokenBytes
	}
	if cfg.MaxJWKSBytes <= 0 {
		cfg.MaxJWKSBytes = DefaultMaxJWKSBytes
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	if cfg.CacheSize == 0 {
		cfg.CacheSize = DefaultCacheSize
	}
	if cfg.CacheTTL <= 0 {
		cfg.CacheTTL = DefaultCacheTTL
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	fetchTimeout := cfg.HTTPClient.Timeout
	if fetchTimeout <= 0 {
		fetchTimeout = DefaultHTTPTimeout
	}
	if cfg.JWKSURL == "" {
		u, err := discoverJWKS(ctx, cfg.HTTPClient, cfg.Issuer, cfg.MaxJWKSBytes)
		if err != nil {
			return nil, err
		}
		cfg.JWKSURL = u
	}
	v := &JWTVerifier{
		issuer: cfg.Issuer, audience: aud, algs: algs, leeway: cfg.Leeway, maxToken: cfg.MaxTokenBytes,
		now: time.Now,
	}
	if cfg.CacheSize > 0 {
		v.cache = newTokenCache(cfg.CacheSize, cfg.CacheTTL)
	}
	v.keys = &keySet{url: cfg.JWKSURL, client: cfg.HTTPClient, maxBytes: cfg.MaxJWKSBytes, minInterval: cfg.MinRefreshInterval,
		fetchTimeout: fetchTimeout, maxAge: cfg.JWKSMaxAge, log: cfg.Logger, now: func() time.Time { return v.now() }}
	if _, err := v.keys.refresh(ctx, true); err != nil {
		return nil, err
	}
	return v, nil
}

// invalid wraps ErrInvalidToken with a reason.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidToken, fmt.Sprintf(format, args...))
}

// Verify implements Verifier. The TokenInfo's Claims, Scopes and
// Audience may be shared with other requests presenting the same token
// (the cache, CacheSize): read them, do not modify them.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	if len(token) > v.maxToken {
		return nil, invalid("token of %d bytes over the limit of %d", len(token), v.maxToken)
	}
	if v.cache == nil {
		return v.verify(ctx, token)
	}
	key := cacheKey(token)
	if ti, ok := v.cache.get(key, v.now()); ok {
		return ti, nil
	}
	ti, err := v.verify(ctx, token)
	if err == nil {
		v.cache.put(key, ti, v.now(), v.leeway)
	}
	return ti, err
}

// verify checks a token from scratch.
func (v *JWTVerifier) verify(ctx context.Context, token string) (*TokenInfo, error) {
	jws, err := jose.ParseSignedCompact(token, v.algs)
	if err != nil {
		if alg, ok := headerAlg(token); ok && !slices.Contains(v.algs, jose.SignatureAlgorithm(alg)) {
			return nil, invalid("algorithm %q not allowed", alg)
		}
		return nil, invalid("malformed token")
	}
	if len(jws.Signatures) != 1 {
		return nil, invalid("malformed token")
	}
	hdr := jws.Signatures[0].Protected
	if typ, ok := hdr.ExtraHeaders[jose.HeaderType]; ok {
		s, _ := typ.(string)
		switch strings.ToLower(s) {
		case "at+jwt", "application/at+jwt", "jwt", "application/jwt":
		default:
			return nil, invalid("typ %q is not an access token's", s)
		}
	}
	payload, err := v.verifySignature(ctx, jws, hdr.KeyID, hdr.Algorithm)
	if err != nil {
		return nil, err
	}
	return v.checkClaims(payload)
}

// verifySignature finds the key and checks the signature.
func (v *JWTVerifier) verifySignature(ctx context.Context, jws *jose.JSONWebSignature, kid, alg string) ([]byte, error) {
	if v.keys.stale() {
		v.keys.refreshInBackground(ctx) // the keys held serve meanwhile, and on its failure
	}
	keys := v.keys.snapshot()
	cands, known := candidates(keys, kid, alg)
	if !known {
		// Waits for the fetch in flight (perhaps the one just started).
		fresh, err := v.keys.refresh(ctx, false)
		switch {
		case errors.Is(err, errRateLimited): // the last fetch, which succeeded, lacked it
			return nil, invalid("unknown key id %q", kid)
		case err != nil: // this fetch, or the last one, failed: cannot decide
			return nil, fmt.Errorf("auth: refreshing the JWKS for key id %q: %w", kid, err)
		}
		if cands, known = candidates(fresh, kid, alg); !known {
			return nil, invalid("unknown key id %q", kid)
		}
	}
	if len(cands) == 0 {
		return nil, invalid("key %q does not fit algorithm %s", kid, alg)
	}
	for i := range cands {
		if payload, err := jws.Verify(cands[i].Key); err == nil {
			return payload, nil
		}
	}
	return nil, invalid("signature invalid")
}

// candidates are the keys that may verify a signature by kid with alg;
// known reports whether the set has a key with that kid at all (with no
// kid: whether any key fits the algorithm).
func candidates(keys []jose.JSONWebKey, kid, alg string) (out []jose.JSONWebKey, known bool) {
	for i := range keys {
		k := &keys[i]
		if kid != "" && k.KeyID != kid {
			continue
		}
		if kid != "" {
			known = true
		}
		if keyFits(k, alg) {
			out = append(out, *k)
		}
	}
	if kid == "" {
		known = len(out) > 0
	}
	return out, known
}

// headerAlg reads the "alg" of a compact JWS's header, for the error of a
// refused algorithm.
func headerAlg(token string) (string, bool) {
	h, _, ok := strings.Cut(token, ".")
	if !ok {
		return "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil {
		return "", false
	}
	var hdr struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(raw, &hdr) != nil {
		return "", false
	}
	return hdr.Alg, true
}

// checkClaims decodes the verified payload and checks iss, aud, exp,
// nbf and sub.
func (v *JWTVerifier) checkClaims(payload []byte) (*TokenInfo, error) {
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil || claims == nil {
		return nil, invalid("claims are not a JSON object")
	}
	ti := &TokenInfo{Claims: claims}
	ti.Issuer, _ = claims["iss"].(string)
	if ti.Issuer != v.issuer {
		return nil, invalid("issuer %q not accepted", ti.Issuer)
	}
	aud, ok := stringList(claims["aud"])
	if !ok {
		return nil, invalid("aud is neither a string nor an array of strings")
	}
	if len(aud) == 0 {
		return nil, invalid("no audience")
	}
	ti.Audience = aud
	if !slices.ContainsFunc(aud, func(a string) bool { return SameResource(a, v.audience) }) {
		return nil, invalid("audience %q is not this resource", strings.Join(aud, " "))
	}
	now := v.now()
	var err error
	if ti.Expiry, ok, err = numericDate(claims, "exp"); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalid("no expiry")
	}
	if now.After(ti.Expiry.Add(v.leeway)) {
		return nil, invalid("expired")
	}
	if ti.NotBefore, ok, err = numericDate(claims, "nbf"); err != nil {
		return nil, err
	} else if ok && now.Add(v.leeway).Before(ti.NotBefore) {
		return nil, invalid("not yet valid")
	}
	if ti.IssuedAt, _, err = numericDate(claims, "iat"); err != nil {
		return nil, err
	}
	ti.Subject, _ = claims["sub"].(string)
	if ti.Subject == "" {
		return nil, invalid("no subject")
	}
	// Never a client's namespace: that is for introspection's sub-less
	// tokens, which this verifier's principals must not meet either.
	ti.Subject = principalSubject(ti.Subject, "")
	if ti.ClientID, _ = claims["client_id"].(string); ti.ClientID == "" {
		ti.ClientID, _ = claims["azp"].(string)
	}
	ti.Scopes = scopes(claims)
	return ti, nil
}

// stringList reads a string or an array of strings; absent is an empty
// list.
func stringList(v any) ([]string, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case string:
		if x == "" {
			return nil, true
		}
		return []string{x}, true
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// numericDate reads a NumericDate claim (RFC 7519 §2): seconds since the
// epoch, possibly fractional.
func numericDate(claims map[string]any, name string) (time.Time, bool, error) {
	raw, ok := claims[name]
	if !ok || raw == nil {
		return time.Time{}, false, nil
	}
	f, ok := raw.(float64)
	if !ok || math.IsNaN(f) || f < 0 || f > 1<<40 {
		return time.Time{}, false, invalid("%s is not a NumericDate", name)
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true, nil
}

// scopes reads "scope" (RFC 9068 §2.2.3: space separated), or, from
// issuers that use it, "scp" (a string or an array).
func scopes(claims map[string]any) []string {
	if s, ok := claims["scope"].(string); ok {
		return strings.Fields(s)
	}
	switch x := claims["scp"].(type) {
	case string:
		return strings.Fields(x)
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
