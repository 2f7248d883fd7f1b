package dockersandbox

import "context"

// Settings is what the engine says of a sandbox's container, for tests.
type Settings = containerInfo

// Inspect returns the engine's description of sb's container.
func Inspect(ctx context.Context, sb *Sandbox) (*Settings, error) { return sb.inspect(ctx) }

// ContainerProcesses is how many processes the container takes beside
// the commands.
const ContainerProcesses = containerProcesses
