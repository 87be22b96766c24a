package auth

import (
	"context"
	"testing"
)

// BenchmarkIntrospectionCacheHit is Verify answered from the cache: the
// cost every request pays once its token has been introspected.
func BenchmarkIntrospectionCacheHit(b *testing.B) {
	a := newFakeAS(b)
	a.set("good", activeResponse())
	cfg := IntrospectionConfig{
		Endpoint: a.srv.URL, ClientID: "rs", ClientSecret: "secret",
		Issuer: introIssuer, Audience: introAudience,
	}
	v, err := NewIntrospectionVerifier(cfg)
	if err != nil {
		b.Fatal(err)
	}
	clk := &fakeClock{t: introEpoch}
	v.now = clk.now
	ctx := context.Background()
	if _, err := v.Verify(ctx, "good"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.Verify(ctx, "good"); err != nil {
			b.Fatal(err)
		}
	}
	if n := a.calls.Load(); n != 1 {
		b.Fatalf("%d requests, want 1", n)
	}
}

// BenchmarkIntrospectionMiss is Verify with a request to a loopback
// endpoint each time (no cache): what a cache miss costs at best.
func BenchmarkIntrospectionMiss(b *testing.B) {
	a := newFakeAS(b)
	a.set("good", activeResponse())
	v, err := NewIntrospectionVerifier(IntrospectionConfig{
		Endpoint: a.srv.URL, ClientID: "rs", ClientSecret: "secret",
		Issuer: introIssuer, Audience: introAudience, CacheSize: -1,
	})
	if err != nil {
		b.Fatal(err)
	}
	clk := &fakeClock{t: introEpoch}
	v.now = clk.now
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(ctx, "good"); err != nil {
			b.Fatal(err)
		}
	}
}
