package dockersandbox_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/keel-go/keel/internal/dockertest"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/dockersandbox"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// twoServers returns two resolvers of the same settings, each with its
// own connection to the engine, as two keel servers have.
func twoServers(t *testing.T, opts dockersandbox.Options) (*dockersandbox.Resolver, *dockersandbox.Resolver) {
	t.Helper()
	e := dockertest.Engine(t)
	if opts.Image == "" {
		opts.Image = dockertest.Image
	}
	if opts.Prefix == "" {
		opts.Prefix = dockertest.Prefix(t, e)
	}
	var rs [2]*dockersandbox.Resolver
	for i := range rs {
		conn, err := dockersandbox.Connect(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		if rs[i], err = dockersandbox.NewResolver(context.Background(), conn, localsandbox.PerResource, opts); err != nil {
			t.Fatal(err)
		}
	}
	return rs[0], rs[1]
}

func resolve(t *testing.T, r *dockersandbox.Resolver, scope workspace.Scope) *dockersandbox.Sandbox {
	t.Helper()
	sb, err := r.Resolve(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	return sb.(*dockersandbox.Sandbox)
}

// TestTwoServersShareFiles: a file uploaded through one server is listed
// and read byte for byte through the other, and a command run through the
// other reads it; another resource's sandbox does not see it.
func TestTwoServersShareFiles(t *testing.T) {
	ctx := context.Background()
	one, two := twoServers(t, dockersandbox.Options{})
	alice := workspace.Scope{ResourceID: "alice", ThreadID: "t1"}
	data := bytes.Repeat([]byte("col1,col2\r\n\x00\xff"), 70_000)
	up, err := workspace.Upload(ctx, resolve(t, one, alice), "t1", "alice", workspace.File{Name: "leads.csv", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if want := "/home/user/uploads/t1/" + fmt.Sprintf("%x", sha256.Sum256(data)) + ".csv"; up.Path != want {
		t.Errorf("Got(upload path) = %q; want %q", up.Path, want)
	}
	other := resolve(t, two, alice)
	entries, err := other.ReadDir(ctx, "uploads/t1")
	if err != nil || len(entries) != 1 || "uploads/t1/"+entries[0].Name() != up.RelPath {
		t.Fatalf("Got(ReadDir through the other server) = %v, %v; want only %s", entries, err, up.RelPath)
	}
	if fi, _ := entries[0].Info(); fi.Size() != int64(len(data)) || !fi.Mode().IsRegular() {
		t.Errorf("Got(listed file info) = %v; want a regular file of %d bytes", fi, len(data))
	}
	got, err := other.ReadFile(ctx, up.RelPath)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("Got(ReadFile through the other server) = %d bytes, %v; want the %d bytes uploaded", len(got), err, len(data))
	}
	res := mustRun(t, other, "sha256sum "+workspace.ShellQuote(up.Path))
	if sum := strings.Fields(string(res.Stdout)); len(sum) == 0 || sum[0] != up.SHA256 {
		t.Errorf("Got(sha256sum through the other server) = %q; want %s", res.Stdout, up.SHA256)
	}
	// Another user's sandbox is another volume.
	bob := resolve(t, two, workspace.Scope{ResourceID: "bob", ThreadID: "t1"})
	if _, err := bob.Stat(ctx, up.RelPath); err == nil {
		t.Errorf("Got(bob's sandbox holds alice's upload); want it absent")
	}
}

// TestTwoServersRaceToCreate: both servers, several runs each, make the
// same resource's container at once; one container results, and every
// run worked in it.
func TestTwoServersRaceToCreate(t *testing.T) {
	ctx := context.Background()
	one, two := twoServers(t, dockersandbox.Options{})
	scope := workspace.Scope{ResourceID: "carol"}
	var wg sync.WaitGroup
	hosts := make([]string, 8)
	for i := range hosts {
		r := one
		if i%2 == 1 {
			r = two
		}
		sb := resolve(t, r, scope)
		wg.Go(func() {
			res, err := sb.RunCommand(ctx, workspace.Command{Line: "cat /proc/sys/kernel/random/boot_id; hostname; cat /proc/1/stat | cut -d' ' -f22"})
			if err != nil {
				t.Errorf("Got(RunCommand #%d) error %v; want none", i, err)
				return
			}
			hosts[i] = string(res.Stdout)
		})
	}
	wg.Wait()
	key, _ := one.Key(scope)
	ids, err := dockersandbox.Containers(ctx, one, key)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 {
		t.Fatalf("Got(%d containers for one resource) = %v; want 1", len(ids), ids)
	}
	// The start time of the container's first process is the same for
	// every run: one container, never made twice.
	for i, h := range hosts {
		if h != hosts[0] {
			t.Errorf("Got(run #%d saw %q); want %q like run #0: one container", i, h, hosts[0])
		}
	}
}
