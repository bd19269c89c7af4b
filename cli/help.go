package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Help is generated from the command table: the overview lists every
// form of every command with its short help; a command's own help adds
// its long text and its flags with their defaults.

// formColumn is where short help starts in a list of forms, flagColumn
// in a list of flags.
const (
	formColumn = 52
	flagColumn = 24
)

const exitHelp = `Exit codes: 0 ok, 1 internal error, 2 bad usage or invalid input,
3 conflict (seat taken, stale status), 4 not found, 5 the disk is full,
6 the database server cannot be reached (--db).
`

// help is the help command: the overview, or one command's help.
func (c *env) help(pos []string) error {
	cmd, _, unknown := route(pos)
	if unknown != "" {
		fmt.Fprintf(c.stderr, "boxoffice: unknown command %q\n\n", unknown)
		writeOverview(c.stderr)
		return shown(usagef("unknown command %q", unknown))
	}
	writeHelp(c.stdout, cmd)
	return nil
}

// writeOverview prints every command of the table.
func writeOverview(w io.Writer) {
	fmt.Fprint(w, "boxoffice — a cinema box office in the terminal\n\nUsage:\n")
	root.walk(func(c *command) { writeForms(w, c) })
	fmt.Fprint(w, "\nGlobal flags (before or after the command):\n")
	writeFlags(w, globalFlagSet(), nil)
	fmt.Fprint(w, "\nMore on one command: boxoffice help COMMAND, or boxoffice COMMAND --help.\n\n", exitHelp)
}

// writeHelp prints cmd's help: its forms and its subcommands', what it
// does, and the flags each takes.
func writeHelp(w io.Writer, cmd *command) {
	if cmd == root {
		writeOverview(w)
		return
	}
	fmt.Fprint(w, "Usage:\n")
	cmd.walk(func(c *command) { writeForms(w, c) })
	if cmd.long != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(cmd.long))
	}
	own := cmd.flagSet(&env{})
	if hasFlags(own, nil) {
		fmt.Fprint(w, "\nFlags:\n")
		writeFlags(w, own, nil)
	}
	for _, s := range cmd.subs {
		if fs := s.flagSet(&env{}); hasFlags(fs, own) {
			fmt.Fprintf(w, "\nFlags of %s:\n", s.path())
			writeFlags(w, fs, own)
		}
	}
	fmt.Fprint(w, "\nGlobal flags, before or after the command: --data DIR, --sync MODE, --db URL (see boxoffice help).\n")
}

// writeForms prints each usage form of c with its short help (the i-th
// line of short goes with the i-th form); a command that is only the name
// of its subcommands has none of its own.
func writeForms(w io.Writer, c *command) {
	if c.args == "" && len(c.subs) > 0 {
		return
	}
	shorts := strings.Split(c.short, "\n")
	for i, form := range strings.Split(c.args, "\n") {
		line := "  " + c.path()
		if form != "" {
			line += " " + form
		}
		short := ""
		if i < len(shorts) {
			short = shorts[i]
		}
		writeColumns(w, formColumn, line, short)
	}
}

// writeColumns prints left, then right from column col on, on the next
// line when left reaches it.
func writeColumns(w io.Writer, col int, left, right string) {
	n := utf8.RuneCountInString(left)
	switch {
	case right == "":
		fmt.Fprintln(w, left)
	case n < col-1:
		fmt.Fprintf(w, "%s%s%s\n", left, strings.Repeat(" ", col-n), right)
	default:
		fmt.Fprintf(w, "%s\n%s%s\n", left, strings.Repeat(" ", col), right)
	}
}

// writeFlags lists the flags of fs, less the global ones and those of
// except, as --name VALUE, their help and their default.
func writeFlags(w io.Writer, fs, except *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if !listed(f, fs, except) {
			return
		}
		name, usage := flag.UnquoteUsage(f)
		left := "  --" + f.Name
		switch name {
		case "":
		case "duration":
			left += " D"
		case "int", "uint", "float":
			left += " N"
		case "string", "value":
			left += " TEXT"
		default:
			left += " " + name
		}
		switch f.DefValue {
		case "", "0", "false", "0s":
		default:
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		writeColumns(w, flagColumn, left, usage)
	})
}

// listed reports whether writeFlags lists f of fs: not a global flag
// (unless fs is the global set), and not one of except's.
func listed(f *flag.Flag, fs, except *flag.FlagSet) bool {
	if except != nil && except.Lookup(f.Name) != nil {
		return false
	}
	global := f.Name == "data" || f.Name == "sync" || f.Name == "db"
	return !global || fs.Name() == "global"
}

// hasFlags reports whether writeFlags would list anything of fs.
func hasFlags(fs, except *flag.FlagSet) bool {
	any := false
	fs.VisitAll(func(f *flag.Flag) { any = any || listed(f, fs, except) })
	return any
}

// globalFlagSet holds only the global flags, for the overview.
func globalFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("global", flag.ContinueOnError)
	(&env{}).globalFlags(fs)
	return fs
}
