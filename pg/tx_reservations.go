package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// Reservations' queries (store.ReservationTx, store.ReservationReads):
// table reservations (0005). Two reservations of one phone, or of one
// address, at once take turns on an advisory lock of the phone and of the
// address (LockReservationLimits); two payments of one reservation on its
// row (ReservationForUpdate).

// HeldSeatIDs lists the seats a hold still holds.
func (t *tx) HeldSeatIDs(holdID int64) ([]int64, error) {
	rows, err := t.Query(t.ctx, `SELECT seat_id FROM seat_claims WHERE hold_id = $1 AND status = 'held'`, holdID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// LockReservationLimits takes the phone's advisory lock, then the
// address's, in every transaction, so they never wait in a cycle.
func (t *tx) LockReservationLimits(digits, addr string) error {
	if err := advisoryLock(t, "boxoffice reserve phone "+digits); err != nil || addr == "" {
		return err
	}
	return advisoryLock(t, "boxoffice reserve addr "+addr)
}

// UnpaidReservations counts a phone's unpaid reservations of a day, and
// of one show.
func (t *tx) UnpaidReservations(digits, day string, showID int64) (sameDay, sameShow int, err error) {
	err = t.QueryRow(t.ctx, `SELECT count(*), count(*) FILTER (WHERE show_id = $1) FROM reservations
		WHERE phone_digits = $2 AND show_day = $3 AND status = 'reserved' AND cutoff_at > $4`,
		showID, digits, day, t.nowMS()).Scan(&sameDay, &sameShow)
	return sameDay, sameShow, err
}

// ReservationsFrom counts an address's reservations since a time.
func (t *tx) ReservationsFrom(addr string, since time.Time) (int, error) {
	var n int
	err := t.QueryRow(t.ctx, `SELECT count(*) FROM reservations WHERE addr = $1 AND created_at > $2`, addr, since.UnixMilli()).Scan(&n)
	return n, err
}

// InsertReservation writes a reservation under a number no booking or
// reservation has: ON CONFLICT skips one another reservation drew (a
// unique violation would end the transaction).
func (t *tx) InsertReservation(r store.NewReservation) (int64, bool, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO reservations (number, show_id, hold_id, name, phone, phone_digits, types, source, status, created_by, addr, show_day, created_at, cutoff_at)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, 'reserved', $9, $10, $11, $12, $13 WHERE NOT EXISTS (SELECT 1 FROM bookings WHERE number = $1)
		ON CONFLICT (number) DO NOTHING RETURNING id`,
		r.Number, r.ShowID, r.HoldID, r.Name, r.Phone, r.PhoneDigits, r.Types, string(r.Source), r.CreatedBy, r.Addr, r.ShowDay, t.nowMS(), r.CutOff.UnixMilli()).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// GiveHold hands a held hold to another owner until a new expiry.
func (t *tx) GiveHold(holdID int64, from, to string, expires time.Time) (bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE holds SET owner = $1, expires_at = $2 WHERE id = $3 AND owner = $4 AND status = 'held'`, to, expires.UnixMilli(), holdID, from)
	return tag.RowsAffected() == 1, err
}

// qReservation is a reservation's columns, as scanReservation reads them.
const qReservation = `SELECT id, number, show_id, hold_id, name, phone, types, source, status, created_by, created_at, cutoff_at, coalesce(booking_id, 0),
	coalesce(customer_id, 0) FROM reservations `

func scanReservation(row pgx.Row) (store.ReservationRow, bool, error) {
	var r store.ReservationRow
	var created, cutoff int64
	err := row.Scan(&r.ID, &r.Number, &r.ShowID, &r.HoldID, &r.Name, &r.Phone, &r.Types, &r.Source, &r.Status, &r.CreatedBy, &created, &cutoff, &r.BookingID, &r.CustomerID)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, false, nil
	}
	r.Created, r.CutOff = time.UnixMilli(created), time.UnixMilli(cutoff)
	return r, err == nil, err
}

// ReservationForUpdate reads a reservation by number, its row locked.
func (t *tx) ReservationForUpdate(number string) (store.ReservationRow, bool, error) {
	return scanReservation(t.QueryRow(t.ctx, qReservation+`WHERE number = $1 FOR UPDATE`, number))
}

// BookingMadeWithKey reports whether a booking was made with a key.
func (t *tx) BookingMadeWithKey(bookingID int64, key string) (bool, error) {
	var n int
	err := t.QueryRow(t.ctx, `SELECT count(*) FROM bookings WHERE id = $1 AND idem_key = $2`, bookingID, key).Scan(&n)
	return n == 1, err
}

// MarkReservationPaid moves a reservation reserved -> paid.
func (t *tx) MarkReservationPaid(id, bookingID int64) (bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE reservations SET status = 'paid', booking_id = $1, paid_at = $2 WHERE id = $3 AND status = 'reserved'`, bookingID, t.nowMS(), id)
	return tag.RowsAffected() == 1, err
}

// LapseReservationsOf lapses the reservations of expired holds in one
// statement, through the hold_id index.
func (t *tx) LapseReservationsOf(holdIDs []int64) error {
	_, err := t.Exec(t.ctx, `UPDATE reservations SET status = 'lapsed', lapsed_at = $1 WHERE hold_id = ANY($2) AND status = 'reserved'`, t.nowMS(), holdIDs)
	return err
}

// ReadReservation reads a reservation and the seats of its hold that were
// not released.
func (d driver) ReadReservation(ctx context.Context, id int64) (store.ReservationRow, bool, error) {
	r, found, err := scanReservation(d.s.pool.QueryRow(ctx, qReservation+`WHERE id = $1`, id))
	if err != nil || !found {
		return r, found, d.s.translate("reservation", err)
	}
	rows, err := d.s.pool.Query(ctx, `SELECT seat_id FROM seat_claims WHERE hold_id = $1 AND status <> 'released'`, r.HoldID)
	if err == nil {
		r.SeatIDs, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	}
	return r, true, d.s.translate("reservation", err)
}

// ReadReservationID finds a reservation by number.
func (d driver) ReadReservationID(ctx context.Context, number string) (int64, bool, error) {
	return d.oneID(ctx, "reservation", `SELECT id FROM reservations WHERE number = $1`, number)
}

// ReadReservationIDsByPhone lists the newest reservations of a phone.
func (d driver) ReadReservationIDsByPhone(ctx context.Context, phones []string, limit int) ([]int64, error) {
	rows, err := d.s.pool.Query(ctx, `WITH m AS MATERIALIZED (SELECT id, created_at FROM reservations WHERE phone_digits = ANY($1))
		SELECT id FROM m ORDER BY created_at DESC, id DESC LIMIT $2`, phones, limit)
	if err != nil {
		return nil, d.s.translate("find reservations", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, d.s.translate("find reservations", err)
}

// ReadUnpaidReservationIDsByPhoneEnd reads the newest reservations still
// reserved whose phone ends with digits, from the partial
// reservations_unpaid_by_phone, which holds only what is reserved.
func (d driver) ReadUnpaidReservationIDsByPhoneEnd(ctx context.Context, digits string, limit int) ([]int64, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT id FROM reservations WHERE status = 'reserved' AND right(phone_digits, length($1)) = $1
		ORDER BY created_at DESC, id DESC LIMIT $2`, digits, limit)
	if err != nil {
		return nil, d.s.translate("find reservations", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, d.s.translate("find reservations", err)
}

// ReadReservationCounts counts a range's reservations by source and
// status.
func (d driver) ReadReservationCounts(ctx context.Context, from, to, now time.Time) ([]store.ReservationCount, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT source, status, cutoff_at <= $1, count(*) FROM reservations WHERE created_at >= $2 AND created_at < $3 GROUP BY 1, 2, 3`,
		now.UnixMilli(), from.UnixMilli(), to.UnixMilli())
	if err != nil {
		return nil, d.s.translate("report reservations", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.ReservationCount, error) {
		var c store.ReservationCount
		return c, r.Scan(&c.Source, &c.Status, &c.Gone, &c.N)
	})
	return out, d.s.translate("report reservations", err)
}

// Reservations' vouchers (store.ReservationVoucherTx): table
// reservation_vouchers, migration 0042, one row a reservation found by
// its key.

// InsertReservationVoucher writes the use a reservation took.
func (t *tx) InsertReservationVoucher(reservationID int64, u store.RedemptionRow) error {
	_, err := t.Exec(t.ctx, `INSERT INTO reservation_vouchers (reservation_id, voucher_id, code, discount, at) VALUES ($1, $2, $3, $4, $5)`,
		reservationID, u.VoucherID, u.Code, u.Discount, t.nowMS())
	return err
}

// StandingReservationVoucher reads a reservation's use not yet ended,
// locked.
func (t *tx) StandingReservationVoucher(reservationID int64) (store.RedemptionRow, bool, error) {
	u := store.RedemptionRow{}
	err := t.QueryRow(t.ctx, `SELECT voucher_id, code, discount FROM reservation_vouchers WHERE reservation_id = $1 AND ended IS NULL FOR UPDATE`, reservationID).
		Scan(&u.VoucherID, &u.Code, &u.Discount)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, false, nil
	}
	return u, err == nil, err
}

// EndReservationVoucher ends a reservation's use by compare-and-set.
func (t *tx) EndReservationVoucher(reservationID int64, end store.VoucherEnd) (bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE reservation_vouchers SET ended = $1, ended_at = $2 WHERE reservation_id = $3 AND ended IS NULL`, string(end), t.nowMS(), reservationID)
	return tag.RowsAffected() == 1, err
}

// ReturnLapsedVouchers returns the uses of lapsed reservations in one
// statement, through reservations' hold_id index.
func (t *tx) ReturnLapsedVouchers(holdIDs []int64) ([]int64, error) {
	rows, err := t.Query(t.ctx, `UPDATE reservation_vouchers v SET ended = 'returned', ended_at = $1 FROM reservations r
		WHERE r.id = v.reservation_id AND r.hold_id = ANY($2) AND r.status = 'lapsed' AND v.ended IS NULL RETURNING v.voucher_id`, t.nowMS(), holdIDs)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// ReadReservationVoucher reads the use a reservation took.
func (d driver) ReadReservationVoucher(ctx context.Context, reservationID int64) (booking.VoucherUse, bool, error) {
	var u booking.VoucherUse
	err := d.s.pool.QueryRow(ctx, `SELECT code, discount, ended IS NOT DISTINCT FROM 'returned' FROM reservation_vouchers WHERE reservation_id = $1`, reservationID).
		Scan(&u.Code, &u.Discount, &u.Returned)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, false, nil
	}
	return u, err == nil, d.s.translate("reservation", err)
}
