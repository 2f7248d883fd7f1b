package telemetry

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// ExporterConfig is where and how an [Exporter] sends spans.
type ExporterConfig struct {
	// URL is the full OTLP/HTTP traces URL, such as
	// http://collector:4318/v1/traces.
	URL string
	// Header is sent with every export (an API key, a tenant).
	Header http.Header
	// Timeout bounds one export, its retries included (default 10 s).
	Timeout time.Duration
	// Gzip compresses each export's body.
	Gzip bool
	// TLS is the client's TLS configuration for an https URL (the
	// system's roots when nil).
	TLS *tls.Config
	// Backoff is the first wait before trying again when the collector
	// says when not (default 1 s); it doubles each try, up to 30 s.
	Backoff time.Duration
}

// ConfigError is an OTEL_EXPORTER_OTLP_* variable keel cannot use, and
// why. It never holds the variable's value, which may be a secret.
type ConfigError struct {
	Var    string
	Reason string
}

func (e *ConfigError) Error() string { return "telemetry: " + e.Var + ": " + e.Reason }

// The defaults of the OTLP exporter specification.
const (
	defaultOTLPEndpoint = "http://localhost:4318"
	defaultOTLPTimeout  = 10 * time.Second
	tracesPath          = "/v1/traces"
)

// ExporterConfigFromEnv reads the exporter's configuration from the
// OTEL_EXPORTER_OTLP_* variables, each OTEL_EXPORTER_OTLP_TRACES_*
// winning over its general form:
//
//   - PROTOCOL: http/protobuf, the only one keel sends (default).
//   - ENDPOINT: the collector's base URL, to which /v1/traces is added
//     (default http://localhost:4318); TRACES_ENDPOINT is used as is.
//     Its scheme, http or https, decides TLS (so _INSECURE, which the
//     specification keeps for gRPC, is not read).
//   - HEADERS: name=value pairs separated by commas, values
//     URL-encoded, as in OTEL_EXPORTER_OTLP_HEADERS=api-key=s%3Dcret.
//   - TIMEOUT: milliseconds per export, retries included (default 10000).
//   - COMPRESSION: gzip or none (the default).
//   - CERTIFICATE: a PEM file of the roots to trust; CLIENT_CERTIFICATE
//     and CLIENT_KEY: PEM files of a client certificate and its key.
//
// A value keel cannot use is a [*ConfigError], where the OpenTelemetry
// SDK would log it and go on without it: a header lost or a
// certificate not read would otherwise cost every span silently.
// getenv is os.Getenv, or a test's; files are read with os.ReadFile.
func ExporterConfigFromEnv(getenv func(string) string) (ExporterConfig, error) {
	var cfg ExporterConfig
	get := func(name string) (string, string) { // the variable's value, and the name it was found under
		if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_" + name)); v != "" {
			return v, "OTEL_EXPORTER_OTLP_TRACES_" + name
		}
		return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name)), "OTEL_EXPORTER_OTLP_" + name
	}
	if v, name := get("PROTOCOL"); v != "" && v != "http/protobuf" {
		return cfg, &ConfigError{name, fmt.Sprintf("%q: keel sends traces over OTLP/HTTP only: set http/protobuf "+
			"and an endpoint such as http://collector:4318", v)}
	}
	if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")); v != "" {
		u, err := parseEndpoint("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", v)
		if err != nil {
			return cfg, err
		}
		if u.Path == "" {
			u.Path = "/"
		}
		cfg.URL = u.String()
	} else {
		v, name := get("ENDPOINT")
		if v == "" {
			v = defaultOTLPEndpoint
		}
		u, err := parseEndpoint(name, v)
		if err != nil {
			return cfg, err
		}
		u.Path = strings.TrimSuffix(u.Path, "/") + tracesPath
		u.RawPath = ""
		cfg.URL = u.String()
	}
	if v, name := get("HEADERS"); v != "" {
		h, err := parseHeaders(name, v)
		if err != nil {
			return cfg, err
		}
		cfg.Header = h
	}
	cfg.Timeout = defaultOTLPTimeout
	if v, name := get("TIMEOUT"); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms <= 0 || ms > int64(24*time.Hour/time.Millisecond) {
			return cfg, &ConfigError{name, "want milliseconds, a whole number above 0 such as 10000"}
		}
		cfg.Timeout = time.Duration(ms) * time.Millisecond
	}
	if v, name := get("COMPRESSION"); v != "" {
		switch strings.ToLower(v) {
		case "gzip":
			cfg.Gzip = true
		case "none":
		default:
			return cfg, &ConfigError{name, fmt.Sprintf("%q: want gzip or none", v)}
		}
	}
	tlsCfg, err := tlsFromEnv(get)
	if err != nil {
		return cfg, err
	}
	if tlsCfg != nil && !strings.HasPrefix(cfg.URL, "https:") {
		return cfg, &ConfigError{"OTEL_EXPORTER_OTLP_CERTIFICATE", "certificates are set for " + cfg.URL + ", which is not https"}
	}
	cfg.TLS = tlsCfg
	return cfg, nil
}

func parseEndpoint(name, v string) (*url.URL, error) {
	u, err := url.Parse(v)
	if err != nil {
		return nil, &ConfigError{name, "not a URL: want one such as http://collector:4318"}
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, &ConfigError{name, "want an http:// or https:// URL with a host, such as http://collector:4318"}
	}
	if u.User != nil {
		return nil, &ConfigError{name, "credentials in the URL: send them with OTEL_EXPORTER_OTLP_HEADERS"}
	}
	return u, nil
}

// parseHeaders reads a W3C-baggage-like list of name=value pairs. A
// name must be an HTTP token and a value, once URL-decoded, may not hold
// control characters: a CR or LF would split the request's headers.
func parseHeaders(name, v string) (http.Header, error) {
	h := http.Header{}
	for i, pair := range strings.Split(v, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || !httpguts.ValidHeaderFieldName(k) {
			return nil, &ConfigError{name, fmt.Sprintf("pair %d: want name=value, the name an HTTP header name", i+1)}
		}
		dec, err := url.PathUnescape(val)
		if err != nil {
			return nil, &ConfigError{name, "header " + k + ": its value is not URL-encoded right"}
		}
		dec = strings.TrimSpace(dec)
		if !httpguts.ValidHeaderFieldValue(dec) {
			return nil, &ConfigError{name, "header " + k + ": its value holds a control character (such as CR or LF)"}
		}
		h.Add(k, dec)
	}
	return h, nil
}

// tlsFromEnv is the TLS configuration the CERTIFICATE, CLIENT_CERTIFICATE
// and CLIENT_KEY variables ask for, or nil when none is set.
func tlsFromEnv(get func(string) (string, string)) (*tls.Config, error) {
	ca, caVar := get("CERTIFICATE")
	cert, certVar := get("CLIENT_CERTIFICATE")
	key, keyVar := get("CLIENT_KEY")
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, &ConfigError{caVar, err.Error()}
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, &ConfigError{caVar, ca + ": no PEM certificate in it"}
		}
	}
	if (cert == "") != (key == "") {
		return nil, &ConfigError{certVar, "set both " + certVar + " and " + keyVar + ", or neither"}
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, &ConfigError{certVar, err.Error()}
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}
