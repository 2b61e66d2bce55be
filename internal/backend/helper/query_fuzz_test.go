package helper

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// FuzzDecodeReply: a query helper's reply of any content decodes or is an error, never a panic, and
// only a single JSON document (white space around it) is accepted.
func FuzzDecodeReply(f *testing.F) {
	for _, seed := range []string{
		`{"version":1,"backend":"sim","agents":[{"id":1,"index":0,"name":"gfx90a","props":{"cu_count":104}}]}`,
		`{"version":1,"agent":0,"chip":"GH100","metrics":[{"name":"sm__inst_executed.sum","description":"d","unit":"inst"}]}`,
		`{"version":1,"agent":0,"metrics":["a","b"],"passes":2}`,
		`{"version":1,"passes":1e30}`,
		`{"version":1}{"version":1}`,
		"  {\"version\":1}\n\n",
		`[1,2]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		replies := []any{&contract.AgentsReply{}, &contract.MetricsReply{}, &contract.PassesReply{}}
		for _, reply := range replies {
			if err := decodeReply("helper agents", data, reply); err == nil && !json.Valid(bytes.TrimSpace(data)) {
				t.Fatalf("accepted %q, which is not one JSON document", data)
			}
		}
	})
}
