package tui

import (
	"context"
	"errors"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Run runs the counter in a local terminal until the clerk quits or ctx
// ends, then releases whatever this session still holds.
func Run(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	if opts.Context == nil {
		opts.Context = ctx
	}
	m := New(opts)
	defer m.Close()
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	_, err := p.Run()

	// Quitting releases the holds already; a killed program (ctx ended,
	// a signal) has not, so do it here with a context of its own.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, rerr := opts.Store.ReleaseOwner(rctx, opts.Owner); rerr != nil {
		m.log.Error("release holds on exit", "owner", opts.Owner, "err", rerr)
	}
	if err != nil && (ctx.Err() != nil || errors.Is(err, tea.ErrInterrupted)) {
		return nil
	}
	return err
}
