// Package pb holds the messages of Perfetto's trace format that gorocprof writes, generated from
// trace.proto with protoc and protoc-gen-go (docs/dependencies.md says where they come from).
package pb

//go:generate protoc --go_out=. --go_opt=paths=source_relative trace.proto
