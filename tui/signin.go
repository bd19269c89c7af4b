package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// signInState is the clerk sign-in form of a shared counter terminal.
type signInState struct {
	name, pin field
	focus     int // 0 name, 1 PIN
	busy      bool
}

func newSignInState() signInState {
	s := signInState{name: newField(40), pin: newField(32)}
	s.pin.mask = true
	return s
}

func (s *signInState) focused() *field {
	if s.busy {
		return nil
	}
	if s.focus == 0 {
		return &s.name
	}
	return &s.pin
}

type signInMsg struct {
	staff *booking.Staff
	err   error
}

// signInScreen is the clerk sign-in form (see signInState).
type signInScreen struct{}

func (signInScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	s := &m.signin
	if s.busy {
		return nil
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Submit):
		if s.focus == 0 {
			s.focus = 1
			return nil
		}
		if s.name.String() == "" {
			s.focus = 0
			m.setError("Type your name.")
			return nil
		}
		s.busy = true
		m.setInfo("Signing in…")
		store, req := m.store, m.signInRequest(s.name.String(), string(s.pin.value))
		return m.call(func(ctx context.Context) (tea.Msg, error) {
			st, err := store.SignIn(ctx, req)
			return signInMsg{staff: st, err: err}, err
		})
	case key.Matches(msg, k.NextField), key.Matches(msg, k.PrevField):
		s.focus = 1 - s.focus
		return nil
	case key.Matches(msg, k.Back):
		s.focused().Reset()
		return nil
	}
	s.focused().key(msg, &m.keys)
	return nil
}

func (signInScreen) focus(m *Model) *field { return m.signin.focused() }

func (signInScreen) help(m *Model) helpKeys {
	k := m.keys
	return helpKeys{
		short: []key.Binding{k.Submit, k.NextField, k.Quit},
		full:  [][]key.Binding{{k.Submit, k.NextField, k.PrevField}, {k.Help, k.Quit}},
	}
}

func (m *Model) onSignIn(msg signInMsg) tea.Cmd {
	s := &m.signin
	s.busy = false
	s.pin.Reset()
	if msg.err != nil || msg.staff == nil {
		s.focus = 1
		if msg.err == nil {
			msg.err = booking.Errorf(booking.EForbidden, "Wrong name or PIN.")
		}
		m.fail(msg.err)
		return nil
	}
	st := msg.staff
	m.setClerk(&clerk{id: st.ID, name: st.Name, role: st.Role, site: st.Site})
	m.signin = newSignInState()
	m.screen = screenShows
	m.shows = showsState{day: dayOf(m.now())}
	m.setInfo("Signed in as " + booking.Clean(st.Name) + ".")
	if st.Role == booking.RoleDoor {
		// Door staff work the door; the shows list is one esc away.
		m.openDoor()
	}
	return tea.Batch(m.afterSignIn()...)
}

func (signInScreen) view(m *Model, height int) string {
	st := &m.styles
	s := &m.signin
	var b strings.Builder
	b.WriteString("\n")
	b.WriteString(st.Title.Render("Sign in at this counter"))
	b.WriteString("\n\n")
	b.WriteString(st.Label.Render("Name ") + " " + s.name.view(st, !s.busy && s.focus == 0, 30) + "\n\n")
	b.WriteString(st.Label.Render("PIN  ") + " " + s.pin.view(st, !s.busy && s.focus == 1, 30) + "\n")
	if m.opts.Demo {
		b.WriteString("\n")
		c := m.opts.DemoCredentials
		if c.Name != "" {
			b.WriteString(st.Subtle.Render("Demo cinema: sign in as ") + st.Bold.Render(booking.Clean(c.Name)) +
				st.Subtle.Render(" with PIN ") + st.Bold.Render(booking.Clean(c.PIN)) + "\n")
		} else {
			b.WriteString(st.Subtle.Render("This is the demo cinema.") + "\n")
		}
	}
	return indent(b.String(), 2)
}
