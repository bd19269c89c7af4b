package db

import (
	"context"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// driver is the SQLite engine as package store sees it: its write
// transactions go through the one writer (group commit), its reads
// through the read pool. Each capability's typed queries are methods of
// *wtx, in the tx_*.go files.
type driver struct{ s *Store }

var (
	_ store.Driver = driver{}
	_ store.Tx     = (*wtx)(nil)
)

// Write runs fn as one job of the writer. The store checks the actor
// inside fn (store.CheckActor), so the job runs as booking.System here.
func (d driver) Write(ctx context.Context, w store.Write, fn func(store.Tx) (any, error)) (any, error) {
	run := func(x *wtx) (any, error) { return fn(x) }
	if w.Release {
		return giveBack(d.s, ctx, w.Op, run)
	}
	return write(d.s, ctx, booking.System, w.Op, run)
}

// Now is the store's clock.
func (d driver) Now() time.Time { return d.s.opts.Clock() }

// Context is the transaction's context.
func (w *wtx) Context() context.Context { return w.ctx }

// Now is the transaction's time.
func (w *wtx) Now() time.Time { return w.now }

// Touch records that the transaction changed a show.
func (w *wtx) Touch(showID int64) { w.touch(showID) }

// InsertAudit queues the row for the batch's one insert of audit rows
// (see audit).
func (w *wtx) InsertAudit(r store.AuditRow) error {
	w.audits = append(w.audits, r)
	return nil
}

// StaffStanding reads a member of staff's role and whether they are
// disabled.
func (w *wtx) StaffStanding(staffID int64) (role string, disabled, found bool, err error) {
	err = w.queryRow(`SELECT role, disabled FROM staff WHERE id = ?`, staffID).Scan(&role, &disabled)
	if isNoRows(err) {
		return "", false, false, nil
	}
	return role, disabled, err == nil, err
}

// TerminalRegistered reports whether a terminal is still registered.
func (w *wtx) TerminalRegistered(terminalID int64) (bool, error) {
	var n int
	err := w.queryRow(`SELECT count(*) FROM terminals WHERE id = ?`, terminalID).Scan(&n)
	return n > 0, err
}
