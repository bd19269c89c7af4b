package tui

import "boxoffice/booking"

// This file is the one place a session says who acts and where. The
// clerk signed in is only a person; where they work — the registered
// terminal and the remote address the host (the SSH server, Run) knows
// — comes from Options and is joined to every Actor, SignInRequest and
// CancelRequest here, so no screen can act under another identity and a
// store method added later needs nothing of the screens but its call.
// TestIdentity_OnePlace fails for such a value built anywhere else.

// clerk is the member of staff signed in at this session. It is not a
// booking.Actor on purpose: a screen cannot hand it to the store, it asks
// m.actor() for one.
type clerk struct {
	id   int64
	name string
	role booking.Role
	// site is where they work, 0 for every site.
	site int64
}

// actor is who acts in this session: the clerk signed in, at the session's
// terminal. Signed out it is nobody (no staff, the lowest role), which
// the store refuses for anything a clerk does.
func (m *Model) actor() booking.Actor {
	a := booking.Actor{Terminal: m.opts.Terminal, TerminalID: m.opts.TerminalID, Site: m.opts.Site}
	if c := m.clerk; c != nil {
		a.StaffID, a.Name, a.Role = c.id, c.name, c.role
		if a.Site == booking.AllSites {
			a.Site = c.site // a counter of every site works at theirs
		}
	}
	return a
}

// signInRequest is a name and PIN typed here, with where they were typed:
// a removed terminal signs nobody in, and every failure is logged with the
// terminal and address.
func (m *Model) signInRequest(name, pin string) booking.SignInRequest {
	return booking.SignInRequest{Name: name, PIN: pin, Terminal: m.opts.Terminal, TerminalID: m.opts.TerminalID, Addr: m.opts.Addr, Site: m.opts.Site}
}

// cancelRequest is a cancel asked for here; a supervisor's approval is
// logged, when it fails, with this session's address.
func (m *Model) cancelRequest(number, reason string, approver *booking.Credentials) booking.CancelRequest {
	return booking.CancelRequest{Number: number, Reason: reason, Approver: approver, Addr: m.opts.Addr}
}

// refundRequest is a refund of some tickets asked for here, like
// cancelRequest.
func (m *Model) refundRequest(number, reason string, seats []string, approver *booking.Credentials) booking.RefundRequest {
	return booking.RefundRequest{Number: number, Seats: seats, Reason: reason, Approver: approver, Addr: m.opts.Addr}
}

// setClerk signs c in (nil: out) and publishes who acts for Acting.
func (m *Model) setClerk(c *clerk) {
	m.clerk = c
	m.acting.Store(c)
}

// Acting returns the member of staff signed in now and their role, or 0
// when nobody is: a server uses it to close the session of someone
// disabled or demoted meanwhile. It is safe to call from any goroutine.
func (m *Model) Acting() (staffID int64, role booking.Role) {
	if c := m.acting.Load(); c != nil {
		return c.id, c.role
	}
	return 0, 0
}
