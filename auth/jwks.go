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
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// keySet is the issuer's JSON Web Key Set as last fetched, refreshed on
// an unknown kid at most once per minInterval; concurrent misses share
// one fetch.
type keySet struct {
	url         string
	client      *http.Client
	maxBytes    int64
	minInterval time.Duration
	now         func() time.Time

	mu      sync.Mutex
	keys    []jose.JSONWebKey // the usable public signing keys
	last    time.Time         // when the last fetch started (zero: never)
	fetched time.Time         // when the last successful fetch started
	maxAge  time.Duration     // a set older than this is fetched again (0: never)
	pending *fetchCall        // the fetch in flight, nil when none
	fetches int               // fetches started, for tests
}

// fetchCall is one fetch in flight, which concurrent callers wait on.
type fetchCall struct {
	done chan struct{}
	err  error
}

// errRateLimited: the key is unknown and the set was fetched less than
// minInterval ago.
var errRateLimited = errors.New("auth: JWKS refresh rate-limited")

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

// refresh fetches the set again unless a fetch started less than
// minInterval ago (errRateLimited, unless force); a caller that finds a
// fetch in flight waits for it and shares its outcome.
func (ks *keySet) refresh(ctx context.Context, force bool) ([]jose.JSONWebKey, error) {
	ks.mu.Lock()
	if c := ks.pending; c != nil {
		ks.mu.Unlock()
		select {
		case <-c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if c.err != nil {
			return nil, c.err
		}
		return ks.snapshot(), nil
	}
	now := ks.now()
	if !force && !ks.last.IsZero() && now.Sub(ks.last) < ks.minInterval {
		ks.mu.Unlock()
		return nil, errRateLimited
	}
	c := &fetchCall{done: make(chan struct{})}
	ks.pending, ks.last = c, now
	ks.fetches++
	ks.mu.Unlock()

	// The fetch is shared: it is not cancelled with the request that
	// started it, only bounded by the client's timeout.
	keys, err := ks.fetch(context.WithoutCancel(ctx))
	ks.mu.Lock()
	if err == nil {
		ks.keys, ks.fetched = keys, now
	}
	ks.pending = nil
	c.err = err
	ks.mu.Unlock()
	close(c.done)
	return keys, err
}

// fetch GETs the set and keeps its usable keys: public (the public half
// of a private key), of a kind this verifier checks signatures with, and
// with "use" absent or "sig". A symmetric ("oct") key is ignored, so
// that no HMAC secret can come from a JWKS; a member that does not parse
// is skipped, not fatal.
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
