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
// says as it commits. A server that cannot be reached is EUnavailable;
// when the COMMIT's answer was lost, see settleCheckout.
func (s *Store) Checkout(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest) (*booking.Booking, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	// A reservation's hold is sold by PayReservation, which also marks
	// the reservation paid (the database refuses it too, 0007's
	// holds_reservation_paid_only).
	if err := store.RefuseReservationCheckout(req.Owner); err != nil {
		return nil, err
	}
	key := strings.TrimSpace(req.IdempotencyKey)
	customer := booking.CleanLine(req.Customer, 80)
	phone := booking.CleanLine(req.Phone, 32)
	return s.settleCheckout(key, func() (*booking.Booking, error) {
		for attempt := 0; ; attempt++ {
			b, err := s.checkout(ctx, actor, req, key, customer, phone)
			if errors.Is(err, errKeyUsed) {
				var id int64
				if id, err = s.bookingOfKey(ctx, key); err == nil {
					return keyMadeSale(s.loadBooking(ctx, id))
				}
				if booking.ErrorCode(err) == booking.ENotFound && attempt < 3 {
					continue // a booking number drawn twice, or the key's first checkout rolled back
				}
				return keyMadeSale(nil, err)
			}
			return b, err
		}
	})
}

// checkout is one attempt of Checkout: the sale it made, or errKeyUsed
// when its key made a booking before.
func (s *Store) checkout(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest, key, customer, phone string) (*booking.Booking, error) {
	got, err := inTx(s, ctx, "checkout", txMode{iso: pgx.ReadCommitted}, func(t *tx) (*booking.Booking, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		sold, err := s.sell(t, actor, req, key, customer, phone)
		var de *booking.Error
		if err == nil || !errors.As(err, &de) {
			return sold, err
		}
		// A domain refusal leaves the transaction alive. A retry (double
		// Enter, resubmit, reconnect) finds its hold already confirmed:
		// answer with the booking the key made.
		var n int
		if kerr := t.QueryRow(t.ctx, `SELECT count(*) FROM bookings WHERE idem_key = $1`, key).Scan(&n); kerr != nil {
			return nil, kerr
		}
		if n > 0 {
			return nil, errKeyUsed
		}
		return nil, err
	})
	if err != nil {
		return nil, err
	}
	for i := range got.Tickets {
		got.Tickets[i].Code = booking.SignTicket(s.opts.TicketKey, got.Tickets[i].ID)
	}
	return got, nil
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
	show, seats, prices, shiftID, err := s.confirmHold(t, actor, req)
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
	tendered, change, err := req.Payment(quote.Total)
	if err != nil {
		return nil, err
	}
	if shiftID == 0 && req.Method == booking.Cash {
		// None open when the hold was confirmed: the one rule opens it
		// with the float, or refuses (store.ShiftFor).
		if shiftID, err = store.ShiftFor(t, actor, req.Method, req.OpenFloat); err != nil {
			return nil, err
		}
	}
	b := &booking.Booking{
		Show: show, Status: booking.BookingConfirmed, Customer: customer, Phone: phone, Total: quote.Total,
		SoldBy: actor.Name, Terminal: actor.Terminal, CreatedAt: time.UnixMilli(t.nowMS()),
	}
	if err := writeSale(t, actor, b, req, key, quote.Lines, tendered, change, shiftID); err != nil {
		return nil, err
	}
	t.touch(show.ID)
	return b, nil
}

// qSale writes a sale in one statement: the booking, the hold's claims
// held -> sold (every one of them, or it raises 'claims'), the tickets
// (ids 32 x booking id + n), the payment, the audit row and the
// customer's name words (booking.NameWords). The booking
// is inserted ON CONFLICT DO NOTHING, so a used key or a number drawn
// twice writes nothing and raises 'key' (expect). The foreign keys
// between them are checked at the end of the statement, when the booking
// is there.
const qSale = `WITH b AS (
		INSERT INTO bookings (number, show_id, hold_id, status, idem_key, customer, phone, total, sold_by, terminal, created_at)
		VALUES ($1, $2, $3, 'confirmed', $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING id
	), c AS (
		UPDATE seat_claims SET status = 'sold', booking_id = b.id FROM b WHERE hold_id = $3 AND status = 'held' RETURNING seat_id
	), tk AS (
		INSERT INTO tickets (id, booking_id, seat_id, type_code, price, price_source, status)
		SELECT b.id * 32 + x.n - 1, b.id, x.seat, x.ty, x.price, x.src, 'issued'
		FROM b, unnest($11::bigint[], $12::text[], $13::bigint[], $14::text[]) WITH ORDINALITY AS x(seat, ty, price, src, n)
	), p AS (
		INSERT INTO payments (booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id)
		SELECT b.id, 'sale', $15, $7, $16, $17, $10, $8, $9, $18 FROM b RETURNING id
	), a AS (
		INSERT INTO audit (at, actor, role, terminal, action, show_id, booking_id, shift_id, amount, detail)
		SELECT $10, $19, $20, $21, 'sale', $2, b.id, $18, $7, $22 FROM b
	), w AS (
		INSERT INTO booking_words (word, booking_id) SELECT x.w, b.id FROM b, unnest($23::text[]) AS x(w)
	)
	SELECT expect(EXISTS (SELECT 1 FROM b), 'key'),
		expect(NOT EXISTS (SELECT 1 FROM b) OR (SELECT count(*) FROM c) = cardinality($11::bigint[]), 'claims'),
		(SELECT id FROM b), (SELECT id FROM p)`

// writeSale writes b, its tickets for lines, its payment and its audit
// row under a fresh random number (qSale), and COMMITs in the same round
// trip, filling in b. errKeyUsed when the booking could not be inserted:
// the key made a booking already (the caller answers with it), or, once
// in 10^11 sales, the number was drawn twice (the caller runs again).
func writeSale(t *tx, actor booking.Actor, b *booking.Booking, req booking.CheckoutRequest, key string, lines []booking.QuoteLine,
	tendered, change booking.Money, shiftID int64) error {
	n := len(lines)
	seatIDs, prices := make([]int64, n), make([]int64, n)
	types, sources, labels := make([]string, n), make([]string, n), make([]string, n)
	for i, l := range lines {
		seatIDs[i], prices[i], types[i], sources[i], labels[i] = l.Seat.ID, int64(l.Amount), l.Type, l.Source, l.Seat.Label
	}
	role := ""
	if actor.Role > booking.RoleKiosk {
		role = actor.Role.String()
	}
	number := booking.NewBookingNumber()
	batch := &pgx.Batch{}
	batch.Queue(qSale, number, b.Show.ID, req.HoldID, key, b.Customer, b.Phone, b.Total, b.SoldBy, b.Terminal, b.CreatedAt.UnixMilli(),
		seatIDs, types, prices, sources, string(req.Method), tendered, change, nullID(shiftID),
		booking.CleanLine(actor.Name, 40), role, booking.CleanLine(actor.Terminal, 60), fmt.Sprintf("%s: %s", req.Method, strings.Join(labels, " ")),
		booking.NameWords(b.Customer))
	batch.Queue(`COMMIT`)
	br := t.SendBatch(t.ctx, batch)
	var ok1, ok2 bool
	var payID int64
	err := br.QueryRow().Scan(&ok1, &ok2, &b.ID, &payID)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "ZB001" && pe.Message == "key" {
		return errKeyUsed
	}
	if err != nil {
		return err
	}
	t.committed = true
	b.Number = number
	for i, l := range lines {
		b.Tickets = append(b.Tickets, booking.Ticket{ID: b.ID*ticketsPerBooking + int64(i), Seat: l.Seat, Type: l.Type, Price: l.Amount, PriceSource: l.Source, Status: booking.TicketIssued})
	}
	b.Payments = []booking.Payment{{ID: payID, Kind: booking.PaymentSale, Method: req.Method, Amount: b.Total, Tendered: tendered, Change: change,
		At: b.CreatedAt, Staff: b.SoldBy, Terminal: b.Terminal, ShiftID: shiftID}}
	return nil
}

// confirmHold moves the hold held -> confirmed by compare-and-set and
// returns its show (with the price list it sells at now), its seats, the
// price table (txPriceTable) and the actor's open shift (0: none), all
// read by statements of this transaction after the move, in one round
// trip. Only when the move fails does it read why.
func (s *Store) confirmHold(t *tx, actor booking.Actor, req booking.CheckoutRequest) (booking.Show, []booking.Seat, *booking.PriceTable, int64, error) {
	var showID, shiftID int64
	var list string
	var seatIDs []int64
	b := &pgx.Batch{}
	var gen string
	b.Queue(`UPDATE holds SET status = 'confirmed' WHERE id = $1 AND owner = $2 AND status = 'held' AND `+liveHold("holds", "$3")+`
		RETURNING show_id, (SELECT price_list FROM shows WHERE id = holds.show_id), (SELECT value FROM meta WHERE key = 'price_gen')`,
		req.HoldID, req.Owner, t.nowMS())
	b.Queue(`SELECT coalesce(array_agg(seat_id), '{}') FROM seat_claims WHERE hold_id = $1 AND status = 'held'`, req.HoldID)
	b.Queue(`SELECT coalesce((SELECT id FROM shifts WHERE lower(staff) = lower($1) AND status = 'open'), 0)`, actor.Name)
	br := t.SendBatch(t.ctx, b)
	err := br.QueryRow().Scan(&showID, &list, &gen)
	confirmed := err == nil
	if errors.Is(err, pgx.ErrNoRows) {
		err = nil
	}
	if err == nil {
		err = br.QueryRow().Scan(&seatIDs)
	}
	if err == nil {
		err = br.QueryRow().Scan(&shiftID)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return booking.Show{}, nil, nil, 0, err
	}
	if !confirmed {
		return booking.Show{}, nil, nil, 0, s.whyNotLive(t, req)
	}
	pt, err := s.txPriceTable(t, gen)
	if err != nil {
		return booking.Show{}, nil, nil, 0, err
	}
	show, err := s.showInfo(t.ctx, showID)
	if err != nil {
		return booking.Show{}, nil, nil, 0, err
	}
	show.PriceList = list
	hall, err := s.hall(t.ctx, show.HallID)
	if err != nil {
		return booking.Show{}, nil, nil, 0, err
	}
	seats := make([]booking.Seat, 0, len(seatIDs))
	for _, id := range seatIDs {
		if seat, ok := s.seatByID(hall.ID, id); ok {
			seats = append(seats, seat)
		}
	}
	slices.SortFunc(seats, func(a, b booking.Seat) int {
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return a.Col - b.Col
	})
	if len(seats) == 0 {
		return booking.Show{}, nil, nil, 0, booking.Errorf(booking.EInvalid, "No seats are held; choose seats first.")
	}
	return show, seats, pt, shiftID, nil
}

// whyNotLive explains a hold that could not be confirmed.
func (s *Store) whyNotLive(t *tx, req booking.CheckoutRequest) error {
	var owner string
	var status booking.HoldStatus
	var expires, showID int64
	err := t.QueryRow(t.ctx, `SELECT owner, status, expires_at, show_id FROM holds WHERE id = $1`, req.HoldID).Scan(&owner, &status, &expires, &showID)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && owner != req.Owner) {
		return booking.Errorf(booking.ENotFound, "That hold is gone; choose the seats again.")
	}
	if err != nil {
		return err
	}
	// A show's life first, as db's: a cancelled show's holds were let go
	// with it, and the clerk is told the show was cancelled.
	if sh, err := s.showLife(t, showID); err != nil {
		return err
	} else if sh.Cancelled() {
		return booking.SalesOpen(sh, t.now)
	}
	// The seats by name, as db says them: every claim the hold made.
	what := "the seats"
	rows, err := t.Query(t.ctx, `SELECT s.label FROM seat_claims c JOIN seats s ON s.id = c.seat_id WHERE c.hold_id = $1 ORDER BY s.row_idx, s.col`, req.HoldID)
	if err != nil {
		return err
	}
	labels, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	if len(labels) > 0 {
		what = strings.Join(labels, ", ")
	}
	switch status {
	case booking.HoldHeld, booking.HoldExpired:
		if expires > t.nowMS() {
			// Made later than the clock says now: the clock was set back.
			return booking.Errorf(booking.EExpired, "The hold on %s ran out: the clock was set back since it was made. Hold the seats again.", what)
		}
		ago := time.Duration(t.nowMS()-expires) * time.Millisecond
		return booking.Errorf(booking.EExpired, "The hold on %s ran out %s ago; hold the seats again.", what, roundAgo(ago))
	case booking.HoldConfirmed:
		return booking.Errorf(booking.EConflict, "Those seats were already sold with another checkout.")
	}
	return booking.Errorf(booking.EExpired, "The hold on %s was released; hold the seats again.", what)
}

// roundAgo says how long ago a hold ran out as db's roundAgo does
// (repeated: a message's wording, not a rule): "40s", "3 min".
func roundAgo(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%d min", int(d.Minutes()))
}

// queuePriceTable queues the reads of the ticket types and the
// overrides into pt, read when b's results are: a sale is priced at what
// the database says in its own transaction.
func queuePriceTable(b *pgx.Batch, pt *booking.PriceTable) {
	b.Queue(`SELECT code, name, price FROM ticket_types ORDER BY sort, code`).Query(func(rows pgx.Rows) error {
		var err error
		pt.Types, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.TicketType, error) {
			var ty booking.TicketType
			return ty, r.Scan(&ty.Code, &ty.Name, &ty.Price)
		})
		return err
	})
	b.Queue(`SELECT list, type_code, seat_kind, amount FROM prices`).Query(func(rows pgx.Rows) error {
		defer rows.Close()
		for rows.Next() {
			var k booking.PriceKey
			var kind string
			var amount booking.Money
			if err := rows.Scan(&k.List, &k.Type, &kind, &amount); err != nil {
				return err
			}
			k.Kind, _ = booking.ParseSeatKind(kind)
			pt.Entries[k] = amount
		}
		return rows.Err()
	})
}

// txPriceTable returns the price table as t sees it, given the price
// generation t read: the store's copy while the generation is the one it
// was read at, else the table read again inside t (and kept).
func (s *Store) txPriceTable(t *tx, gen string) (*booking.PriceTable, error) {
	s.pricesMu.Lock()
	pt, at := s.prices, s.pricesGen
	s.pricesMu.Unlock()
	if pt != nil && at == gen {
		return pt, nil
	}
	pt, err := priceTable(t)
	if err != nil {
		return nil, err
	}
	s.pricesMu.Lock()
	s.prices, s.pricesGen = pt, gen
	s.pricesMu.Unlock()
	return pt, nil
}

// priceTable reads the price table inside t (Quote, txPriceTable).
func priceTable(t *tx) (*booking.PriceTable, error) {
	pt := &booking.PriceTable{Entries: map[booking.PriceKey]booking.Money{}}
	b := &pgx.Batch{}
	queuePriceTable(b, pt)
	return pt, t.SendBatch(t.ctx, b).Close()
}

// ticketsPerBooking spaces ticket ids as db does: booking n's tickets are
// 32n..32n+19, so a code verifies the same on either backend.
const ticketsPerBooking = 32
