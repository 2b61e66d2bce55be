package e2etest

import (
	"encoding/json"
	"os"
	"testing"
)

// Results is what end-to-end tests read of a results.json: per process its agents, counters and
// counter records (the dispatch, its samples, its pass and its rotation group).
type Results struct {
	Tool []struct {
		Agents []struct {
			ID struct {
				Handle uint64 `json:"handle"`
			} `json:"id"`
			Name string `json:"name"`
		} `json:"agents"`
		Counters []struct {
			ID struct {
				Handle uint64 `json:"handle"`
			} `json:"id"`
			AgentID struct {
				Handle uint64 `json:"handle"`
			} `json:"agent_id"`
			Name string `json:"name"`
		} `json:"counters"`
		CallbackRecords struct {
			CounterCollection []struct {
				DispatchData struct {
					DispatchInfo struct {
						DispatchID uint64 `json:"dispatch_id"`
						AgentID    struct {
							Handle uint64 `json:"handle"`
						} `json:"agent_id"`
					} `json:"dispatch_info"`
				} `json:"dispatch_data"`
				Records []struct {
					CounterID struct {
						Handle uint64 `json:"handle"`
					} `json:"counter_id"`
					Value float64 `json:"value"`
				} `json:"records"`
				ReplayPass *int `json:"replay_pass"`
				PMCGroup   *int `json:"pmc_group"`
			} `json:"counter_collection"`
		} `json:"callback_records"`
	} `json:"rocprofiler-sdk-tool"`
}

// ReadResults reads the results.json at path, failing the test when it cannot.
func ReadResults(t testing.TB, path string) Results {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rf Results
	if err := json.Unmarshal(data, &rf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rf
}
