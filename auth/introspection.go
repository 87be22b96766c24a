package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// The defaults of IntrospectionConfig's limits.
const (
	// DefaultIntrospectionCacheSize is the default IntrospectionConfig.CacheSize.
	DefaultIntrospectionCacheSize = 10000
	// DefaultIntrospectionMaxCacheTTL is the default IntrospectionConfig.MaxCacheTTL.
	DefaultIntrospectionMaxCacheTTL = 5 * time.Minute
	// DefaultIntrospectionNegativeCacheTTL is the default
	// IntrospectionConfig.NegativeCacheTTL.
	DefaultIntrospectionNegativeCacheTTL = 10 * time.Second
	// DefaultIntrospectionMaxResponseBytes is the default
	// IntrospectionConfig.MaxResponseBytes.
	DefaultIntrospectionMaxResponseBytes = 64 << 10
	// DefaultIntrospectionTimeout is the default IntrospectionConfig.Timeout.
	DefaultIntrospectionTimeout = 10 * time.Second
	// DefaultIntrospectionLeeway is the default IntrospectionConfig.Leeway.
	DefaultIntrospectionLeeway = 30 * time.Second
)

// IntrospectionConfig configures NewIntrospectionVerifier.
//
// For every limit, the zero value means its default; a negative value
// means "off" where that is meaningful (no cache, no leeway) and is an
// error where it is not (MaxTokenBytes, MaxResponseBytes, Timeout).
type IntrospectionConfig struct {
	// Endpoint is the authorization server's RFC 7662 introspection
	// endpoint: an absolute https URL, or http on a loopback host.
	// Required.
	Endpoint string
	// ClientID and ClientSecret authenticate this resource server to the
	// endpoint with HTTP Basic, each form-urlencoded first (RFC 6749
	// §2.3.1, client_secret_basic). Both empty sends no Authorization
	// header, for an HTTPClient that authenticates some other way (mutual
	// TLS, RFC 8705); one without the other is an error.
	ClientID, ClientSecret string
	// Issuer, if set, must equal the response's "iss" exactly when the
	// response has one; a response without "iss" is taken to come from
	// Issuer (the endpoint is that issuer's) and TokenInfo.Issuer is set
	// to it.
	Issuer string
	// Audience is this server's canonical URI (R-AUTH-12); one of the
	// response's "aud" values must name the same resource (SameResource:
	// scheme and host without regard to case, the default port and one
	// trailing slash dropped, the path's case kept). A response without
	// "aud" is refused (RFC 8707, R-AUTH-05). Required, and an http or
	// https URI (CanonicalResource), as JWTConfig.Audience.
	Audience string
	// CacheSize bounds the number of cached active results, and
	// separately of cached inactive ones (so that a flood of bad tokens
	// cannot evict the good ones). Default 10,000; negative: no cache.
	CacheSize int
	// MaxCacheTTL bounds how long an active result is trusted without
	// asking again (and so how late a revocation is noticed); an entry
	// also ends at the token's "exp". Default 5 minutes; negative: active
	// results are not cached.
	MaxCacheTTL time.Duration
	// NegativeCacheTTL is how long an inactive result is cached, so that a
	// repeated bad token does not reach the authorization server every
	// time. Default 10 seconds; negative: inactive results are not cached.
	NegativeCacheTTL time.Duration
	// MaxTokenBytes is the longest token sent to the endpoint; a longer
	// one is refused (ErrInvalidToken) without a request. Default
	// DefaultMaxTokenBytes (16 KiB), the bound JWTVerifier uses too.
	MaxTokenBytes int
	// MaxResponseBytes bounds the endpoint's response body; a longer one
	// is an error (not ErrInvalidToken: 503). Default 64 KiB.
	MaxResponseBytes int
	// Timeout bounds one introspection request, whatever HTTPClient's own
	// timeout. Default 10 seconds.
	Timeout time.Duration
	// Leeway is the clock skew allowed when checking "exp" and "nbf".
	// Default 30 seconds; negative: none.
	Leeway time.Duration
	// HTTPClient makes the requests. The default follows no redirects (a
	// redirect is a non-200 answer, so the token and the client secret go
	// to Endpoint only); a client given here applies its own policy.
	HTTPClient *http.Client
}

// introspectionResult is one answer of the authorization server: info
// for an active token, nil for an inactive one.
type introspectionResult struct {
	info *TokenInfo
}

// IntrospectionVerifier is a Verifier that asks an authorization server
// about each token (RFC 7662) and caches the answers. It is safe for
// concurrent use.
//
// Concurrent Verify calls for one token that is not cached share one
// request. Results are cached by the SHA-256 of the token, never the
// token itself. Failures to reach or understand the endpoint are not
// cached and do not wrap ErrInvalidToken (the server answers 503).
type IntrospectionVerifier struct {
	endpoint         string
	clientID, secret string
	issuer           string
	audience         string
	maxCacheTTL      time.Duration
	negativeTTL      time.Duration
	maxTokenBytes    int
	maxResponseBytes int
	timeout          time.Duration
	leeway           time.Duration
	client           *http.Client

	// now is the clock; tests replace it.
	now func() time.Time

	mu       sync.Mutex
	active   *lru[introspectionResult]
	inactive *lru[introspectionResult]
	inflight map[tokenKey]*introspectionCall
}

// introspectionCall is one request that concurrent Verify calls wait for.
type introspectionCall struct {
	done    chan struct{}
	waiters int // callers that joined after the first, under the mutex
	result  introspectionResult
	err     error
}

// NewIntrospectionVerifier checks cfg and returns a verifier. It makes no
// request.
func NewIntrospectionVerifier(cfg IntrospectionConfig) (*IntrospectionVerifier, error) {
	if err := checkIntrospectionEndpoint(cfg.Endpoint); err != nil {
		return nil, err
	}
	if cfg.Audience == "" {
		return nil, errors.New("auth: IntrospectionConfig.Audience is required (R-AUTH-05)")
	}
	aud, err := CanonicalResource(cfg.Audience)
	if err != nil {
		return nil, fmt.Errorf("auth: IntrospectionConfig.Audience: %w", err)
	}
	if (cfg.ClientID == "") != (cfg.ClientSecret == "") {
		return nil, errors.New("auth: IntrospectionConfig.ClientID and ClientSecret go together (both empty: no client authentication header)")
	}
	if cfg.MaxTokenBytes < 0 || cfg.MaxResponseBytes < 0 || cfg.Timeout < 0 {
		return nil, errors.New("auth: IntrospectionConfig.MaxTokenBytes, MaxResponseBytes and Timeout must not be negative")
	}
	v := &IntrospectionVerifier{
		endpoint:         cfg.Endpoint,
		clientID:         cfg.ClientID,
		secret:           cfg.ClientSecret,
		issuer:           cfg.Issuer,
		audience:         aud,
		maxCacheTTL:      orDefault(cfg.MaxCacheTTL, DefaultIntrospectionMaxCacheTTL),
		negativeTTL:      orDefault(cfg.NegativeCacheTTL, DefaultIntrospectionNegativeCacheTTL),
		maxTokenBytes:    orDefault(cfg.MaxTokenBytes, DefaultMaxTokenBytes),
		maxResponseBytes: orDefault(cfg.MaxResponseBytes, DefaultIntrospectionMaxResponseBytes),
		timeout:          orDefault(cfg.Timeout, DefaultIntrospectionTimeout),
		leeway:           max(orDefault(cfg.Leeway, DefaultIntrospectionLeeway), 0),
		client:           cfg.HTTPClient,
		now:              time.Now,
		inflight:         make(map[tokenKey]*introspectionCall),
	}
	size := orDefault(cfg.CacheSize, DefaultIntrospectionCacheSize)
	v.active, v.inactive = newLRU[introspectionResult](size), newLRU[introspectionResult](size)
	if v.client == nil {
		v.client = &http.Client{
			Timeout: v.timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
	}
	return v, nil
}

func orDefault[T int | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// checkIntrospectionEndpoint accepts an absolute https URL, or an http one
// on a loopback host: the client secret and the token travel in the
// request (R-AUTH-11).
func checkIntrospectionEndpoint(endpoint string) error {
	if endpoint == "" {
		return errors.New("auth: IntrospectionConfig.Endpoint is required")
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("auth: IntrospectionConfig.Endpoint: %w", err)
	}
	if u.Host == "" || u.User != nil || u.Fragment != "" {
		return fmt.Errorf("auth: IntrospectionConfig.Endpoint %q: want an absolute URL with a host, no user info and no fragment", endpoint)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return nil
		}
	}
	return fmt.Errorf("auth: IntrospectionConfig.Endpoint %q: want https (or http on a loopback host)", endpoint)
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Verify asks the introspection endpoint about token, or answers from the
// cache, and checks the result: active, issued by Issuer, for Audience,
// within its "nbf" and "exp" (R-AUTH-05: a token not for this server is
// never accepted, R-AUTH-06). A token that is not acceptable gives an
// error wrapping ErrInvalidToken; an endpoint that cannot be reached or
// answers wrongly gives another error.
//
// The token goes only to the configured endpoint, never elsewhere
// (R-AUTH-06), and is kept only as a SHA-256 digest.
func (v *IntrospectionVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	if token == "" {
		return nil, fmt.Errorf("%w: empty token", ErrInvalidToken)
	}
	if len(token) > v.maxTokenBytes {
		return nil, fmt.Errorf("%w: token of %d bytes, over the limit of %d", ErrInvalidToken, len(token), v.maxTokenBytes)
	}
	for i := 0; i < len(token); i++ {
		if c := token[i]; c < 0x21 || c > 0x7e {
			return nil, fmt.Errorf("%w: token has a byte outside visible ASCII", ErrInvalidToken)
		}
	}
	res, err := v.lookup(ctx, cacheKey(token), token)
	if err != nil {
		return nil, err
	}
	if res.info == nil {
		return nil, fmt.Errorf("%w: token is not active", ErrInvalidToken)
	}
	if err := v.check(res.info); err != nil {
		return nil, err
	}
	return cloneTokenInfo(res.info), nil
}

// lookup answers from the cache, joins a request already in flight for
// the same token, or starts one.
func (v *IntrospectionVerifier) lookup(ctx context.Context, key tokenKey, token string) (introspectionResult, error) {
	call, res, cached, err := v.join(ctx, key, token)
	if cached || err != nil {
		return res, err
	}
	select {
	case <-call.done:
		return call.result, call.err
	case <-ctx.Done():
		return introspectionResult{}, fmt.Errorf("auth: waiting for token introspection: %w", ctx.Err())
	}
}

// join returns the cached result of key, or the call to wait for: the one
// in flight, or a new one it starts.
func (v *IntrospectionVerifier) join(ctx context.Context, key tokenKey, token string) (*introspectionCall, introspectionResult, bool, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	if res, ok := v.active.get(key, now); ok {
		return nil, res, true, nil
	}
	if res, ok := v.inactive.get(key, now); ok {
		return nil, res, true, nil
	}
	if call, ok := v.inflight[key]; ok {
		call.waiters++
		return call, introspectionResult{}, false, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, introspectionResult{}, false, fmt.Errorf("auth: token introspection: %w", err)
	}
	call := &introspectionCall{done: make(chan struct{})}
	v.inflight[key] = call
	// The request is shared, so one caller's cancellation must not end it
	// for the others: it runs on a context of its own, with the caller's
	// values and the configured timeout.
	go v.run(context.WithoutCancel(ctx), key, token, call)
	return call, introspectionResult{}, false, nil
}

// run makes the request of call, caches its result and wakes its waiters.
func (v *IntrospectionVerifier) run(ctx context.Context, key tokenKey, token string, call *introspectionCall) {
	ctx, cancel := context.WithTimeout(ctx, v.timeout)
	defer cancel()
	call.result, call.err = v.introspect(ctx, token)

	v.mu.Lock()
	delete(v.inflight, key)
	if call.err == nil {
		now := v.now()
		if info := call.result.info; info == nil {
			if v.negativeTTL > 0 {
				v.inactive.put(key, call.result, now.Add(v.negativeTTL))
			}
		} else if v.maxCacheTTL > 0 {
			deadline := now.Add(v.maxCacheTTL)
			if !info.Expiry.IsZero() && info.Expiry.Before(deadline) {
				deadline = info.Expiry
			}
			if !deadline.After(now) && v.negativeTTL > 0 {
				// Active by the server's clock but expired by ours: Verify
				// refuses it once the leeway is over, and a repeat of it
				// is not sent again for a little while either.
				deadline = now.Add(min(v.negativeTTL, v.maxCacheTTL))
			}
			if deadline.After(now) {
				v.active.put(key, call.result, deadline)
			}
		}
	}
	v.mu.Unlock()
	close(call.done)
}

// introspect makes one RFC 7662 request.
func (v *IntrospectionVerifier) introspect(ctx context.Context, token string) (introspectionResult, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return introspectionResult{}, fmt.Errorf("auth: token introspection request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if v.clientID != "" {
		// RFC 6749 §2.3.1: the id and the secret are form-urlencoded
		// before they are put in the Basic credentials.
		req.SetBasicAuth(url.QueryEscape(v.clientID), url.QueryEscape(v.secret))
	}
	resp, err := v.client.Do(req)
	if err != nil {
		// Do's error can quote the endpoint URL, never the token (it is in
		// the body).
		return introspectionResult{}, fmt.Errorf("auth: token introspection: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(v.maxResponseBytes)+1))
	if err != nil {
		return introspectionResult{}, fmt.Errorf("auth: token introspection response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return introspectionResult{}, fmt.Errorf("auth: token introspection endpoint answered %d", resp.StatusCode)
	}
	if len(body) > v.maxResponseBytes {
		return introspectionResult{}, fmt.Errorf("auth: token introspection response over the limit of %d bytes", v.maxResponseBytes)
	}
	info, err := parseIntrospection(body)
	if err != nil || info == nil {
		return introspectionResult{}, err
	}
	if info.Issuer == "" {
		// The endpoint is the configured issuer's.
		info.Issuer = v.issuer
	}
	// A client-credentials token without sub speaks for its client, as
	// RFC 9068 §2.2 has it for JWTs, in the clients' namespace: the client
	// "alice" is not the user "alice".
	info.Subject = principalSubject(info.Subject, info.ClientID)
	return introspectionResult{info: info}, nil
}

// maxNumericDate is the last second of the year 9999, the largest "exp",
// "nbf" or "iat" taken.
const maxNumericDate = 253402300799

// parseIntrospection reads an RFC 7662 §2.2 response: nil for an inactive
// token; an error (not ErrInvalidToken) for a response that is not one.
func parseIntrospection(body []byte) (*TokenInfo, error) {
	var claims map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&claims); err != nil {
		return nil, fmt.Errorf("auth: token introspection response: %w", err)
	}
	if dec.More() {
		return nil, errors.New("auth: token introspection response: data after the JSON object")
	}
	if claims == nil {
		return nil, errors.New("auth: token introspection response: not a JSON object")
	}
	active, ok := claims["active"].(bool)
	if !ok {
		return nil, errors.New(`auth: token introspection response: "active" is missing or not a boolean`)
	}
	if !active {
		return nil, nil
	}
	info := &TokenInfo{Claims: claims}
	var errs []error
	str := func(name string) string {
		switch s := claims[name].(type) {
		case nil:
			return ""
		case string:
			return s
		default:
			errs = append(errs, fmt.Errorf("%q is not a string", name))
			return ""
		}
	}
	date := func(name string) time.Time {
		switch n := claims[name].(type) {
		case nil:
			return time.Time{}
		case float64:
			if n < 0 || n > maxNumericDate {
				errs = append(errs, fmt.Errorf("%q is out of range", name))
				return time.Time{}
			}
			sec := math.Floor(n)
			return time.Unix(int64(sec), int64((n-sec)*1e9))
		default:
			errs = append(errs, fmt.Errorf("%q is not a number", name))
			return time.Time{}
		}
	}
	info.Issuer = str("iss")
	info.Subject = str("sub")
	info.ClientID = str("client_id")
	info.Scopes = strings.Fields(str("scope"))
	info.Expiry = date("exp")
	info.NotBefore = date("nbf")
	info.IssuedAt = date("iat")
	switch aud := claims["aud"].(type) {
	case nil:
	case string:
		info.Audience = []string{aud}
	case []any:
		for _, a := range aud {
			s, ok := a.(string)
			if !ok {
				errs = append(errs, errors.New(`"aud" has an entry that is not a string`))
				break
			}
			info.Audience = append(info.Audience, s)
		}
	default:
		errs = append(errs, errors.New(`"aud" is neither a string nor an array`))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("auth: token introspection response: %w", errors.Join(errs...))
	}
	return info, nil
}

// check is what Verify requires of an active token, on every call, cached
// or not (R-AUTH-05, R-AUTH-06).
func (v *IntrospectionVerifier) check(info *TokenInfo) error {
	if v.issuer != "" && info.Issuer != v.issuer {
		return fmt.Errorf("%w: issuer %q, want %q", ErrInvalidToken, info.Issuer, v.issuer)
	}
	if !slices.ContainsFunc(info.Audience, func(a string) bool { return SameResource(a, v.audience) }) {
		return fmt.Errorf("%w: audience %q does not include %q", ErrInvalidToken, info.Audience, v.audience)
	}
	now := v.now()
	if !info.Expiry.IsZero() && now.After(info.Expiry.Add(v.leeway)) {
		return fmt.Errorf("%w: token expired at %s", ErrInvalidToken, info.Expiry.UTC().Format(time.RFC3339))
	}
	if !info.NotBefore.IsZero() && now.Add(v.leeway).Before(info.NotBefore) {
		return fmt.Errorf("%w: token not valid before %s", ErrInvalidToken, info.NotBefore.UTC().Format(time.RFC3339))
	}
	if info.Subject == "" {
		return fmt.Errorf("%w: token has neither sub nor client_id, so no principal", ErrInvalidToken)
	}
	if _, bound := info.Claims["cnf"]; bound {
		// A sender-constrained token (DPoP, RFC 9449 §7.1; mutual TLS,
		// RFC 8705 §3) must not be accepted as a bearer token: this
		// verifier cannot check the proof.
		return fmt.Errorf("%w: sender-constrained token (cnf) presented as a bearer token", ErrInvalidToken)
	}
	return nil
}

// cloneTokenInfo returns a copy of a cached TokenInfo that a caller may
// change without changing the cache: the slices and the claims map are
// copied (the claims' values are shared).
func cloneTokenInfo(info *TokenInfo) *TokenInfo {
	c := *info
	c.Scopes = slices.Clone(info.Scopes)
	c.Audience = slices.Clone(info.Audience)
	c.Claims = maps.Clone(info.Claims)
	return &c
}
