// Command everything is examples/everything (the conformance fixtures,
// both eras, the same flags) with OpenTelemetry tracing and metrics on
// (package mcpotel), configured by the standard OTEL_* environment
// variables through go.opentelemetry.io/contrib/exporters/autoexport:
//
//	OTEL_TRACES_EXPORTER=console go run ./cmd/everything -http 127.0.0.1:8080   # spans on stdout
//	OTEL_TRACES_EXPORTER=otlp OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 go run ./cmd/everything -http 127.0.0.1:8080
//	OTEL_METRICS_EXPORTER=console ...                                            # metrics too
//
// Nothing is exported while OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER
// are unset: autoexport's own default would be otlp, so an unset variable
// leaves that signal on the no-op provider instead. Trace context is read
// from and written to _meta (and read from HTTP headers) with the W3C
// Trace Context and Baggage propagators, OTEL_PROPAGATORS' default.
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name the resource
// (default service.name: mcpwire-everything). On stdio, where stdout
// carries the protocol, the console exporters write to stderr. Spans and
// metrics still buffered are flushed when the server stops (SIGINT,
// SIGTERM, end of input).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpwire/mcpwire/examples/everything/app"
	mcpotel "github.com/mcpwire/mcpwire/otel"
)

// flushTimeout bounds the flush of buffered spans and metrics at exit.
const flushTimeout = 5 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return
	}
	slog.New(slog.NewTextHandler(os.Stderr, nil)).Error("everything", "err", err)
	var usage *app.UsageError
	if errors.As(err, &usage) {
		os.Exit(2)
	}
	os.Exit(1)
}

// run sets up the providers, serves app.Run with mcpotel's options, then
// flushes.
func run(ctx context.Context, args []string) error {
	console := os.Stdout
	if !servesHTTP(args) {
		console = os.Stderr // stdout carries the protocol
	}
	tel, err := newTelemetry(ctx, console)
	if err != nil {
		return err
	}
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	opts := mcpotel.Options(mcpotel.WithTracerProvider(tel.tp), mcpotel.WithMeterProvider(tel.mp), mcpotel.WithPropagators(prop))
	err = app.Run(ctx, args, os.Stdin, os.Stdout, os.Stderr, opts...)
	fctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	return errors.Join(err, tel.shutdown(fctx))
}

// telemetry is the providers the server uses and what flushes them.
type telemetry struct {
	tp       trace.TracerProvider
	mp       metric.MeterProvider
	shutdown func(context.Context) error
}

// newTelemetry builds an SDK provider for each signal whose
// OTEL_*_EXPORTER variable is set, a no-op one for the others. console
// is where a console exporter writes.
func newTelemetry(ctx context.Context, console io.Writer) (telemetry, error) {
	t := telemetry{tp: tracenoop.NewTracerProvider(), mp: metricnoop.NewMeterProvider(), shutdown: func(context.Context) error { return nil }}
	traces, metrics := os.Getenv("OTEL_TRACES_EXPORTER"), os.Getenv("OTEL_METRICS_EXPORTER")
	if traces == "" && metrics == "" {
		return t, nil
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "mcpwire-everything")),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return t, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	var shutdowns []func(context.Context) error
	if traces != "" {
		exp, err := spanExporter(ctx, traces, console)
		if err != nil {
			return t, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: %w", traces, err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		t.tp = tp
		shutdowns = append(shutdowns, tp.Shutdown)
	}
	if metrics != "" {
		r, err := metricReader(ctx, metrics, console)
		if err != nil {
			return t, fmt.Errorf("OTEL_METRICS_EXPORTER=%s: %w", metrics, err)
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r), sdkmetric.WithResource(res))
		t.mp = mp
		shutdowns = append(shutdowns, mp.Shutdown)
	}
	t.shutdown = func(ctx context.Context) error {
		var errs []error
		for _, f := range shutdowns {
			errs = append(errs, f(ctx))
		}
		return errors.Join(errs...)
	}
	return t, nil
}

// spanExporter is autoexport's exporter for name, but for console, which
// writes to console.
func spanExporter(ctx context.Context, name string, console io.Writer) (sdktrace.SpanExporter, error) {
	if name == "console" {
		return stdouttrace.New(stdouttrace.WithWriter(console))
	}
	return autoexport.NewSpanExporter(ctx)
}

// metricReader is autoexport's reader for name, but for console, which
// writes to console (every 60 s, OTEL_METRIC_EXPORT_INTERVAL's default,
// and at exit).
func metricReader(ctx context.Context, name string, console io.Writer) (sdkmetric.Reader, error) {
	if name == "console" {
		exp, err := stdoutmetric.New(stdoutmetric.WithWriter(console))
		if err != nil {
			return nil, err
		}
		return sdkmetric.NewPeriodicReader(exp), nil
	}
	return autoexport.NewMetricReader(ctx)
}

// servesHTTP reports whether args hold a non-empty -http flag (-http
// addr, -http=addr, with one dash or two), the last one winning as in
// app.Run. It does not parse the other flags: an argument "-http" given
// as another flag's value would be mistaken for it.
func servesHTTP(args []string) bool {
	http := false
	for i, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "http" {
			continue
		}
		if hasValue {
			http = value != ""
		} else {
			http = i+1 < len(args) && args[i+1] != ""
		}
	}
	return http
}
