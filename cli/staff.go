package cli

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"boxoffice/booking"
)

// staff and terminal: who may sign in, and the counter devices whose key
// opens the sign-in screen.

const staffUsage = "usage: boxoffice staff add NAME --role R [--key-file F] | staff list | staff disable|enable|unlock NAME | staff pin NAME (PIN on stdin) | staff role NAME ROLE"

func staffCommand() *command {
	return &command{name: "staff", json: machine, missing: staffUsage, subs: []*command{
		{name: "add", args: "NAME --role door|clerk|supervisor|manager [--key-file FILE]", short: "add a member of staff (the PIN is read from stdin)", flags: staffAddFlags},
		{name: "list", args: "[--json]", short: "staff with their roles, keys and status", run: (*env).staffList},
		{name: "disable", args: "NAME", short: "NAME can no longer sign in; their open sessions close", run: staffChange("disable")},
		{name: "enable", args: "NAME", short: "NAME can sign in again", run: staffChange("enable")},
		{name: "unlock", args: "NAME", short: "forget NAME's wrong PINs", run: staffChange("unlock")},
		{name: "pin", args: "NAME", short: "a new PIN for NAME (read from stdin)", run: staffChange("pin")},
		{name: "role", args: "NAME ROLE", short: "give NAME another role", run: staffChange("role")},
		// Sites (issue 14).
		{name: "site", args: "NAME SITE|all", short: "NAME works at one site of the chain, or at all", run: (*env).staffSite},
	}}
}

// readPIN reads one line from stdin: PINs never go on the command line,
// where ps and shell history would show them.
func readPIN(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && (err != io.EOF || line == "") {
		return "", usagef("type the PIN on standard input (echo 1234 | boxoffice staff add …)")
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func readKeyFile(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, booking.Errorf(booking.EInvalid, "cannot read key file: %v", err)
	}
	return raw, nil
}

func staffAddFlags(fs *flag.FlagSet) runFunc {
	role := fs.String("role", "", "the `ROLE`: door, clerk, supervisor or manager")
	keyFile := fs.String("key-file", "", "the SSH public key `FILE` that signs this person in")
	return func(c *env, pos []string) error { return c.staffAdd(pos, *role, *keyFile) }
}

// staffAdd adds a member of staff with the PIN read from stdin.
func (c *env) staffAdd(pos []string, role, keyFile string) error {
	if len(pos) != 1 || role == "" {
		return usagef("usage: boxoffice staff add NAME --role door|clerk|supervisor|manager [--key-file FILE] (PIN on stdin)")
	}
	r, err := booking.ParseRole(role)
	if err != nil {
		return err
	}
	var key []byte
	if keyFile != "" {
		if key, err = readKeyFile(keyFile); err != nil {
			return err
		}
	}
	pin, err := readPIN(c.stdin)
	if err != nil {
		return err
	}
	return c.withStore(func(store backend) error {
		site, ok, err := c.site(store)
		if err != nil {
			return err
		}
		st, err := store.AddStaff(c.ctx, booking.System, pos[0], r, pin, key)
		if err != nil {
			return err
		}
		if ok {
			if err := store.SetStaffSite(c.ctx, booking.System, st.Name, site.ID); err != nil {
				return err
			}
		}
		c.say("Added %s (%s)%s%s.", st.Name, st.Role, map[bool]string{true: " with an SSH key", false: ""}[st.HasKey], atSite(site, ok))
		return nil
	})
}

// staffList prints the staff with their roles, keys and status.
func (c *env) staffList(_ []string) error {
	return c.withStore(func(st backend) error {
		list, err := st.ListStaff(c.ctx, booking.System)
		if err != nil {
			return err
		}
		sites, err := c.siteNames(st)
		if err != nil {
			return err
		}
		if sites != nil { // a chain: with the site of each
			c.print(staffSitesView{list, sites})
			return nil
		}
		c.print(staffView(list))
		return nil
	})
}

type staffView []booking.Staff

type staffJSON struct {
	Name     string `json:"name"`
	Role     string `json:"role"`
	SSHKey   bool   `json:"ssh_key"`
	Disabled bool   `json:"disabled"`
	Locked   bool   `json:"locked"` // manager screens: after wrong PINs, until unlocked
}

func (v staffView) jsonValue() any {
	out := make([]staffJSON, 0, len(v))
	for _, st := range v {
		out = append(out, staffJSON{booking.Clean(st.Name), st.Role.String(), st.HasKey, st.Disabled, st.Locked})
	}
	return out
}

func (v staffView) writeText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tROLE\tSSH KEY\tSTATUS")
	for _, st := range v {
		status := "active"
		if st.Disabled {
			status = "disabled"
		}
		if st.Locked {
			status += ", locked"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", booking.Clean(st.Name), st.Role, map[bool]string{true: "yes", false: "no"}[st.HasKey], status)
	}
	tw.Flush()
}

// staffChange is staff disable, enable, unlock, pin or role: one change
// to one person, checked whole before the database is opened.
func staffChange(verb string) runFunc {
	return func(c *env, pos []string) error {
		want := 1
		if verb == "role" {
			want = 2
		}
		if len(pos) != want {
			return usagef("%s", staffUsage)
		}
		name := pos[0]
		var role booking.Role
		var pin string
		var err error
		switch verb {
		case "role":
			if role, err = booking.ParseRole(pos[1]); err != nil {
				return err
			}
		case "pin":
			if pin, err = readPIN(c.stdin); err != nil {
				return err
			}
		}
		return c.withStore(func(st backend) error {
			var done string
			switch verb {
			case "disable":
				err, done = st.DisableStaff(c.ctx, booking.System, name), "Disabled %s: their PIN and key no longer sign in, and their open sessions close."
			case "enable":
				err, done = st.EnableStaff(c.ctx, booking.System, name), "Enabled %s: their PIN and key sign in again."
			case "unlock":
				err, done = st.UnlockStaff(c.ctx, booking.System, name), "Unlocked %s: wrong PINs no longer hold them back."
			case "pin":
				err, done = st.SetPIN(c.ctx, booking.System, name, pin), "Set a new PIN for %s."
			case "role":
				err, done = st.SetRole(c.ctx, booking.System, name, role), "%s is now a "+role.String()+"."
			}
			if err != nil {
				return err
			}
			c.say(done, booking.CleanLine(name, 40))
			return nil
		})
	}
}

func terminalCommand() *command {
	return &command{name: "terminal", json: machine,
		missing: "usage: boxoffice terminal add NAME --key-file FILE [--printer URL] | terminal list | terminal remove NAME | terminal printer NAME URL",
		subs: []*command{
			{name: "add", args: "NAME --key-file FILE [--printer URL]", short: "register a counter device: its key opens the clerk sign-in screen", flags: terminalAddFlags},
			{name: "list", args: "[--json]", short: "the registered counter devices", run: (*env).terminalList},
			{name: "remove", args: "NAME", short: "take a counter device off", run: (*env).terminalRemove},
			// Printers (issue 12).
			terminalPrinterCmd(),
			// The books: the cash drawer on the printer.
			terminalDrawerCmd(),
			// Sites (issue 14).
			{name: "site", args: "NAME SITE", short: "move a counter device to another site of the chain", run: (*env).terminalSite},
		}}
}

func terminalAddFlags(fs *flag.FlagSet) runFunc {
	keyFile := fs.String("key-file", "", "the counter device's SSH public key `FILE`")
	printer := fs.String("printer", "", "the counter's ticket printer `URL`: tcp://HOST[:PORT] or /dev/usb/lp0")
	return func(c *env, pos []string) error { return c.terminalAdd(pos, *keyFile, *printer) }
}

func (c *env) terminalAdd(pos []string, keyFile, printer string) error {
	if len(pos) != 1 || keyFile == "" {
		return usagef("usage: boxoffice terminal add NAME --key-file FILE [--printer URL]")
	}
	key, err := readKeyFile(keyFile)
	if err != nil {
		return err
	}
	// The printer URL is read before anything is written.
	if _, err := booking.ParsePrinter(printer); err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		site, ok, err := c.site(st)
		if err != nil {
			return err
		}
		t, err := st.AddTerminal(c.ctx, booking.System, pos[0], key)
		if err != nil {
			return err
		}
		if ok {
			if t, err = st.SetTerminalSite(c.ctx, booking.System, t.Name, site.ID); err != nil {
				return err
			}
		}
		if printer != "" {
			if t, err = st.SetTerminalPrinter(c.ctx, booking.System, t.Name, printer); err != nil {
				return err
			}
			c.say("Registered terminal %s, printing on %s: its key opens the clerk sign-in screen.", t.Name, t.Printer)
			return nil
		}
		c.say("Registered terminal %s: its key opens the clerk sign-in screen.", t.Name)
		return nil
	})
}

func (c *env) terminalList(_ []string) error {
	return c.withStore(func(st backend) error {
		list, err := st.ListTerminals(c.ctx, booking.System)
		if err != nil {
			return err
		}
		sites, err := c.siteNames(st)
		if err != nil {
			return err
		}
		if sites != nil { // a chain: with the site of each
			c.print(terminalSitesView{list, sites})
			return nil
		}
		c.print(terminalView(list))
		return nil
	})
}

type terminalView []booking.Terminal

func (v terminalView) jsonValue() any {
	names := make([]string, 0, len(v))
	for _, t := range v {
		names = append(names, booking.Clean(t.Name))
	}
	return names
}

func (v terminalView) writeText(w io.Writer) {
	for _, t := range v {
		if t.Printer != "" {
			fmt.Fprintf(w, "%s  printer %s\n", booking.Clean(t.Name), booking.Clean(t.Printer))
			continue
		}
		fmt.Fprintln(w, booking.Clean(t.Name))
	}
}

func (c *env) terminalRemove(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice terminal remove NAME")
	}
	return c.withStore(func(st backend) error {
		if err := st.RemoveTerminal(c.ctx, booking.System, pos[0]); err != nil {
			return err
		}
		c.say("Removed terminal %s.", booking.Clean(pos[0]))
		return nil
	})
}
