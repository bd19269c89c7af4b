package db

import (
	"context"
	"database/sql"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// Vouchers on SQLite (the store's VouchersTx and VoucherReads): one
// writer runs one write at a time, so a read a rule then acts on needs no
// lock; the use's guard and the redemption's compare-and-set are what
// keep a second process writing the same file honest. Migration 0053 has
// the schema.

const (
	qVoucherRow = `SELECT id, code, off, percent, uses, uses_left, until, coalesce(film_id, 0), coalesce(show_id, 0), ticket_type, retired, created_at FROM vouchers`
	// qRedeemVoucher takes one use of a voucher that has one left, is on
	// and not expired at ?2, in one statement.
	qRedeemVoucher = `UPDATE vouchers SET uses_left = uses_left - 1
		WHERE code = ?1 AND uses_left > 0 AND retired = 0 AND (until IS NULL OR until > ?2)
		RETURNING id, code, off, percent, uses, uses_left, until, coalesce(film_id, 0), coalesce(show_id, 0), ticket_type, retired, created_at`
	qVoucherUses = `SELECT booking_id, code, discount, returned_at IS NOT NULL FROM voucher_redemptions
		WHERE booking_id IN (SELECT value FROM json_each(?))`
	qRedemptions = `SELECT r.code, b.number, r.discount, r.at, r.staff, r.returned_at IS NOT NULL
		FROM voucher_redemptions r JOIN bookings b ON b.id = r.booking_id WHERE r.at >= ? AND r.at < ? ORDER BY r.at, r.id`
)

// scanVoucher reads one row of qVoucherRow.
func scanVoucher(r scanner) (booking.Voucher, error) {
	var v booking.Voucher
	var until sql.NullInt64
	var created int64
	err := r.Scan(&v.ID, &v.Code, &v.Off, &v.Percent, &v.Uses, &v.UsesLeft, &until, &v.FilmID, &v.ShowID, &v.TicketType, &v.Retired, &created)
	if until.Valid {
		v.Until = time.UnixMilli(until.Int64)
	}
	v.CreatedAt = time.UnixMilli(created)
	return v, err
}

// untilMS stores no expiry as NULL.
func untilMS(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// voucher reads one voucher by query; found is false when none.
func (w *wtx) voucher(query string, args ...any) (booking.Voucher, bool, error) {
	v, err := scanVoucher(w.queryRow(query, args...))
	if isNoRows(err) {
		return v, false, nil
	}
	return v, err == nil, err
}

// InsertVoucher adds a voucher unless its code is taken.
func (w *wtx) InsertVoucher(v booking.Voucher) (int64, bool, error) {
	var id int64
	err := w.queryRow(`INSERT INTO vouchers (code, off, percent, uses, uses_left, until, film_id, show_id, ticket_type, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (code) DO NOTHING RETURNING id`,
		v.Code, v.Off, v.Percent, v.Uses, v.UsesLeft, untilMS(v.Until), nullID(v.FilmID), nullID(v.ShowID), v.TicketType, w.nowMS()).Scan(&id)
	if isNoRows(err) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// RedeemVoucher takes one use by one guarded statement.
func (w *wtx) RedeemVoucher(code string) (booking.Voucher, bool, error) {
	return w.voucher(qRedeemVoucher, code, w.nowMS())
}

// VoucherForUpdate reads a voucher (one writer: nothing to lock).
func (w *wtx) VoucherForUpdate(code string) (booking.Voucher, bool, error) {
	return w.voucher(qVoucherRow+` WHERE code = ?`, code)
}

// RetireVoucher retires a voucher by compare-and-set.
func (w *wtx) RetireVoucher(voucherID int64) (bool, error) {
	res, err := w.exec(`UPDATE vouchers SET retired = 1 WHERE id = ? AND retired = 0`, voucherID)
	return changedOne(res, err)
}

// InsertRedemption writes one use; 0053's UNIQUE refuses a second of a
// booking.
func (w *wtx) InsertRedemption(r store.RedemptionRow) error {
	_, err := w.exec(`INSERT INTO voucher_redemptions (voucher_id, booking_id, code, discount, staff, at) VALUES (?, ?, ?, ?, ?, ?)`,
		r.VoucherID, r.BookingID, r.Code, r.Discount, r.Staff, w.nowMS())
	return err
}

// ReturnRedemption marks a booking's redemption returned by
// compare-and-set.
func (w *wtx) ReturnRedemption(bookingID int64) (int64, bool, error) {
	var id int64
	err := w.queryRow(`UPDATE voucher_redemptions SET returned_at = ? WHERE booking_id = ? AND returned_at IS NULL RETURNING voucher_id`,
		w.nowMS(), bookingID).Scan(&id)
	if isNoRows(err) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// GiveBackUse puts one use back on a voucher.
func (w *wtx) GiveBackUse(voucherID int64) error {
	_, err := w.exec(`UPDATE vouchers SET uses_left = uses_left + 1 WHERE id = ?`, voucherID)
	return err
}

// ReadVouchers lists every voucher by code.
func (d driver) ReadVouchers(ctx context.Context) ([]booking.Voucher, error) {
	rows, err := d.s.readRows(ctx, qVoucherRow+` ORDER BY code`)
	if err != nil {
		return nil, d.s.translate("vouchers", err)
	}
	defer rows.Close()
	out := []booking.Voucher{}
	for rows.Next() {
		v, err := scanVoucher(rows)
		if err != nil {
			return nil, d.s.translate("vouchers", err)
		}
		out = append(out, v)
	}
	return out, d.s.translate("vouchers", rows.Err())
}

// VoucherUses reads the redemptions of bookings.
func (d driver) VoucherUses(ctx context.Context, ids []int64) ([]store.VoucherUseRow, error) {
	rows, err := d.s.readRows(ctx, qVoucherUses, idList(ids))
	if err != nil {
		return nil, d.s.translate("voucher uses", err)
	}
	defer rows.Close()
	var out []store.VoucherUseRow
	for rows.Next() {
		var u store.VoucherUseRow
		if err := rows.Scan(&u.BookingID, &u.Code, &u.Discount, &u.Returned); err != nil {
			return nil, d.s.translate("voucher uses", err)
		}
		out = append(out, u)
	}
	return out, d.s.translate("voucher uses", rows.Err())
}

// VoucherRedemptions lists the redemptions of a window (one cinema: no
// site).
func (d driver) VoucherRedemptions(ctx context.Context, w store.ReportWindow) ([]booking.VoucherRedemption, error) {
	rows, err := d.s.readRows(ctx, qRedemptions, w.From.UnixMilli(), w.To.UnixMilli())
	if err != nil {
		return nil, d.s.translate("voucher report", err)
	}
	defer rows.Close()
	out := []booking.VoucherRedemption{}
	for rows.Next() {
		var r booking.VoucherRedemption
		var at int64
		if err := rows.Scan(&r.Code, &r.Booking, &r.Discount, &at, &r.Staff, &r.Cancelled); err != nil {
			return nil, d.s.translate("voucher report", err)
		}
		r.At = time.UnixMilli(at)
		out = append(out, r)
	}
	return out, d.s.translate("voucher report", rows.Err())
}
