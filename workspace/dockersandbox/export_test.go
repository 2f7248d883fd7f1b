package dockersandbox

import (
	"context"
	"time"

	"github.com/keel-go/keel/workspace"
)

// Settings is what the engine says of a sandbox's container, for tests.
type Settings = containerInfo

// Inspect returns the engine's description of sb's container.
func Inspect(ctx context.Context, sb *Sandbox) (*Settings, error) { return sb.inspect(ctx) }

// ContainerProcesses is how many processes the container takes beside
// the commands.
const ContainerProcesses = containerProcesses

// Containers returns the IDs of the containers of r's prefix and key.
func Containers(ctx context.Context, r *Resolver, key string) ([]string, error) {
	found, err := r.list(ctx, []string{LabelKey + "=" + key}, nil)
	ids := make([]string, len(found))
	for i, c := range found {
		ids[i] = c.ID
	}
	return ids, err
}

// CreateOnly makes sb's container without starting it, as a server that
// died between the two would leave it.
func CreateOnly(ctx context.Context, sb *Sandbox) error {
	return sb.engine.call(ctx, "POST", "/containers/create", map[string][]string{"name": {sb.name}}, sb.body, nil)
}

// SetReapAge sets how old a container never started must be for Reap,
// until the test ends.
func SetReapAge(t interface{ Cleanup(func()) }, d time.Duration) {
	old := reapAge
	reapAge = d
	t.Cleanup(func() { reapAge = old })
}

// VolumePath returns where sb's volume is on the engine's host, making
// and starting its container first (a sandbox's volume is made with it).
func VolumePath(ctx context.Context, sb *Sandbox) (string, error) {
	if _, err := sb.RunCommand(ctx, workspace.Command{Line: "true"}); err != nil {
		return "", err
	}
	var v struct{ Mountpoint string }
	err := sb.engine.call(ctx, "GET", "/volumes/"+sb.volume, nil, nil, &v)
	return v.Mountpoint, err
}

// Measure measures sb's working directory as its quota does.
func Measure(ctx context.Context, sb *Sandbox) (int64, error) { return sb.measure(ctx) }

// ErrUnreadable is Measure's error when du could not read all of the
// working directory.
var ErrUnreadable = errUnreadable
