package mcpotel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// The instruments' names.
const (
	durationName = "mcp.server.operation.duration"
	activeName   = "mcp.server.active_requests"
)

// newInstruments creates the duration histogram, with the convention's
// ExplicitBucketBoundaries (in seconds), and the active-requests counter;
// one the meter fails to create is a no-op one, the error handed to
// otel.Handle.
func newInstruments(m metric.Meter) (metric.Float64Histogram, metric.Int64UpDownCounter) {
	d, err := m.Float64Histogram(durationName,
		metric.WithUnit("s"),
		metric.WithDescription("Duration of the MCP requests the server received, until their result or error was returned."),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300),
	)
	if err != nil {
		otel.Handle(err)
		d = noop.Float64Histogram{}
	}
	a, err := m.Int64UpDownCounter(activeName,
		metric.WithUnit("{request}"),
		metric.WithDescription("Number of MCP requests the server is serving."),
	)
	if err != nil {
		otel.Handle(err)
		a = noop.Int64UpDownCounter{}
	}
	return d, a
}
