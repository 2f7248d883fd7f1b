package telemetry_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/observe/telemetry"
)

// How the exporter answers each way a collector can fail.
func TestExporterRetries(t *testing.T) {
	tests := []struct {
		name      string
		answers   []answer
		cancelIn  time.Duration // cancel the export's context after this (0: never)
		timeout   time.Duration
		wantErr   string // "" for success
		wantTries int
		minTime   time.Duration
		maxTime   time.Duration
	}{
		{name: "503 with Retry-After, then success", answers: []answer{{status: 503, retryAfter: "1", body: "overloaded"}},
			wantTries: 2, minTime: time.Second, maxTime: 5 * time.Second},
		{name: "429 and 502 and 504 without Retry-After back off", answers: []answer{{status: 429}, {status: 502}, {status: 504}},
			wantTries: 4, maxTime: 5 * time.Second},
		{name: "400 is not tried again", answers: []answer{{status: 400, body: "bad span\r\nforged: header"}},
			wantErr: `400 Bad Request: "bad span\r\nforged: header"`, wantTries: 1, maxTime: time.Second},
		{name: "401 is not tried again", answers: []answer{{status: 401, body: strings.Repeat("z", 5000)}},
			wantErr: "401 Unauthorized", wantTries: 1, maxTime: time.Second},
		{name: "a collector that hangs up is tried again", answers: []answer{{hangUp: true}},
			wantTries: 2, maxTime: 5 * time.Second},
		{name: "a Retry-After past the timeout gives up at once", answers: []answer{{status: 503, retryAfter: "3600"}},
			wantErr: "gave up after 1 tries", wantTries: 1, maxTime: time.Second},
		{name: "the context cancelled mid-retry returns promptly", answers: []answer{{status: 503, retryAfter: "20"}},
			cancelIn: 300 * time.Millisecond, timeout: time.Minute, wantErr: "context canceled after 1 tries", wantTries: 1, maxTime: 2 * time.Second},
		{name: "the timeout ends the waits", answers: []answer{{status: 503}, {status: 503}, {status: 503}, {status: 503}},
			timeout: 500 * time.Millisecond, wantErr: "503 Service Unavailable", maxTime: 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, url := startCollector(t, tc.answers...)
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 10 * time.Second
			}
			exp := newExporter(t, telemetry.ExporterConfig{URL: url, Timeout: timeout, Backoff: 100 * time.Millisecond})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelIn > 0 {
				time.AfterFunc(tc.cancelIn, cancel)
			}
			start := time.Now()
			err := exp.ExportSpans(ctx, stubs().Snapshots())
			took := time.Since(start)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Got(ExportSpans) error %v; want %q", err, tc.wantErr)
			}
			if tc.wantTries > 0 && c.tries() != tc.wantTries {
				t.Errorf("Got(%d tries); want %d", c.tries(), tc.wantTries)
			}
			if took < tc.minTime || took > tc.maxTime {
				t.Errorf("Got(export took %v); want %v to %v", took, tc.minTime, tc.maxTime)
			}
		})
	}
}

// A collector that cannot be reached is tried again until the timeout,
// and the error says so.
func TestExporterUnreachable(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	url := hs.URL + "/v1/traces"
	hs.Close() // nothing listens on its port now
	exp := newExporter(t, telemetry.ExporterConfig{URL: url, Timeout: 700 * time.Millisecond, Backoff: 50 * time.Millisecond})
	start := time.Now()
	err := exp.ExportSpans(context.Background(), stubs().Snapshots())
	if err == nil || !strings.Contains(err.Error(), "connection refused") || time.Since(start) > 2*time.Second {
		t.Errorf("Got(ExportSpans to a closed port) %v after %v; want a connection error within the timeout", err, time.Since(start))
	}
}

// Over https, OTEL_EXPORTER_OTLP_CERTIFICATE is the root the collector's
// certificate is checked against; without it the export fails at once,
// since a certificate that did not verify will not the next time.
func TestExporterTLS(t *testing.T) {
	c := &collector{}
	hs := httptest.NewUnstartedServer(c)
	hs.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake's
	hs.StartTLS()
	defer hs.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hs.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, trusted := range []bool{true, false} {
		vars := env("TRACES_ENDPOINT", hs.URL+"/v1/traces")
		if trusted {
			vars["OTEL_EXPORTER_OTLP_CERTIFICATE"] = caFile
		}
		cfg, err := telemetry.ExporterConfigFromEnv(func(k string) string { return vars[k] })
		if err != nil {
			t.Fatal(err)
		}
		exp := newExporter(t, cfg)
		start := time.Now()
		err = exp.ExportSpans(context.Background(), stubs().Snapshots())
		if trusted && err != nil || !trusted && (err == nil || !strings.Contains(err.Error(), "certificate") || time.Since(start) > 2*time.Second) {
			t.Errorf("Got(export over https, root trusted %v) %v after %v; want success when trusted, else a certificate error at once",
				trusted, err, time.Since(start))
		}
	}
	if c.tries() != 1 {
		t.Errorf("Got(%d exports received); want 1, the trusted one", c.tries())
	}
}

// After Shutdown, ExportSpans fails at once, and an export in flight
// ends.
func TestExporterShutdown(t *testing.T) {
	c, url := startCollector(t, answer{status: 503, retryAfter: "30"})
	exp := newExporter(t, telemetry.ExporterConfig{URL: url, Timeout: time.Minute})
	done := make(chan error, 1)
	go func() { done <- exp.ExportSpans(context.Background(), stubs().Snapshots()) }()
	for c.tries() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := exp.Shutdown(context.Background()); err != nil {
		t.Errorf("Got(Shutdown) %v; want nil", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, telemetry.ErrExporterShutdown) {
			t.Errorf("Got(export in flight at Shutdown) %v; want ErrExporterShutdown", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Got(export in flight) still waiting 5 s after Shutdown; want it ended")
	}
	if err := exp.ExportSpans(context.Background(), stubs().Snapshots()); !errors.Is(err, telemetry.ErrExporterShutdown) {
		t.Errorf("Got(ExportSpans after Shutdown) %v; want ErrExporterShutdown", err)
	}
	if err := exp.Shutdown(context.Background()); err != nil {
		t.Errorf("Got(second Shutdown) %v; want nil", err)
	}
}

// The OTEL_EXPORTER_OTLP_* variables as the specification reads them,
// and a clear error for each value keel cannot use.
func TestExporterConfigFromEnv(t *testing.T) {
	dir := t.TempDir()
	caFile, certFile, keyFile := writeCert(t, dir)
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     map[string]string
		url     string
		header  map[string]string
		timeout time.Duration
		gzip    bool
		tls     bool
		wantErr string // the variable the error names
	}{
		{name: "defaults", url: "http://localhost:4318/v1/traces", timeout: 10 * time.Second},
		{name: "base endpoint", env: env("ENDPOINT", "http://collector:4318"), url: "http://collector:4318/v1/traces", timeout: 10 * time.Second},
		{name: "base endpoint with a path", env: env("ENDPOINT", "https://otel.example.com/otlp/"), url: "https://otel.example.com/otlp/v1/traces", timeout: 10 * time.Second},
		{name: "traces endpoint as is", env: env("TRACES_ENDPOINT", "http://c:4318/custom", "ENDPOINT", "http://ignored:1"), url: "http://c:4318/custom", timeout: 10 * time.Second},
		{name: "traces endpoint without a path", env: env("TRACES_ENDPOINT", "http://c:4318"), url: "http://c:4318/", timeout: 10 * time.Second},
		{name: "headers", env: env("HEADERS", "api-key=s%3Dcret, X-Tenant = acme ,,b=a%20b"), url: "http://localhost:4318/v1/traces",
			header: map[string]string{"Api-Key": "s=cret", "X-Tenant": "acme", "B": "a b"}, timeout: 10 * time.Second},
		{name: "traces headers win", env: env("HEADERS", "a=1", "TRACES_HEADERS", "a=2"), url: "http://localhost:4318/v1/traces",
			header: map[string]string{"A": "2"}, timeout: 10 * time.Second},
		{name: "timeout and gzip", env: env("TIMEOUT", "2500", "TRACES_COMPRESSION", "gzip"), url: "http://localhost:4318/v1/traces", timeout: 2500 * time.Millisecond, gzip: true},
		{name: "compression none", env: env("COMPRESSION", "none"), url: "http://localhost:4318/v1/traces", timeout: 10 * time.Second},
		{name: "protocol http/protobuf", env: env("PROTOCOL", "http/protobuf"), url: "http://localhost:4318/v1/traces", timeout: 10 * time.Second},
		{name: "certificates", env: env("ENDPOINT", "https://c:4318", "CERTIFICATE", caFile, "CLIENT_CERTIFICATE", certFile, "CLIENT_KEY", keyFile),
			url: "https://c:4318/v1/traces", timeout: 10 * time.Second, tls: true},

		{name: "header value with CRLF", env: env("HEADERS", "a=b%0D%0AX-Forged:%201"), wantErr: "OTEL_EXPORTER_OTLP_HEADERS"},
		{name: "header value with a raw LF", env: env("TRACES_HEADERS", "a=b\nc"), wantErr: "OTEL_EXPORTER_OTLP_TRACES_HEADERS"},
		{name: "header without =", env: env("HEADERS", "api-key"), wantErr: "OTEL_EXPORTER_OTLP_HEADERS"},
		{name: "header name not a token", env: env("HEADERS", "a b=c"), wantErr: "OTEL_EXPORTER_OTLP_HEADERS"},
		{name: "header value badly escaped", env: env("HEADERS", "a=%zz"), wantErr: "OTEL_EXPORTER_OTLP_HEADERS"},
		{name: "endpoint not a URL", env: env("ENDPOINT", "http://[::1"), wantErr: "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{name: "endpoint without a scheme", env: env("ENDPOINT", "collector:4318"), wantErr: "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{name: "endpoint grpc scheme", env: env("TRACES_ENDPOINT", "grpc://c:4317"), wantErr: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{name: "endpoint with credentials", env: env("ENDPOINT", "http://u:p@c:4318"), wantErr: "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{name: "timeout in seconds", env: env("TIMEOUT", "10s"), wantErr: "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{name: "timeout negative", env: env("TRACES_TIMEOUT", "-1"), wantErr: "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"},
		{name: "timeout zero", env: env("TIMEOUT", "0"), wantErr: "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{name: "compression unknown", env: env("COMPRESSION", "zstd"), wantErr: "OTEL_EXPORTER_OTLP_COMPRESSION"},
		{name: "protocol grpc", env: env("PROTOCOL", "grpc"), wantErr: "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{name: "traces protocol wins", env: env("PROTOCOL", "http/protobuf", "TRACES_PROTOCOL", "http/json"), wantErr: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"},
		{name: "certificate missing", env: env("ENDPOINT", "https://c", "CERTIFICATE", filepath.Join(dir, "none.pem")), wantErr: "OTEL_EXPORTER_OTLP_CERTIFICATE"},
		{name: "certificate not PEM", env: env("ENDPOINT", "https://c", "CERTIFICATE", notPEM), wantErr: "OTEL_EXPORTER_OTLP_CERTIFICATE"},
		{name: "client certificate without key", env: env("ENDPOINT", "https://c", "CLIENT_CERTIFICATE", certFile), wantErr: "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"},
		{name: "client key not matching", env: env("ENDPOINT", "https://c", "CLIENT_CERTIFICATE", certFile, "CLIENT_KEY", notPEM), wantErr: "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"},
		{name: "certificate for plain http", env: env("CERTIFICATE", caFile), wantErr: "OTEL_EXPORTER_OTLP_CERTIFICATE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := telemetry.ExporterConfigFromEnv(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				var ce *telemetry.ConfigError
				if !errors.As(err, &ce) || ce.Var != tc.wantErr {
					t.Fatalf("Got(ExporterConfigFromEnv) error %v; want a ConfigError for %s", err, tc.wantErr)
				}
				for k, v := range tc.env { // the error never repeats a header's value: it may be a secret
					if strings.HasSuffix(k, "HEADERS") && strings.Contains(err.Error(), v[strings.IndexByte(v, '=')+1:]) {
						t.Errorf("Got(error) %q; want it without the value %q", err, v)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Got(ExporterConfigFromEnv) error %v; want nil", err)
			}
			if cfg.URL != tc.url || cfg.Timeout != tc.timeout || cfg.Gzip != tc.gzip || (cfg.TLS != nil) != tc.tls {
				t.Errorf("Got(config) URL %q timeout %v gzip %v TLS %v; want %q %v %v %v", cfg.URL, cfg.Timeout, cfg.Gzip, cfg.TLS != nil, tc.url, tc.timeout, tc.gzip, tc.tls)
			}
			if tc.tls && (cfg.TLS.RootCAs == nil || len(cfg.TLS.Certificates) != 1) {
				t.Errorf("Got(TLS) roots %v, %d client certificates; want both", cfg.TLS.RootCAs != nil, len(cfg.TLS.Certificates))
			}
			if len(cfg.Header) != len(tc.header) {
				t.Errorf("Got(headers) %v; want %v", cfg.Header, tc.header)
			}
			for k, v := range tc.header {
				if cfg.Header.Get(k) != v {
					t.Errorf("Got(header %s) %q; want %q", k, cfg.Header.Get(k), v)
				}
			}
			if _, err := telemetry.NewExporter(cfg); err != nil {
				t.Errorf("Got(NewExporter) error %v; want nil", err)
			}
		})
	}
}

// A configuration built in code is checked as the variables are: a
// header that would split the request is refused, not sent.
func TestNewExporterRefuses(t *testing.T) {
	for name, cfg := range map[string]telemetry.ExporterConfig{
		"no URL":             {},
		"relative URL":       {URL: "/v1/traces"},
		"CRLF in a value":    {URL: "http://c/v1/traces", Header: http.Header{"A": {"b\r\nX-Forged: 1"}}},
		"CRLF in a name":     {URL: "http://c/v1/traces", Header: http.Header{"A\r\nB": {"c"}}},
		"empty header name":  {URL: "http://c/v1/traces", Header: http.Header{"": {"c"}}},
		"NUL in a value":     {URL: "http://c/v1/traces", Header: http.Header{"A": {"b\x00"}}},
		"ftp scheme":         {URL: "ftp://c/v1/traces"},
		"credentials in URL": {URL: "http://u:p@c/v1/traces"},
	} {
		if exp, err := telemetry.NewExporter(cfg); err == nil || exp != nil {
			t.Errorf("Got(NewExporter(%s)) = %v, %v; want an error", name, exp, err)
		}
	}
}

// FromEnv builds keel's exporter, and a variable it cannot use stops it
// with the variable's name.
func TestFromEnvRefusesBadExporterVariables(t *testing.T) {
	for _, v := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_TRACES_SAMPLER", "OTEL_EXPORTER_OTLP_TIMEOUT"} {
		t.Setenv(v, "")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20x%0D%0AHost:%20evil")
	tp, err := telemetry.FromEnv(context.Background())
	var ce *telemetry.ConfigError
	if tp != nil || !errors.As(err, &ce) || ce.Var != "OTEL_EXPORTER_OTLP_HEADERS" {
		t.Errorf("Got(FromEnv) = %v, %v; want a ConfigError for OTEL_EXPORTER_OTLP_HEADERS", tp, err)
	}
}

func env(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m["OTEL_EXPORTER_OTLP_"+kv[i]] = kv[i+1]
	}
	return m
}

// writeCert writes a self-signed CA certificate, and a client
// certificate and its key, as PEM files in dir.
func writeCert(t *testing.T, dir string) (ca, cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "keel test"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	for f, b := range map[string]*pem.Block{cert: {Type: "CERTIFICATE", Bytes: der}, key: {Type: "EC PRIVATE KEY", Bytes: kder}} {
		if err := os.WriteFile(f, pem.EncodeToMemory(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cert, cert, key
}
