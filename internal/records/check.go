package records

import "github.com/gorocprof/gorocprof/internal/contract"

// Logical is one logical dispatch: every recorded pass of one dispatch_id, by pass index.
type Logical struct {
	ID     uint64
	Passes []*contract.Dispatch
}
