package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runArgs runs one command line in-process and returns its error and
// output.
func runArgs(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := Run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

func isUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// The command line before the fix took a flag's value that equals a flag's
// name for that flag, so `--data data shows` swallowed "shows" and opened
// the counter instead.
func TestRun_ValueNamedLikeAFlag(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("BOXOFFICE_NOW", "2026-12-01T17:00:00Z")
	out, errOut, err := runArgs(t, "", "--data", "data", "shows", "--date", "2026-12-02", "--json")
	var shows []showJSON
	if err != nil || json.Unmarshal([]byte(out), &shows) != nil || len(shows) == 0 {
		t.Fatalf("--data data shows: %v\n%s%s", err, out, errOut)
	}
	if _, err := os.Stat(filepath.Join("data", dbFile)); err != nil {
		t.Fatalf("the data dir is not ./data: %v", err)
	}
	// Flags named like commands, with values named like commands too.
	out, errOut, err = runArgs(t, "", "--sync", "full", "--data", "data", "show", "--hall", "Studio", "add", "--film", "1", "--at", "2026-12-09 10:00")
	if err != nil || !strings.Contains(out, "Added show") {
		t.Fatalf("show add with --hall before add: %v\n%s%s", err, out, errOut)
	}
}

func TestRoute(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		path string
		rest []string
	}{
		{nil, "boxoffice", nil},
		{[]string{"--idle-signout", "5m"}, "boxoffice", []string{"--idle-signout", "5m"}},
		{[]string{"--data", "data", "shows"}, "boxoffice shows", []string{"--data", "data"}},
		{[]string{"--data=shows", "seats", "3"}, "boxoffice seats", []string{"--data=shows", "3"}},
		{[]string{"--json", "shows", "--date", "2026-12-01"}, "boxoffice shows", []string{"--json", "--date", "2026-12-01"}},
		{[]string{"sell", "--best", "2", "3"}, "boxoffice sell", []string{"--best", "2", "3"}},
		{[]string{"staff", "--role", "clerk", "add", "Maria"}, "boxoffice staff add", []string{"--role", "clerk", "Maria"}},
		{[]string{"staff", "--role", "list", "add", "Maria"}, "boxoffice staff add", []string{"--role", "list", "Maria"}},
		{[]string{"waitlist", "5"}, "boxoffice waitlist", []string{"5"}},
		{[]string{"waitlist", "add", "5", "--name", "remove"}, "boxoffice waitlist add", []string{"5", "--name", "remove"}},
		{[]string{"staff", "frob"}, "boxoffice staff", []string{"frob"}},
		{[]string{"--sync", "normal", "--", "shows"}, "boxoffice shows", []string{"--sync", "normal", "--"}},
	} {
		cmd, rest, unknown := route(tc.args)
		if unknown != "" || cmd.path() != tc.path || !slices.Equal(rest, tc.rest) {
			t.Errorf("route(%q) = %q %q (unknown %q), want %q %q", tc.args, cmd.path(), rest, unknown, tc.path, tc.rest)
		}
	}
	if _, _, unknown := route([]string{"--data", "d", "frobnicate", "shows"}); unknown != "frobnicate" {
		t.Errorf("unknown command %q", unknown)
	}
}

func TestParseFlags(t *testing.T) {
	t.Parallel()
	newSet := func() (*flag.FlagSet, *string, *int, *bool) {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		return fs, fs.String("name", "", ""), fs.Int("n", 0, ""), fs.Bool("json", false, "")
	}
	t.Run("OK", func(t *testing.T) {
		fs, name, n, js := newSet()
		pos, err := parseFlags(fs, []string{"a", "--name", "--json", "-n=3", "b", "-json", "--", "--n", "-"})
		if err != nil || *name != "--json" || *n != 3 || !*js || !slices.Equal(pos, []string{"a", "b", "--n", "-"}) {
			t.Fatalf("pos %q name %q n %d json %v err %v", pos, *name, *n, *js, err)
		}
	})
	t.Run("Err", func(t *testing.T) {
		for args, want := range map[string]string{
			"--frob":                   "flag provided but not defined: -frob",
			"-1":                       "flag provided but not defined: -1",
			"--name":                   "flag needs an argument: -name",
			"--n x":                    `invalid value "x" for flag -n: parse error`,
			"--n 99999999999999999999": `invalid value "99999999999999999999" for flag -n: value out of range`,
			"--json=maybe":             `invalid boolean value "maybe" for -json: parse error`,
			"---n 3":                   "bad flag syntax: ---n",
			"--=x":                     "bad flag syntax: --=x",
		} {
			fs, _, _, _ := newSet()
			_, err := parseFlags(fs, strings.Fields(args))
			if !isUsage(err) || err.Error() != want {
				t.Errorf("%s: %v, want %q", args, err, want)
			}
		}
	})
	t.Run("Help", func(t *testing.T) {
		for _, h := range []string{"-h", "--help", "-help"} {
			fs, _, _, _ := newSet()
			if _, err := parseFlags(fs, []string{"x", h}); !errors.Is(err, errHelp) {
				t.Errorf("%s: %v", h, err)
			}
		}
	})
}

// route skips a flag's value by the flag's name alone, before it knows
// the command; that is exact only if no name is a boolean somewhere and
// takes a value somewhere else.
func TestCommandTable_FlagKinds(t *testing.T) {
	t.Parallel()
	kinds := map[string]bool{} // name → is a boolean
	where := map[string]string{}
	root.walk(func(cmd *command) {
		cmd.flagSet(&env{}).VisitAll(func(f *flag.Flag) {
			if b, seen := kinds[f.Name]; seen && b != isBool(f) {
				t.Errorf("--%s is a boolean in one of %q and %q but not the other", f.Name, where[f.Name], cmd.path())
			}
			kinds[f.Name], where[f.Name] = isBool(f), cmd.path()
		})
	})
}

// Every command and subcommand has help: a short line in the overview,
// and its own help through help CMD and CMD --help alike, exit 0.
func TestHelp_EveryCommand(t *testing.T) {
	t.Parallel()
	overview, _, err := runArgs(t, "", "help")
	if err != nil || !strings.HasPrefix(overview, "boxoffice — a cinema box office") {
		t.Fatalf("help: %v %q", err, overview)
	}
	root.walk(func(cmd *command) {
		words := strings.Fields(cmd.path())[1:]
		if cmd.args != "" || len(cmd.subs) == 0 {
			if cmd.short == "" || !strings.Contains(overview, "  "+cmd.path()) {
				t.Errorf("%s is not in the overview with a short help", cmd.path())
			}
		}
		byHelp, _, err1 := runArgs(t, "", append([]string{"help"}, words...)...)
		byFlag, _, err2 := runArgs(t, "", append(words, "--help")...)
		if err1 != nil || err2 != nil || byHelp != byFlag {
			t.Errorf("%s: help %v, --help %v, the same text: %v", cmd.path(), err1, err2, byHelp == byFlag)
		}
		if cmd != root && !strings.HasPrefix(byHelp, "Usage:\n  "+cmd.path()) {
			t.Errorf("help %s:\n%s", cmd.path(), byHelp)
		}
		for _, s := range cmd.subs {
			if cmd != root && !strings.Contains(byHelp, s.path()) {
				t.Errorf("help %s does not name %s", cmd.path(), s.path())
			}
		}
	})
	_, errOut, err := runArgs(t, "", "help", "frob")
	if !isUsage(err) || !strings.Contains(errOut, `unknown command "frob"`) || !strings.Contains(errOut, "boxoffice shows") {
		t.Errorf("help frob: %v %q", err, errOut)
	}
}
