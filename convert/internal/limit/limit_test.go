package limit_test

import (
	"testing"
	"time"

	"github.com/keel-go/keel/convert/internal/limit"
)

func TestDefault(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in, want int64
	}{
		{"unset", 0, 7},
		{"negative", -1, 7},
		{"set", 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.in
			limit.Default(&v, 7)
			if v != tc.want {
				t.Errorf("Default(%d, 7) = %d, want %d", tc.in, v, tc.want)
			}
		})
	}
	d := time.Duration(0)
	limit.Default(&d, time.Minute)
	if d != time.Minute {
		t.Errorf("Default of a zero duration = %v, want 1m0s", d)
	}
}
