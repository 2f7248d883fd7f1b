// Package dockertest gives tests a Docker engine and a sandbox image
// built on it from the machine's static busybox, with no registry. When
// no engine answers, or busybox-static is missing, a test skips saying
// why, or fails when the CI environment variable is set (scripts/test.sh
// installs docker.io and busybox-static and starts dockerd).
package dockertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace/dockersandbox"
)

// SkipReason is why a test that needs the engine skips without one.
const SkipReason = "no Docker engine answers at $DOCKER_HOST or /var/run/docker.sock; " +
	"install docker.io and start dockerd (scripts/test.sh does)"

// Image is the image tests' sandboxes use, built once per test binary.
const Image = "keel/sandbox:test"

var (
	once     sync.Once
	engine   *dockersandbox.Engine
	setupErr error
)

// Engine returns a client of the test engine, with the test image built
// on it, or skips t (fails it under CI) when there is none.
func Engine(t testing.TB) *dockersandbox.Engine {
	t.Helper()
	once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		engine, setupErr = dockersandbox.Connect(ctx, "")
		if setupErr != nil {
			return
		}
		if _, err := os.Stat(dockersandbox.DefaultBusybox); err != nil {
			setupErr = fmt.Errorf("%w: %v (install Debian's busybox-static)", errNoBusybox, err)
			return
		}
		setupErr = dockersandbox.BuildImage(ctx, engine, Image, dockersandbox.DefaultBusybox, 0, 0)
	})
	if setupErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v (CI is set, so this fails instead of skipping)", setupErr)
		}
		if errors.Is(setupErr, dockersandbox.ErrEngineUnreachable) {
			t.Skip(SkipReason + ": " + setupErr.Error())
		}
		if errors.Is(setupErr, errNoBusybox) {
			t.Skip(setupErr.Error())
		}
		t.Fatal(setupErr)
	}
	return engine
}

var errNoBusybox = errors.New("dockertest: no static busybox to build the sandbox image from")

// Prefix returns a container and volume name prefix of t's own, whose
// containers and volumes are removed when t ends.
func Prefix(t testing.TB, e *dockersandbox.Engine) string {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	prefix := "keeltest-" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := dockersandbox.Purge(ctx, e, prefix); err != nil {
			t.Errorf("dockertest: remove the test's sandboxes: %v", err)
		}
	})
	return prefix
}

// Options returns sandbox options for t: the test image and a prefix of
// t's own.
func Options(t testing.TB, e *dockersandbox.Engine) dockersandbox.Options {
	t.Helper()
	return dockersandbox.Options{Image: Image, Prefix: Prefix(t, e)}
}
