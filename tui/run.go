package tui

import (
	"context"
	"errors"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// Run runs the counter in a local terminal, its size bounded
// (NewLocalProgram), until the clerk quits or ctx ends, waits for a sale
// or refund still under way, and releases whatever this session still
// holds. A session whose access the store withdrew (the clerk disabled or
// demoted meanwhile) ends by itself a moment after saying so, and Run
// returns booking.ErrWithdrawn.
func Run(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	if opts.Context == nil {
		opts.Context = ctx
	}
	m := New(opts)
	defer m.Close()
	// The terminal's size is bounded (MaxWidth×MaxHeight) before the
	// program sees it; the banner says when the terminal is larger.
	var banner SizeBanner
	p, stop, err := newLocalProgram(m, in, out, nil, banner.Update, tea.WithContext(ctx))
	if err != nil {
		return err
	}
	_, err = p.Run()
	stop()
	<-m.Settle() // bounded: each sale or refund by moneyTimeout

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
	if err == nil && m.Withdrawn() {
		return booking.ErrWithdrawn
	}
	return err
}
