package db

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"boxoffice/booking"
)

// Reservations: a hold whose expiry is the cut-off, and a row naming the
// customer (migration 0025). The hold's owner becomes reservationOwner of
// the number, which no counter or kiosk session is ever called, so only
// PayReservation sells it and only the sweeper's compare-and-set lapses
// it (expireStale calls lapseReservation).

// reservationOwnerPrefix starts the owner of every reservation's hold.
const reservationOwnerPrefix = "reservation:"

// reservationOwner is the owner of a reservation's hold.
func reservationOwner(number string) string { return reservationOwnerPrefix + number }

// cutoff is how long before its show a reservation lapses.
func (s *Store) cutoff() time.Duration {
	if s.opts.ReserveCutoff > 0 {
		return s.opts.ReserveCutoff
	}
	return booking.DefaultReserveCutoff
}

// lapseReservation marks the reservation of an expired hold lapsed, if it
// was still reserved: called in the transaction that expired the hold.
func lapseReservation(w *wtx, holdID int64) error {
	_, err := w.exec(`UPDATE reservations SET status = 'lapsed', lapsed_at = ? WHERE hold_id = ? AND status = 'reserved'`, w.nowMS(), holdID)
	return err
}

// reserveInput is a ReserveRequest cleaned and checked before the write.
type reserveInput struct {
	req           booking.ReserveRequest
	name, phone   string
	digits, addr  string
	types, source string
}

// Reserve turns the owner's live hold into a reservation held until the
// cut-off. Every limit is counted inside the transaction.
func (s *Store) Reserve(ctx context.Context, actor booking.Actor, req booking.ReserveRequest) (*booking.Reservation, error) {
	if err := booking.Authorize(actor, booking.ActionReserve); err != nil {
		return nil, err
	}
	in, err := s.reserveInput(ctx, actor, req)
	if err != nil {
		return nil, err
	}
	id, err := write(s, ctx, actor, "reserve", func(w *wtx) (int64, error) {
		return s.reserve(w, actor, in)
	})
	if err != nil {
		return nil, err
	}
	return s.loadReservation(ctx, id)
}

// reserveInput validates and cleans req; ticket types must be ones the
// cinema sells.
func (s *Store) reserveInput(ctx context.Context, actor booking.Actor, req booking.ReserveRequest) (reserveInput, error) {
	if err := req.Validate(); err != nil {
		return reserveInput{}, err
	}
	if strings.HasPrefix(req.Owner, reservationOwnerPrefix) {
		return reserveInput{}, booking.Errorf(booking.EInvalid, "Those seats are reserved already.")
	}
	digits, err := booking.NormalPhone(req.Phone, s.opts.PhoneCountry)
	if err != nil {
		return reserveInput{}, err
	}
	in := reserveInput{req: req, name: booking.CleanLine(req.Name, booking.MaxNameLen), phone: booking.CleanLine(req.Phone, 32),
		digits: digits, addr: booking.CleanLine(req.Addr, 64), source: string(booking.SourceCounter)}
	if actor.Role == booking.RoleKiosk {
		in.source, in.addr = string(booking.SourceKiosk), booking.KioskAddr(req.Addr, req.Owner)
	}
	if len(req.Types) > 0 {
		types, err := s.TicketTypes(ctx)
		if err != nil {
			return reserveInput{}, err
		}
		labels := make([]string, 0, len(req.Types))
		for label, code := range req.Types {
			if !slices.ContainsFunc(types, func(t booking.TicketType) bool { return t.Code == code }) {
				return reserveInput{}, booking.Errorf(booking.EInvalid, "Choose a ticket type for each seat.")
			}
			labels = append(labels, label+"="+code)
		}
		slices.Sort(labels)
		in.types = strings.Join(labels, ",")
	}
	return in, nil
}

// reserve is Reserve's transaction: the hold must be live and the owner's,
// the cut-off ahead, the limits not reached; then the row is written and
// the hold handed to the reservation until the cut-off.
func (s *Store) reserve(w *wtx, actor booking.Actor, in reserveInput) (int64, error) {
	var showID, created, expires int64
	var status string
	err := w.queryRow(`SELECT show_id, status, created_at, expires_at FROM holds WHERE id = ? AND owner = ?`, in.req.HoldID, in.req.Owner).Scan(&showID, &status, &created, &expires)
	if isNoRows(err) {
		return 0, booking.Errorf(booking.ENotFound, "Those seats are no longer held; choose them again.")
	}
	if err != nil {
		return 0, err
	}
	if status != string(booking.HoldHeld) || !holdLive(in.req.Owner, created, expires, w.nowMS()) {
		return 0, booking.Errorf(booking.EExpired, "Your seats were released; choose them again.")
	}
	sh, err := s.showInfo(w.ctx, showID)
	if err != nil {
		return 0, err
	}
	cut := sh.Starts.Add(-s.cutoff())
	if !w.now.Before(cut) {
		return 0, booking.Errorf(booking.EInvalid, "Reservations for this show closed at %s; buy tickets at the counter.", cut.In(w.now.Location()).Format("15:04"))
	}
	hall, err := s.hall(w.ctx, sh.HallID)
	if err != nil {
		return 0, err
	}
	seats, err := s.heldSeats(w, hall, in.req.HoldID)
	if err != nil {
		return 0, err
	}
	if len(seats) == 0 || len(seats) > booking.MaxSeatsPerReservation {
		return 0, booking.Errorf(booking.EInvalid, "A reservation is for 1 to %d seats.", booking.MaxSeatsPerReservation)
	}
	day := sh.Starts.In(time.Local).Format(time.DateOnly)
	if err := reserveLimits(w, in, showID, day); err != nil {
		return 0, err
	}
	id, number, err := insertReservation(w, actor, in, showID, day, cut)
	if err != nil {
		return 0, err
	}
	res, err := w.exec(`UPDATE holds SET owner = ?, expires_at = ? WHERE id = ? AND owner = ? AND status = 'held'`,
		reservationOwner(number), cut.UnixMilli(), in.req.HoldID, in.req.Owner)
	if err != nil {
		return 0, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return 0, fmt.Errorf("reserve: hold %d moved %d rows", in.req.HoldID, n)
	}
	if err := endKioskHold(w, in.req.HoldID, "reserved"); err != nil {
		return 0, err
	}
	w.touch(showID)
	return id, w.audit(actor, booking.AuditEntry{Action: booking.AuditReserve, ShowID: showID,
		Detail: fmt.Sprintf("%s: %s (%s)", number, seatLabels(seats), in.source)}, 0)
}

// reserveLimits refuses a reservation past a cap: MaxUnpaidPerPhone
// unpaid ones for the phone (in booking.NormalPhone's form) for this show
// or this show's day, and booking.ReservationsPerHour from the address.
func reserveLimits(w *wtx, in reserveInput, showID int64, day string) error {
	var sameDay, sameShow int
	if err := w.queryRow(`SELECT count(*), coalesce(sum(show_id = ?), 0) FROM reservations WHERE phone_digits = ? AND show_day = ? AND status = 'reserved' AND cutoff_at > ?`,
		showID, in.digits, day, w.nowMS()).Scan(&sameDay, &sameShow); err != nil {
		return err
	}
	if sameShow >= booking.MaxUnpaidPerPhone {
		return booking.Errorf(booking.EInvalid, "This phone number has %d unpaid reservations for this show already: pay for them at the counter first.", sameShow)
	}
	if sameDay >= booking.MaxUnpaidPerPhone {
		return booking.Errorf(booking.EInvalid, "This phone number has %d unpaid reservations for that day already: pay for them at the counter first.", sameDay)
	}
	if in.addr == "" {
		return nil
	}
	var lastHour int
	if err := w.queryRow(`SELECT count(*) FROM reservations WHERE addr = ? AND created_at > ?`, in.addr, w.now.Add(-time.Hour).UnixMilli()).Scan(&lastHour); err != nil {
		return err
	}
	if lastHour >= booking.ReservationsPerHour(in.addr) {
		return booking.Errorf(booking.EInvalid, "Too many reservations from here in the last hour; please ask at the counter.")
	}
	return nil
}

// insertReservation writes the reservation's row under a fresh number no
// booking has either (the booking takes it when it is paid).
func insertReservation(w *wtx, actor booking.Actor, in reserveInput, showID int64, day string, cut time.Time) (int64, string, error) {
	for attempt := 0; ; attempt++ {
		number := booking.NewBookingNumber()
		var used int
		if err := w.queryRow(`SELECT count(*) FROM bookings WHERE number = ?`, number).Scan(&used); err != nil {
			return 0, "", err
		}
		if used > 0 && attempt < 5 {
			continue
		}
		var id int64
		err := w.queryRow(`INSERT INTO reservations (number, show_id, hold_id, name, phone, phone_digits, types, source, status, created_by, addr, show_day, created_at, cutoff_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'reserved', ?, ?, ?, ?, ?) RETURNING id`,
			number, showID, in.req.HoldID, in.name, in.phone, in.digits, in.types, in.source, booking.CleanLine(actor.Name, 40), in.addr, day, w.nowMS(), cut.UnixMilli()).Scan(&id)
		if err == nil {
			return id, number, nil
		}
		if !isConstraint(err) || attempt >= 5 {
			return 0, "", err
		}
	}
}

// seatLabels lists seats' labels, space separated.
func seatLabels(seats []booking.Seat) string {
	labels := make([]string, len(seats))
	for i, seat := range seats {
		labels[i] = seat.Label
	}
	return strings.Join(labels, " ")
}

// parseTypes reads a reservation's "A1=adult,A2=child".
func parseTypes(s string) map[string]string {
	if s == "" {
		return nil
	}
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		if label, code, ok := strings.Cut(part, "="); ok {
			out[label] = code
		}
	}
	return out
}

// paying is the reservation PayReservation found.
type paying struct {
	id, holdID, bookingID int64
	status                string
	name, phone, types    string
	cutoff                int64
}

// PayReservation sells a reservation: its hold checked out (the hold's
// own compare-and-set requires it live, so a lapsed one cannot be sold)
// and the reservation moved reserved -> paid, in one transaction.
func (s *Store) PayReservation(ctx context.Context, actor booking.Actor, req booking.PayReservationRequest) (*booking.Booking, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	check := booking.CheckoutRequest{IdempotencyKey: req.IdempotencyKey, Method: req.Method, Tendered: req.Tendered, OpenFloat: req.OpenFloat}
	if err := check.Validate(); err != nil {
		return nil, err
	}
	number := normalizeNumber(booking.CleanLine(req.Number, 16))
	key := strings.TrimSpace(req.IdempotencyKey)
	id, err := write(s, ctx, actor, "pay reservation", func(w *wtx) (int64, error) {
		var p paying
		err := w.queryRow(`SELECT id, hold_id, coalesce(booking_id, 0), status, name, phone, types, cutoff_at FROM reservations WHERE number = ?`, number).Scan(
			&p.id, &p.holdID, &p.bookingID, &p.status, &p.name, &p.phone, &p.types, &p.cutoff)
		if isNoRows(err) {
			return 0, booking.Errorf(booking.ENotFound, "No reservation %s.", number)
		}
		if err != nil {
			return 0, err
		}
		return s.payIn(w, actor, req, p, number, key)
	})
	if err != nil {
		return nil, err
	}
	b, err := s.committedBooking(ctx, id)
	if err == nil {
		s.signCodes(b)
	}
	return b, err
}

// payIn is PayReservation's work once the reservation is read.
func (s *Store) payIn(w *wtx, actor booking.Actor, req booking.PayReservationRequest, p paying, number, key string) (int64, error) {
	switch {
	case p.status == string(booking.ReservationPaid):
		var sameKey int
		if err := w.queryRow(`SELECT count(*) FROM bookings WHERE id = ? AND idem_key = ?`, p.bookingID, key).Scan(&sameKey); err != nil {
			return 0, err
		}
		if sameKey == 1 {
			return p.bookingID, nil // a retry: the booking it made
		}
		return 0, &booking.StaleError{What: "Reservation " + number, Current: "paid"}
	case p.status == string(booking.ReservationLapsed) || p.cutoff <= w.nowMS():
		return 0, booking.Errorf(booking.EExpired, "Reservation %s lapsed at %s; its seats went back on sale.", number,
			time.UnixMilli(p.cutoff).In(w.now.Location()).Format("15:04"))
	}
	creq := booking.CheckoutRequest{HoldID: p.holdID, Owner: reservationOwner(number), IdempotencyKey: key, Types: parseTypes(p.types),
		Customer: p.name, Phone: p.phone, Method: req.Method, Tendered: req.Tendered, OpenFloat: req.OpenFloat}
	b, err := s.sell(w, actor, creq, key, p.name, p.phone)
	if err != nil {
		return 0, err
	}
	// The booking keeps the number the customer was given.
	if _, err := w.exec(`UPDATE bookings SET number = ? WHERE id = ?`, number, b.ID); err != nil {
		return 0, err
	}
	res, err := w.exec(`UPDATE reservations SET status = 'paid', booking_id = ?, paid_at = ? WHERE id = ? AND status = 'reserved'`, b.ID, w.nowMS(), p.id)
	if err != nil {
		return 0, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return 0, &booking.StaleError{What: "Reservation " + number, Current: "changed"}
	}
	return b.ID, nil
}
