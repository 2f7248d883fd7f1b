package dockersandbox_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace/dockersandbox"
)

// pingServer answers /_ping as an engine of API version v does, on a
// unix socket, and returns its DOCKER_HOST.
func pingServer(t *testing.T, v string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("API-Version", v)
		if r.URL.Path != "/_ping" {
			http.Error(w, `{"message":"page not found"}`, http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte("OK"))
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "unix://" + sock
}

// TestConnectNegotiates: the engine's API version is used within what
// the package speaks, capped above, refused below, and
// DOCKER_API_VERSION pins one.
func TestConnectNegotiates(t *testing.T) {
	for _, tc := range []struct {
		engine, pin, want, err string
	}{
		{engine: "1.41", want: "1.41"},
		{engine: "1.45", want: "1.45"},
		{engine: "1.52", want: "1.47"},
		{engine: "1.40", err: "older than 1.41"},
		{engine: "", err: "gives no API version"},
		{engine: "1.52", pin: "1.44", want: "1.44"},
		{engine: "1.41", pin: "one", err: "DOCKER_API_VERSION"},
	} {
		t.Run(tc.engine+"/"+tc.pin, func(t *testing.T) {
			t.Setenv(dockersandbox.EnvAPIVersion, tc.pin)
			e, err := dockersandbox.Connect(context.Background(), pingServer(t, tc.engine))
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("Got(Connect) error %v; want one saying %q", err, tc.err)
				}
			case err != nil:
				t.Errorf("Got(Connect) error %v; want none", err)
			case e.APIVersion() != tc.want:
				t.Errorf("Got(APIVersion) = %s; want %s", e.APIVersion(), tc.want)
			}
		})
	}
}

// TestConnectUnreachable: no engine, or a host keel cannot speak to, is
// a clear error naming where keel looked.
func TestConnectUnreachable(t *testing.T) {
	t.Setenv(dockersandbox.EnvCertPath, "")
	t.Setenv(dockersandbox.EnvTLSVerify, "")
	missing := "unix://" + filepath.Join(t.TempDir(), "none.sock")
	for _, tc := range []struct {
		host        string
		unreachable bool
		says        string
	}{
		{missing, true, "none.sock"},
		{"tcp://127.0.0.1:1", true, "127.0.0.1:1"},
		{"http://localhost:2375", false, "unix:// or tcp://"},
		{"unix://", false, "names no socket"},
		{"tcp://", false, "names no host:port"},
	} {
		_, err := dockersandbox.Connect(context.Background(), tc.host)
		if err == nil || errors.Is(err, dockersandbox.ErrEngineUnreachable) != tc.unreachable || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Got(Connect(%q)) error %v; want one saying %q (unreachable %v)", tc.host, err, tc.says, tc.unreachable)
		}
	}
	t.Setenv(dockersandbox.EnvHost, missing)
	if _, err := dockersandbox.Connect(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "none.sock") {
		t.Errorf("Got(Connect with DOCKER_HOST) error %v; want one naming DOCKER_HOST's socket", err)
	}
}

// TestConnectTLS: over TCP with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH,
// keel presents its client certificate and verifies the engine's against
// ca.pem; an engine whose certificate another CA signed is refused.
func TestConnectTLS(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := newCA(t)
	serverCert := issue(t, ca, caKey, false)
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", ca.Raw)
	client := issue(t, ca, caKey, true)
	writePEM(t, filepath.Join(dir, "cert.pem"), "CERTIFICATE", client.Certificate[0])
	key, _ := x509.MarshalECPrivateKey(client.PrivateKey.(*ecdsa.PrivateKey))
	writePEM(t, filepath.Join(dir, "key.pem"), "EC PRIVATE KEY", key)

	pool := x509.NewCertPool()
	pool.AddCert(ca)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("API-Version", "1.43")
		_, _ = w.Write([]byte("OK"))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{serverCert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert}
	srv.StartTLS()
	defer srv.Close()
	host := "tcp://" + srv.Listener.Addr().String()

	t.Setenv(dockersandbox.EnvTLSVerify, "1")
	t.Setenv(dockersandbox.EnvCertPath, dir)
	e, err := dockersandbox.Connect(context.Background(), host)
	if err != nil || e.APIVersion() != "1.43" {
		t.Fatalf("Got(Connect over TLS) = %v; want API 1.43", err)
	}
	other, _ := newCA(t)
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", other.Raw)
	if _, err := dockersandbox.Connect(context.Background(), host); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("Got(Connect to an engine another CA signed) error %v; want a certificate error", err)
	}
	t.Setenv(dockersandbox.EnvCertPath, filepath.Join(dir, "missing"))
	if _, err := dockersandbox.Connect(context.Background(), host); err == nil || !strings.Contains(err.Error(), "ca.pem") {
		t.Errorf("Got(Connect without ca.pem) error %v; want one naming ca.pem", err)
	}
}

func newCA(t *testing.T) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert, key
}

func issue(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, client bool) tls.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "engine"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if client {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
