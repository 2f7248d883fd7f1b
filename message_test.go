package keel_test

import (
	"encoding/json"
	"testing"

	"github.com/keel-go/keel"
)

func TestIsSystemReminder(t *testing.T) {
	tests := []struct {
		name     string
		metadata string // JSON, as a store gives it back
		want     bool
	}{
		{"prefill reminder", `{"systemReminder":{"type":"anthropic-prefill-processor-retry"}}`, true},
		{"marker true, as stored before", `{"systemReminder":true}`, true},
		{"marker false", `{"systemReminder":false}`, false},
		{"marker null", `{"systemReminder":null}`, false},
		{"other metadata", `{"source":"app"}`, false},
		{"no metadata", `null`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := keel.UserText("continue")
			if err := json.Unmarshal([]byte(tt.metadata), &m.Metadata); err != nil {
				t.Fatal(err)
			}
			if got := m.IsSystemReminder(); got != tt.want {
				t.Errorf("Got(IsSystemReminder(%s)) = %v; want %v", tt.metadata, got, tt.want)
			}
		})
	}
}
