package config_test

import (
	"testing"

	"github.com/keel-go/keel/config"
)

// TestContractValues pins the file name keel looks for, the default token
// variable and the largest keel.yaml to their literal values, which users
// and scripts rely on.
func TestContractValues(t *testing.T) {
	if config.DefaultFile != "keel.yaml" || config.DefaultTokenEnv != "KEEL_API_TOKEN" || config.MaxFileSize != 1<<20 {
		t.Errorf("Got(DefaultFile, DefaultTokenEnv, MaxFileSize) = %q, %q, %d; want keel.yaml, KEEL_API_TOKEN, %d", config.DefaultFile, config.DefaultTokenEnv, config.MaxFileSize, 1<<20)
	}
}
