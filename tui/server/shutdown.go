package server

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"boxoffice/booking"
)

// A shutdown is bounded by its context's deadline whatever another
// process does with the database's write lock: writes under way get a
// share of the time, this server's holds the rest, and what could not be
// released is named in the log, to lapse by itself at its expiry.

// holdReleaser is what a shutdown needs to give holds back, or name them.
type holdReleaser interface {
	ReleasePrefix(ctx context.Context, prefix string) (int, error)
	LiveHolds(ctx context.Context, prefix string) ([]booking.Hold, error)
}

const (
	// defaultShutdown bounds a Shutdown whose context has no deadline.
	defaultShutdown = 10 * time.Second
	// quiesceShare is the part of the time left that writes under way
	// (sales, the sweeper's) get to commit; the rest is for the release,
	// which matters more: a seat left held blocks sales elsewhere until
	// its hold lapses.
	quiesceShare = 0.4
	// nameWait is kept at the end to read and log the holds left.
	nameWait = 500 * time.Millisecond
	// minRelease is how long a release is tried even when the time is up
	// already: with the lock free it takes milliseconds.
	minRelease = 300 * time.Millisecond
)

// deadlineOf is ctx's deadline, or defaultShutdown from now.
func deadlineOf(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(defaultShutdown)
}

// share is a context ending after frac of the time left before ctx's
// deadline.
func share(ctx context.Context, frac float64) (context.Context, context.CancelFunc) {
	left := time.Until(deadlineOf(ctx))
	return context.WithTimeout(ctx, time.Duration(float64(left)*frac))
}

// releaseBy gives back every live hold whose owner starts with prefix,
// waiting for the write lock until nameWait before ctx's deadline (and
// at least minRelease, even when ctx has ended). Holds it could not
// release are named in the log one by one, with when each lapses.
func releaseBy(ctx context.Context, store holdReleaser, prefix string, log *slog.Logger) (int, error) {
	until := deadlineOf(ctx).Add(-nameWait)
	if floor := time.Now().Add(minRelease); until.Before(floor) {
		until = floor
	}
	rctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), until)
	n, err := store.ReleasePrefix(rctx, prefix)
	cancel()
	if err == nil {
		return n, nil
	}
	nameLeft(ctx, store, prefix, log)
	return n, err
}

// nameLeft logs each live hold of prefix: what a failed release leaves
// held. Reads do not wait for the write lock, so this is quick.
func nameLeft(ctx context.Context, store holdReleaser, prefix string, log *slog.Logger) {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), nameWait)
	defer cancel()
	left, err := store.LiveHolds(lctx, prefix)
	if err != nil {
		log.Error("holds not released and not listed: each lapses by itself at its expiry", "prefix", prefix, "err", err)
		return
	}
	for _, h := range left {
		log.Warn("hold not released: it lapses by itself at its expiry", "hold", h.ID, "show", h.ShowID,
			"seats", seatLabels(h.Seats), "owner", booking.CleanLine(h.Owner, 80), "expires", h.ExpiresAt.Format(time.RFC3339))
	}
	if len(left) > 0 {
		log.Warn("holds not released: the database's write lock was busy to the end of the shutdown; they lapse by themselves", "holds", len(left), "prefix", prefix)
	}
}

func seatLabels(seats []booking.Seat) string {
	labels := make([]string, len(seats))
	for i, s := range seats {
		labels[i] = booking.CleanLine(s.Label, 16)
	}
	return strings.Join(labels, " ")
}
