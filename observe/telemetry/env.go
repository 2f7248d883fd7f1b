package telemetry

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TracingEnabled reports whether the OTEL_* variables ask for traces:
// OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
// OTEL_TRACES_EXPORTER=otlp is set, and neither OTEL_SDK_DISABLED=true nor
// OTEL_TRACES_EXPORTER=none. getenv is os.Getenv, or a test's.
func TracingEnabled(getenv func(string) string) bool {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))) {
	case "none":
		return false
	case "otlp":
		return true
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// FromEnv returns a tracer provider that exports spans over OTLP/HTTP
// (protobuf) in batches, as the standard OTEL_* variables say, or nil
// when they ask for no traces ([TracingEnabled]). The exporter, keel's
// own [Exporter], reads OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT (default
// http://localhost:4318), _HEADERS, _TIMEOUT, _COMPRESSION,
// _CERTIFICATE, _CLIENT_CERTIFICATE and _CLIENT_KEY
// ([ExporterConfigFromEnv]; a value it cannot use is a [*ConfigError]); the
// provider OTEL_TRACES_SAMPLER and _ARG (default: parentbased_always_on;
// see the package documentation), OTEL_BSP_* and OTEL_SPAN_*; the resource OTEL_SERVICE_NAME
// (default "keel") and OTEL_RESOURCE_ATTRIBUTES. OTEL_TRACES_EXPORTER
// other than otlp or none, and an OTLP protocol other than
// http/protobuf, a sampler the SDK does not know and a ratio outside
// 0–1, are errors saying what to set. Call Shutdown on the
// provider before exit, so that the last spans are sent.
func FromEnv(ctx context.Context) (*sdktrace.TracerProvider, error) {
	if !TracingEnabled(os.Getenv) {
		return nil, nil
	}
	if e := strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER"))); e != "" && e != "otlp" {
		return nil, fmt.Errorf("telemetry: OTEL_TRACES_EXPORTER=%s: keel exports traces over OTLP only: set it to otlp or none", e)
	}
	if err := checkSampler(os.Getenv); err != nil {
		return nil, err
	}
	cfg, err := ExporterConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	exp, err := NewExporter(cfg)
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP/HTTP exporter: %w", err)
	}
	// The variables come last, so that OTEL_SERVICE_NAME wins over the
	// default name.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "keel")),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource from OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}

// checkSampler refuses an OTEL_TRACES_SAMPLER the SDK does not know and a
// ratio it cannot read: the SDK only reports them to OpenTelemetry's
// error handler and samples every trace instead, so a misspelt sampler
// would cost full tracing without a word.
func checkSampler(getenv func(string) string) error {
	name := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	switch name {
	case "", "always_on", "always_off", "parentbased_always_on", "parentbased_always_off":
		return nil
	case "traceidratio", "parentbased_traceidratio":
		arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
		if arg == "" {
			return nil // the SDK's ratio is then 1
		}
		if r, err := strconv.ParseFloat(arg, 64); err != nil || !(r >= 0 && r <= 1) {
			return fmt.Errorf("telemetry: OTEL_TRACES_SAMPLER_ARG=%s: want the share of traces to keep, from 0 to 1, such as 0.1", arg)
		}
		return nil
	}
	return fmt.Errorf("telemetry: OTEL_TRACES_SAMPLER=%s: unknown sampler: set parentbased_always_on (the default), "+
		"parentbased_traceidratio with OTEL_TRACES_SAMPLER_ARG=0.1 (one trace in ten), always_on, always_off, "+
		"traceidratio or parentbased_always_off", name)
}
