package auth

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// hung is how long a test waits for a Verify that must not wait on the
// hanging JWKS fetch: far longer than a verification takes, far shorter
// than the fetch (which hangs until the test releases it).
const hung = 5 * time.Second

// verifyAsync runs Verify in a goroutine; the channel yields its error.
func verifyAsync(v *JWTVerifier, tok string) <-chan error {
	ch := make(chan error, 1)
	go func() {
		_, err := v.Verify(context.Background(), tok)
		ch <- err
	}()
	return ch
}

// R-AUTH-05 (availability): once the set is older than JWKSMaxAge, a
// token whose kid the held set has is verified with the held keys at
// once; the re-fetch runs in the background, one at a time, and no
// request waits on it even while the JWKS endpoint hangs. A token with an
// unknown kid waits for (shares) that same fetch, and the set it brings
// serves from then on.
func TestJWKSStaleSetRefreshesInBackground(t *testing.T) {
	k1, k2 := newRSAKey(t, "k1"), newECKey(t, "k2")
	js := newJWKSServer(t, k1)
	v, clk := newTestVerifier(t, js, JWTConfig{JWKSMaxAge: 10 * time.Minute, CacheSize: -1})
	release := make(chan struct{})
	var once sync.Once
	unhang := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unhang)
	js.set(t, k2) // k1 rotated out, k2 in: served once the fetch is released
	js.answer(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		js.serveKeys(w)
	})
	clk.advance(11 * time.Minute)

	// Concurrent tokens by the held key: all verified at once, one fetch.
	var chs []<-chan error
	for range 20 {
		chs = append(chs, verifyAsync(v, k1.sign(t, validClaims(clk.now()), nil)))
	}
	for i, ch := range chs {
		select {
		case err := <-ch:
			if err != nil {
				t.Fatalf("token %d by the held key: %v", i, err)
			}
		case <-time.After(hung):
			t.Fatalf("token %d by the held key waited on the hanging JWKS re-fetch", i)
		}
	}
	if n := v.keys.fetchCount(); n != 2 {
		t.Fatalf("%d fetches started, want 2 (start, one background re-fetch)", n)
	}

	// An unknown kid shares the fetch in flight.
	unknown := verifyAsync(v, k2.sign(t, validClaims(clk.now()), nil))
	select {
	case err := <-unknown:
		t.Fatalf("an unknown kid did not wait for the fetch in flight: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	unhang()
	select {
	case err := <-unknown:
		if err != nil {
			t.Fatalf("the unknown kid, once the fetch brought it: %v", err)
		}
	case <-time.After(hung):
		t.Fatal("the unknown kid still waits after the fetch ended")
	}
	v.keys.wait(t)
	if n := v.keys.fetchCount(); n != 2 {
		t.Fatalf("%d fetches started, want 2: the unknown kid shares the one in flight", n)
	}
	if _, err := v.Verify(context.Background(), k1.sign(t, validClaims(clk.now()), nil)); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("the rotated-out key after the re-fetch: got %v, want ErrInvalidToken", err)
	}
}

// A background re-fetch of a stale set that hangs ends with the HTTP
// client's timeout and leaks no goroutine; its failure keeps the held
// keys, and the next one is tried only after MinRefreshInterval.
func TestJWKSStaleRefreshTimesOut(t *testing.T) {
	k := newRSAKey(t, "k1")
	js := newJWKSServer(t, k)
	client := &http.Client{Timeout: 200 * time.Millisecond}
	v, clk := newTestVerifier(t, js, JWTConfig{HTTPClient: client, JWKSMaxAge: 10 * time.Minute, CacheSize: -1})
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	js.answer(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	clk.advance(11 * time.Minute)
	if _, err := v.Verify(context.Background(), k.sign(t, validClaims(clk.now()), nil)); err != nil {
		t.Fatal(err)
	}
	v.keys.wait(t) // returns: the fetch ends within the client's timeout
	v.keys.mu.Lock()
	lastErr := v.keys.lastErr
	v.keys.mu.Unlock()
	if lastErr == nil {
		t.Fatal("the hanging fetch succeeded")
	}
	for range 3 {
		clk.advance(10 * time.Second)
		if _, err := v.Verify(context.Background(), k.sign(t, validClaims(clk.now()), nil)); err != nil {
			t.Fatalf("the held key after the failed re-fetch: %v", err)
		}
	}
	if n := v.keys.fetchCount(); n != 2 {
		t.Fatalf("%d fetches started, want 2: within MinRefreshInterval no retry", n)
	}
	clk.advance(time.Minute)
	if _, err := v.Verify(context.Background(), k.sign(t, validClaims(clk.now()), nil)); err != nil {
		t.Fatal(err)
	}
	v.keys.wait(t)
	if n := v.keys.fetchCount(); n != 3 {
		t.Fatalf("%d fetches started, want 3: retried after MinRefreshInterval", n)
	}
	client.CloseIdleConnections()
}
