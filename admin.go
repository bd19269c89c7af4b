package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
)

// readPIN reads one line from stdin: PINs never go on the command line,
// where ps and shell history would show them.
func readPIN(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && (err != io.EOF || line == "") {
		return "", fmt.Errorf("type the PIN on standard input (echo 1234 | boxoffice staff add …)")
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

func (c *cli) staff(args []string) int {
	fs := c.flags("staff")
	role := fs.String("role", "", "door, clerk, supervisor or manager")
	keyFile := fs.String("key-file", "", "SSH public key that signs this person in over ssh")
	fs.BoolVar(&c.jsonOut, "json", false, "machine output")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) == 0 {
		return c.usageErr("%s", staffUsage)
	}
	switch pos[0] {
	case "add":
		if len(pos) != 2 || *role == "" {
			return c.usageErr("usage: boxoffice staff add NAME --role door|clerk|supervisor|manager [--key-file FILE] (PIN on stdin)")
		}
		r, err := booking.ParseRole(*role)
		if err != nil {
			return c.fail(err)
		}
		var key []byte
		if *keyFile != "" {
			if key, err = readKeyFile(*keyFile); err != nil {
				return c.fail(err)
			}
		}
		pin, err := readPIN(c.stdin)
		if err != nil {
			return c.usageErr("%v", err)
		}
		o, err := c.open(false)
		if err != nil {
			return c.fail(err)
		}
		defer o.store.Close()
		st, err := o.store.AddStaff(c.ctx, booking.System, pos[1], r, pin, key)
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.stdout, "Added %s (%s)%s.\n", st.Name, st.Role, map[bool]string{true: " with an SSH key", false: ""}[st.HasKey])
		return exitOK
	case "list":
		return c.staffList()
	case "disable", "enable", "unlock", "pin", "role":
		return c.staffChange(pos)
	}
	return c.usageErr("unknown staff command %q (add, list, disable, enable, unlock, pin, role)", booking.CleanLine(pos[0], 20))
}

// staffList prints the staff with their roles, keys and status.
func (c *cli) staffList() int {
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	list, err := o.store.ListStaff(c.ctx, booking.System)
	if err != nil {
		return c.fail(err)
	}
	if c.jsonOut {
		type staffJSON struct {
			Name     string `json:"name"`
			Role     string `json:"role"`
			SSHKey   bool   `json:"ssh_key"`
			Disabled bool   `json:"disabled"`
		}
		out := make([]staffJSON, 0, len(list))
		for _, st := range list {
			out = append(out, staffJSON{booking.Clean(st.Name), st.Role.String(), st.HasKey, st.Disabled})
		}
		c.printJSON(out)
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tROLE\tSSH KEY\tSTATUS")
	for _, st := range list {
		status := "active"
		if st.Disabled {
			status = "disabled"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", booking.Clean(st.Name), st.Role, map[bool]string{true: "yes", false: "no"}[st.HasKey], status)
	}
	tw.Flush()
	return exitOK
}

const staffUsage = "usage: boxoffice staff add NAME --role R [--key-file F] | staff list | staff disable|enable|unlock NAME | staff pin NAME (PIN on stdin) | staff role NAME ROLE"

// staffChange runs staff disable, enable, unlock, pin and role: each one
// change to one person, checked whole before the database is opened.
func (c *cli) staffChange(pos []string) int {
	verb := pos[0]
	want := 2
	if verb == "role" {
		want = 3
	}
	if len(pos) != want {
		return c.usageErr("%s", staffUsage)
	}
	name := pos[1]
	var role booking.Role
	var pin string
	var err error
	switch verb {
	case "role":
		if role, err = booking.ParseRole(pos[2]); err != nil {
			return c.fail(err)
		}
	case "pin":
		if pin, err = readPIN(c.stdin); err != nil {
			return c.usageErr("%v", err)
		}
	}
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	st := o.store
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
		return c.fail(err)
	}
	fmt.Fprintf(c.stdout, done+"\n", booking.CleanLine(name, 40))
	return exitOK
}

func (c *cli) terminal(args []string) int {
	fs := c.flags("terminal")
	keyFile := fs.String("key-file", "", "the counter device's SSH public key")
	fs.BoolVar(&c.jsonOut, "json", false, "machine output")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) == 0 {
		return c.usageErr("usage: boxoffice terminal add NAME --key-file FILE | terminal list | terminal remove NAME")
	}
	switch pos[0] {
	case "add":
		if len(pos) != 2 || *keyFile == "" {
			return c.usageErr("usage: boxoffice terminal add NAME --key-file FILE")
		}
		key, err := readKeyFile(*keyFile)
		if err != nil {
			return c.fail(err)
		}
		o, err := c.open(false)
		if err != nil {
			return c.fail(err)
		}
		defer o.store.Close()
		t, err := o.store.AddTerminal(c.ctx, booking.System, pos[1], key)
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.stdout, "Registered terminal %s: its key opens the clerk sign-in screen.\n", t.Name)
		return exitOK
	case "list":
		o, err := c.open(false)
		if err != nil {
			return c.fail(err)
		}
		defer o.store.Close()
		list, err := o.store.ListTerminals(c.ctx, booking.System)
		if err != nil {
			return c.fail(err)
		}
		if c.jsonOut {
			names := make([]string, 0, len(list))
			for _, t := range list {
				names = append(names, booking.Clean(t.Name))
			}
			c.printJSON(names)
			return exitOK
		}
		for _, t := range list {
			fmt.Fprintln(c.stdout, booking.Clean(t.Name))
		}
		return exitOK
	case "remove":
		if len(pos) != 2 {
			return c.usageErr("usage: boxoffice terminal remove NAME")
		}
		o, err := c.open(false)
		if err != nil {
			return c.fail(err)
		}
		defer o.store.Close()
		if err := o.store.RemoveTerminal(c.ctx, booking.System, pos[1]); err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.stdout, "Removed terminal %s.\n", booking.Clean(pos[1]))
		return exitOK
	}
	return c.usageErr("unknown terminal command %q (add, list, remove)", booking.CleanLine(pos[0], 20))
}

// admit scans a ticket code at the door.
func (c *cli) admit(args []string) int {
	fs := c.flags("admit")
	fs.BoolVar(&c.jsonOut, "json", false, "machine output")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) != 1 {
		return c.usageErr("usage: boxoffice admit CODE")
	}
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	actor := booking.System
	actor.Name = "door (cli)"
	res, err := o.store.Admit(c.ctx, actor, pos[0])
	if err != nil {
		return c.fail(err)
	}
	if c.jsonOut {
		c.printJSON(map[string]string{"booking": res.Booking, "seat": res.Ticket.Seat.Label, "type": res.Ticket.Type,
			"film": booking.Clean(res.Show.Film.Title), "hall": booking.Clean(res.Show.HallName), "start": res.Show.Starts.Format(time.RFC3339)})
		return exitOK
	}
	fmt.Fprintf(c.stdout, "Admit: seat %s (%s) · %s · %s %s · %s\n", res.Ticket.Seat.Label, res.Ticket.Type,
		booking.Clean(res.Show.Film.Title), booking.Clean(res.Show.HallName), res.Show.Starts.Format("15:04"), res.Booking)
	return exitOK
}
