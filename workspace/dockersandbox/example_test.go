package dockersandbox_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/keel-go/keel/workspace/dockersandbox"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// An engine that does not answer is an error that says where keel looked
// and what to do, and wraps ErrEngineUnreachable.
func ExampleConnect() {
	_, err := dockersandbox.Connect(context.Background(), "unix:///nonexistent/docker.sock")
	fmt.Println(errors.Is(err, dockersandbox.ErrEngineUnreachable))
	fmt.Println(err)
	// Output:
	// true
	// dockersandbox: no Docker engine answers at unix:///nonexistent/docker.sock: dial unix /nonexistent/docker.sock: connect: no such file or directory (start dockerd, or set DOCKER_HOST to the engine's address)
}

// The line a server says at start, from what NewResolver found.
func ExampleStatus_String() {
	st := dockersandbox.Status{
		Host: "unix:///var/run/docker.sock", Version: "20.10.24", APIVersion: "1.41",
		Image: dockersandbox.DefaultImage, ImageID: "sha256:0123456789abcdef", Runtime: "runc", UsernsRemap: true,
		Limits: localsandbox.Limits{Processes: 256, Memory: 1 << 30, FileSize: 1 << 30, Disk: 2 << 30, CPUTime: 10 * time.Minute},
		CPUs:   1,
		Enforcement: localsandbox.Enforcement{Processes: "cgroup", Memory: "cgroup", FileSize: localsandbox.Rlimit,
			Disk: "measured before each write, around each command and every 250ms while it runs, fallocate refused", CPUTime: localsandbox.Rlimit},
		IdleTimeout: 15 * time.Minute,
		Seccomp:     "the engine's default seccomp profile with keel's additions",
	}
	fmt.Println(st)
	fmt.Printf("warning: %q\n", st.Warning())
	// Output:
	// dockersandbox: sandbox commands run in containers of Docker 20.10.24 at unix:///var/run/docker.sock (API 1.41), image keel/sandbox:busybox (0123456789ab), runtime runc, as an unprivileged user with no network, no capabilities, no new privileges and a read-only root, under the engine's default seccomp profile with keel's additions, users remapped (the host's root is mapped nowhere); limits per sandbox: 256 processes (cgroup), 1 GiB memory without swap (cgroup), 1 GiB per file (rlimit), 2 GiB disk (measured before each write, around each command and every 250ms while it runs, fallocate refused), 10m0s CPU per process (rlimit), 1 CPUs at once (cgroup); a container stops after 15m0s without a command, its files kept in its volume
	// warning: ""
}
