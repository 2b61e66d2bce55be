package launch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorocprof/gorocprof/internal/e2etest"
)

// envHelper makes this test binary a stand-in for gorocprof: it launches the shell command named by
// the variable through Run and waits, until the test kills it.
const envHelper = "GOROCPROF_TEST_LAUNCHER"

func TestMain(m *testing.M) {
	if script := os.Getenv(envHelper); script != "" {
		_, err := Run(context.Background(), Spec{App: "sh", Args: []string{"-c", script}, Env: os.Environ()})
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestAppDiesWithLauncher kills the launcher with SIGKILL, which it cannot catch, and expects the
// application to be gone at once rather than running on under init.
func TestAppDiesWithLauncher(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	launcher := exec.Command(os.Args[0])
	launcher.Env = append(os.Environ(), envHelper+"=echo $$ > "+pidFile+"; exec sleep 60")
	if err := launcher.Start(); err != nil {
		t.Fatal(err)
	}
	pid := waitPID(t, pidFile)
	if err := launcher.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = launcher.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for e2etest.Running(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the application (pid %d) outlived its launcher by 5 s", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestThreadExitsDoNotKillApp ends many OS threads (a goroutine that returns while locked to its
// thread ends it) while the application runs: the parent-death signal follows the thread that forked
// the child, so that thread must not be one of them.
func TestThreadExitsDoNotKillApp(t *testing.T) {
	afterStart = func() { time.Sleep(300 * time.Millisecond) }
	defer func() { afterStart = func() {} }()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				done := make(chan struct{})
				go func() {
					runtime.LockOSThread()
					close(done) // returns locked: the runtime ends this thread
				}()
				<-done
			}
		}()
	}
	st, err := Run(context.Background(), Spec{App: "sleep", Args: []string{"1"}, Env: os.Environ()})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if st.ExitCode != 0 {
		t.Fatalf("the application %s while gorocprof ran on, want exit 0", st)
	}
}

func waitPID(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(file)
		if err == nil && strings.HasSuffix(string(data), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatalf("pid file %s: %v", file, err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the application never wrote %s", file)
	return 0
}
