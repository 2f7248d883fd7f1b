package dockersandbox

import (
	"context"
	"time"
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
