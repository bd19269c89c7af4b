package server

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/tui"
)

// session is one counter session: who it is and the program it runs.
type session struct {
	id      uint64
	addr    string // remote host, for the per-address limits
	remote  string // remote host:port, for the log
	fp      string
	staff   *booking.Staff
	term    *booking.Terminal
	started time.Time

	owner    string
	takeover *resumed // what a dropped session left; nil for a fresh owner

	// withdrawn is set once the session's access was withdrawn.
	withdrawn atomic.Bool

	mu      sync.Mutex
	program *tea.Program
	model   *tui.Model
	stopped bool      // quit asked for; a program not yet made is not run
	pending []tea.Msg // sent before the program was made
}

// ident names the identity holds are kept for across a reconnect.
func (s *session) ident() string {
	if s.staff != nil {
		return "s" + strconv.FormatInt(s.staff.ID, 10)
	}
	return "t" + strconv.FormatInt(s.term.ID, 10)
}

// logAttrs are the fields of every log line about the session.
func (s *session) logAttrs() []any {
	attrs := []any{"addr", s.remote, "fp", s.fp}
	if s.staff != nil {
		attrs = append(attrs, "staff", s.staff.Name)
	} else {
		attrs = append(attrs, "terminal", s.term.Name)
	}
	return attrs
}

// send delivers msg to the session's program without waiting on it: a
// program that has not started yet or is busy must not hold up the server.
// Messages sent before the program exists are kept for it.
func (s *session) send(msg tea.Msg) {
	s.mu.Lock()
	p := s.program
	if p == nil {
		s.pending = append(s.pending, msg)
	}
	s.mu.Unlock()
	if p != nil {
		go p.Send(msg)
	}
}

// stop asks the program to quit, or keeps it from running when it is not
// made yet.
func (s *session) stop() {
	s.mu.Lock()
	s.stopped = true
	p := s.program
	s.mu.Unlock()
	if p != nil {
		go p.Quit()
	}
}

// acting returns who is signed in in the session's program, 0 for nobody
// or a program not made yet.
func (s *session) acting() (int64, booking.Role) {
	s.mu.Lock()
	m := s.model
	s.mu.Unlock()
	if m == nil {
		return 0, 0
	}
	return m.Acting()
}

// setProgram records the program unless the session was stopped first.
func (s *session) setProgram(p *tea.Program, m *tui.Model) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return false
	}
	s.program, s.model = p, m
	if pending := s.pending; len(pending) > 0 {
		s.pending = nil
		go func() {
			for _, msg := range pending {
				p.Send(msg)
			}
		}()
	}
	return true
}
