package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// keySet is the issuer's JSON Web Key Set as last fetched. A fetch
// starts at most once per minInterval (an unknown kid, or a set older
// than maxAge); concurrent callers share the one in flight. Every fetch
// runs detached from the request that started it and is bounded by
// fetchTimeout, so none outlives it and no caller waits longer than its
// own context allows.
type keySet struct {
	url          string
	client       *http.Client
	maxBytes     int64
	minInterval  time.Duration
	fetchTimeout time.Duration // bounds one fetch (besides the client's own Timeout)
	maxAge       time.Duration // a set older than this is fetched again (0: never)
	log          *slog.Logger
	now          func() time.Time

	mu      sync.Mutex
	keys    []jose.JSONWebKey // the usable public signing keys
	last    time.Time         // when the last fetch started (zero: never)
	lastErr error             // how the last finished fetch failed (nil: it succeeded)
	fetched time.Time         // when the last successful fetch started
	pending *fetchCall        // the fetch in flight, nil when none
	fetches int               // fetches started, for tests
}

// fetchCall is one fetch in flight, which concurrent callers wait on.
type fetchCall struct {
	done chan struct{}
	keys []jose.JSONWebKey
	err  error
}

// errRateLimited: the key is unknown, and the last fetch, less than
// minInterval ago, succeeded without it. After a failed fetch the caller
// gets an errUnavailable instead: the set is not known to lack the key.
var errRateLimited = errors.New("auth: JWKS refresh rate-limited")

// errUnavailable is the error of a refresh refused by the rate limit
// while the last fetch failed: the verifier cannot decide (it does not
// wrap ErrInvalidToken).
type errUnavailable struct {
	retryIn time.Duration
	last    error
}

func (e *errUnavailable) Error() string {
	return fmt.Sprintf("auth: JWKS unavailable (next fetch in %v): %v", e.retryIn.Round(time.Second), e.last)
}

func (e *errUnavailable) Unwrap() error { return e.last }

// snapshot returns the current keys (never modified in place).
func (ks *keySet) snapshot() []jose.JSONWebKey {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.keys
}

// stale reports whether the set is older than maxAge: a key the issuer
// removed (rotated out, or revoked) is not trusted for longer than that.
func (ks *keySet) stale() bool {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.maxAge > 0 && ks.now().Sub(ks.fetched) >= ks.maxAge
}

// begin returns the fetch in flight, or starts one unless a fetch
// started less than minInterval ago (unless force): then the error is
// errRateLimited when that fetch succeeded, an *errUnavailable when it
// failed. The fetch runs in its own goroutine, detached from ctx (one
// caller's cancel does not fail the others' wait) but keeping its values.
func (ks *keySet) begin(ctx context.Context, force bool) (*fetchCall, error) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if c := ks.pending; c != nil {
		return c, nil
	}
	now := ks.now()
	if !force && !ks.last.IsZero() && now.Sub(ks.last) < ks.minInterval {
		if ks.lastErr != nil {
			return nil, &errUnavailable{retryIn: ks.minInterval - now.Sub(ks.last), last: ks.lastErr}
		}
		return nil, errRateLimited
	}
	c := &fetchCall{done: make(chan struct{})}
	ks.pending, ks.last = c, now
	ks.fetches++
	go ks.run(context.WithoutCancel(ctx), c, now, !force)
	return c, nil
}

// run performs the fetch c, started at start, and publishes its outcome;
// a failure is logged when logFailure (not for the start-up fetch, whose
// error NewJWTVerifier returns).
func (ks *keySet) run(ctx context.Context, c *fetchCall, start time.Time, logFailure bool) {
	ctx, cancel := context.WithTimeout(ctx, ks.fetchTimeout)
	defer cancel()
	keys, err := ks.fetch(ctx)
	ks.mu.Lock()
	if err == nil {
		ks.keys, ks.fetched = keys, start
	}
	ks.lastErr = err
	ks.pending = nil
	c.keys, c.err = keys, err
	ks.mu.Unlock()
	close(c.done)
	if err != nil && logFailure {
		// At most one a minInterval: fetches are rate-limited.
		ks.log.WarnContext(ctx, "auth: JWKS fetch failed; the keys held keep serving",
			"url", ks.url, "retry_after", ks.minInterval, "err", err)
	}
}

// refresh fetches the set again (see begin) and waits for the outcome,
// or for ctx.
func (ks *keySet) refresh(ctx context.Context, force bool) ([]jose.JSONWebKey, error) {
	c, err := ks.begin(ctx, force)
	if err != nil {
		return nil, err
	}
	select {
	case <-c.done:
		return c.keys, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// refreshInBackground starts a fetch of a stale set, unless one is in
// flight or the rate limit refuses it, and returns at once: the keys
// held serve meanwhile. A failure keeps them (and is logged by run); the
// next token after minInterval tries again.
func (ks *keySet) refreshInBackground(ctx context.Context) {
	_, _ = ks.begin(ctx, false)
}

// fetch GETs the set and keeps its usable keys: public (the public half
// of a private key), of a kind this verifier checks signatures with, and
// with "use" absent or "sig". A symmetric ("oct") key is ignored, so
// that no HMAC secret can come from a JWKS; a member that does not parse
// is skipped, not fatal. A set with no usable key is an error.
func (ks *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	body, err := getJSON(ctx, ks.client, ks.url, ks.maxBytes)
	if err != nil {
		return nil, fmt.Errorf("auth: JWKS: %w", err)
	}
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("auth: JWKS %s: %w", ks.url, err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range doc.Keys {
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(raw); err != nil || !k.Valid() {
			continue
		}
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		switch k.Key.(type) {
		case *rsa.PrivateKey, *ecdsa.PrivateKey, ed25519.PrivateKey:
			k = k.Public()
		}
		if !k.IsPublic() {
			continue // symmetric, or a kind we do not verify with
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		// An empty or unusable set is a failed fetch: the held keys keep
		// serving, rather than every token being refused until the next
		// refresh.
		return nil, fmt.Errorf("auth: JWKS %s: no usable signing key", ks.url)
	}
	return keys, nil
}

// getJSON GETs url, wants 200, and reads at most maxBytes of the body.
func getJSON(ctx context.Context, client *http.Client, url string, maxBytes int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return nil, fmt.Errorf("GET %s: status %d", url, resp.StatusCode)
	}
	if resp.ContentLength > maxBytes {
		return nil, fmt.Errorf("GET %s: body of %d bytes over the limit of %d", url, resp.ContentLength, maxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if int64(len(body)) > maxBytes {
		return nil, fmt.Errorf("GET %s: body over the limit of %d bytes", url, maxBytes)
	}
	return body, nil
}

// keyFits reports whether k may verify a signature of alg: its kind and
// curve match the algorithm, and its own "alg", when set, is alg.
func keyFits(k *jose.JSONWebKey, alg string) bool {
	if k.Algorithm != "" && k.Algorithm != alg {
		return false
	}
	switch key := k.Key.(type) {
	case *rsa.PublicKey:
		switch alg {
		case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512":
			return true
		}
	case *ecdsa.PublicKey:
		switch alg {
		case "ES256":
			return key.Curve == elliptic.P256()
		case "ES384":
			return key.Curve == elliptic.P384()
		case "ES512":
			return key.Curve == elliptic.P521()
		}
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}
