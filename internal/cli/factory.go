package cli

import (
	"context"
	"io"
	"os"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/replay"
)

// IOStreams are the streams commands read and write; tests give buffers.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// Factory hands commands what they depend on outside the command line. Each dependency is a
// function, called only by the commands that need it, so that `gorocprof --help` or a validation
// error never touches a GPU, a query helper or the file system.
type Factory struct {
	IO IOStreams

	// Backend turns a --backend value into the backend a command works on (backend.Choose in the
	// real program); the data functions below and Prepare use it.
	Backend backend.Chooser

	// Prepare checks one validated request against what lies outside the command line, launching
	// nothing: the application can be executed, the backend is usable, every counter exists on
	// the agents (replay.NewPreparer in the real program). Every job of a sweep is prepared before
	// the first one runs. The request it returns goes to Runner. Nil checks nothing more (tests
	// that look only at what the command line makes of its arguments).
	Prepare func(ctx context.Context, req replay.Request) (replay.Request, error)

	// Runner runs one validated profiling request (replay.Run in the real program).
	Runner func(ctx context.Context, req replay.Request) (replay.Result, error)

	// Comparer runs an application under kernel replay and under application replay and compares
	// the counters (replay.NewComparer(Prepare) in the real program), for `compare`.
	Comparer func(ctx context.Context, req replay.CompareRequest) (replay.CompareReport, error)

	// Processor writes the outputs of a kept run directory (replay.Process in the real program), for
	// `process`.
	Processor func(ctx context.Context, req replay.ProcessRequest) (replay.Result, error)

	// AvailData lists the agents of a backend and the counters each offers, for `avail` and -L.
	AvailData func(ctx context.Context, c backend.Choice, extra *counters.Extra) ([]AgentCounters, error)

	// PlanData plans counter groups onto the agents of a backend, for `plan`.
	PlanData func(ctx context.Context, c backend.Choice, extra *counters.Extra, groups []counters.Group) ([]contract.PlanAgent, error)
}

// AgentCounters is one agent and its counter catalog.
type AgentCounters struct {
	Agent    contract.Agent
	Counters []counters.CounterInfo
}

// NewFactory returns the Factory of the real program: the standard streams and the real data
// sources (wire.go).
func NewFactory() *Factory {
	f := &Factory{IO: IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}}
	wire(f)
	return f
}
