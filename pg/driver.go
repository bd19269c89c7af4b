package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/store"
)

// driver is the PostgreSQL engine as package store sees it: its write
// transactions run on a connection of the pool at the isolation level
// the rule asks for, retried on a serialization failure or a deadlock.
// Each capability's typed queries are methods of *tx, in the tx_*.go
// files.
type driver struct{ s *Store }

var (
	_ store.Driver = driver{}
	_ store.Tx     = (*tx)(nil)
)

// Write runs fn in one transaction (inTx). A hold commits without
// waiting for the disk unless Options.SyncHolds (see pg/holds.go).
func (d driver) Write(ctx context.Context, w store.Write, fn func(store.Tx) (any, error)) (any, error) {
	mode := txMode{iso: pgx.ReadCommitted, release: w.Release, hold: w.Hold, async: w.Hold && !d.s.opts.SyncHolds}
	if w.Isolation == store.Serializable {
		mode.iso = pgx.Serializable
	}
	return inTx(d.s, ctx, w.Op, mode, func(t *tx) (any, error) { return fn(t) })
}

// Now is the store's clock: the database server's (clock.go).
func (d driver) Now() time.Time { return d.s.now() }

// Context is the transaction's context.
func (t *tx) Context() context.Context { return t.ctx }

// Now is the transaction's time.
func (t *tx) Now() time.Time { return t.now }

// Touch records that the transaction changed a show.
func (t *tx) Touch(showID int64) { t.touch(showID) }

// InsertAudit appends one row to the audit trail.
func (t *tx) InsertAudit(r store.AuditRow) error {
	_, err := t.Exec(t.ctx, `INSERT INTO audit (at, actor, role, terminal, action, show_id, booking_id, shift_id, amount, detail)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		r.At, r.Actor, r.Role, r.Terminal, string(r.Action), nullID(r.ShowID), nullID(r.BookingID), nullID(r.ShiftID), int64(r.Amount), r.Detail)
	return err
}

// StaffStanding reads a member of staff's role and whether they are
// disabled.
func (t *tx) StaffStanding(staffID int64) (role string, disabled, found bool, err error) {
	err = t.QueryRow(t.ctx, `SELECT role, disabled FROM staff WHERE id = $1`, staffID).Scan(&role, &disabled)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, false, nil
	}
	return role, disabled, err == nil, err
}

// TerminalRegistered reports whether a terminal is still registered.
func (t *tx) TerminalRegistered(terminalID int64) (bool, error) {
	var n int
	err := t.QueryRow(t.ctx, `SELECT count(*) FROM terminals WHERE id = $1`, terminalID).Scan(&n)
	return n > 0, err
}
