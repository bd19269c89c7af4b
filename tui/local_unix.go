//go:build unix

package tui

import (
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	"boxoffice/booking"
)

// NewLocalProgram makes the program that runs model on in and out, this
// process's terminal, with every size it is drawn at bounded to
// MaxWidth×MaxHeight, and filter (nil: none) after the bound; opts come
// first. Call stop once Run has returned.
//
// Bubble Tea asks a terminal output for its size and makes its renderer's
// cells for that size before the program has any say, and again on every
// SIGWINCH. So out is handed to it as a plain writer: the program starts
// at the terminal's size bounded, and the terminal's resizes are followed
// here and sent to it bounded. Output that is no terminal (a test's
// buffer) is handed over as it is.
func NewLocalProgram(model tea.Model, in io.Reader, out io.Writer, filter Filter, opts ...tea.ProgramOption) (p *tea.Program, stop func(), err error) {
	return newLocalProgram(model, in, out, filter, nil, opts...)
}

// newLocalProgram is NewLocalProgram with notice, which (when not nil)
// gets every size the terminal reports, before the bound, and returns a
// message to send the program or nil: the counter's SizeBanner.
func newLocalProgram(model tea.Model, in io.Reader, out io.Writer, filter Filter, notice func(w, h int) tea.Msg, opts ...tea.ProgramOption) (*tea.Program, func(), error) {
	opts = append(opts, tea.WithInput(in), tea.WithFilter(BoundSizeFilter(filter)))
	f, ok := out.(term.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return tea.NewProgram(model, append(opts, tea.WithOutput(out))...), func() {}, nil
	}
	w, h, err := term.GetSize(f.Fd())
	if err != nil {
		return nil, nil, booking.Errorf(booking.EInvalid, "Cannot read this terminal's size: %v", err)
	}
	bw, bh := drawSize(w, h)
	// The colour profile is read from the terminal here, as Bubble Tea
	// would: from the plain writer it would take it for a pipe, no colour.
	p := tea.NewProgram(model, append(opts, tea.WithOutput(plainWriter{out}), tea.WithWindowSize(bw, bh),
		tea.WithColorProfile(colorprofile.Detect(out, os.Environ())))...)

	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		// p.Send returns once the program reads the message or has ended.
		report := func(w, h int) {
			if notice == nil {
				return
			}
			if msg := notice(w, h); msg != nil {
				p.Send(msg)
			}
		}
		report(w, h)
		for {
			select {
			case <-done:
				return
			case <-winch:
			}
			w, h, err := term.GetSize(f.Fd())
			if err != nil {
				continue // keep the size it has
			}
			bw, bh := drawSize(w, h)
			p.Send(tea.WindowSizeMsg{Width: bw, Height: bh})
			report(w, h)
		}
	})
	return p, func() { signal.Stop(winch); close(done); wg.Wait() }, nil
}

// drawSize is the size a program draws a w×h terminal at: bounded, and
// Bubble Tea's own 80×24 for a terminal that does not say.
func drawSize(w, h int) (int, int) {
	if w <= 0 || h <= 0 {
		return MinWidth, MinHeight
	}
	bw, bh, _ := BoundSize(w, h)
	return bw, bh
}

// plainWriter hides its writer's file descriptor from Bubble Tea, which
// would otherwise take the terminal's size from it unbounded.
type plainWriter struct{ io.Writer }
