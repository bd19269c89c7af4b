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
	p, stop, err := newLocalProgram(m, in, out, nil, banner.Update)
	if err != nil {
		return err
	}
	ended := QuitWhenDone(ctx, p)
	_, err = p.Run()
	ended()
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

// quitGrace is how long a program asked to quit (QuitWhenDone) has before
// it is killed.
const quitGrace = 5 * time.Second

// QuitWhenDone quits p once ctx ends, as a key that quits would, and
// kills it only if it has not ended quitGrace later; call the func it
// returns once p.Run has returned. Not tea.WithContext: a program ended
// by its context is killed, and Bubble Tea's kill closes the terminal's
// cancel reader without waiting for its reading goroutine, which still
// reads the reader's descriptors (a data race, bubbletea#1599); a quit
// waits for it.
func QuitWhenDone(ctx context.Context, p *tea.Program) func() {
	finished := make(chan struct{})
	go func() {
		select {
		case <-finished:
			return
		case <-ctx.Done():
		}
		p.Quit()
		select {
		case <-finished:
		case <-time.After(quitGrace):
			p.Kill()
		}
	}()
	return func() { close(finished) }
}
