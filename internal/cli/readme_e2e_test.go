package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestReadmeExamples runs the README's examples against the simulated agents, so that what the
// README shows is what gorocprof does: every command of its ```sh blocks, each block in a directory
// of its own holding the files its ```yaml blocks name (`# rotate.yaml: ...`), `./app` and
// `./bin/sim-demo` being bin/sim-demo (and `./bin/sim-trace` bin/sim-trace), `mpirun -np N` one run per rank with Open MPI's variables
// set. Each command must exit 0. Left out, with the reason in the generated script: make, and what
// needs hardware, a launcher or paths this machine lacks (CUDA, HIP, srun, /shared).
func TestReadmeExamples(t *testing.T) {
	params := e2eParams(t, t.TempDir())
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := readmeScript(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(params.Dir, "readme.txtar"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, params)
}

// readmeSkips are the commands the simulated agents cannot run, and why.
var readmeSkips = []struct{ word, why string }{
	{"make ", "make builds; the test runs what it built"},
	{"--backend cuda", "needs an NVIDIA GPU"},
	{"hip_app", "needs an AMD GPU"},
	{"srun ", "needs Slurm"},
	{"/shared/", "needs a shared file system"},
}

var (
	codeFence = regexp.MustCompile("(?ms)^```(sh|yaml)\n(.*?)^```")
	yamlName  = regexp.MustCompile(`^# ([A-Za-z0-9_.-]+\.yaml)\b`)
	mpirun    = regexp.MustCompile(`^mpirun -np ([0-9]+) `)
)

// readmeScript turns the README's examples into one testscript.
func readmeScript(readme string) (string, error) {
	var files, blocks []string
	var names []string
	for _, m := range codeFence.FindAllStringSubmatch(readme, -1) {
		if m[1] == "yaml" {
			n := yamlName.FindStringSubmatch(m[2])
			if n == nil {
				return "", fmt.Errorf("a yaml block that does not begin with `# NAME.yaml`: %.60q", m[2])
			}
			names = append(names, n[1])
			files = append(files, "-- "+n[1]+" --\n"+m[2])
			continue
		}
		blocks = append(blocks, m[2])
	}
	var b strings.Builder
	for i, block := range blocks {
		dir := fmt.Sprintf("block%d", i+1)
		fmt.Fprintf(&b, "\n# README sh block %d\nmkdir $WORK/%s\ncd $WORK/%s\n", i+1, dir, dir)
		for _, n := range names {
			fmt.Fprintf(&b, "cp $WORK/%s %s\n", n, n)
		}
		cmds, err := shellCommands(block)
		if err != nil {
			return "", fmt.Errorf("sh block %d: %w", i+1, err)
		}
		for _, c := range cmds {
			b.WriteString(scriptLines(c))
		}
	}
	return b.String() + "\n" + strings.Join(files, ""), nil
}

// scriptLines is one README command as script lines.
func scriptLines(cmd string) string {
	for _, s := range readmeSkips {
		if strings.Contains(cmd, s.word) {
			return fmt.Sprintf("# left out (%s): %s\n", s.why, strings.SplitN(cmd, "\n", 2)[0])
		}
	}
	cmd = strings.NewReplacer("./bin/gorocprof ", "gorocprof ", "./bin/sim-demo", "$BIN/sim-demo", "./bin/sim-trace", "$BIN/sim-trace", "./app", "$BIN/sim-demo").Replace(cmd)
	quoted := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	prefix := ""
	if strings.HasPrefix(cmd, "sqlite3 ") {
		prefix = "[exec:sqlite3] "
	}
	m := mpirun.FindStringSubmatch(cmd)
	if m == nil {
		return prefix + "exec sh -c " + quoted(cmd) + "\n"
	}
	var out strings.Builder
	var n int
	fmt.Sscan(m[1], &n)
	for r := range n {
		fmt.Fprintf(&out, "exec env OMPI_COMM_WORLD_RANK=%d OMPI_COMM_WORLD_SIZE=%d sh -c %s\n", r, n, quoted(cmd[len(m[0]):]))
	}
	return out.String()
}

// shellCommands splits a sh block into its commands: comments dropped, a line ending in a backslash
// joined to the next, and a quote left open going on over the next line (a newline in a quoted SQL
// statement is a space).
func shellCommands(block string) ([]string, error) {
	var cmds []string
	cur, open := "", byte(0)
	for _, line := range strings.Split(block, "\n") {
		if open == 0 {
			if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			if cur == "" {
				line = strings.TrimSpace(line)
			}
		}
		for i := 0; i < len(line); i++ {
			switch {
			case open == 0 && (line[i] == '"' || line[i] == '\''):
				open = line[i]
			case open != 0 && line[i] == open:
				open = 0
			case open == 0 && line[i] == '#' && (i == 0 || line[i-1] == ' '):
				line = strings.TrimRight(line[:i], " ")
			}
		}
		cont := open == 0 && strings.HasSuffix(line, "\\")
		cur += strings.TrimSuffix(line, "\\")
		switch {
		case open != 0 || cont:
			cur += " "
		default:
			cmds = append(cmds, strings.Join(strings.Fields(cur), " "))
			cur = ""
		}
	}
	if cur != "" || open != 0 {
		return nil, fmt.Errorf("a command does not end: %.60q", cur)
	}
	return cmds, nil
}
