package cli

import (
	"errors"
	"flag"
	"io"
	"strings"
	"sync"
)

// The command line is read in two passes of the same rules. route finds
// the command: the first word that is neither a flag nor a flag's value
// (and then a subcommand's word); parseFlags then reads every flag of that
// command, before or after its arguments. A flag takes the next word as
// its value unless it is a boolean or written --flag=value, so
// `boxoffice --data data shows` is the shows command on the dir "data".

// errHelp is -h or --help on a command that defines neither: print its
// help and exit 0.
var errHelp = errors.New("help requested")

// route finds the command args name and returns it with args less the
// words that named it; unknown is a first word that names no command.
func route(args []string) (cmd *command, rest []string, unknown string) {
	cmd, rest = root, args
	for len(cmd.subs) > 0 {
		i := firstWord(rest)
		if i < 0 {
			break
		}
		next := cmd.sub(rest[i])
		if next == nil && cmd == root {
			return nil, nil, rest[i]
		}
		if next == nil {
			break // the command's own arguments: its run says what they mean
		}
		cmd = next
		rest = append(append([]string{}, rest[:i]...), rest[i+1:]...)
	}
	return cmd, rest, ""
}

// firstWord is the index of the first argument that is neither a flag nor
// a flag's value, or -1.
func firstWord(args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return i + 1
			}
			return -1
		case len(a) > 1 && a[0] == '-':
			if !strings.Contains(a, "=") && valueFlags()[strings.TrimLeft(a, "-")] {
				i++ // its value
			}
		default:
			return i
		}
	}
	return -1
}

// valueFlags are the flags, of any command, that take a value. No name is
// a boolean in one command and takes a value in another (a test checks),
// so route skips a flag's value the way the command's own parse will.
var valueFlags = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	root.walk(func(cmd *command) {
		cmd.flagSet(&env{}).VisitAll(func(f *flag.Flag) {
			if !isBool(f) {
				names[f.Name] = true
			}
		})
	})
	return names
})

// parse reads cmd's flags out of args and returns its run function, bound
// to their values, and the positional arguments.
func (c *env) parse(cmd *command, args []string) (runFunc, []string, error) {
	fs := flag.NewFlagSet(cmd.path(), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	run := cmd.bindTo(fs, c)
	pos, err := parseFlags(fs, args)
	return run, pos, err
}

// parseFlags parses the flags defined on fs anywhere among the positional
// arguments, so `sell 3 G7 --pay card` and `sell --pay card 3 G7` are the
// same, and returns the positional arguments; "--" ends the flags. It
// stops at the first mistake, with the flag package's wording.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(pos, args[i+1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		name := strings.TrimPrefix(a[1:], "-")
		if name == "" || name[0] == '-' || name[0] == '=' {
			return nil, usagef("bad flag syntax: %s", a)
		}
		name, value, hasValue := strings.Cut(name, "=")
		f := fs.Lookup(name)
		switch {
		case f == nil && (name == "help" || name == "h"):
			return nil, errHelp
		case f == nil:
			return nil, usagef("flag provided but not defined: -%s", name)
		case isBool(f) && !hasValue:
			value = "true"
		case isBool(f):
			if err := fs.Set(name, value); err != nil {
				return nil, usagef("invalid boolean value %q for -%s: %v", value, name, err)
			}
			continue
		case !hasValue && i+1 == len(args):
			return nil, usagef("flag needs an argument: -%s", name)
		case !hasValue:
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil {
			return nil, usagef("invalid value %q for flag -%s: %v", value, name, err)
		}
	}
	return pos, nil
}

// isBool reports whether f is a boolean flag: one that takes no value.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// globalFlags are defined on every command: before or after it, they mean
// the same.
func (c *env) globalFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.dataFlag, "data", "", "the data `DIR` (env BOXOFFICE_DATA; default $XDG_DATA_HOME/boxoffice)")
	fs.StringVar(&c.syncFlag, "sync", "full", "SQLite synchronous `MODE`: full or normal")
	fs.StringVar(&c.dbFlag, "db", "", "work on the PostgreSQL server at `URL` (postgres://…; env BOXOFFICE_DB) instead of the data dir's SQLite file")
	// Sites (issue 14).
	fs.StringVar(&c.siteFlag, "site", "", "work at the site `NAME` of a chain: the counter sells its programme, hall, terminal and staff add go there, reports count it (default every site; new things go to site 1)")
}
