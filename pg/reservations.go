package pg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"boxoffice/booking"
	"boxoffice/store"
)

// Reservations, as db's reservations.go: a hold whose expiry is the
// cut-off, and a row naming the customer (table reservations, 0005). The
// hold's owner becomes reservationOwner of the number, which no counter
// or kiosk session is ever called, so only PayReservation sells it; once
// the cut-off passes the hold lapses like any other and the reservation
// reads as lapsed (the sweeper marks it so, ExpireHolds).
//
// Every write here is READ COMMITTED. What a write decides from is read
// after the lock that orders it against its rivals: the hold's row (FOR
// NO KEY UPDATE, as checkout and release take it), the reservation's row
// (FOR UPDATE, so two counters paying one reservation take turns and the
// second reads it paid), and for the per-phone and per-address limits an
// advisory lock of the phone and of the address (limitLocks), so two
// reservations of one phone at once are counted one after the other.

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

var reserveMode = txMode{iso: pgx.ReadCommitted}

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
	id, err := inTx(s, ctx, "reserve", reserveMode, func(t *tx) (int64, error) {
		if err := checkActor(t, actor); err != nil {
			return 0, err
		}
		return s.reserve(t, actor, in)
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
func (s *Store) reserve(t *tx, actor booking.Actor, in reserveInput) (int64, error) {
	var showID, created, expires int64
	var status string
	err := t.QueryRow(t.ctx, `SELECT show_id, status, created_at, expires_at FROM holds WHERE id = $1 AND owner = $2 FOR NO KEY UPDATE`,
		in.req.HoldID, in.req.Owner).Scan(&showID, &status, &created, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, booking.Errorf(booking.ENotFound, "Those seats are no longer held; choose them again.")
	}
	if err != nil {
		return 0, err
	}
	if status != string(booking.HoldHeld) || !holdLive(created, expires, t.nowMS()) {
		return 0, booking.Errorf(booking.EExpired, "Your seats were released; choose them again.")
	}
	sh, err := s.showInfo(t.ctx, showID)
	if err != nil {
		return 0, err
	}
	cut := sh.Starts.Add(-s.cutoff())
	if !t.now.Before(cut) {
		return 0, booking.Errorf(booking.EInvalid, "Reservations for this show closed at %s; buy tickets at the counter.", cut.In(t.now.Location()).Format("15:04"))
	}
	hall, err := s.hall(t.ctx, sh.HallID)
	if err != nil {
		return 0, err
	}
	seats, err := s.heldSeats(t, hall, in.req.HoldID)
	if err != nil {
		return 0, err
	}
	if len(seats) == 0 || len(seats) > booking.MaxSeatsPerReservation {
		return 0, booking.Errorf(booking.EInvalid, "A reservation is for 1 to %d seats.", booking.MaxSeatsPerReservation)
	}
	day := sh.Starts.In(time.Local).Format(time.DateOnly)
	if err := reserveLimits(t, in, showID, day); err != nil {
		return 0, err
	}
	id, number, err := insertReservation(t, actor, in, showID, day, cut)
	if err != nil {
		return 0, err
	}
	tag, err := t.Exec(t.ctx, `UPDATE holds SET owner = $1, expires_at = $2 WHERE id = $3 AND owner = $4 AND status = 'held'`,
		reservationOwner(number), cut.UnixMilli(), in.req.HoldID, in.req.Owner)
	if err != nil {
		return 0, err
	}
	if tag.RowsAffected() != 1 {
		return 0, fmt.Errorf("reserve: hold %d moved %d rows", in.req.HoldID, tag.RowsAffected())
	}
	if err := endKioskHold(t, in.req.HoldID, "reserved"); err != nil {
		return 0, err
	}
	t.touch(showID)
	return id, audit(t, actor, booking.AuditEntry{Action: booking.AuditReserve, ShowID: showID,
		Detail: fmt.Sprintf("%s: %s (%s)", number, strings.Join(booking.Labels(seats), " "), in.source)}, 0)
}

// limitLocks orders the reservations of one phone, and of one address,
// by advisory locks: the phone's first, then the address's, in every
// transaction, so they never wait in a cycle.
func limitLocks(t *tx, in reserveInput) error {
	keys := []string{"boxoffice reserve phone " + in.digits}
	if in.addr != "" {
		keys = append(keys, "boxoffice reserve addr "+in.addr)
	}
	for _, k := range keys {
		if _, err := t.Exec(t.ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1 || current_schema(), 0))`, k); err != nil {
			return err
		}
	}
	return nil
}

// reserveLimits refuses a reservation past a cap: MaxUnpaidPerPhone
// unpaid ones for the phone (in booking.NormalPhone's form) for this show
// or this show's day, and booking.ReservationsPerHour from the address.
func reserveLimits(t *tx, in reserveInput, showID int64, day string) error {
	if err := limitLocks(t, in); err != nil {
		return err
	}
	var sameDay, sameShow int
	if err := t.QueryRow(t.ctx, `SELECT count(*), count(*) FILTER (WHERE show_id = $1) FROM reservations
		WHERE phone_digits = $2 AND show_day = $3 AND status = 'reserved' AND cutoff_at > $4`,
		showID, in.digits, day, t.nowMS()).Scan(&sameDay, &sameShow); err != nil {
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
	if err := t.QueryRow(t.ctx, `SELECT count(*) FROM reservations WHERE addr = $1 AND created_at > $2`, in.addr, t.now.Add(-time.Hour).UnixMilli()).Scan(&lastHour); err != nil {
		return err
	}
	if lastHour >= booking.ReservationsPerHour(in.addr) {
		return booking.Errorf(booking.EInvalid, "Too many reservations from here in the last hour; please ask at the counter.")
	}
	return nil
}

// insertReservation writes the reservation's row under a fresh number no
// booking has either (the booking takes it when it is paid). A number
// drawn twice is skipped by ON CONFLICT and drawn again: a unique
// violation would end the transaction.
func insertReservation(t *tx, actor booking.Actor, in reserveInput, showID int64, day string, cut time.Time) (int64, string, error) {
	for attempt := 0; ; attempt++ {
		number := booking.NewBookingNumber()
		var id int64
		err := t.QueryRow(t.ctx, `INSERT INTO reservations (number, show_id, hold_id, name, phone, phone_digits, types, source, status, created_by, addr, show_day, created_at, cutoff_at)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8, 'reserved', $9, $10, $11, $12, $13 WHERE NOT EXISTS (SELECT 1 FROM bookings WHERE number = $1)
			ON CONFLICT (number) DO NOTHING RETURNING id`,
			number, showID, in.req.HoldID, in.name, in.phone, in.digits, in.types, in.source, booking.CleanLine(actor.Name, 40), in.addr, day, t.nowMS(), cut.UnixMilli()).Scan(&id)
		if err == nil {
			return id, number, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) || attempt >= 5 {
			return 0, "", err
		}
	}
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
// and the reservation moved reserved -> paid, in one transaction, with
// the reservation's row locked first.
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
	id, err := inTx(s, ctx, "pay reservation", txMode{iso: pgx.ReadCommitted}, func(t *tx) (int64, error) {
		if err := checkActor(t, actor); err != nil {
			return 0, err
		}
		var p paying
		err := t.QueryRow(t.ctx, `SELECT id, hold_id, coalesce(booking_id, 0), status, name, phone, types, cutoff_at FROM reservations WHERE number = $1 FOR UPDATE`, number).Scan(
			&p.id, &p.holdID, &p.bookingID, &p.status, &p.name, &p.phone, &p.types, &p.cutoff)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, booking.Errorf(booking.ENotFound, "No reservation %s.", number)
		}
		if err != nil {
			return 0, err
		}
		return s.payIn(t, actor, req, p, number, key)
	})
	if errors.Is(err, errKeyUsed) {
		// The key made another sale, or the number was drawn by a
		// booking since the reservation was made: as db's constraint.
		return nil, booking.Errorf(booking.EConflict, "That was changed at another counter; try again.")
	}
	if err != nil {
		return nil, err
	}
	return s.committedBooking(ctx, id)
}

// payIn is PayReservation's work once the reservation is read.
func (s *Store) payIn(t *tx, actor booking.Actor, req booking.PayReservationRequest, p paying, number, key string) (int64, error) {
	switch {
	case p.status == string(booking.ReservationPaid):
		var sameKey int
		if err := t.QueryRow(t.ctx, `SELECT count(*) FROM bookings WHERE id = $1 AND idem_key = $2`, p.bookingID, key).Scan(&sameKey); err != nil {
			return 0, err
		}
		if sameKey == 1 {
			return p.bookingID, nil // a retry: the booking it made
		}
		return 0, &booking.StaleError{What: "Reservation " + number, Current: "paid"}
	case p.status == string(booking.ReservationLapsed) || p.cutoff <= t.nowMS():
		return 0, booking.Errorf(booking.EExpired, "Reservation %s lapsed at %s; its seats went back on sale.", number,
			time.UnixMilli(p.cutoff).In(t.now.Location()).Format("15:04"))
	}
	// The hold's confirm is this payment's (0007's reservation_paid_only).
	if _, err := t.Exec(t.ctx, `SELECT set_config('boxoffice.paying', $1, true)`, number); err != nil {
		return 0, err
	}
	creq := booking.CheckoutRequest{HoldID: p.holdID, Owner: reservationOwner(number), IdempotencyKey: key, Types: parseTypes(p.types),
		Customer: p.name, Phone: p.phone, Method: req.Method, Tendered: req.Tendered, OpenFloat: req.OpenFloat}
	bookingID, err := s.sellReservation(t, actor, creq, number)
	if err != nil {
		return 0, err
	}
	tag, err := t.Exec(t.ctx, `UPDATE reservations SET status = 'paid', booking_id = $1, paid_at = $2 WHERE id = $3 AND status = 'reserved'`, bookingID, t.nowMS(), p.id)
	if err != nil {
		return 0, err
	}
	if tag.RowsAffected() != 1 {
		return 0, &booking.StaleError{What: "Reservation " + number, Current: "changed"}
	}
	return bookingID, nil
}

// sellReservation is sell (checkout.go) for a reservation's hold: the
// same checks and the same one statement (qSale), but under the
// reservation's number, which the booking keeps, and without the COMMIT,
// so the reservation moves to paid in the same transaction.
func (s *Store) sellReservation(t *tx, actor booking.Actor, req booking.CheckoutRequest, number string) (int64, error) {
	show, seats, prices, shiftID, err := s.confirmHold(t, actor, req)
	if err != nil {
		return 0, err
	}
	for label, code := range req.Types {
		if _, ok := booking.PriceFor(prices, "", code, booking.Standard); !ok {
			return 0, booking.Errorf(booking.EInvalid, "Unknown ticket type %q for %s.", booking.CleanLine(code, 16), booking.CleanLine(label, 8))
		}
	}
	quote, err := booking.QuoteSeats(prices, strings.ToLower(show.PriceList), seats, req.Types)
	if err != nil {
		return 0, err
	}
	tendered, change, err := req.Payment(quote.Total)
	if err != nil {
		return 0, err
	}
	if shiftID == 0 && req.Method == booking.Cash {
		// None open when the hold was confirmed: the one rule opens it
		// with the float, or refuses (store.ShiftFor).
		if shiftID, err = store.ShiftFor(t, actor, req.Method, req.OpenFloat); err != nil {
			return 0, err
		}
	}
	n := len(quote.Lines)
	seatIDs, amounts := make([]int64, n), make([]int64, n)
	types, sources, labels := make([]string, n), make([]string, n), make([]string, n)
	for i, l := range quote.Lines {
		seatIDs[i], amounts[i], types[i], sources[i], labels[i] = l.Seat.ID, int64(l.Amount), l.Type, l.Source, l.Seat.Label
	}
	role := ""
	if actor.Role > booking.RoleKiosk {
		role = actor.Role.String()
	}
	var ok1, ok2 bool
	var bookingID, payID int64
	err = t.QueryRow(t.ctx, qSale, number, show.ID, req.HoldID, req.IdempotencyKey, req.Customer, req.Phone, quote.Total,
		actor.Name, actor.Terminal, t.nowMS(),
		seatIDs, types, amounts, sources, string(req.Method), tendered, change, nullID(shiftID),
		booking.CleanLine(actor.Name, 40), role, booking.CleanLine(actor.Terminal, 60), fmt.Sprintf("%s: %s", req.Method, strings.Join(labels, " ")),
		booking.NameWords(req.Customer)).Scan(&ok1, &ok2, &bookingID, &payID)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "ZB001" && pe.Message == "key" {
		return 0, errKeyUsed
	}
	if err != nil {
		return 0, err
	}
	t.touch(show.ID)
	return bookingID, nil
}
