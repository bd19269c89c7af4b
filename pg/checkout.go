package pg

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// sale is what a checkout's transaction returns: the booking it made, or
// the id of the booking its idempotency key made before.
type sale struct {
	sold     *booking.Booking
	existing int64
}

// errKeyUsed rolls a checkout back whose key made a booking already; the
// caller answers with that booking.
var errKeyUsed = errors.New("idempotency key used")

// Checkout sells a live hold, priced inside its transaction. READ
// COMMITTED with synchronous commit: the hold moves held -> confirmed by
// compare-and-set (PostgreSQL re-checks the WHERE on the newest version
// of the row, so of two checkouts, a checkout and a release, or a
// checkout and an expiry, exactly one moves it), the key is UNIQUE (a
// second checkout with it waits for the first and then finds its
// booking), and the prices are read by statements of this transaction,
// after the hold was claimed, so the sale is priced at what the database
// says as it commits.
func (s *Store) Checkout(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest) (*booking.Booking, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	key := strings.TrimSpace(req.IdempotencyKey)
	customer := booking.CleanLine(req.Customer, 80)
	phone := booking.CleanLine(req.Phone, 32)
	got, err := inTx(s, ctx, "checkout", txMode{iso: pgx.ReadCommitted}, func(t *tx) (sale, error) {
		if err := checkActor(t, actor); err != nil {
			return sale{}, err
		}
		sold, err := s.sell(t, actor, req, key, customer, phone)
		if err == nil {
			return sale{sold: sold}, nil
		}
		// A retry (double Enter, resubmit, reconnect) finds its hold
		// already confirmed, or its key used: answer with the booking
		// the key made, and roll this transaction back.
		var existing int64
		if kerr := t.QueryRow(t.ctx, `SELECT id FROM bookings WHERE idem_key = $1`, key).Scan(&existing); kerr == nil {
			return sale{existing: existing}, errKeyUsed
		} else if !errors.Is(kerr, pgx.ErrNoRows) {
			return sale{}, kerr
		}
		return sale{}, err
	})
	var existing int64
	if errors.Is(err, errKeyUsed) || (err == nil && got.sold == nil) {
		existing, err = s.bookingOfKey(ctx, key)
	}
	if err != nil {
		return nil, err
	}
	if got.sold != nil {
		for i := range got.sold.Tickets {
			got.sold.Tickets[i].Code = booking.SignTicket(s.opts.TicketKey, got.sold.Tickets[i].ID)
		}
		return got.sold, nil
	}
	return s.loadBooking(ctx, existing)
}

// bookingOfKey finds the booking an idempotency key made (after the
// checkout that found it was rolled back).
func (s *Store) bookingOfKey(ctx context.Context, key string) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT id FROM bookings WHERE idem_key = $1`, key).Scan(&id)
	return id, s.translate("checkout", err)
}

// sell turns a live hold into a booking inside t and returns the booking
// as written.
func (s *Store) sell(t *tx, actor booking.Actor, req booking.CheckoutRequest, key, customer, phone string) (*booking.Booking, error) {
	show, seats, err := s.confirmHold(t, req)
	if err != nil {
		return nil, err
	}
	prices, err := priceTable(t)
	if err != nil {
		return nil, err
	}
	for label, code := range req.Types {
		if _, ok := booking.PriceFor(prices, "", code, booking.Standard); !ok {
			return nil, booking.Errorf(booking.EInvalid, "Unknown ticket type %q for %s.", booking.CleanLine(code, 16), booking.CleanLine(label, 8))
		}
	}
	quote, err := booking.QuoteSeats(prices, strings.ToLower(show.PriceList), seats, req.Types)
	if err != nil {
		return nil, err
	}
	if req.CheckTotal && quote.Total != req.ExpectedTotal {
		return nil, &booking.PriceChangedError{Expected: req.ExpectedTotal, Total: quote.Total}
	}
	tendered, change, err := payment(req, quote.Total)
	if err != nil {
		return nil, err
	}
	shiftID, err := shiftFor(t, actor, req.Method, req.OpenFloat)
	if err != nil {
		return nil, err
	}
	b := &booking.Booking{
		Show: show, Status: booking.BookingConfirmed, Customer: customer, Phone: phone, Total: quote.Total,
		SoldBy: actor.Name, Terminal: actor.Terminal, CreatedAt: time.UnixMilli(t.nowMS()),
	}
	if err := insertBooking(t, b, req.HoldID, key); err != nil {
		return nil, err
	}
	if err := s.writeSale(t, actor, b, req, quote.Lines, tendered, change, shiftID); err != nil {
		return nil, err
	}
	t.touch(show.ID)
	return b, nil
}

// writeSale sells the hold's claims and writes the tickets, the payment
// and the audit row, in one round trip.
func (s *Store) writeSale(t *tx, actor booking.Actor, b *booking.Booking, req booking.CheckoutRequest, lines []booking.QuoteLine,
	tendered, change booking.Money, shiftID int64) error {
	n := len(lines)
	ids, seatIDs, prices := make([]int64, n), make([]int64, n), make([]int64, n)
	types, sources := make([]string, n), make([]string, n)
	labels := make([]string, n)
	for i, l := range lines {
		ids[i], seatIDs[i], prices[i], types[i], sources[i] = b.ID*ticketsPerBooking+int64(i), l.Seat.ID, int64(l.Amount), l.Type, l.Source
		labels[i] = l.Seat.Label
		b.Tickets = append(b.Tickets, booking.Ticket{ID: ids[i], Seat: l.Seat, Type: l.Type, Price: l.Amount, PriceSource: l.Source, Status: booking.TicketIssued})
	}
	role := ""
	if actor.Role > booking.RoleKiosk {
		role = actor.Role.String()
	}
	batch := &pgx.Batch{}
	batch.Queue(`UPDATE seat_claims SET status = 'sold', booking_id = $1 WHERE hold_id = $2 AND status = 'held'`, b.ID, req.HoldID)
	batch.Queue(`INSERT INTO tickets (id, booking_id, seat_id, type_code, price, price_source, status)
		SELECT i, $1, seat, ty, price, src, 'issued' FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::bigint[], $6::text[]) AS x(i, seat, ty, price, src)`,
		b.ID, ids, seatIDs, types, prices, sources)
	batch.Queue(`INSERT INTO payments (booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id)
		VALUES ($1, 'sale', $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
		b.ID, string(req.Method), b.Total, tendered, change, t.nowMS(), b.SoldBy, b.Terminal, nullID(shiftID))
	batch.Queue(`INSERT INTO audit (at, actor, role, terminal, action, show_id, booking_id, shift_id, amount, detail)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		t.nowMS(), booking.CleanLine(actor.Name, 40), role, booking.CleanLine(actor.Terminal, 60), string(booking.AuditSale),
		b.Show.ID, b.ID, nullID(shiftID), int64(b.Total), fmt.Sprintf("%s: %s", req.Method, strings.Join(labels, " ")))
	br := t.SendBatch(t.ctx, batch)
	tag, err := br.Exec()
	if err == nil && int(tag.RowsAffected()) != n {
		err = fmt.Errorf("checkout: %d claims sold for %d seats", tag.RowsAffected(), n)
	}
	if err == nil {
		_, err = br.Exec()
	}
	var payID int64
	if err == nil {
		err = br.QueryRow().Scan(&payID)
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	b.Payments = []booking.Payment{{ID: payID, Kind: booking.PaymentSale, Method: req.Method, Amount: b.Total, Tendered: tendered, Change: change,
		At: b.CreatedAt, Staff: b.SoldBy, Terminal: b.Terminal, ShiftID: shiftID}}
	return err
}

// confirmHold moves the hold held -> confirmed by compare-and-set and
// returns its show (with the price list it sells at now) and its seats;
// only when the move fails does it read why.
func (s *Store) confirmHold(t *tx, req booking.CheckoutRequest) (booking.Show, []booking.Seat, error) {
	var showID int64
	var list string
	err := t.QueryRow(t.ctx, `UPDATE holds SET status = 'confirmed' WHERE id = $1 AND owner = $2 AND status = 'held' AND expires_at > $3
		RETURNING show_id, (SELECT price_list FROM shows WHERE id = holds.show_id)`, req.HoldID, req.Owner, t.nowMS()).Scan(&showID, &list)
	if errors.Is(err, pgx.ErrNoRows) {
		return booking.Show{}, nil, s.whyNotLive(t, req)
	}
	if err != nil {
		return booking.Show{}, nil, err
	}
	show, err := s.showInfo(t.ctx, showID)
	if err != nil {
		return booking.Show{}, nil, err
	}
	show.PriceList = list
	hall, err := s.hall(t.ctx, show.HallID)
	if err != nil {
		return booking.Show{}, nil, err
	}
	seats, err := s.heldSeats(t, hall, req.HoldID)
	if err != nil {
		return booking.Show{}, nil, err
	}
	if len(seats) == 0 {
		return booking.Show{}, nil, booking.Errorf(booking.EInvalid, "No seats are held; choose seats first.")
	}
	return show, seats, nil
}

// whyNotLive explains a hold that could not be confirmed.
func (s *Store) whyNotLive(t *tx, req booking.CheckoutRequest) error {
	var owner string
	var status booking.HoldStatus
	var expires int64
	err := t.QueryRow(t.ctx, `SELECT owner, status, expires_at FROM holds WHERE id = $1`, req.HoldID).Scan(&owner, &status, &expires)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && owner != req.Owner) {
		return booking.Errorf(booking.ENotFound, "That hold is gone; choose the seats again.")
	}
	if err != nil {
		return err
	}
	switch status {
	case booking.HoldHeld, booking.HoldExpired:
		ago := time.Duration(t.nowMS()-expires) * time.Millisecond
		return booking.Errorf(booking.EExpired, "The hold on the seats ran out %s ago; hold the seats again.", ago.Round(time.Second))
	case booking.HoldConfirmed:
		return booking.Errorf(booking.EConflict, "Those seats were already sold with another checkout.")
	}
	return booking.Errorf(booking.EExpired, "The hold on the seats was released; hold the seats again.")
}

// priceTable reads the ticket types and the overrides inside t: a sale is
// priced at what the database says in its own transaction.
func priceTable(t *tx) (*booking.PriceTable, error) {
	pt := &booking.PriceTable{Entries: map[booking.PriceKey]booking.Money{}}
	rows, err := t.Query(t.ctx, `SELECT code, name, price FROM ticket_types ORDER BY sort, code`)
	if err != nil {
		return nil, err
	}
	pt.Types, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.TicketType, error) {
		var ty booking.TicketType
		return ty, r.Scan(&ty.Code, &ty.Name, &ty.Price)
	})
	if err != nil {
		return nil, err
	}
	rows, err = t.Query(t.ctx, `SELECT list, type_code, seat_kind, amount FROM prices`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k booking.PriceKey
		var kind string
		var amount booking.Money
		if err := rows.Scan(&k.List, &k.Type, &kind, &amount); err != nil {
			return nil, err
		}
		k.Kind, _ = booking.ParseSeatKind(kind)
		pt.Entries[k] = amount
	}
	return pt, rows.Err()
}

// payment works out what was tendered and the change due, refusing cash
// short of the total (db's payment, repeated).
func payment(req booking.CheckoutRequest, total booking.Money) (tendered, change booking.Money, err error) {
	if req.Method != booking.Cash {
		return 0, 0, nil
	}
	tendered = req.Tendered
	if tendered == 0 {
		tendered = total
	}
	if tendered < total {
		return 0, 0, booking.Errorf(booking.EInvalid, "%s tendered is less than the total %s.", tendered.String(), total.String())
	}
	return tendered, tendered - total, nil
}

// shiftFor returns the shift a payment of method by actor belongs to: the
// actor's open shift, or for cash with a float given one opened now. A
// card payment with no shift open belongs to none (0).
func shiftFor(t *tx, actor booking.Actor, method booking.PayMethod, openFloat *booking.Money) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `SELECT id FROM shifts WHERE lower(staff) = lower($1) AND status = 'open'`, actor.Name).Scan(&id)
	switch {
	case err == nil:
		return id, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return 0, err
	case method != booking.Cash:
		return 0, nil
	case openFloat == nil:
		return 0, booking.ErrNoShift
	}
	return openShift(t, actor, *openFloat)
}

// openShift opens actor's shift with float, with its event and audit row.
func openShift(t *tx, actor booking.Actor, float booking.Money) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO shifts (staff, staff_id, terminal, status, opened_at, float) VALUES ($1, $2, $3, 'open', $4, $5)
		ON CONFLICT DO NOTHING RETURNING id`, actor.Name, nullID(actor.StaffID), actor.Terminal, t.nowMS(), float).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, booking.Errorf(booking.EConflict, "%s has a shift open already; close it first.", actor.Name)
	}
	if err != nil {
		return 0, err
	}
	if _, err := t.Exec(t.ctx, `INSERT INTO shift_events (shift_id, kind, at, by, counted) VALUES ($1, 'open', $2, $3, $4)`, id, t.nowMS(), actor.Name, float); err != nil {
		return 0, err
	}
	return id, audit(t, actor, booking.AuditEntry{Action: booking.AuditShiftOpen, ShiftID: id, Amount: float, Detail: "float " + float.String()}, 0)
}

// OpenShift opens the actor's shift with the float counted into the
// drawer. READ COMMITTED: the partial unique index shifts_one_open keeps
// it to one open shift per person.
func (s *Store) OpenShift(ctx context.Context, actor booking.Actor, req booking.OpenShiftRequest) (*booking.Shift, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return inTx(s, ctx, "open shift", txMode{iso: pgx.ReadCommitted}, func(t *tx) (*booking.Shift, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		id, err := openShift(t, actor, req.Float)
		if err != nil {
			return nil, err
		}
		return &booking.Shift{ID: id, Staff: actor.Name, Terminal: actor.Terminal, Status: booking.ShiftOpen, OpenedAt: t.now, Float: req.Float}, nil
	})
}

// insertBooking writes b's row under a fresh random number, filling in
// its id and number. ON CONFLICT DO NOTHING keeps the transaction alive
// on any unique clash: a used key (errKeyUsed: the caller answers with
// that booking), or a number drawn twice (drawn again).
func insertBooking(t *tx, b *booking.Booking, holdID int64, key string) error {
	for attempt := 0; attempt < 6; attempt++ {
		number := newBookingNumber()
		err := t.QueryRow(t.ctx, `INSERT INTO bookings (number, show_id, hold_id, status, idem_key, customer, phone, total, sold_by, terminal, created_at)
			VALUES ($1, $2, $3, 'confirmed', $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING id`,
			number, b.Show.ID, holdID, key, b.Customer, b.Phone, b.Total, b.SoldBy, b.Terminal, b.CreatedAt.UnixMilli()).Scan(&b.ID)
		if err == nil {
			b.Number = number
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var used int
		if err := t.QueryRow(t.ctx, `SELECT count(*) FROM bookings WHERE idem_key = $1 OR hold_id = $2`, key, holdID).Scan(&used); err != nil {
			return err
		}
		if used > 0 {
			return errKeyUsed
		}
	}
	return fmt.Errorf("checkout: no free booking number")
}

// numberAlphabet and newBookingNumber repeat db's booking numbers
// (BO-7KQ2X9TD, no 0/O, 1/I/L or U).
const numberAlphabet = "23456789ABCDEFGHJKMNPQRSTVWXYZ"

func newBookingNumber() string {
	var b [8]byte
	rand.Read(b[:])
	out := make([]byte, 0, 11)
	out = append(out, "BO-"...)
	for _, x := range b {
		out = append(out, numberAlphabet[int(x)%len(numberAlphabet)])
	}
	return string(out)
}

// ticketsPerBooking spaces ticket ids as db does: booking n's tickets are
// 32n..32n+19, so a code verifies the same on either backend.
const ticketsPerBooking = 32
