package db

import (
	"context"
	"database/sql"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// HoldOffSales needs nothing on SQLite: the writer runs one write at a
// time, so no hold is being written while the show is marked cancelled.
func (w *wtx) HoldOffSales() error { return nil }

// MarkShowCancelled moves a show scheduled -> cancelled and settled, and
// reads its sold count.
func (w *wtx) MarkShowCancelled(showID int64, reason, by string) (int, bool, error) {
	var sold int
	err := w.queryRow(`UPDATE shows SET status = 'cancelled', cancel_reason = ?, cancelled_by = ?, cancelled_at = ?, settled_at = ?
		WHERE id = ? AND status = 'scheduled' RETURNING sold`, reason, by, w.nowMS(), w.nowMS(), showID).Scan(&sold)
	if isNoRows(err) {
		return 0, false, nil
	}
	return sold, err == nil, err
}

// ReleaseShowHolds lets go of every live hold of a show, with its claims.
func (w *wtx) ReleaseShowHolds(showID int64) ([]int64, error) {
	ids, err := queryList[int64](w, `UPDATE holds SET status = 'released' WHERE show_id = ? AND status = 'held' RETURNING id`, showID)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, err := w.exec(`UPDATE seat_claims SET status = 'released' WHERE hold_id = ? AND status = 'held'`, id); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// ReadCashBookings counts a show's confirmed bookings paid in cash.
func (d driver) ReadCashBookings(ctx context.Context, showID int64) (int, error) {
	var n int
	err := d.s.readRow(ctx, `SELECT count(*) FROM bookings b JOIN payments p ON p.booking_id = b.id AND p.kind = 'sale' AND p.method = 'cash'
		WHERE b.show_id = ? AND b.status = 'confirmed'`, showID).Scan(&n)
	return n, d.s.translate("cancel show", err)
}

// ReadConfirmedBookings lists some of a show's confirmed bookings.
func (d driver) ReadConfirmedBookings(ctx context.Context, showID int64, limit int) ([]int64, error) {
	return d.s.readIDs(ctx, `SELECT id FROM bookings WHERE show_id = ? AND status = 'confirmed' ORDER BY id LIMIT ?`, showID, limit)
}

// qCancelContacts lists the bookings a show's cancellation refunded —
// cancelled at or after the show was — with what went back to each, by
// booking number.
const qCancelContacts = `SELECT b.number, b.customer, b.phone, p.method,
		(SELECT coalesce(sum(r.amount), 0) FROM payments r WHERE r.booking_id = b.id AND r.kind = 'refund'),
		(SELECT count(*) FROM payments r WHERE r.booking_id = b.id AND r.kind = 'refund')
	FROM bookings b JOIN payments p ON p.booking_id = b.id AND p.kind = 'sale'
	WHERE b.show_id = ? AND b.status = 'cancelled' AND b.cancelled_at >= ? ORDER BY b.number`

// ReadCancellation reads the cancelled show and the customers to contact.
func (d driver) ReadCancellation(ctx context.Context, showID int64, out *booking.ShowCancellation) error {
	s := d.s
	var at sql.NullInt64
	if err := s.readRow(ctx, `SELECT cancelled_by, cancelled_at FROM shows WHERE id = ?`, showID).Scan(&out.By, &at); err != nil {
		return s.translate("cancel show", err)
	}
	out.At = time.UnixMilli(at.Int64)
	rows, err := s.readRows(ctx, qCancelContacts, showID, at.Int64)
	if err != nil {
		return s.translate("cancel show", err)
	}
	defer rows.Close()
	out.Contacts, err = store.ScanContacts(rows)
	return s.translate("cancel show", err)
}
