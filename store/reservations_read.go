package store

import (
	"context"

	"boxoffice/booking"
)

// Reading reservations back: one, those a search finds, and the report.

// loadReservation reads a reservation with its show and seats. One whose
// cut-off passed reads as lapsed even before the sweeper marks it.
func (s *Store) loadReservation(ctx context.Context, id int64) (*booking.Reservation, error) {
	row, found, err := s.d.ReadReservation(ctx, id)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, booking.Errorf(booking.ENotFound, "No such reservation.")
	}
	r := &booking.Reservation{ID: row.ID, Number: row.Number, Name: row.Name, Phone: row.Phone, HoldID: row.HoldID, Types: parseTypes(row.Types),
		Source: row.Source, Status: row.Status, CreatedBy: row.CreatedBy, CreatedAt: row.Created, CutOff: row.CutOff, BookingID: row.BookingID}
	if r.Status == booking.ReservationReserved && !s.d.Now().Before(r.CutOff) {
		r.Status = booking.ReservationLapsed
	}
	if r.Show, err = s.prog.Show(ctx, row.ShowID); err != nil {
		return nil, err
	}
	if u, found, err := s.d.ReadReservationVoucher(ctx, row.ID); err != nil {
		return nil, err
	} else if found {
		r.Voucher = &u
	}
	if r.Seats, err = s.seatsOf(ctx, r.Show.HallID, row.SeatIDs); err != nil {
		return nil, err
	}
	return r, nil
}

// Reservation looks a reservation up by its number (its QR is the number).
func (s *Store) Reservation(ctx context.Context, actor booking.Actor, number string) (*booking.Reservation, error) {
	if err := booking.Authorize(actor, booking.ActionFindBooking); err != nil {
		return nil, err
	}
	number = booking.NormalizeNumber(booking.CleanLine(number, 16))
	id, found, err := s.d.ReadReservationID(ctx, number)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errNoReservation(number)
	}
	return s.loadReservation(ctx, id)
}

// reservationsFound bounds a search by phone.
const reservationsFound = 20

// FindReservations finds reservations by number, by the whole phone
// number (its digits), or — those still to pay — by the phone's last
// digits, newest first.
func (s *Store) FindReservations(ctx context.Context, actor booking.Actor, text string) ([]booking.Reservation, error) {
	if err := booking.Authorize(actor, booking.ActionFindBooking); err != nil {
		return nil, err
	}
	text = booking.CleanLine(text, 64)
	if text == "" {
		return nil, booking.Errorf(booking.EInvalid, "Type a reservation number or phone number.")
	}
	if number := booking.NormalizeNumber(text); booking.IsBookingNumber(number) {
		r, err := s.Reservation(ctx, actor, number)
		if err == nil {
			return []booking.Reservation{*r}, nil
		}
		if booking.ErrorCode(err) != booking.ENotFound {
			return nil, err
		}
	}
	digits, err := booking.PhoneDigits(text)
	if err != nil {
		// The last few digits of a phone ("0222"): the reservations
		// still to pay whose phone ends so.
		end := booking.PhoneSearch(text)
		if end == "" {
			return nil, nil // neither a reservation's number nor a phone number
		}
		ids, err := s.d.ReadUnpaidReservationIDsByPhoneEnd(ctx, end, reservationsFound)
		if err != nil {
			return nil, err
		}
		return s.loadReservations(ctx, ids)
	}
	// The phone's one form, and its digits as typed, which is how
	// reservations made before the form was kept are stored.
	normal, err := booking.NormalPhone(text, s.opts.PhoneCountry)
	if err != nil {
		normal = digits
	}
	ids, err := s.d.ReadReservationIDsByPhone(ctx, []string{normal, digits}, reservationsFound)
	if err != nil {
		return nil, err
	}
	return s.loadReservations(ctx, ids)
}

// loadReservations reads reservations ids, in order.
func (s *Store) loadReservations(ctx context.Context, ids []int64) ([]booking.Reservation, error) {
	out := make([]booking.Reservation, 0, len(ids))
	for _, id := range ids {
		r, err := s.loadReservation(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, *r)
	}
	return out, nil
}

// ReportReservations counts the reservations made in the range by how
// they stand: one whose cut-off passed unpaid counts as lapsed.
func (s *Store) ReportReservations(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.ReservationsReport, error) {
	_, r, err := s.reportRange(ctx, actor, r)
	if err != nil {
		return nil, err
	}
	counts, err := s.d.ReadReservationCounts(ctx, r.Start(), r.End(), s.d.Now())
	if err != nil {
		return nil, err
	}
	out := &booking.ReservationsReport{Range: r, Total: booking.ReservationsRow{Source: "total"},
		Rows: []booking.ReservationsRow{{Source: booking.SourceKiosk}, {Source: booking.SourceCounter}}}
	for _, c := range counts {
		st := c.Status
		if st == booking.ReservationReserved && c.Gone {
			st = booking.ReservationLapsed
		}
		row := &out.Rows[1]
		if c.Source == booking.SourceKiosk {
			row = &out.Rows[0]
		}
		row.Add(st, c.N)
		out.Total.Add(st, c.N)
	}
	return out, nil
}
