package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// Vouchers on PostgreSQL (the store's VouchersTx and VoucherReads), READ
// COMMITTED: a sale's guarded UPDATE of a voucher waits for any other
// writer of that row and is re-checked on its newest version, so a
// single-use code is redeemed once however many servers sell; a return
// moves the redemption by compare-and-set, re-checked the same way.
// Migration 0038 has the schema.

const (
	qVoucherCols = `id, code, off, percent, uses, uses_left, until, coalesce(film_id, 0), coalesce(show_id, 0), ticket_type, retired, created_at`
	qVoucherRow  = `SELECT ` + qVoucherCols + ` FROM vouchers`
	// qRedeemVoucher takes one use of a voucher that has one left, is on
	// and not expired at $2, in one statement.
	qRedeemVoucher = `UPDATE vouchers SET uses_left = uses_left - 1
		WHERE code = $1 AND uses_left > 0 AND NOT retired AND (until IS NULL OR until > $2) RETURNING ` + qVoucherCols
)

// scanVoucher reads one row of qVoucherRow.
func scanVoucher(r pgx.Row) (booking.Voucher, error) {
	var v booking.Voucher
	var until *int64
	var created int64
	err := r.Scan(&v.ID, &v.Code, &v.Off, &v.Percent, &v.Uses, &v.UsesLeft, &until, &v.FilmID, &v.ShowID, &v.TicketType, &v.Retired, &created)
	if until != nil {
		v.Until = time.UnixMilli(*until)
	}
	v.CreatedAt = time.UnixMilli(created)
	return v, err
}

// voucher reads one voucher by query; found is false when none.
func (t *tx) voucher(query string, args ...any) (booking.Voucher, bool, error) {
	v, err := scanVoucher(t.QueryRow(t.ctx, query, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return v, false, nil
	}
	return v, err == nil, err
}

// InsertVoucher adds a voucher unless its code is taken; ON CONFLICT DO
// NOTHING, so the transaction lives on.
func (t *tx) InsertVoucher(v booking.Voucher) (int64, bool, error) {
	var until *int64
	if !v.Until.IsZero() {
		ms := v.Until.UnixMilli()
		until = &ms
	}
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO vouchers (code, off, percent, uses, uses_left, until, film_id, show_id, ticket_type, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (code) DO NOTHING RETURNING id`,
		v.Code, v.Off, v.Percent, v.Uses, v.UsesLeft, until, nullID(v.FilmID), nullID(v.ShowID), v.TicketType, t.nowMS()).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// RedeemVoucher takes one use by one guarded statement.
func (t *tx) RedeemVoucher(code string) (booking.Voucher, bool, error) {
	return t.voucher(qRedeemVoucher, code, t.nowMS())
}

// VoucherForUpdate reads and locks a voucher.
func (t *tx) VoucherForUpdate(code string) (booking.Voucher, bool, error) {
	return t.voucher(qVoucherRow+` WHERE code = $1 FOR UPDATE`, code)
}

// RetireVoucher retires a voucher by compare-and-set.
func (t *tx) RetireVoucher(voucherID int64) (bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE vouchers SET retired = true WHERE id = $1 AND NOT retired`, voucherID)
	return tag.RowsAffected() == 1, err
}

// InsertRedemption writes one use; 0038's UNIQUE refuses a second of a
// booking.
func (t *tx) InsertRedemption(r store.RedemptionRow) error {
	_, err := t.Exec(t.ctx, `INSERT INTO voucher_redemptions (voucher_id, booking_id, code, discount, staff, at) VALUES ($1, $2, $3, $4, $5, $6)`,
		r.VoucherID, r.BookingID, r.Code, r.Discount, r.Staff, t.nowMS())
	return err
}

// ReturnRedemption marks a booking's redemption returned by
// compare-and-set.
func (t *tx) ReturnRedemption(bookingID int64) (int64, bool, error) {
	var id int64
	err := t.QueryRow(t.ctx, `UPDATE voucher_redemptions SET returned_at = $1 WHERE booking_id = $2 AND returned_at IS NULL RETURNING voucher_id`,
		t.nowMS(), bookingID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// GiveBackUse puts one use back on a voucher.
func (t *tx) GiveBackUse(voucherID int64) error {
	_, err := t.Exec(t.ctx, `UPDATE vouchers SET uses_left = uses_left + 1 WHERE id = $1`, voucherID)
	return err
}

// ReadVouchers lists every voucher by code.
func (d driver) ReadVouchers(ctx context.Context) ([]booking.Voucher, error) {
	rows, err := d.s.pool.Query(ctx, qVoucherRow+` ORDER BY code`)
	if err != nil {
		return nil, d.s.translate("vouchers", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Voucher, error) { return scanVoucher(r) })
	if out == nil {
		out = []booking.Voucher{}
	}
	return out, d.s.translate("vouchers", err)
}

// VoucherUses reads the redemptions of bookings.
func (d driver) VoucherUses(ctx context.Context, ids []int64) ([]store.VoucherUseRow, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT booking_id, code, discount, returned_at IS NOT NULL FROM voucher_redemptions WHERE booking_id = ANY($1)`, ids)
	if err != nil {
		return nil, d.s.translate("voucher uses", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.VoucherUseRow, error) {
		var u store.VoucherUseRow
		return u, r.Scan(&u.BookingID, &u.Code, &u.Discount, &u.Returned)
	})
	return out, d.s.translate("voucher uses", err)
}

// VoucherRedemptions lists the redemptions of a window, every site.
func (d driver) VoucherRedemptions(ctx context.Context, w store.ReportWindow) ([]booking.VoucherRedemption, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT r.code, b.number, r.discount, r.at, r.staff, r.returned_at IS NOT NULL
		FROM voucher_redemptions r JOIN bookings b ON b.id = r.booking_id WHERE r.at >= $1 AND r.at < $2 ORDER BY r.at, r.id`,
		w.From.UnixMilli(), w.To.UnixMilli())
	if err != nil {
		return nil, d.s.translate("voucher report", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.VoucherRedemption, error) {
		var v booking.VoucherRedemption
		var at int64
		err := r.Scan(&v.Code, &v.Booking, &v.Discount, &at, &v.Staff, &v.Cancelled)
		v.At = time.UnixMilli(at)
		return v, err
	})
	if out == nil {
		out = []booking.VoucherRedemption{}
	}
	return out, d.s.translate("voucher report", err)
}
