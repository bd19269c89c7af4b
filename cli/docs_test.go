package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cliReferencePath is the command-line reference, generated from the
// command table so that it cannot say anything the help does not.
var cliReferencePath = filepath.Join("..", "docs", "cli.md")

// TestDocs_CLIReference keeps docs/cli.md exactly the help of every
// command as the table makes it: a command added, renamed or given a new
// flag fails here until the page is made again with
// go test ./cli -run TestDocs_CLIReference -update.
func TestDocs_CLIReference(t *testing.T) {
	got := cliReference()
	if *update {
		if err := os.WriteFile(cliReferencePath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(cliReferencePath)
	if err != nil {
		t.Fatalf("%v (make it with go test ./cli -run TestDocs_CLIReference -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/cli.md is not the command table's help: %s\nmake it again with go test ./cli -run TestDocs_CLIReference -update",
			firstDifference(string(want), string(got)))
	}
}

// TestDocs_CLIReferenceEveryCommand checks the page's rule for which
// commands get a section of their own: every command of the table is
// either a section or named in its group's section, with its forms.
func TestDocs_CLIReferenceEveryCommand(t *testing.T) {
	page := string(cliReference())
	root.walk(func(c *command) {
		if c.args != "" && !strings.Contains(page, "  "+c.path()+" ") && !strings.Contains(page, "  "+c.path()+"\n") {
			t.Errorf("%s: no usage form of it on the page", c.path())
		}
		if c.long != "" && !strings.Contains(page, strings.TrimSpace(c.long)) {
			t.Errorf("%s: its long help is not on the page", c.path())
		}
	})
}

// cliReferenceIntro heads the page. It says where the rules every command
// shares are written, since the page itself is only the help.
const cliReferenceIntro = `# Command-line reference

<!-- Generated from the command table in cli/ by TestDocs_CLIReference.
     Do not edit: run go test ./cli -run TestDocs_CLIReference -update. -->

Every command's help, exactly as ` + "`boxoffice help COMMAND`" + ` (or
` + "`boxoffice COMMAND --help`" + `) prints it. What every command shares (flags
before or after the command, ` + "`--json`" + `, exit codes, what is printed) is
in the [operator guide](operator-guide.md#the-command-line).
`

// cliReference renders the page: the overview and the counter's own flags,
// then each top-level command's help, each followed by the help of those
// of its subcommands whose long text no top-level command's help prints.
func cliReference() []byte {
	var sections []*command
	printed := map[string]bool{}
	for _, c := range root.subs {
		printed[c.long] = true
	}
	for _, c := range root.subs {
		if c.name == "help" {
			continue
		}
		sections = append(sections, c)
		for _, s := range c.subs {
			if s.long != "" && !printed[s.long] {
				sections = append(sections, s)
				printed[s.long] = true
			}
		}
	}

	var b bytes.Buffer
	b.WriteString(cliReferenceIntro)
	b.WriteString("\n## Contents\n\n- [boxoffice: the overview and the counter](#boxoffice)\n")
	for _, c := range sections {
		indent := strings.Repeat("  ", len(strings.Fields(c.path()))-2)
		fmt.Fprintf(&b, "%s- [%s](#%s)\n", indent, c.path(), strings.ReplaceAll(c.path(), " ", "-"))
	}

	b.WriteString("\n## boxoffice\n\n```text\n")
	writeOverview(&b)
	b.WriteString("```\n\nWith no command, `boxoffice` opens the counter in this terminal. Its own flags:\n\n```text\n")
	writeFlags(&b, root.flagSet(&env{}), nil)
	b.WriteString("```\n")
	for _, c := range sections {
		fmt.Fprintf(&b, "\n## %s\n\n```text\n", c.path())
		writeHelp(&b, c)
		b.WriteString("```\n")
	}
	return b.Bytes()
}

// firstDifference names the first line where two texts part.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d is %q, the table makes %q", i+1, wl, gl)
		}
	}
	return "they differ"
}
