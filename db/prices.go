package db

import (
	"context"
	"database/sql"
	"strings"

	"boxoffice/booking"
	"boxoffice/store"
)

// The price table: ticket_types holds each type's own price (a standard
// seat on the standing list), prices the overrides by list, type and seat
// kind (migration 0011), and booking.PriceFor the order they apply in. A
// sale reads the table inside its write transaction; screens and the
// command line read a copy cached until the next price change.

const (
	qPriceTypes   = `SELECT code, name, price FROM ticket_types ORDER BY sort, code`
	qPriceEntries = `SELECT list, type_code, seat_kind, amount FROM prices`
	qPriceLists   = `SELECT name, label FROM price_lists ORDER BY name`
	qShowList     = `SELECT price_list FROM shows WHERE id = ?`
)

// queryFunc runs a query on the write transaction or the read pool.
type queryFunc func(query string, args ...any) (*sql.Rows, error)

// loadPriceTable reads the ticket types, the overrides and the price
// lists.
func loadPriceTable(q queryFunc) (*booking.PriceTable, error) {
	t := &booking.PriceTable{Entries: map[booking.PriceKey]booking.Money{}}
	err := eachRow(q, qPriceTypes, func(r *sql.Rows) error {
		var ty booking.TicketType
		err := r.Scan(&ty.Code, &ty.Name, &ty.Price)
		t.Types = append(t.Types, ty)
		return err
	})
	if err != nil {
		return nil, err
	}
	err = eachRow(q, qPriceEntries, func(r *sql.Rows) error {
		var k booking.PriceKey
		var kind string
		var amount booking.Money
		if err := r.Scan(&k.List, &k.Type, &kind, &amount); err != nil {
			return err
		}
		k.List = strings.ToLower(k.List)
		k.Kind, _ = booking.ParseSeatKind(kind) // the table's CHECK allows only the four
		t.Entries[k] = amount
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = eachRow(q, qPriceLists, func(r *sql.Rows) error {
		var l booking.PriceList
		err := r.Scan(&l.Name, &l.Label)
		t.Lists = append(t.Lists, l)
		return err
	})
	return t, err
}

// eachRow runs query and calls fn on each row.
func eachRow(q queryFunc, query string, fn func(*sql.Rows) error, args ...any) error {
	rows, err := q(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// qPriceGen reads the price generation, which migration 0026 moves on
// every write to ticket_types or prices.
const qPriceGen = `(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'price_gen')`

// txPriceTable returns the price table as the write transaction sees it,
// given the price generation read in the same transaction, so a sale is
// priced at what the database says now: the writer's copy is reused only
// while the generation is the one it was read at, and read again inside
// the transaction otherwise.
func txPriceTable(w *wtx, gen sql.NullInt64) (*booking.PriceTable, error) {
	c := w.c
	if gen.Valid && c.prices != nil && c.pricesGen == gen.Int64 {
		return c.prices, nil
	}
	t, err := loadPriceTable(w.query)
	if err != nil {
		return nil, err
	}
	c.prices, c.pricesGen = t, gen.Int64
	if !gen.Valid { // a database without the generation row: never reuse
		c.prices = nil
	}
	return t, nil
}

// priceTable is the cached price table, read from the pool when a price
// change dropped it (forgetTicketTypes).
func (s *Store) priceTable(ctx context.Context) (*booking.PriceTable, error) {
	s.hallsMu.Lock()
	cached, gen := s.prices, s.typesGen
	s.hallsMu.Unlock()
	if cached != nil {
		return cached, nil
	}
	t, err := loadPriceTable(func(q string, args ...any) (*sql.Rows, error) { return s.readRows(ctx, q, args...) })
	if err != nil {
		return nil, s.translate("prices", err)
	}
	s.hallsMu.Lock()
	if s.typesGen == gen { // no price change since this read began
		s.prices = t
	}
	s.hallsMu.Unlock()
	return t, nil
}

// Quote prices seats of a show at the ticket types chosen, as a checkout
// would now.
func (s *Store) Quote(ctx context.Context, actor booking.Actor, req booking.QuoteRequest) (*booking.Quote, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return nil, err
	}
	if len(req.SeatIDs) == 0 || len(req.SeatIDs) > booking.MaxSeatsPerSale {
		return nil, booking.Errorf(booking.EInvalid, "A quote is for 1 to %d seats.", booking.MaxSeatsPerSale)
	}
	sh, err := s.showInfo(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	if _, err := s.hall(ctx, sh.HallID); err != nil { // loads the seats seatByID reads
		return nil, err
	}
	seats := make([]booking.Seat, len(req.SeatIDs))
	for i, id := range req.SeatIDs {
		var ok bool
		if seats[i], ok = s.seatByID(sh.HallID, id); !ok {
			return nil, booking.Errorf(booking.EInvalid, "Seat %d is not in %s.", id, booking.CleanLine(sh.HallName, 60))
		}
	}
	var list string
	if err := s.readRow(ctx, qShowList, req.ShowID).Scan(&list); err != nil {
		return nil, s.translate("quote", err)
	}
	t, err := s.priceTable(ctx)
	if err != nil {
		return nil, err
	}
	q, err := booking.QuoteSeats(t, strings.ToLower(list), seats, req.Types)
	if err != nil {
		return nil, err
	}
	q.ShowID = req.ShowID
	return q, nil
}

// forgetTicketTypes drops the cached price table, after a commit here
// that changed show 0 (a price change publishes 0) or a commit noticed
// from another process.
func (s *Store) forgetTicketTypes() {
	s.hallsMu.Lock()
	s.prices = nil
	s.typesGen++
	s.hallsMu.Unlock()
	// A moved show or an edited film publishes 0 too (and another
	// process's commit comes here through the poll): the programme facts
	// cached by showInfo go with the prices.
	s.prog.Forget(store.ForgetAll, 0)
}
