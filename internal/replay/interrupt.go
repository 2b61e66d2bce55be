package replay

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gorocprof/gorocprof/internal/launch"
)

// InterruptedError is the cause of an output phase that SIGINT or SIGTERM stopped: no file was
// left partial, the files not complete kept what they held before, and the records were kept.
type InterruptedError struct {
	Signal syscall.Signal
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted by %s while writing the output: the files not complete were not written (earlier files of those names are untouched)",
		launch.SignalName(e.Signal))
}

// interrupts holds SIGINT and SIGTERM for the whole of a run, so that neither ends gorocprof
// half way through its files. While the application runs, the launcher forwards them to it and
// they are dropped here; once it has ended, the next one stops the output phase.
type interrupts struct {
	sigs chan os.Signal
}

func catchInterrupts() *interrupts {
	i := &interrupts{sigs: make(chan os.Signal, 1)}
	signal.Notify(i.sigs, syscall.SIGINT, syscall.SIGTERM)
	return i
}

// outputPhase returns the context of the output that follows a run of the application, cancelled
// with an *InterruptedError by the first SIGINT or SIGTERM from now on, and its release.
func (i *interrupts) outputPhase(ctx context.Context) (context.Context, func()) {
	for drained := false; !drained; {
		select {
		case <-i.sigs: // the application's, forwarded by the launcher
		default:
			drained = true
		}
	}
	octx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-i.sigs:
			cancel(&InterruptedError{Signal: s.(syscall.Signal)})
		case <-done:
		}
	}()
	return octx, func() {
		close(done)
		cancel(nil)
	}
}

func (i *interrupts) stop() { signal.Stop(i.sigs) }
