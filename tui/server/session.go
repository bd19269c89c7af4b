package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	bm "charm.land/wish/v2/bubbletea"
	"github.com/charmbracelet/colorprofile"

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

// sessionProgram is an SSH session's program, the renderer it draws
// through and the mailbox its commands answer to.
type sessionProgram struct {
	*tea.Program
	draw *frameRenderer
	box  *mailbox
}

// newSessionProgram makes the program of an SSH session: its input and
// output are the session's (wish's MakeOptions); it draws through a
// frameRenderer rather than Bubble Tea's renderer, at the session's colour
// profile; every size it is given is bounded, the PTY's and window changes
// by boundTerminal, any other by its filter, which then runs filter; and
// the model's commands hold nothing of it (sessionModel).
//
// No signal handler: Bubble Tea's would quit every session's program at
// the server's SIGTERM, before the graceful shutdown could tell the
// counters. Bubble Tea's frame ticker has only its own queued sequences
// (clipboard and the like, which the screens do not use) to flush once its
// renderer is off, so it ticks once a second rather than sixty times, for
// every idle session.
func newSessionProgram(sess ssh.Session, m tea.Model, filter tui.Filter) *sessionProgram {
	pty, _, _ := sess.Pty()
	sp := &sessionProgram{
		draw: newFrameRenderer(sess, colorprofile.Env(append(sess.Environ(), "TERM="+pty.Term)), pty.Window.Width, pty.Window.Height),
		box:  new(mailbox),
	}
	opts := append(bm.MakeOptions(sess), tea.WithoutRenderer(), tea.WithoutSignalHandler(), tea.WithFPS(1),
		tea.WithFilter(tui.BoundSizeFilter(filter)))
	sp.Program = tea.NewProgram(sessionModel{Model: m, draw: sp.draw, box: sp.box}, opts...)
	sp.box.open(sp.Program)
	return sp
}

// serveProgram is the middleware that runs each session's program, made by
// handler (nil: no program, the session goes on to next). It stands in for
// wish's bubbletea middleware, which it follows, to hand the terminal back
// (frameRenderer.close) once the program has stopped and before anything
// else is written on the session, and to close the program's mailbox.
// Window changes are passed to the program from a goroutine of its own,
// which quits it when the session ends.
func serveProgram(handler func(ssh.Session) *sessionProgram, log *slog.Logger) wish.Middleware {
	return func(next ssh.Handler) ssh.Handler {
		return func(sess ssh.Session) {
			p := handler(sess)
			if p == nil {
				next(sess)
				return
			}
			_, windowChanges, _ := sess.Pty()
			ctx, cancel := context.WithCancel(sess.Context())
			go func() {
				// The recover middleware cannot see this goroutine: a
				// panic here would end the server, not the session.
				defer func() {
					if v := recover(); v != nil {
						log.Error("session panic", "detail", fmt.Sprint(v), "stack", string(debug.Stack()))
						p.Quit()
					}
				}()
				for {
					select {
					case <-ctx.Done():
						p.Quit()
						return
					case w := <-windowChanges:
						p.Send(tea.WindowSizeMsg{Width: w.Width, Height: w.Height})
					}
				}
			}()
			if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
				log.Error("session program", "err", err)
			}
			p.Kill()
			cancel()
			p.box.close()
			p.draw.close()
			next(sess)
		}
	}
}

// sessionModel is a session's model as its program runs it: every frame
// its View returns is drawn through draw, which is told every size the
// program is given, and every command it returns is released.
//
// Bubble Tea runs each command on a goroutine that holds the program until
// the command returns, and a timer (the counter's idle sign-out, the
// kiosk's restart) returns minutes after the session ended: every session
// would keep its program that long after it went. A released command runs
// on a goroutine of its own that holds only the command and the session's
// mailbox, and its message is posted there; the program is handed nothing
// to wait for. When a command returns a batch, each of the batch's
// commands is released in turn, so that no goroutine waits for a batch to
// finish either. (The commands of a tea.Sequence are the program's to run,
// in order; the kiosk's one is short.)
type sessionModel struct {
	tea.Model
	draw *frameRenderer
	box  *mailbox
}

func (s sessionModel) Init() tea.Cmd { return s.release(s.Model.Init()) }

func (s sessionModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		s.draw.resize(msg.Width, msg.Height)
	case cmdPanic:
		panic(msg.v)
	}
	m, cmd := s.Model.Update(msg)
	s.Model = m
	return s, s.release(cmd)
}

func (s sessionModel) View() tea.View {
	v := s.Model.View()
	s.draw.draw(v)
	return v
}

// cmdPanic carries a command's panic to the program's goroutine, where
// Bubble Tea recovers it and ends this session only.
type cmdPanic struct{ v any }

func (s sessionModel) release(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	box := s.box
	return func() tea.Msg {
		go box.run(cmd)
		return nil
	}
}

// mailbox is where a session's released commands post their messages: to
// its program until the program has stopped, and nowhere after.
type mailbox struct {
	mu sync.Mutex
	p  *tea.Program
}

func (b *mailbox) open(p *tea.Program) {
	b.mu.Lock()
	b.p = p
	b.mu.Unlock()
}

// close lets the program go: messages posted after it are dropped.
func (b *mailbox) close() { b.open(nil) }

// run runs cmd and posts its message; a batch's commands each run on a
// goroutine of their own.
func (b *mailbox) run(cmd tea.Cmd) {
	defer func() {
		if v := recover(); v != nil {
			b.post(cmdPanic{v})
		}
	}()
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			if c != nil {
				go b.run(c)
			}
		}
	default:
		b.post(msg)
	}
}

// post hands msg to the program, waiting until it takes it or has stopped.
func (b *mailbox) post(msg tea.Msg) {
	b.mu.Lock()
	p := b.p
	b.mu.Unlock()
	if p != nil {
		p.Send(msg)
	}
}
