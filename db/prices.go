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
	return store.Each(rows, func() error { return fn(rows) })
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
	store.ProgrammeOf(s.Store).Forget(store.ForgetAll, 0)
}
