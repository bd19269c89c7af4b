package tui

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The manager's staff and terminals: who may work the box office, and
// the counter devices registered to it.

// staffRoles are the roles a member of staff may be given, lowest first.
var staffRoles = []string{"door", "clerk", "supervisor", "manager"}

func (m *Model) staffView(h int) string {
	g := &m.manage
	if len(g.staff) == 0 {
		return m.styles.Subtle.Render("  Nobody yet: a adds a member of staff.")
	}
	rows := make([]string, len(g.staff))
	for i, s := range g.staff {
		state, lock, k := "enabled", "", ""
		if s.Disabled {
			state = "disabled"
		}
		if s.Locked {
			lock = "locked"
		}
		if s.HasKey {
			k = "ssh key"
		}
		if g.sites == nil {
			rows[i] = fmt.Sprintf("%s %-10s %-8s  %-6s  %s", fit(s.Name, 24), s.Role, state, lock, k)
			continue
		}
		rows[i] = fmt.Sprintf("%s %-10s %-8s  %-6s  %-7s", fit(s.Name, 24), s.Role, state, lock, k) + g.siteColumn(s.Site)
	}
	if g.sites != nil {
		return m.listLines(fmt.Sprintf("%s %-10s %-8s  %-6s  %-7s  %s", fit("Name", 24), "Role", "Access", "PIN", "Key", "Site"), rows, h)
	}
	return m.listLines(fmt.Sprintf("%s %-10s %-8s  %-6s  %s", fit("Name", 24), "Role", "Access", "PIN", "Key"), rows, h)
}

func (m *Model) staffKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	k := &m.keys
	if key.Matches(msg, k.MgrAdd) {
		m.addStaffForm()
		return nil
	}
	if len(g.staff) == 0 {
		return nil
	}
	s := g.staff[g.cursor]
	name := s.Name
	self := m.clerk != nil && s.ID == m.clerk.id
	switch {
	case self && (key.Matches(msg, k.MgrDisable) || key.Matches(msg, k.MgrRole)):
		// A manager who disables or demotes themselves here is out at once:
		// another manager does that.
		g.err = "Your own access is changed by another manager."
	case key.Matches(msg, k.MgrDisable) && s.Disabled:
		return m.mgrDo("Enabled "+cut(name, 40)+".", func(ctx context.Context, b Backend, a booking.Actor) error {
			return b.EnableStaff(ctx, a, name)
		})
	case key.Matches(msg, k.MgrDisable):
		m.ask(fmt.Sprintf("Disable %s? They cannot sign in, and their open sessions stop at their next change.", cut(name, 30)),
			m.mgrDo("Disabled "+cut(name, 40)+".", func(ctx context.Context, b Backend, a booking.Actor) error {
				return b.DisableStaff(ctx, a, name)
			}))
	case key.Matches(msg, k.MgrRole):
		m.openForm("Change the role of "+cut(name, 40), "A lower role takes effect at their next change.", func(m *Model, v []string) (tea.Cmd, string, error) {
			role, err := booking.ParseRole(v[0])
			if err != nil {
				return nil, "", err
			}
			return m.mgrDo(cut(name, 40)+" is now a "+v[0]+".", func(ctx context.Context, b Backend, a booking.Actor) error {
				return b.SetRole(ctx, a, name, role)
			}), "", nil
		}, choiceField("Role", staffRoles, s.Role.String()))
	case key.Matches(msg, k.MgrPIN):
		pin := textField("New PIN", 12, "")
		pin.f.mask, pin.f.accept = true, isDigit
		m.openForm("Reset the PIN of "+cut(name, 40), "Tell them the new PIN; it also lifts a lockout.", func(m *Model, v []string) (tea.Cmd, string, error) {
			if len([]rune(v[0])) < 4 {
				return nil, "", booking.Errorf(booking.EInvalid, "A PIN has 4 to 32 characters.")
			}
			return m.mgrDo("New PIN set for "+cut(name, 40)+".", func(ctx context.Context, b Backend, a booking.Actor) error {
				return b.SetPIN(ctx, a, name, v[0])
			}), "", nil
		}, pin)
	case key.Matches(msg, k.MgrUnlock):
		return m.mgrDo("Unlocked "+cut(name, 40)+".", func(ctx context.Context, b Backend, a booking.Actor) error {
			return b.UnlockStaff(ctx, a, name)
		})
	}
	return nil
}

// addStaffForm adds a member of staff with a PIN and, when one is
// pasted, the SSH public key that signs them in over SSH straight to
// their own counter.
func (m *Model) addStaffForm() {
	pin := textField("PIN", 32, "")
	pin.f.mask = true
	m.openForm("Add a member of staff", "They sign in with their name and PIN at any counter. An SSH key (one line of authorized_keys, pasted) signs them in without one; leave it empty for none.", func(m *Model, v []string) (tea.Cmd, string, error) {
		name := v[0]
		role, err := booking.ParseRole(v[1])
		switch {
		case name == "":
			return nil, "", booking.Errorf(booking.EInvalid, "Type their name.")
		case err != nil:
			return nil, "", err
		case len([]rune(v[2])) < 4:
			return nil, "", booking.Errorf(booking.EInvalid, "A PIN has 4 to 32 characters.")
		}
		var sshKey []byte
		with := ""
		if v[3] != "" {
			sshKey, with = []byte(v[3]), " with an SSH key"
		}
		return m.mgrDo("Added "+cut(name, 40)+" as a "+v[1]+with+".", func(ctx context.Context, b Backend, a booking.Actor) error {
			_, err := b.AddStaff(ctx, a, name, role, v[2], sshKey)
			return err
		}), "", nil
	}, textField("Name", 40, ""), choiceField("Role", staffRoles, "clerk"), pin, textField("SSH key", 2000, ""))
}

// Terminals.

func (m *Model) termsView(h int) string {
	g := &m.manage
	if len(g.terms) == 0 {
		return m.styles.Subtle.Render("  No terminals registered: a adds one by its SSH public key.")
	}
	rows := make([]string, len(g.terms))
	printerW := max(m.width-36, 16)
	if g.sites != nil {
		printerW = max(m.width-54, 12)
	}
	for i, t := range g.terms {
		printer := booking.CleanLine(t.Printer, 200)
		if printer == "" {
			printer = "none: PDFs"
		}
		rows[i] = fmt.Sprintf("%4d  %s  %s", t.ID, fit(t.Name, 24), fit(printer, printerW)) + g.siteColumn(t.Site)
	}
	head := fmt.Sprintf("%4s  %s  %s", "ID", fit("Terminal", 24), fit("Printer", printerW))
	if g.sites != nil {
		head += "  Site"
	}
	return m.listLines(head, rows, h)
}

func (m *Model) termsKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	k := &m.keys
	switch {
	case key.Matches(msg, k.MgrAdd):
		m.openForm("Register a terminal", "Paste the device's public key (one line of authorized_keys).", func(m *Model, v []string) (tea.Cmd, string, error) {
			name, pub := v[0], v[1]
			switch {
			case name == "":
				return nil, "", booking.Errorf(booking.EInvalid, "Type the terminal's name.")
			case pub == "":
				return nil, "", booking.Errorf(booking.EInvalid, "Paste the terminal's public key.")
			}
			return m.mgrDo("Registered "+cut(name, 40)+".", func(ctx context.Context, b Backend, a booking.Actor) error {
				_, err := b.AddTerminal(ctx, a, name, []byte(pub))
				return err
			}), "", nil
		}, textField("Name", 40, ""), textField("Public key", 2000, ""))
	case key.Matches(msg, k.MgrPrinter) && len(g.terms) > 0:
		m.printerForm(g.terms[g.cursor])
	case key.Matches(msg, k.MgrRemove) && len(g.terms) > 0:
		name := g.terms[g.cursor].Name
		m.ask(fmt.Sprintf("Remove terminal %s? Its sessions stop at their next change.", cut(name, 30)),
			m.mgrDo("Removed "+cut(name, 40)+".", func(ctx context.Context, b Backend, a booking.Actor) error {
				return b.RemoveTerminal(ctx, a, name)
			}))
	}
	return nil
}

// printerForm sets where terminal t prints. The server hands the new
// printer to the terminal's open sessions within seconds (see
// tui/server), so nobody signs out for it.
func (m *Model) printerForm(t booking.Terminal) {
	name := booking.CleanLine(t.Name, 40)
	m.openForm("The printer of "+name,
		"tcp://HOST[:PORT] for a network printer (port 9100 when none is given), or a device such as /dev/usb/lp0. Empty: none, and its sales are saved as PDF tickets.",
		func(m *Model, v []string) (tea.Cmd, string, error) {
			p, err := booking.ParsePrinter(v[0])
			if err != nil {
				return nil, "", err
			}
			done := fmt.Sprintf("%s prints on %s now, open sessions too.", name, p.String())
			if p.None() {
				done = name + " has no printer now: its sales are saved as PDF tickets."
			}
			return m.mgrDo(done, func(ctx context.Context, b Backend, a booking.Actor) error {
				_, err := b.SetTerminalPrinter(ctx, a, t.Name, v[0])
				return err
			}), "", nil
		}, textField("Printer", 200, booking.CleanLine(t.Printer, 200)))
}
