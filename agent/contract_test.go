package agent_test

import (
	"testing"

	"github.com/keel-go/keel/agent"
)

// TestDefaultsAreTheDocumentedOnes pins each default to the figure the
// documentation gives, so that changing one is a visible decision.
func TestDefaultsAreTheDocumentedOnes(t *testing.T) {
	if agent.DefaultMaxSteps != 5 || agent.DefaultLastMessages != 10 {
		t.Errorf("Got(DefaultMaxSteps, DefaultLastMessages) = %d, %d; want 5, 10", agent.DefaultMaxSteps, agent.DefaultLastMessages)
	}
}
