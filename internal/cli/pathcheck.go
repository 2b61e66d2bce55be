package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// placeholderWords are the long placeholders rocprofv3 expands in -d, -o and the summary file's
// name, those output.ExpandPath expands (TestPlaceholderWords).
var placeholderWords = []string{"hostname", "pid", "ppid", "rank", "size", "job", "nid", "cwd",
	"launch_date", "launch_time", "argv", "argt", "args", "tag"}

var (
	wordPlaceholder = regexp.MustCompile(`%([a-z_]+)%`)
	envPlaceholder  = regexp.MustCompile(`%env\{([^}]*)\}%|\$(?:ENV|env)\{([^}]*)\}`)
)

// unknownPlaceholders refuses a %word% of lower-case letters that is no placeholder (`%foo%`,
// `%hostnme%`): ExpandPath keeps it as written, which makes a directory of that name, a typo
// nobody wants. It reads the pattern as ExpandPath does, left to right: a word that begins with a
// short placeholder (`%r_of_%s` is %r, "_of_", %s) is taken as that, unless it is a near miss of a
// long one (`%hostnme%` is not %h followed by "ostnme%"). A '%' elsewhere (`100%`) is taken as written.
func unknownPlaceholders(flag, pattern string) []string {
	var diags []string
	rest := envPlaceholder.ReplaceAllString(pattern, "")
	for i := 0; i < len(rest); i++ {
		m := wordPlaceholder.FindStringSubmatch(rest[i:])
		if rest[i] != '%' || m == nil || !strings.HasPrefix(rest[i:], m[0]) {
			continue
		}
		word := m[1]
		if slices.Contains(placeholderWords, word) {
			i += len(m[0]) - 1
			continue
		}
		near := nearestWord(word, placeholderWords)
		if strings.IndexByte(shortPlaceholders, word[0]) >= 0 && near == "" {
			i++ // %r and the text after it
			continue
		}
		msg := fmt.Sprintf("--%s %q: %s is not a placeholder (rocprofv3's are %%%s%%, and %%env{NAME}%%)",
			flag, pattern, m[0], strings.Join(placeholderWords, "% %"))
		if near != "" {
			msg = fmt.Sprintf("--%s %q: %s is not a placeholder (did you mean %%%s%%?)", flag, pattern, m[0], near)
		}
		diags = append(diags, msg)
		i += len(m[0]) - 1
	}
	return diags
}

// shortPlaceholders are the letters of %h %p %r %s %j.
const shortPlaceholders = "hprsj"

// unsetEnvPlaceholders warns of an %env{NAME}% (or $ENV{NAME}) whose variable is not set: it
// expands to nothing, as in rocprofv3, which is worth a word since the path then lacks a part.
func unsetEnvPlaceholders(flag, pattern string, lookup func(string) (string, bool)) []string {
	var warns []string
	for _, m := range envPlaceholder.FindAllStringSubmatch(pattern, -1) {
		name := m[1] + m[2]
		if _, ok := lookup(name); !ok {
			warns = append(warns, fmt.Sprintf("--%s %q: environment variable %s is not set: %s expands to nothing", flag, pattern, name, m[0]))
		}
	}
	return warns
}

// expandHome replaces a leading "~" or "~/" of the output directory with the home directory, as
// the shell would have had the word not been quoted ("-d ~/x" reaches gorocprof expanded, "-d
// '~/x'" or GOROCPROF_OUTPUT_DIRECTORY=~/x does not). "~user/x" is taken as written.
func expandHome(dir string) string {
	if dir != "~" && !strings.HasPrefix(dir, "~/") {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return dir
	}
	return filepath.Join(home, strings.TrimPrefix(dir, "~"))
}

// outputPathWarnings are the warnings, printed before launch, on the output paths of a job.
func outputPathWarnings(o ProfileOptions) []string {
	var warns []string
	warns = append(warns, unsetEnvPlaceholders(optOutputDir, o.OutputDirectory, os.LookupEnv)...)
	warns = append(warns, unsetEnvPlaceholders(optOutputFile, o.OutputFile, os.LookupEnv)...)
	return warns
}

// nearestWord is the word of words within two edits of w (one for a word of three letters or
// fewer), if one is.
func nearestWord(w string, words []string) string {
	best, bestD := "", 3
	if len(w) <= 3 {
		bestD = 2
	}
	for _, c := range words {
		if d := editDistance(w, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
