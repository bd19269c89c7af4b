package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"boxoffice/booking"
)

// Reservations (booking.Reservations, and Reserve of booking.Kiosk): a
// hold whose expiry is the cut-off, and a row naming the customer. The
// hold's owner becomes ReservationOwner of the number, which no counter or
// kiosk session is ever called, so only PayReservation sells it, and only
// the compare-and-set that expires a lapsed hold lapses it
// (LapseReservations).
//
// Every write here is READ COMMITTED. What a write decides from is read
// after the lock that orders it against its rivals (pg): the hold's row
// (HoldForUpdate), the reservation's row (ReservationForUpdate, so two
// counters paying one reservation take turns and the second reads it
// paid), and for the per-phone and per-address limits the phone's and the
// address's (LockReservationLimits), so two reservations of one phone at
// once are counted one after the other.

// ReservationTx is what reservations ask of a transaction.
type ReservationTx interface {
	// HeldSeatIDs lists the seats hold holdID still holds (its claims
	// still held).
	HeldSeatIDs(holdID int64) ([]int64, error)
	// LockReservationLimits orders the reservations of one phone (its
	// digits) and then of one address (none when ""): two transactions
	// that lock the same take turns until the first ends. (SQLite, one
	// writer: nothing to do.)
	LockReservationLimits(phoneDigits, addr string) error
	// UnpaidReservations counts the phone's reservations still reserved
	// whose cut-off is after the transaction's time, of the shows on day
	// (the show's local date), and among them show showID's.
	UnpaidReservations(phoneDigits, day string, showID int64) (sameDay, sameShow int, err error)
	// ReservationsFrom counts the reservations made from addr after since.
	ReservationsFrom(addr string, since time.Time) (int, error)
	// InsertReservation writes r, reserved, at the transaction's time;
	// ok is false, and nothing is written, when a booking or another
	// reservation has r.Number already.
	InsertReservation(r NewReservation) (id int64, ok bool, err error)
	// GiveHold hands the hold holdID of owner from, still held, to owner
	// to until expires, by compare-and-set: false when no such hold was
	// held by from.
	GiveHold(holdID int64, from, to string, expires time.Time) (bool, error)
	// ReservationForUpdate reads a reservation by its number, locked
	// (every field of ReservationRow but SeatIDs); found is false when no
	// reservation has the number.
	ReservationForUpdate(number string) (r ReservationRow, found bool, err error)
	// BookingMadeWithKey reports whether booking bookingID was made with
	// idempotency key key.
	BookingMadeWithKey(bookingID int64, key string) (bool, error)
	// MarkReservationPaid moves reservation id reserved -> paid by
	// booking bookingID at the transaction's time, by compare-and-set:
	// false when it was not reserved.
	MarkReservationPaid(id, bookingID int64) (bool, error)
	// LapseReservationsOf moves the reservations of holds reserved ->
	// lapsed at the transaction's time, by compare-and-set; holds that
	// are no reservation's change nothing.
	LapseReservationsOf(holdIDs []int64) error
}

// ReservationReads are reservations' reads outside a transaction.
type ReservationReads interface {
	// ReadReservation reads reservation id with the seats of its hold
	// that were not released (SeatIDs); found is false when there is none.
	ReadReservation(ctx context.Context, id int64) (r ReservationRow, found bool, err error)
	// ReadReservationID finds a reservation by its (normalized) number;
	// found is false when none has it.
	ReadReservationID(ctx context.Context, number string) (id int64, found bool, err error)
	// ReadReservationIDsByPhone lists the newest reservations, at most
	// limit, whose phone's digits are one of phones.
	ReadReservationIDsByPhone(ctx context.Context, phones []string, limit int) ([]int64, error)
	// ReadUnpaidReservationIDsByPhoneEnd lists the newest reservations
	// still reserved, at most limit, whose phone's digits end with
	// digits: a clerk types the last few digits a customer reads out.
	// Only reserved rows are read (a partial index of what is live).
	ReadUnpaidReservationIDsByPhoneEnd(ctx context.Context, digits string, limit int) ([]int64, error)
	// ReadReservationCounts counts the reservations made in [from, to)
	// by source and status, telling apart those whose cut-off is not
	// after now (Gone).
	ReadReservationCounts(ctx context.Context, from, to, now time.Time) ([]ReservationCount, error)
}

// NewReservation is a reservation to write.
type NewReservation struct {
	Number          string
	ShowID, HoldID  int64
	Name, Phone     string
	PhoneDigits     string // booking.NormalPhone's form
	Types           string // "A1=adult,A2=child"
	Source          booking.ReservationSource
	CreatedBy, Addr string
	ShowDay         string // the show's local date
	CutOff          time.Time
}

// ReservationRow is a reservation as a driver stores it.
type ReservationRow struct {
	ID, ShowID, HoldID int64
	Number             string
	Name, Phone        string
	Types              string
	Source             booking.ReservationSource
	Status             booking.ReservationStatus
	CreatedBy          string
	Created, CutOff    time.Time
	BookingID          int64 // 0: not paid
	SeatIDs            []int64
	CustomerID         int64 // the account it belongs to, 0: none (customers.go)
}

// ReservationCount is how many reservations made in a range have a
// source and a status; Gone when their cut-off has passed.
type ReservationCount struct {
	Source booking.ReservationSource
	Status booking.ReservationStatus
	Gone   bool
	N      int
}

// ErrKeyUsed says a sale's idempotency key made a booking already.
var ErrKeyUsed = errors.New("idempotency key used")

// ReservationOwnerPrefix starts the owner of every reservation's hold.
const ReservationOwnerPrefix = "reservation:"

// ReservationOwner is the owner of reservation number's hold.
func ReservationOwner(number string) string { return ReservationOwnerPrefix + number }

// IsReservationOwner reports whether owner is a reservation's.
func IsReservationOwner(owner string) bool { return strings.HasPrefix(owner, ReservationOwnerPrefix) }

// errReservedAlready refuses a kiosk session, or a hold to reserve, named
// as a reservation's hold.
func errReservedAlready() error {
	return booking.Errorf(booking.EInvalid, "Those seats are reserved already.")
}

// RefuseReservationCheckout refuses a checkout naming a reservation's
// hold: PayReservation sells it, and marks the reservation paid.
func RefuseReservationCheckout(owner string) error {
	if !IsReservationOwner(owner) {
		return nil
	}
	return booking.Errorf(booking.EInvalid, "That is a reservation: take its payment from the reservations screen (ctrl+y) or boxoffice reservation pay.")
}

// HoldSlackMS is how far ahead of the clock a live hold's making may lie:
// the step of a clock correction, and a read that took its time a moment
// before a commit it then sees.
const HoldSlackMS = clockSlackMS

// HoldLive says whether a hold of owner, made at created and expiring at
// expires, is live at now (all unix ms). A clock set back must not
// stretch a hold: one made later than the clock now says (by more than
// HoldSlackMS) was made before the clock went back, and its expiry,
// written against the old clock, says nothing of how long it has lived,
// so it has lapsed. A reservation's expiry is its cut-off, a time on the
// wall clock and not a span, so a reservation's hold keeps it. A hold
// that is not live is lapsed, whether or not swept. Each driver's SQL
// says the same, and its tests hold the SQL to this function.
func HoldLive(owner string, created, expires, now int64) bool {
	return expires > now && (created <= now+HoldSlackMS || IsReservationOwner(owner))
}

// LapseReservations lapses the reservations of holds that the caller's
// transaction has just expired: a reservation is a hold whose expiry is
// its cut-off, so it lapses with the hold's own compare-and-set, exactly
// once, however many sweeps run. Each driver's expiry of lapsed holds
// calls it.
func LapseReservations(tx Tx, holdIDs []int64) error {
	if len(holdIDs) == 0 {
		return nil
	}
	if err := tx.LapseReservationsOf(holdIDs); err != nil {
		return err
	}
	return returnLapsedVouchers(tx, holdIDs)
}

// reserveInput is a ReserveRequest cleaned and checked before the write.
type reserveInput struct {
	req                 booking.ReserveRequest
	name, phone         string
	digits, addr, types string
	source              booking.ReservationSource
	voucher             string // ParseVoucherCode's form; "" none
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
	id, err := write(s, ctx, actor, Write{Op: "reserve"}, func(tx Tx) (int64, error) { return s.reserve(tx, actor, in) })
	if err != nil {
		return nil, err
	}
	return committed(ctx, func(ctx context.Context) (*booking.Reservation, error) { return s.loadReservation(ctx, id) })
}

// reserveInput validates and cleans req; ticket types must be ones the
// cinema sells.
func (s *Store) reserveInput(ctx context.Context, actor booking.Actor, req booking.ReserveRequest) (reserveInput, error) {
	if err := req.Validate(); err != nil {
		return reserveInput{}, err
	}
	if IsReservationOwner(req.Owner) {
		return reserveInput{}, errReservedAlready()
	}
	if req.CustomerID != 0 {
		// Customer accounts are staff's (customers.go): a kiosk names none.
		if err := booking.Authorize(actor, booking.ActionCustomers); err != nil {
			return reserveInput{}, err
		}
	}
	digits, err := booking.NormalPhone(req.Phone, s.opts.PhoneCountry)
	if err != nil {
		return reserveInput{}, err
	}
	in := reserveInput{req: req, name: booking.CleanLine(req.Name, booking.MaxNameLen), phone: booking.CleanLine(req.Phone, 32),
		digits: digits, addr: booking.CleanLine(req.Addr, 64), source: booking.SourceCounter}
	if req.Voucher != "" {
		if in.voucher, err = booking.ParseVoucherCode(req.Voucher); err != nil { // bounded by Validate
			return reserveInput{}, err
		}
	}
	if actor.Role == booking.RoleKiosk {
		in.source, in.addr = booking.SourceKiosk, booking.KioskAddr(req.Addr, req.Owner)
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
func (s *Store) reserve(tx Tx, actor booking.Actor, in reserveInput) (int64, error) {
	h, found, err := tx.HoldForUpdate(in.req.HoldID, in.req.Owner)
	if err != nil {
		return 0, err
	}
	if !found {
		return 0, booking.Errorf(booking.ENotFound, "Those seats are no longer held; choose them again.")
	}
	now := tx.Now()
	if h.Status != booking.HoldHeld || !HoldLive(in.req.Owner, h.Created, h.Expires, now.UnixMilli()) {
		return 0, booking.Errorf(booking.EExpired, "Your seats were released; choose them again.")
	}
	sh, err := s.prog.Show(tx.Context(), h.ShowID)
	if err != nil {
		return 0, err
	}
	cut := sh.Starts.Add(-s.opts.ReserveCutoff)
	if !now.Before(cut) {
		return 0, booking.Errorf(booking.EInvalid, "Reservations for this show closed at %s; buy tickets at the counter.", cut.In(now.Location()).Format("15:04"))
	}
	seats, err := s.heldSeats(tx, sh.HallID, in.req.HoldID)
	if err != nil {
		return 0, err
	}
	if len(seats) == 0 || len(seats) > booking.MaxSeatsPerReservation {
		return 0, booking.Errorf(booking.EInvalid, "A reservation is for 1 to %d seats.", booking.MaxSeatsPerReservation)
	}
	day := sh.Starts.In(time.Local).Format(time.DateOnly)
	if err := reserveLimits(tx, in, sh.ID, day); err != nil {
		return 0, err
	}
	id, number, err := insertReservation(tx, actor, in, sh.ID, day, cut)
	if err != nil {
		return 0, err
	}
	if err := attachCustomer(tx, in.req.CustomerID, func(c int64) error { return tx.SetReservationCustomer(id, c) }); err != nil {
		return 0, err
	}
	if in.voucher != "" {
		if err := s.reserveVoucher(tx, id, sh, seats, in); err != nil {
			return 0, err
		}
	}
	ok, err := tx.GiveHold(in.req.HoldID, in.req.Owner, ReservationOwner(number), cut)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("reserve: hold %d was not %s's to give", in.req.HoldID, in.req.Owner)
	}
	if err := tx.EndKioskHold(in.req.HoldID, KioskReserved); err != nil {
		return 0, err
	}
	tx.Touch(sh.ID)
	return id, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditReserve, ShowID: sh.ID,
		Detail: fmt.Sprintf("%s: %s (%s)", number, strings.Join(booking.Labels(seats), " "), in.source)}, 0)
}

// heldSeats lists the seats a hold still holds, in hall order.
func (s *Store) heldSeats(tx Tx, hallID, holdID int64) ([]booking.Seat, error) {
	ids, err := tx.HeldSeatIDs(holdID)
	if err != nil {
		return nil, err
	}
	return s.seatsOf(tx.Context(), hallID, ids)
}

// seatsOf is the seats of ids in a hall, in hall order: row, then seat.
func (s *Store) seatsOf(ctx context.Context, hallID int64, ids []int64) ([]booking.Seat, error) {
	if _, err := s.prog.Hall(ctx, hallID); err != nil {
		return nil, err
	}
	out := make([]booking.Seat, 0, len(ids))
	for _, id := range ids {
		if seat, ok := s.prog.Seat(hallID, id); ok {
			out = append(out, seat)
		}
	}
	slices.SortFunc(out, func(a, b booking.Seat) int {
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return a.Col - b.Col
	})
	return out, nil
}

// reserveLimits refuses a reservation past a cap: MaxUnpaidPerPhone
// unpaid ones for the phone (in booking.NormalPhone's form) for this show
// or this show's day, and booking.ReservationsPerHour from the address.
func reserveLimits(tx Tx, in reserveInput, showID int64, day string) error {
	if err := tx.LockReservationLimits(in.digits, in.addr); err != nil {
		return err
	}
	sameDay, sameShow, err := tx.UnpaidReservations(in.digits, day, showID)
	if err != nil {
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
	lastHour, err := tx.ReservationsFrom(in.addr, tx.Now().Add(-time.Hour))
	if err != nil {
		return err
	}
	if lastHour >= booking.ReservationsPerHour(in.addr) {
		return booking.Errorf(booking.EInvalid, "Too many reservations from here in the last hour; please ask at the counter.")
	}
	return nil
}

// numberDraws bounds the fresh numbers a reservation draws: one in 10^11
// is taken.
const numberDraws = 6

// insertReservation writes the reservation's row under a fresh number no
// booking has either (the booking takes it when it is paid).
func insertReservation(tx Tx, actor booking.Actor, in reserveInput, showID int64, day string, cut time.Time) (int64, string, error) {
	for range numberDraws {
		number := booking.NewBookingNumber()
		id, ok, err := tx.InsertReservation(NewReservation{Number: number, ShowID: showID, HoldID: in.req.HoldID, Name: in.name, Phone: in.phone,
			PhoneDigits: in.digits, Types: in.types, Source: in.source, CreatedBy: booking.CleanLine(actor.Name, 40), Addr: in.addr, ShowDay: day, CutOff: cut})
		if err != nil || ok {
			return id, number, err
		}
	}
	return 0, "", fmt.Errorf("reserve: %d numbers drawn were all taken", numberDraws)
}

// parseTypes reads a reservation's "A1=adult,A2=child".
func parseTypes(s string) map[string]string {
	if s == "" {
		return nil
	}
	out := map[string]string{}
	for part := range strings.SplitSeq(s, ",") {
		if label, code, ok := strings.Cut(part, "="); ok {
			out[label] = code
		}
	}
	return out
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
	number := booking.NormalizeNumber(booking.CleanLine(req.Number, 16))
	key := strings.TrimSpace(req.IdempotencyKey)
	id, err := write(s, ctx, actor, Write{Op: "pay reservation"}, func(tx Tx) (int64, error) {
		r, found, err := tx.ReservationForUpdate(number)
		if err != nil {
			return 0, err
		}
		if !found {
			return 0, errNoReservation(number)
		}
		pay := booking.CheckoutRequest{Method: req.Method, Tendered: req.Tendered, OpenFloat: req.OpenFloat}
		return s.payReservation(tx, actor, pay, r, key)
	})
	if err != nil {
		return nil, err
	}
	return s.committedBooking(ctx, id)
}

// errNoReservation says no reservation has number.
func errNoReservation(number string) error {
	return booking.Errorf(booking.ENotFound, "No reservation %s.", number)
}

// payReservation is PayReservation's work once the reservation is read:
// paid already answers the same key with its booking; lapsed, or past
// its cut-off though not yet swept, is refused; otherwise its hold is
// sold under its number, paid as pay says (its Method, Tendered,
// OpenFloat and Tender), at the voucher's price when it took one, and it
// moves to paid.
func (s *Store) payReservation(tx Tx, actor booking.Actor, pay booking.CheckoutRequest, r ReservationRow, key string) (int64, error) {
	now := tx.Now()
	switch {
	case r.Status == booking.ReservationPaid:
		same, err := tx.BookingMadeWithKey(r.BookingID, key)
		if err != nil {
			return 0, err
		}
		if same {
			return r.BookingID, nil // a retry: the booking it made
		}
		return 0, &booking.StaleError{What: "Reservation " + r.Number, Current: "paid"}
	case r.Status == booking.ReservationLapsed || !now.Before(r.CutOff):
		return 0, booking.Errorf(booking.EExpired, "Reservation %s lapsed at %s; its seats went back on sale.", r.Number,
			r.CutOff.In(now.Location()).Format("15:04"))
	}
	creq := booking.CheckoutRequest{HoldID: r.HoldID, Owner: ReservationOwner(r.Number), IdempotencyKey: key, Types: parseTypes(r.Types),
		Customer: r.Name, Phone: r.Phone, Method: pay.Method, Tendered: pay.Tendered, OpenFloat: pay.OpenFloat, Tender: pay.Tender}
	stx, creq, voucher, err := withReservedVoucher(tx, r, creq)
	if err != nil {
		return 0, err
	}
	bookingID, err := s.sellReservation(stx, actor, creq, r.Number)
	if errors.Is(err, ErrKeyUsed) {
		// The key made another sale, or a booking drew the number since
		// the reservation was made.
		return 0, booking.Errorf(booking.EConflict, "That was changed at another counter; try again.")
	}
	if err != nil {
		return 0, err
	}
	if r.CustomerID != 0 {
		// The booking is the customer's whose reservation it pays, even
		// one erased since: the booking is new, so nobody's yet.
		if _, err := tx.SetBookingCustomer(bookingID, r.CustomerID); err != nil {
			return 0, err
		}
	}
	ok, err := tx.MarkReservationPaid(r.ID, bookingID)
	if err == nil && ok && voucher {
		ok, err = tx.EndReservationVoucher(r.ID, VoucherPaid)
	}
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, &booking.StaleError{What: "Reservation " + r.Number, Current: "changed"}
	}
	return bookingID, nil
}
