package replay

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"
)

// TestCatchInterrupts sends gorocprof's own process each signal while it is caught (SIGHUP, from a
// closed terminal or ssh session, as SIGTERM): the context ends with an *InterruptedError naming
// it, and the process lives on.
func TestCatchInterrupts(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		ctx, release := CatchInterrupts(context.Background())
		if err := syscall.Kill(syscall.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: the context was not cancelled", sig)
		}
		var ie *InterruptedError
		if !errors.As(context.Cause(ctx), &ie) || ie.Signal != sig {
			t.Errorf("%v: cause %v, want an InterruptedError for it", sig, context.Cause(ctx))
		}
		release()
	}
}
