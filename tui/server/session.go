package server

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	bm "charm.land/wish/v2/bubbletea"

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

	// banner is the newest size banner not yet delivered (showBanner);
	// bannerBusy is set while a goroutine delivers them.
	banner     tea.Msg
	bannerBusy bool

	// printer is the terminal's printer the session was last told of,
	// once printerSet (see refreshPrinters).
	printer    string
	printerSet bool
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

// showBanner delivers the size banner msg to the session's program, once
// it is made, without waiting on it. Unlike send it keeps only the newest:
// a client may change its window size without end, and that costs one
// goroutine and one message waiting, not one of each per change.
func (s *session) showBanner(msg tea.Msg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.banner = msg
	s.deliverBannerLocked()
}

// deliverBannerLocked starts the goroutine that delivers the banner, when
// there is one to deliver, a program to take it and none under way.
func (s *session) deliverBannerLocked() {
	if s.banner == nil || s.program == nil || s.bannerBusy {
		return
	}
	s.bannerBusy = true
	p := s.program
	go func() {
		for {
			s.mu.Lock()
			msg := s.banner
			s.banner = nil
			if msg == nil {
				s.bannerBusy = false
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
			p.Send(msg) // returns at once once the program has ended
		}
	}()
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
	s.deliverBannerLocked()
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

// newSessionProgram makes the program of an SSH session: its input and
// output are the session's (wish's MakeOptions); every size it is given
// is bounded, the PTY's and window changes by boundTerminal, any other by
// its filter, which then runs filter; and the model's commands are cut
// loose from it when the session ends (releasingModel).
func newSessionProgram(sess ssh.Session, m tea.Model, filter tui.Filter) *tea.Program {
	end := sess.Context().Done()
	if b, ok := sess.(*boundedSession); ok {
		end = b.done
	}
	return tea.NewProgram(releasingModel{Model: m, end: end}, append(bm.MakeOptions(sess), tea.WithFilter(tui.BoundSizeFilter(filter)))...)
}

// releasingModel runs a session's model with every command it returns
// released from the program once the session has ended. Bubble Tea runs
// each command on a goroutine that holds the program, renderer buffers
// and all, until the command returns, and a timer (the counter's idle
// sign-out, the kiosk's restart) returns minutes after the session ended:
// every session would keep its screen's memory that long after it went.
// So each command runs on a goroutine of its own, which holds only the
// command, and the program's goroutine waits for it or for the session's
// end, whichever comes first. (The commands of a tea.Sequence are the
// program's to run; the kiosk's one is short.)
type releasingModel struct {
	tea.Model
	end <-chan struct{}
}

func (r releasingModel) Init() tea.Cmd { return r.release(r.Model.Init()) }

func (r releasingModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := r.Model.Update(msg)
	r.Model = m
	return r, r.release(cmd)
}

// cmdPanic carries a command's panic to the program's goroutine, where
// Bubble Tea recovers it and ends this session only.
type cmdPanic struct{ v any }

func (r releasingModel) release(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		out := make(chan tea.Msg, 1) // the command never waits to hand over
		go func() {
			defer func() {
				if v := recover(); v != nil {
					out <- cmdPanic{v}
				}
			}()
			out <- cmd()
		}()
		select {
		case msg := <-out:
			switch msg := msg.(type) {
			case cmdPanic:
				panic(msg.v)
			case tea.BatchMsg:
				batch := make(tea.BatchMsg, len(msg))
				for i, c := range msg {
					batch[i] = r.release(c)
				}
				return batch
			}
			return msg
		case <-r.end:
			return nil
		}
	}
}
