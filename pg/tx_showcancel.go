package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// HoldOffSales locks holds and seat_claims against writes as a block does
// (blockLockSQL): the lock waits for every hold and checkout writing
// claims to end and holds off new ones until the cancel commits, so the
// holds the cancel releases are every hold of the show there is, and a
// hold that waited reads the show cancelled (salesOpen reads it after its
// claims). Without it a hold whose salesOpen read the show an instant
// before the cancel committed could outlive the cancel and be sold. A
// cancel is a manager's rare act; the pause is its own few milliseconds.
func (t *tx) HoldOffSales() error {
	_, err := t.Exec(t.ctx, blockLockSQL)
	return err
}

// MarkShowCancelled moves a show scheduled -> cancelled and settled, and
// counts its sold seats.
func (t *tx) MarkShowCancelled(showID int64, reason, by string) (int, bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE shows SET status = 'cancelled', cancel_reason = $1, cancelled_by = $2, cancelled_at = $3, settled_at = $3
		WHERE id = $4 AND status = 'scheduled'`, reason, by, t.nowMS(), showID)
	if err != nil || tag.RowsAffected() != 1 {
		return 0, false, err
	}
	var sold int
	err = t.QueryRow(t.ctx, `SELECT count(*) FROM seat_claims WHERE show_id = $1 AND status IN ('held', 'sold') AND status = 'sold'`, showID).Scan(&sold)
	return sold, err == nil, err
}

// ReleaseShowHolds lets go of every live hold of a show, with its claims.
func (t *tx) ReleaseShowHolds(showID int64) ([]int64, error) {
	rows, err := t.Query(t.ctx, `UPDATE holds SET status = 'released' WHERE show_id = $1 AND status = 'held' RETURNING id`, showID)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	_, err = t.Exec(t.ctx, `UPDATE seat_claims SET status = 'released' WHERE hold_id = ANY($1) AND status = 'held'`, ids)
	return ids, err
}

// ReadCashBookings counts a show's confirmed bookings paid in cash.
func (d driver) ReadCashBookings(ctx context.Context, showID int64) (int, error) {
	var n int
	err := d.s.pool.QueryRow(ctx, `SELECT count(*) FROM bookings b JOIN payments p ON p.booking_id = b.id AND p.kind = 'sale' AND p.method = 'cash'
		WHERE b.show_id = $1 AND b.status = 'confirmed'`, showID).Scan(&n)
	return n, d.s.translate("cancel show", err)
}

// ReadConfirmedBookings lists some of a show's confirmed bookings.
func (d driver) ReadConfirmedBookings(ctx context.Context, showID int64, limit int) ([]int64, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT id FROM bookings WHERE show_id = $1 AND status = 'confirmed' ORDER BY id LIMIT $2`, showID, limit)
	if err != nil {
		return nil, d.s.translate("cancel show", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, d.s.translate("cancel show", err)
}

// qCancelContacts lists the bookings a show's cancellation refunded —
// cancelled at or after the show was — with what went back to each, by
// booking number.
const qCancelContacts = `SELECT b.number, b.customer, b.phone, p.method,
		(SELECT coalesce(sum(r.amount), 0) FROM payments r WHERE r.booking_id = b.id AND r.kind = 'refund'),
		(SELECT count(*) FROM payments r WHERE r.booking_id = b.id AND r.kind = 'refund')
	FROM bookings b JOIN payments p ON p.booking_id = b.id AND p.kind = 'sale'
	WHERE b.show_id = $1 AND b.status = 'cancelled' AND b.cancelled_at >= $2 ORDER BY b.number`

// ReadCancellation reads the cancelled show and the customers to contact.
func (d driver) ReadCancellation(ctx context.Context, showID int64, out *booking.ShowCancellation) error {
	s := d.s
	var at *int64
	if err := s.pool.QueryRow(ctx, `SELECT cancelled_by, cancelled_at FROM shows WHERE id = $1`, showID).Scan(&out.By, &at); err != nil {
		return s.translate("cancel show", err)
	}
	since := deref(at)
	out.At = time.UnixMilli(since)
	rows, err := s.pool.Query(ctx, qCancelContacts, showID, since)
	if err != nil {
		return s.translate("cancel show", err)
	}
	defer rows.Close()
	out.Contacts, err = store.ScanContacts(rows)
	return s.translate("cancel show", err)
}
