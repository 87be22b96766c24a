package mcpotel

import (
	"context"
	"testing"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// TestInert: the middleware skips spans and instruments altogether only
// when both providers are the no-op ones; an SDK on either side, or the
// global providers (which may be set later), keeps the full path.
func TestInert(t *testing.T) {
	sdkTP := sdktrace.NewTracerProvider()
	sdkMP := sdkmetric.NewMeterProvider()
	t.Cleanup(func() {
		_ = sdkTP.Shutdown(context.Background())
		_ = sdkMP.Shutdown(context.Background())
	})
	for _, c := range []struct {
		name string
		opts []Option
		want bool
	}{
		{"noop both", []Option{WithTracerProvider(tracenoop.NewTracerProvider()), WithMeterProvider(metricnoop.NewMeterProvider())}, true},
		{"noop tracer, sdk meter", []Option{WithTracerProvider(tracenoop.NewTracerProvider()), WithMeterProvider(sdkMP)}, false},
		{"sdk tracer, noop meter", []Option{WithTracerProvider(sdkTP), WithMeterProvider(metricnoop.NewMeterProvider())}, false},
		{"noop tracer, global meter", []Option{WithTracerProvider(tracenoop.NewTracerProvider())}, false},
		{"global both", nil, false},
	} {
		if got := newTelemetry(newConfig(c.opts)).inert; got != c.want {
			t.Errorf("%s: inert %v, want %v", c.name, got, c.want)
		}
	}
}
