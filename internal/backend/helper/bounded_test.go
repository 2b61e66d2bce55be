package helper

import (
	"context"
	"strings"
	"testing"
)

// TestHelperRepliesBounded: a helper whose reply goes past the limit, or that prints more after its
// JSON document, is an error naming the call.
func TestHelperRepliesBounded(t *testing.T) {
	tests := []struct {
		mode, want string
		limit      int64
	}{
		{"flood", "its output is longer than the limit of 1024 bytes", 1024},
		{"trailing", "text after the JSON document", replyLimit},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			old := replyLimit
			replyLimit = tc.limit
			defer func() { replyLimit = old }()
			_, err := Agents(context.Background(), helper(t, tc.mode))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), " agents") {
				t.Fatalf("Agents = %v, want an error naming the call and containing %q", err, tc.want)
			}
		})
	}
}
