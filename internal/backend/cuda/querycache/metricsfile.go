package querycache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// A chip's catalog is the cache's big file (150,179 metrics, about 30 MB on an H200) and every warm
// planning run reads it, so it is not JSON: one JSON header line, then one line per metric, its name,
// unit and description separated by tabs, with backslash, tab, newline and carriage return escaped.
// Decoding slices the fields out of one string instead of allocating each (docs/perf.md, "Front end").
const metricsSuffix = ".metrics.tsv"

type metricsHeader struct {
	Format   int    `json:"format"`
	Identity string `json:"identity"`
	Chip     string `json:"chip"`
	Count    int    `json:"count"`
}

var (
	fieldEscaper   = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)
	fieldUnescaper = strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\r`, "\r")
)

func encodeMetrics(metrics []contract.Metric, identity, chip string) []byte {
	head, _ := json.Marshal(metricsHeader{Format: formatVersion, Identity: identity, Chip: chip, Count: len(metrics)})
	var b bytes.Buffer
	b.Grow(len(head) + 1 + len(metrics)*160)
	b.Write(head)
	b.WriteByte('\n')
	for _, m := range metrics {
		fieldEscaper.WriteString(&b, m.Name)
		b.WriteByte('\t')
		fieldEscaper.WriteString(&b, m.Unit)
		b.WriteByte('\t')
		fieldEscaper.WriteString(&b, m.Description)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// decodeMetrics reads a catalog file written by encodeMetrics for identity want. A file of another
// format or identity, or one whose lines do not add up to its header's count, is an error.
func decodeMetrics(data []byte, want string) ([]contract.Metric, error) {
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return nil, errors.New("no header line")
	}
	var h metricsHeader
	if err := json.Unmarshal(data[:nl], &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if h.Format != formatVersion || h.Identity != want || h.Count < 0 {
		return nil, errors.New("another format or identity")
	}
	body := string(data[nl+1:]) // one copy; every field below is a substring of it
	if body != "" && body[len(body)-1] != '\n' {
		return nil, errors.New("truncated")
	}
	// Every line takes at least 4 bytes (a name, two tabs, the newline): a damaged header's count must not
	// size the slice.
	metrics := make([]contract.Metric, 0, min(h.Count, len(body)/4))
	for len(body) > 0 {
		end := strings.IndexByte(body, '\n')
		line := body[:end]
		body = body[end+1:]
		name, rest, ok1 := strings.Cut(line, "\t")
		unit, desc, ok2 := strings.Cut(rest, "\t")
		if !ok1 || !ok2 || name == "" {
			return nil, fmt.Errorf("line %d: want name, unit and description", len(metrics)+2)
		}
		metrics = append(metrics, contract.Metric{Name: unescape(name), Unit: unescape(unit), Description: unescape(desc)})
	}
	if len(metrics) != h.Count {
		return nil, fmt.Errorf("%d metrics, header says %d", len(metrics), h.Count)
	}
	return metrics, nil
}

func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	return fieldUnescaper.Replace(s)
}
