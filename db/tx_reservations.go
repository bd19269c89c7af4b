package db

import (
	"context"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// Reservations' queries (store.ReservationTx, store.ReservationReads):
// table reservations, migration 0025. The writer runs one write at a
// time, so the limits need no lock here.

// HeldSeatIDs lists the seats a hold still holds.
func (w *wtx) HeldSeatIDs(holdID int64) ([]int64, error) {
	return queryList[int64](w, `SELECT seat_id FROM seat_claims WHERE hold_id = ? AND status = 'held'`, holdID)
}

// LockReservationLimits: one writer counts one reservation at a time.
func (w *wtx) LockReservationLimits(string, string) error { return nil }

// UnpaidReservations counts a phone's unpaid reservations of a day, and
// of one show, through reservations_unpaid_by_phone.
func (w *wtx) UnpaidReservations(digits, day string, showID int64) (sameDay, sameShow int, err error) {
	err = w.queryRow(`SELECT count(*), coalesce(sum(show_id = ?), 0) FROM reservations WHERE phone_digits = ? AND show_day = ? AND status = 'reserved' AND cutoff_at > ?`,
		showID, digits, day, w.nowMS()).Scan(&sameDay, &sameShow)
	return sameDay, sameShow, err
}

// ReservationsFrom counts an address's reservations since a time.
func (w *wtx) ReservationsFrom(addr string, since time.Time) (int, error) {
	var n int
	err := w.queryRow(`SELECT count(*) FROM reservations WHERE addr = ? AND created_at > ?`, addr, since.UnixMilli()).Scan(&n)
	return n, err
}

// InsertReservation writes a reservation under a number no booking or
// reservation has: ON CONFLICT skips one another reservation drew.
func (w *wtx) InsertReservation(r store.NewReservation) (int64, bool, error) {
	var id int64
	err := w.queryRow(`INSERT INTO reservations (number, show_id, hold_id, name, phone, phone_digits, types, source, status, created_by, addr, show_day, created_at, cutoff_at)
		SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'reserved', ?9, ?10, ?11, ?12, ?13 WHERE NOT EXISTS (SELECT 1 FROM bookings WHERE number = ?1)
		ON CONFLICT (number) DO NOTHING RETURNING id`,
		r.Number, r.ShowID, r.HoldID, r.Name, r.Phone, r.PhoneDigits, r.Types, string(r.Source), r.CreatedBy, r.Addr, r.ShowDay, w.nowMS(), r.CutOff.UnixMilli()).Scan(&id)
	if isNoRows(err) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// GiveHold hands a held hold to another owner until a new expiry.
func (w *wtx) GiveHold(holdID int64, from, to string, expires time.Time) (bool, error) {
	return changedOne(w.exec(`UPDATE holds SET owner = ?, expires_at = ? WHERE id = ? AND owner = ? AND status = 'held'`, to, expires.UnixMilli(), holdID, from))
}

// qReservation is a reservation's columns, as scanReservation reads them.
const qReservation = `SELECT id, number, show_id, hold_id, name, phone, types, source, status, created_by, created_at, cutoff_at, coalesce(booking_id, 0),
	coalesce(customer_id, 0) FROM reservations `

func scanReservation(r row) (store.ReservationRow, bool, error) {
	var x store.ReservationRow
	var created, cutoff int64
	err := r.Scan(&x.ID, &x.Number, &x.ShowID, &x.HoldID, &x.Name, &x.Phone, &x.Types, &x.Source, &x.Status, &x.CreatedBy, &created, &cutoff, &x.BookingID, &x.CustomerID)
	if isNoRows(err) {
		return x, false, nil
	}
	x.Created, x.CutOff = time.UnixMilli(created), time.UnixMilli(cutoff)
	return x, err == nil, err
}

// ReservationForUpdate reads a reservation by number.
func (w *wtx) ReservationForUpdate(number string) (store.ReservationRow, bool, error) {
	return scanReservation(w.queryRow(qReservation+`WHERE number = ?`, number))
}

// BookingMadeWithKey reports whether a booking was made with a key.
func (w *wtx) BookingMadeWithKey(bookingID int64, key string) (bool, error) {
	var n int
	err := w.queryRow(`SELECT count(*) FROM bookings WHERE id = ? AND idem_key = ?`, bookingID, key).Scan(&n)
	return n == 1, err
}

// MarkReservationPaid moves a reservation reserved -> paid.
func (w *wtx) MarkReservationPaid(id, bookingID int64) (bool, error) {
	return changedOne(w.exec(`UPDATE reservations SET status = 'paid', booking_id = ?, paid_at = ? WHERE id = ? AND status = 'reserved'`, bookingID, w.nowMS(), id))
}

// LapseReservationsOf lapses the reservations of expired holds, one
// probe of the hold_id index each.
func (w *wtx) LapseReservationsOf(holdIDs []int64) error {
	for _, id := range holdIDs {
		if _, err := w.exec(`UPDATE reservations SET status = 'lapsed', lapsed_at = ? WHERE hold_id = ? AND status = 'reserved'`, w.nowMS(), id); err != nil {
			return err
		}
	}
	return nil
}

// ReadReservation reads a reservation and the seats of its hold that were
// not released.
func (d driver) ReadReservation(ctx context.Context, id int64) (store.ReservationRow, bool, error) {
	r, found, err := scanReservation(d.s.readRow(ctx, qReservation+`WHERE id = ?`, id))
	if err != nil || !found {
		return r, found, d.s.translate("reservation", err)
	}
	r.SeatIDs, err = d.s.readIDs(ctx, `SELECT seat_id FROM seat_claims WHERE hold_id = ? AND status <> 'released'`, r.HoldID)
	return r, true, err
}

// ReadReservationID finds a reservation by number.
func (d driver) ReadReservationID(ctx context.Context, number string) (int64, bool, error) {
	return d.oneID(ctx, "reservation", `SELECT id FROM reservations WHERE number = ?`, number)
}

// ReadReservationIDsByPhone lists the newest reservations of a phone,
// through reservations_by_phone.
func (d driver) ReadReservationIDsByPhone(ctx context.Context, phones []string, limit int) ([]int64, error) {
	if len(phones) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(phones)+1)
	for _, p := range phones {
		args = append(args, p)
	}
	args = append(args, limit)
	ids, err := d.s.readIDs(ctx, `SELECT id FROM reservations WHERE phone_digits IN (`+placeholders("?", len(phones))+`) ORDER BY created_at DESC LIMIT ?`, args...)
	return ids, d.s.translate("find reservations", err)
}

// ReadUnpaidReservationIDsByPhoneEnd reads the newest reservations still
// reserved whose phone ends with digits, through the partial
// reservations_unpaid_by_phone, which holds only what is reserved.
func (d driver) ReadUnpaidReservationIDsByPhoneEnd(ctx context.Context, digits string, limit int) ([]int64, error) {
	ids, err := d.s.readIDs(ctx, `SELECT id FROM reservations INDEXED BY reservations_unpaid_by_phone
		WHERE status = 'reserved' AND substr(phone_digits, -length(?1)) = ?1 ORDER BY created_at DESC LIMIT ?2`, digits, limit)
	return ids, d.s.translate("find reservations", err)
}

// ReadReservationCounts counts a range's reservations by source and
// status, through reservations_by_created.
func (d driver) ReadReservationCounts(ctx context.Context, from, to, now time.Time) ([]store.ReservationCount, error) {
	rows, err := d.s.readRows(ctx, `SELECT source, status, cutoff_at <= ?, count(*) FROM reservations WHERE created_at >= ? AND created_at < ? GROUP BY 1, 2, 3`,
		now.UnixMilli(), from.UnixMilli(), to.UnixMilli())
	if err != nil {
		return nil, d.s.translate("report reservations", err)
	}
	defer rows.Close()
	var out []store.ReservationCount
	for rows.Next() {
		var c store.ReservationCount
		if err := rows.Scan(&c.Source, &c.Status, &c.Gone, &c.N); err != nil {
			return nil, d.s.translate("report reservations", err)
		}
		out = append(out, c)
	}
	return out, d.s.translate("report reservations", rows.Err())
}

// Reservations' vouchers (store.ReservationVoucherTx): table
// reservation_vouchers, migration 0054, one row a reservation found by
// its key.

// InsertReservationVoucher writes the use a reservation took.
func (w *wtx) InsertReservationVoucher(reservationID int64, u store.RedemptionRow) error {
	_, err := w.exec(`INSERT INTO reservation_vouchers (reservation_id, voucher_id, code, discount, at) VALUES (?, ?, ?, ?, ?)`,
		reservationID, u.VoucherID, u.Code, u.Discount, w.nowMS())
	return err
}

// StandingReservationVoucher reads a reservation's use not yet ended.
func (w *wtx) StandingReservationVoucher(reservationID int64) (store.RedemptionRow, bool, error) {
	u := store.RedemptionRow{}
	err := w.queryRow(`SELECT voucher_id, code, discount FROM reservation_vouchers WHERE reservation_id = ? AND ended IS NULL`, reservationID).
		Scan(&u.VoucherID, &u.Code, &u.Discount)
	if isNoRows(err) {
		return u, false, nil
	}
	return u, err == nil, err
}

// EndReservationVoucher ends a reservation's use by compare-and-set.
func (w *wtx) EndReservationVoucher(reservationID int64, end store.VoucherEnd) (bool, error) {
	return changedOne(w.exec(`UPDATE reservation_vouchers SET ended = ?, ended_at = ? WHERE reservation_id = ? AND ended IS NULL`, string(end), w.nowMS(), reservationID))
}

// ReturnLapsedVouchers returns the uses of lapsed reservations, one
// probe of reservations' hold_id index a hold.
func (w *wtx) ReturnLapsedVouchers(holdIDs []int64) ([]int64, error) {
	var out []int64
	for _, id := range holdIDs {
		ids, err := queryList[int64](w, `UPDATE reservation_vouchers SET ended = 'returned', ended_at = ?
			WHERE ended IS NULL AND reservation_id = (SELECT id FROM reservations WHERE hold_id = ? AND status = 'lapsed') RETURNING voucher_id`, w.nowMS(), id)
		if err != nil {
			return nil, err
		}
		out = append(out, ids...)
	}
	return out, nil
}

// ReadReservationVoucher reads the use a reservation took.
func (d driver) ReadReservationVoucher(ctx context.Context, reservationID int64) (booking.VoucherUse, bool, error) {
	var u booking.VoucherUse
	err := d.s.readRow(ctx, `SELECT code, discount, ended IS 'returned' FROM reservation_vouchers WHERE reservation_id = ?`, reservationID).
		Scan(&u.Code, &u.Discount, &u.Returned)
	if isNoRows(err) {
		return u, false, nil
	}
	return u, err == nil, d.s.translate("reservation", err)
}
