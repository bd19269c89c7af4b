//go:build !unix

package tui

import (
	"io"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"boxoffice/booking"
)

// NewLocalProgram makes the program that runs model on in and out, this
// process's terminal, with every size it is drawn at bounded to
// MaxWidth×MaxHeight, and filter (nil: none) after the bound; opts come
// first. Call stop once Run has returned.
//
// Here (no SIGWINCH to follow) Bubble Tea keeps the terminal and reads its
// size itself, unbounded at start: a terminal larger than the bound is
// refused with a line saying so; every later size is bounded by the
// filter.
func NewLocalProgram(model tea.Model, in io.Reader, out io.Writer, filter Filter, opts ...tea.ProgramOption) (p *tea.Program, stop func(), err error) {
	return newLocalProgram(model, in, out, filter, nil, opts...)
}

// newLocalProgram is NewLocalProgram; notice is not called here.
func newLocalProgram(model tea.Model, in io.Reader, out io.Writer, filter Filter, _ func(w, h int) tea.Msg, opts ...tea.ProgramOption) (*tea.Program, func(), error) {
	if f, ok := out.(term.File); ok && term.IsTerminal(f.Fd()) {
		if w, h, err := term.GetSize(f.Fd()); err == nil {
			if _, _, cut := BoundSize(w, h); cut {
				return nil, nil, booking.Errorf(booking.EInvalid, "This terminal is %d×%d; boxoffice draws at most %d×%d: make the window smaller.", w, h, MaxWidth, MaxHeight)
			}
		}
	}
	opts = append(opts, tea.WithInput(in), tea.WithOutput(out), tea.WithFilter(BoundSizeFilter(filter)))
	return tea.NewProgram(model, opts...), func() {}, nil
}
