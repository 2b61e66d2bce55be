package replay

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

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

// interrupts holds SIGINT, SIGTERM and SIGHUP for the whole of a run, so that none ends gorocprof
// half way through its files. While the application runs, the launcher forwards them to it and
// they are dropped here; once it has ended, the next one stops the output phase.
type interrupts struct {
	sigs chan os.Signal
	// grace is how long after the application's end a signal that ended it is still taken for
	// the same one: Ctrl-C signals the whole process group, so gorocprof may take in its own
	// copy only after the application, killed by it, has been reaped.
	grace time.Duration
	// during is the last signal that arrived while the application ran (0 if none): an application
	// that handles Ctrl-C and exits 0 still means the user asked to stop.
	during syscall.Signal
	// stderr is where the interrupts are explained; nil says nothing.
	stderr io.Writer
	// watching is the goroutine that takes in, and explains, the signals of the application's run
	// (watchRun); nil when none runs.
	watching *runWatch
}

// runWatch takes in the signals that arrive while the application runs.
type runWatch struct {
	stop chan struct{}
	done chan struct{}
	last atomic.Int32
}

// watchRun starts taking in the signals that arrive while the application runs (the launcher
// passes them on to it): the first one is explained on stderr, since gorocprof, unlike the
// application, does not stop at it.
func (i *interrupts) watchRun() {
	i.stopWatch()
	w := &runWatch{stop: make(chan struct{}), done: make(chan struct{})}
	i.watching = w
	go func() {
		defer close(w.done)
		told := false
		for {
			select {
			case s := <-i.sigs:
				w.last.Store(int32(s.(syscall.Signal)))
				if !told && i.stderr != nil {
					told = true
					fmt.Fprintf(i.stderr, "\ngorocprof: %s passed on to the application; once it has ended, gorocprof writes the output of what it measured "+
						"(Ctrl-C again while that is written stops it, keeping the records for `gorocprof process`)\n", launch.SignalName(s.(syscall.Signal)))
				}
			case <-w.stop:
				return
			}
		}
	}()
}

// PassesInterruptedError stops an application replay whose pass Pass of Passes got SIGINT or
// SIGTERM while the application ran, though the application then exited normally: the passes after
// it are not run, and no merged result is written from the passes that did.
type PassesInterruptedError struct {
	Signal       syscall.Signal
	Pass, Passes int // 1-based
}

func (e *PassesInterruptedError) Error() string {
	return fmt.Sprintf("interrupted by %s during application replay pass %d of %d: passes %d-%d not run, no merged result written; the output of passes 1-%d is kept in their pass_N directories",
		launch.SignalName(e.Signal), e.Pass, e.Passes, e.Pass+1, e.Passes, e.Pass)
}

// catchInterrupts starts holding SIGINT, SIGTERM and SIGHUP (the terminal or ssh session went away,
// which asks to stop as SIGTERM does); stderr (nil for silence) is told what they do.
func catchInterrupts(stderr io.Writer) *interrupts {
	i := &interrupts{sigs: make(chan os.Signal, 1), grace: 100 * time.Millisecond, stderr: stderr}
	signal.Notify(i.sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	return i
}

// outputPhase returns the context of the output that follows a run of the application, which
// ended by signal ended (0 if it exited), and its release. The context is cancelled with an
// *InterruptedError by the first SIGINT or SIGTERM from now on, but for one that is the ended
// signal arriving within the grace.
func (i *interrupts) outputPhase(ctx context.Context, ended syscall.Signal) (context.Context, func()) {
	i.during = i.stopWatch()
	for drained := false; !drained; {
		select {
		case s := <-i.sigs: // the application's, forwarded by the launcher
			i.during = s.(syscall.Signal)
		default:
			drained = true
		}
	}
	octx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	start := time.Now()
	go func() {
		for {
			select {
			case s := <-i.sigs:
				if s == ended && time.Since(start) < i.grace {
					continue
				}
				if i.stderr != nil {
					fmt.Fprintf(i.stderr, "\ngorocprof: %s: stopping the output; the records are kept\n", launch.SignalName(s.(syscall.Signal)))
				}
				cancel(&InterruptedError{Signal: s.(syscall.Signal)})
				return
			case <-done:
				return
			}
		}
	}()
	return octx, func() {
		close(done)
		cancel(nil)
	}
}

func (i *interrupts) stop() {
	i.stopWatch()
	signal.Stop(i.sigs)
}

// stopWatch ends watchRun's goroutine, if one runs, and returns the last signal it took in.
func (i *interrupts) stopWatch() syscall.Signal {
	w := i.watching
	if w == nil {
		return 0
	}
	close(w.stop)
	<-w.done
	i.watching = nil
	return syscall.Signal(w.last.Load())
}

// CatchInterrupts makes SIGINT and SIGTERM cancel the returned context with an *InterruptedError
// instead of ending gorocprof, until release is called: the output phase of a run, for a command
// that only writes outputs (merge), so that a signal leaves no partial file.
func CatchInterrupts(ctx context.Context) (context.Context, func()) {
	i := catchInterrupts(nil)
	octx, release := i.outputPhase(ctx, 0)
	return octx, func() {
		release()
		i.stop()
	}
}
