// Package helper holds what the backends that ship programs share: the library directory that holds
// their tool libraries and query helpers, running a query helper and its `agents` call.
package helper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/contract"
)

// Agents asks a query helper (`<helper> agents`) for the agents its backend sees.
func Agents(ctx context.Context, helperPath string) ([]contract.Agent, error) {
	var reply contract.AgentsReply
	if err := Ask(ctx, helperPath, &reply, "agents"); err != nil {
		return nil, err
	}
	return CheckAgents(helperPath, reply.Version, reply.Agents)
}

// CheckAgents checks an `agents` reply of contract version version: gorocprof's version, and no
// index twice. A reply without agents is an empty list.
func CheckAgents(helperPath string, version int, list []contract.Agent) ([]contract.Agent, error) {
	if err := CheckVersion(helperPath, "agents", version); err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	for _, a := range list {
		if seen[a.Index] {
			return nil, fmt.Errorf("%s agents: two agents with index %d", helperPath, a.Index)
		}
		seen[a.Index] = true
	}
	if list == nil {
		list = []contract.Agent{}
	}
	return list, nil
}

// EnvTrace, set to 1, makes every query helper call print its arguments and wall time on stderr: how
// many helper starts a run's planning costs, and which, is what decides its time before launch.
const EnvTrace = "GOROCPROF_QUERY_TRACE"

// traceOut is where helper calls are traced (stderr when EnvTrace is 1); tests replace it.
var traceOut io.Writer = os.Stderr

// Ask runs the helper with args and decodes its stdout into reply. A helper that fails is reported with its
// exit status and what it printed on stderr, which by the contract names the failing call.
func Ask(ctx context.Context, helperPath string, reply any, args ...string) error {
	return AskEnv(ctx, helperPath, nil, reply, args...)
}

// AskEnv is Ask with the helper's environment given (nil: gorocprof's own).
func AskEnv(ctx context.Context, helperPath string, env []string, reply any, args ...string) error {
	call := helperPath + " " + strings.Join(args, " ")
	cmd := exec.CommandContext(ctx, helperPath, args...)
	cmd.Env = env
	stdout, stderr := &boundedread.Buffer{Limit: replyLimit}, &boundedread.Buffer{Limit: messageLimit}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	err := cmd.Run()
	if os.Getenv(EnvTrace) == "1" {
		fmt.Fprintf(traceOut, "gorocprof: query helper: %s: %d ms\n", strings.Join(args, " "), time.Since(start).Milliseconds())
	}
	if err := errors.Join(stdout.Err(), stderr.Err()); err != nil {
		return fmt.Errorf("%s: its output is %w", call, err)
	}
	if err != nil {
		msg := strings.TrimSpace(string(stderr.Bytes()))
		if msg == "" {
			msg = "no message on stderr"
		}
		var exit *exec.ExitError
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("%s: %w", call, ctx.Err())
		case errors.As(err, &exit) && exit.ExitCode() >= 0:
			return fmt.Errorf("%s: exit status %d: %s", call, exit.ExitCode(), msg)
		case errors.As(err, &exit):
			return fmt.Errorf("%s: %v: %s", call, exit, msg)
		}
		return fmt.Errorf("running %s: %w", call, err)
	}
	return decodeReply(call, stdout.Bytes(), reply)
}

// replyLimit and messageLimit bound what is read of a helper's stdout and stderr: the largest
// reply, an NVIDIA catalog, is tens of megabytes.
var (
	replyLimit   int64 = 512 << 20
	messageLimit int64 = 1 << 20
)

// decodeReply decodes one helper reply: one JSON document and nothing after it but white space. A
// number that does not fit its field is an error.
func decodeReply(call string, data []byte, reply any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(reply); err != nil {
		return fmt.Errorf("%s: reading its reply: %w", call, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s: reading its reply: text after the JSON document", call)
	}
	return nil
}

// CheckVersion checks that a reply to call speaks gorocprof's contract version.
func CheckVersion(helperPath, call string, version int) error {
	if version != contract.Version {
		return fmt.Errorf("%s %s: the helper speaks contract version %d, gorocprof speaks version %d",
			helperPath, call, version, contract.Version)
	}
	return nil
}
