package dockersandbox_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/keel-go/keel/internal/dockertest"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/dockersandbox"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// waitGone waits until the resolver's containers of key are all gone, and
// fails the test when one is still there after d.
func waitGone(t *testing.T, r *dockersandbox.Resolver, key string, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		ids, err := dockersandbox.Containers(context.Background(), r, key)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) == 0 {
			return time.Since(start)
		}
		if time.Since(start) > d {
			t.Fatalf("Got(container %v still there after %v); want it stopped and removed", ids, d)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// TestIdleStop: a container stops by itself once idle and the engine
// removes it; its files stay in the volume, and the next use makes a new
// container that has them. A running command keeps it up past the idle
// time.
func TestIdleStop(t *testing.T) {
	t.Parallel() // mostly waits: beside the package's other waiting tests
	ctx := context.Background()
	r, _ := twoServers(t, dockersandbox.Options{IdleTimeout: 3 * time.Second})
	scope := workspace.Scope{ResourceID: "dave"}
	key, _ := r.Key(scope)
	sb := resolve(t, r, scope)
	if err := sb.WriteFile(ctx, "kept.txt", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	// A command longer than the idle time keeps the container.
	res := mustRun(t, sb, "sleep 7; echo done")
	if string(res.Stdout) != "done\n" {
		t.Errorf("Got(a command longer than the idle time) = %q; want done", res.Stdout)
	}
	d := waitGone(t, r, key, 30*time.Second)
	t.Logf("container gone %v after its last command", d)
	got, err := resolve(t, r, scope).ReadFile(ctx, "kept.txt")
	if err != nil || string(got) != "kept" {
		t.Errorf("Got(ReadFile after the container stopped) = %q, %v; want the file kept", got, err)
	}
}

// helperEnv makes the test binary run a command in a sandbox and hang
// there, standing for a keel server that dies mid-command.
const helperEnv = "KEEL_DOCKERSANDBOX_HELPER"

// TestServerKilledMidCommand: a server killed while its command runs
// leaves no container running past the command's time limit and the idle
// time: the command's wrapper ends it, and the idle container stops.
func TestServerKilledMidCommand(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		runHelper(t)
		return
	}
	t.Parallel() // waits half a minute for the wrapper and the idle time
	ctx := context.Background()
	e := dockertest.Engine(t)
	prefix := dockertest.Prefix(t, e)
	opts := dockersandbox.Options{Image: dockertest.Image, Prefix: prefix, IdleTimeout: 3 * time.Second}
	r, err := dockersandbox.NewResolver(ctx, e, localsandbox.PerResource, opts)
	if err != nil {
		t.Fatal(err)
	}
	scope := workspace.Scope{ResourceID: "erin"}
	key, _ := r.Key(scope)
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerKilledMidCommand$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+prefix)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sb := resolve(t, r, scope)
	deadline := time.Now().Add(4 * time.Minute)
	for {
		if data, err := sb.ReadFile(ctx, "started"); err == nil && len(data) > 0 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("Got no sign of the helper's command within 4 minutes; want it running\nhelper: %s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed := time.Now()
	// The command's limit is 20 s, its wrapper's 30 s; then 3 s idle.
	d := waitGone(t, r, key, 2*time.Minute)
	t.Logf("container gone %v after its server was killed", time.Since(killed))
	if d < 10*time.Second {
		t.Errorf("Got(container gone %v after the kill); want it kept while the command could still run", d)
	}
}

// runHelper runs, as the server to be killed, a command that would run
// for ten minutes with a time limit of 20 seconds.
func runHelper(t *testing.T) {
	e, err := dockersandbox.Connect(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := dockersandbox.NewResolver(context.Background(), e, localsandbox.PerResource,
		dockersandbox.Options{Image: dockertest.Image, Prefix: os.Getenv(helperEnv), IdleTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sb := resolve(t, r, workspace.Scope{ResourceID: "erin"})
	_, _ = sb.RunCommand(context.Background(), workspace.Command{Line: "echo yes > started; sleep 600", Timeout: 20 * time.Second})
	// The parent kills this process before the limit ends the command.
	time.Sleep(time.Hour)
}
