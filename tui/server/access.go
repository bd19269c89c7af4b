package server

import (
	"context"
	"time"

	"boxoffice/booking"
	"boxoffice/tui"
)

// Withdrawn sessions: the banner the counter shows, how long it shows
// before the session ends, and the last line printed as it closes.
const (
	withdrawnNotice = "Your access was withdrawn: this session is closing."
	withdrawnGrace  = time.Second
	withdrawnLine   = "Your access to the box office was withdrawn."
)

// watchAccess closes, every AccessCheck, the sessions of anyone disabled
// or demoted and of every removed terminal since the session began. The
// store refuses their writes anyway (every write checks its actor in its
// own transaction); this ends the sessions of those who do not write.
func (s *Server) watchAccess() {
	t := time.NewTicker(s.cfg.AccessCheck)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
			s.checkAccess()
		}
	}
}

// checkAccess reads who may still act, once for all sessions, and
// withdraws the sessions it no longer allows; then it hands the
// terminals' sessions a printer changed meanwhile (refreshPrinters).
func (s *Server) checkAccess() {
	s.mu.Lock()
	open := make([]*session, 0, len(s.sessions))
	for _, st := range s.sessions {
		open = append(open, st)
	}
	s.mu.Unlock()
	if len(open) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	a, err := s.cfg.Store.Access(ctx)
	cancel()
	if err != nil {
		s.log.Warn("access check", "err", err)
		return
	}
	for _, st := range open {
		if why := st.refusedBy(a); why != "" {
			s.withdraw(st, why)
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	s.refreshPrinters(ctx, open)
	cancel()
}

// refusedBy says why a no longer lets the session go on, or "".
func (st *session) refusedBy(a booking.Access) string {
	switch {
	case st.staff != nil && !a.Allows(st.staff.ID, st.staff.Role, 0):
		return "staff disabled or demoted"
	case st.term != nil && !a.Allows(0, 0, st.term.ID):
		return "terminal removed"
	}
	if id, role := st.acting(); id != 0 && !a.Allows(id, role, 0) {
		return "signed-in staff disabled or demoted"
	}
	return ""
}

// withdraw tells the session its access was withdrawn and ends it a
// moment later, once. Its holds are released when it ends (see counter),
// not kept for a reconnect.
func (s *Server) withdraw(st *session, why string) {
	if !st.withdrawn.CompareAndSwap(false, true) {
		return
	}
	s.log.Warn("session withdrawn", append(st.logAttrs(), "session", st.id, "reason", why)...)
	st.send(tui.ServerNoticeMsg{Text: withdrawnNotice})
	time.AfterFunc(withdrawnGrace, st.stop)
}

// demoCredentials are the sign-in hint of the demo cinema while its PIN
// still works; none once it was changed.
func (s *Server) demoCredentials(ctx context.Context) booking.Credentials {
	c := s.cfg.DemoCredentials
	if !s.cfg.Demo || c.Name == "" {
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if ok, err := s.cfg.Store.PINUnchanged(ctx, c.Name); err != nil || !ok {
		return booking.Credentials{}
	}
	return c
}
