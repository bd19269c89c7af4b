package pg

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The sale's queries (store.SaleTx). A checkout is READ COMMITTED with
// synchronous commit: the hold moves held -> confirmed by compare-and-set
// (PostgreSQL re-checks the WHERE on the newest version of the row, so of
// two checkouts, a checkout and a release, or a checkout and an expiry,
// exactly one moves it), the key is UNIQUE (a second checkout with it
// waits for the first and then finds its booking), and the price
// generation is read by a statement of the transaction, after the hold
// was claimed, so the sale is priced at what the database says as it
// commits.

// Checkout is the store's (store.Store.Checkout) with the one fault only
// a server has: a COMMIT whose answer was lost, settled by the same key
// (settleCheckout).
func (s *Store) Checkout(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest) (*booking.Booking, error) {
	return s.settleCheckout(strings.TrimSpace(req.IdempotencyKey), func() (*booking.Booking, error) {
		return s.Store.Checkout(ctx, actor, req)
	})
}

// ticketsPerBooking spaces ticket ids as db does (store.TicketsPerBooking).
const ticketsPerBooking = store.TicketsPerBooking

// ConfirmHold moves owner's live hold held -> confirmed and reads its
// show's price list and the price generation in the same statement.
func (t *tx) ConfirmHold(holdID int64, owner string) (store.Confirmed, bool, error) {
	var c store.Confirmed
	err := t.QueryRow(t.ctx, `UPDATE holds SET status = 'confirmed' WHERE id = $1 AND owner = $2 AND status = 'held' AND `+liveHold("holds", "$3")+`
		RETURNING show_id, (SELECT price_list FROM shows WHERE id = holds.show_id), coalesce((SELECT value FROM meta WHERE key = 'price_gen'), '')`,
		holdID, owner, t.nowMS()).Scan(&c.ShowID, &c.PriceList, &c.PriceGen)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	return c, err == nil, err
}

// PayingReservation tells holds_reservation_paid_only (0007) that this
// transaction pays reservation number, so its hold may be confirmed.
func (t *tx) PayingReservation(number string) error {
	_, err := t.Exec(t.ctx, `SELECT set_config('boxoffice.paying', $1, true)`, number)
	return err
}

// PriceGen reads the price generation.
func (t *tx) PriceGen() (string, error) {
	var gen string
	err := t.QueryRow(t.ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = 'price_gen'), '')`).Scan(&gen)
	return gen, err
}

// PriceTable reads the price table inside t.
func (t *tx) PriceTable() (*booking.PriceTable, error) { return priceTable(t) }

// queuePriceTable queues the reads of the ticket types and the
// overrides into pt, read when b's results are.
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

// ReadPrices reads the price generation and the price table in one
// batch: one implicit transaction, so one moment.
func (d driver) ReadPrices(ctx context.Context) (*booking.PriceTable, string, error) {
	pt := &booking.PriceTable{Entries: map[booking.PriceKey]booking.Money{}}
	var gen string
	b := &pgx.Batch{}
	b.Queue(`SELECT coalesce((SELECT value FROM meta WHERE key = 'price_gen'), '')`).QueryRow(func(r pgx.Row) error { return r.Scan(&gen) })
	queuePriceTable(b, pt)
	if err := d.s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, "", d.s.translate("prices", err)
	}
	return pt, gen, nil
}

// priceTable reads the price table inside t, in one round trip.
func priceTable(t *tx) (*booking.PriceTable, error) {
	pt := &booking.PriceTable{Entries: map[booking.PriceKey]booking.Money{}}
	b := &pgx.Batch{}
	queuePriceTable(b, pt)
	return pt, t.SendBatch(t.ctx, b).Close()
}

// InsertSale writes a booking under its number or a fresh random one,
// with its customer's name words. ON CONFLICT DO NOTHING, so a number or
// a key already there writes nothing and leaves the transaction whole:
// a used key (or a reservation's number taken) is ErrKeyUsed, a fresh
// number drawn twice is drawn again.
func (t *tx) InsertSale(nb store.NewBooking) (int64, string, error) {
	for attempt := 0; ; attempt++ {
		number := nb.Number
		if number == "" {
			number = booking.NewBookingNumber()
		}
		var id int64
		err := t.QueryRow(t.ctx, `INSERT INTO bookings (number, show_id, hold_id, status, idem_key, customer, phone, total, sold_by, terminal, created_at)
			VALUES ($1, $2, $3, 'confirmed', $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING id`,
			number, nb.ShowID, nb.HoldID, nb.Key, nb.Customer, nb.Phone, nb.Total, nb.SoldBy, nb.Terminal, t.nowMS()).Scan(&id)
		if err == nil {
			return id, number, indexNames(t, id, nb.Customer)
		}
		if !errors.Is(err, pgx.ErrNoRows) || attempt > 5 {
			return 0, "", err
		}
		var used bool
		if err := t.QueryRow(t.ctx, `SELECT EXISTS (SELECT 1 FROM bookings WHERE idem_key = $1 OR hold_id = $2)`, nb.Key, nb.HoldID).Scan(&used); err != nil {
			return 0, "", err
		}
		if used || nb.Number != "" {
			return 0, "", store.ErrKeyUsed
		}
	}
}

// InsertTickets issues a booking's tickets in one statement.
func (t *tx) InsertTickets(bookingID int64, lines []booking.QuoteLine) ([]booking.Ticket, error) {
	n := len(lines)
	seatIDs, prices := make([]int64, n), make([]int64, n)
	types, sources := make([]string, n), make([]string, n)
	for i, l := range lines {
		seatIDs[i], prices[i], types[i], sources[i] = l.Seat.ID, int64(l.Amount), l.Type, l.Source
	}
	_, err := t.Exec(t.ctx, `INSERT INTO tickets (id, booking_id, seat_id, type_code, price, price_source, status)
		SELECT $1 * 32 + x.n - 1, $1, x.seat, x.ty, x.price, x.src, 'issued'
		FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[]) WITH ORDINALITY AS x(seat, ty, price, src, n)`,
		bookingID, seatIDs, types, prices, sources)
	if err != nil {
		return nil, err
	}
	out := make([]booking.Ticket, n)
	for i, l := range lines {
		out[i] = booking.Ticket{ID: bookingID*ticketsPerBooking + int64(i), Seat: l.Seat, Type: l.Type, Price: l.Amount, PriceSource: l.Source, Status: booking.TicketIssued}
	}
	return out, nil
}

// SellHeldClaims moves a hold's held claims to sold (a show keeps no
// sold counter here: its counts are counted from its claims).
func (t *tx) SellHeldClaims(holdID, bookingID, _ int64) (int, error) {
	tag, err := t.Exec(t.ctx, `UPDATE seat_claims SET status = 'sold', booking_id = $1 WHERE hold_id = $2 AND status = 'held'`, bookingID, holdID)
	return int(tag.RowsAffected()), err
}

// qSellHold writes a sale in one statement: the hold confirmed by
// compare-and-set only when every decision of the store still holds (the
// hold live and owner's, its held seats exactly $3, the price generation
// $4 and the show's price list $5, the cash shift $20 open and the
// seller's, the actor standing), then the booking, the hold's claims held
// -> sold (every one, or it raises 'claims'), the tickets (ids 32 ×
// booking id + n, in the lines' order), the payment, the audit row and
// the customer's name words. The booking is inserted ON CONFLICT DO
// NOTHING, so a used key or a number drawn twice writes nothing and
// raises 'key' (expect). When the hold does not move, nothing is written
// and the statement returns no booking. The foreign keys between them
// are checked at the end of the statement, when the booking is there.
var qSellHold = `WITH h AS (
		UPDATE holds SET status = 'confirmed' WHERE id = $1 AND owner = $2 AND status = 'held' AND ` + liveHold("holds", "$11") + `
		AND (SELECT array_agg(seat_id ORDER BY seat_id) FROM seat_claims WHERE hold_id = $1 AND status = 'held') = $3::bigint[]
		AND coalesce((SELECT value FROM meta WHERE key = 'price_gen'), '') = $4
		AND (SELECT price_list FROM shows WHERE id = holds.show_id) = $5
		AND ($20::bigint IS NULL OR EXISTS (SELECT 1 FROM shifts WHERE id = $20 AND status = 'open' AND lower(staff) = lower($9)))
		AND ($25::bigint = 0 OR EXISTS (SELECT 1 FROM staff WHERE id = $25 AND NOT disabled AND role = ANY($26::text[])))
		AND ($27::bigint = 0 OR EXISTS (SELECT 1 FROM terminals WHERE id = $27))
		RETURNING show_id
	), b AS (
		INSERT INTO bookings (number, show_id, hold_id, status, idem_key, customer, phone, total, sold_by, terminal, created_at)
		SELECT $6, h.show_id, $1, 'confirmed', $7, $8, $24, $12, $9, $10, $11 FROM h ON CONFLICT DO NOTHING RETURNING id, show_id
	), c AS (
		UPDATE seat_claims SET status = 'sold', booking_id = b.id FROM b WHERE hold_id = $1 AND status = 'held' RETURNING seat_id
	), tk AS (
		INSERT INTO tickets (id, booking_id, seat_id, type_code, price, price_source, status)
		SELECT b.id * 32 + x.n - 1, b.id, x.seat, x.ty, x.price, x.src, 'issued'
		FROM b, unnest($13::bigint[], $14::text[], $15::bigint[], $16::text[]) WITH ORDINALITY AS x(seat, ty, price, src, n)
	), p AS (
		INSERT INTO payments (booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id)
		SELECT b.id, 'sale', $17, $12, $18, $19, $11, $9, $10,
			coalesce($20, (SELECT id FROM shifts WHERE lower(staff) = lower($9) AND status = 'open')) FROM b RETURNING id, shift_id
	), a AS (
		INSERT INTO audit (at, actor, role, terminal, action, show_id, booking_id, shift_id, amount, detail)
		SELECT $11, $21, $22, $23, 'sale', b.show_id, b.id, (SELECT shift_id FROM p), $12, $28 FROM b
	), w AS (
		INSERT INTO booking_words (word, booking_id) SELECT x.w, b.id FROM b, unnest($29::text[]) AS x(w)
	)
	SELECT coalesce((SELECT id FROM b), 0), coalesce((SELECT id FROM p), 0), coalesce((SELECT shift_id FROM p), 0),
		expect(NOT EXISTS (SELECT 1 FROM h) OR EXISTS (SELECT 1 FROM b), 'key'),
		expect(NOT EXISTS (SELECT 1 FROM b) OR (SELECT count(*) FROM c) = cardinality($3::bigint[]), 'claims')`

// SellHold sells a hold as the store decided in one round trip: BEGIN,
// qSellHold and COMMIT in one batch. A hold that did not move wrote
// nothing (the empty transaction commits); a statement that raised rolled
// it all back. Either way the store takes the checked path.
func (t *tx) SellHold(s store.Sale) (store.SaleDone, bool, error) {
	var done store.SaleDone
	nb := s.Booking
	if nb.Number == "" {
		nb.Number = booking.NewBookingNumber()
	}
	n := len(s.Lines)
	seatIDs, prices := make([]int64, n), make([]int64, n)
	types, sources := make([]string, n), make([]string, n)
	for i, l := range s.Lines {
		seatIDs[i], prices[i], types[i], sources[i] = l.Seat.ID, int64(l.Amount), l.Type, l.Source
	}
	b := &pgx.Batch{}
	b.Queue(qSellHold, s.HoldID, s.Owner, s.SeatIDs, s.PriceGen, s.PriceList, nb.Number, nb.Key, nb.Customer, nb.SoldBy, nb.Terminal, t.nowMS(), nb.Total,
		seatIDs, types, prices, sources, string(s.Method), s.Tendered, s.Change, nullID(s.ShiftID),
		s.Audit.Actor, s.Audit.Role, s.Audit.Terminal, nb.Phone, s.Actor.StaffID, s.Actor.Roles, s.Actor.TerminalID, s.Audit.Detail,
		booking.NameWords(nb.Customer))
	b.Queue(`COMMIT`)
	br := t.SendBatch(t.ctx, b)
	var ok1, ok2 bool
	err := br.QueryRow().Scan(&done.BookingID, &done.PaymentID, &done.ShiftID, &ok1, &ok2)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if missedStep(err) {
		return done, false, nil
	}
	if err != nil {
		return done, false, err
	}
	t.committed = true
	done.Number = nb.Number
	return done, done.BookingID != 0, nil
}
