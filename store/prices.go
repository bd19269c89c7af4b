package store

import (
	"context"
	"strings"

	"boxoffice/booking"
)

// The price table: each ticket type's own price (a standard seat on the
// standing list), the overrides by list, type and seat kind, and the
// lists a show may be put on; booking.PriceFor says the order they apply
// in. A changed price applies to sales from now on: a sale reads the
// table inside its own transaction (the driver's, on the sale path), and
// tickets already sold keep the price they were sold at. Every price
// change touches show 0, so every open counter, on this server or
// another, re-prices; a driver that keeps a copy of the table drops it
// then.

// PricesTx is what the price table's writes ask of a transaction.
type PricesTx interface {
	// UpsertTicketType adds a ticket type at the end of the list, or
	// sets the name and price of the one with its code.
	UpsertTicketType(t booking.TicketType) error
	// TicketTypeExists reports whether a ticket type has the code.
	TicketTypeExists(code string) (bool, error)
	// EnsurePriceList makes a price list unless it exists.
	EnsurePriceList(name string) error
	// PriceListExists reports whether a price list has the name.
	PriceListExists(name string) (bool, error)
	// UpsertPrice sets what a ticket type costs on a seat kind and list.
	UpsertPrice(e booking.PriceEntry) error
	// PutShowOnList sets the price list of a show ("" the standing
	// one); found is false when there is no such show.
	PutShowOnList(showID int64, list string) (found bool, err error)
}

// PriceReads read the price table outside a transaction.
type PriceReads interface {
	// ReadPriceTable reads the ticket types, the overrides and the price
	// lists, as of one moment. A driver may answer from a copy it drops
	// whenever a price may have changed.
	ReadPriceTable(ctx context.Context) (*booking.PriceTable, error)
}

// SetPrice adds or changes a ticket type. A changed price applies to
// sales from now on; tickets already sold keep the price they were sold
// at.
func (s *Store) SetPrice(ctx context.Context, actor booking.Actor, t booking.TicketType) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	code := strings.ToLower(strings.TrimSpace(t.Code))
	if !booking.ValidTicketTypeCode(code) {
		return booking.ErrTicketTypeCode()
	}
	name := booking.CleanLine(t.Name, 40)
	if name == "" {
		return booking.Errorf(booking.EInvalid, "A ticket type needs a name.")
	}
	if t.Price < 0 || t.Price > 100_000_00 {
		return booking.Errorf(booking.EInvalid, "A price is between 0.00 and 100000.00.")
	}
	return apply(s, ctx, actor, Write{Op: "set price"}, func(tx Tx) error {
		if err := tx.UpsertTicketType(booking.TicketType{Code: code, Name: name, Price: t.Price}); err != nil {
			return err
		}
		tx.Touch(0) // every open counter, here or on another server, reloads its prices
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditPriceChange, Amount: t.Price, Detail: code + " " + name}, 0)
	})
}

// Prices returns the whole price table: ticket types, overrides and
// price lists.
func (s *Store) Prices(ctx context.Context, actor booking.Actor) (*booking.PriceTable, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	return s.d.ReadPriceTable(ctx)
}

// TicketTypes lists the price bands, by their sort order.
func (s *Store) TicketTypes(ctx context.Context) ([]booking.TicketType, error) {
	pt, err := s.d.ReadPriceTable(ctx)
	if err != nil {
		return nil, err
	}
	return pt.Types, nil
}

// SetPriceEntry sets what a ticket type costs on a seat kind and/or a
// price list, creating the list when it is new. EInvalid for a bad entry
// or a ticket type that does not exist.
func (s *Store) SetPriceEntry(ctx context.Context, actor booking.Actor, e booking.PriceEntry) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	e.Type = strings.ToLower(strings.TrimSpace(e.Type))
	e.List = strings.ToLower(strings.TrimSpace(e.List))
	if err := e.Validate(); err != nil {
		return err
	}
	return apply(s, ctx, actor, Write{Op: "set price"}, func(tx Tx) error {
		ok, err := tx.TicketTypeExists(e.Type)
		if err != nil {
			return err
		}
		if !ok {
			return booking.Errorf(booking.EInvalid, "There is no ticket type %q; add it with its own price first.", booking.CleanLine(e.Type, 20))
		}
		if err := setPriceEntry(tx, e); err != nil {
			return err
		}
		tx.Touch(0) // every open counter, here or on another server, re-prices
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditPriceChange, Amount: e.Amount, Detail: e.Describe()}, 0)
	})
}

// setPriceEntry writes a price entry (its list's name trimmed and in
// lower case) inside tx after checking it (PriceEntry.Validate), making
// the list it names when it is new.
func setPriceEntry(tx Tx, e booking.PriceEntry) error {
	e.List = strings.ToLower(strings.TrimSpace(e.List))
	if err := e.Validate(); err != nil {
		return err
	}
	if e.List != "" {
		if err := tx.EnsurePriceList(e.List); err != nil {
			return err
		}
	}
	return tx.UpsertPrice(e)
}

// SetShowPriceList puts a show on a price list ("" for the standing one).
// ENotFound for the show, or a list nobody has set a price on.
func (s *Store) SetShowPriceList(ctx context.Context, actor booking.Actor, showID int64, list string) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	list, err := booking.ParseListName(list, true)
	if err != nil {
		return err
	}
	return apply(s, ctx, actor, Write{Op: "set show price list"}, func(tx Tx) error {
		if list != "" {
			ok, err := tx.PriceListExists(list)
			if err != nil {
				return err
			}
			if !ok {
				return booking.Errorf(booking.ENotFound, "There is no price list %q: set a price on it first.", list)
			}
		}
		found, err := tx.PutShowOnList(showID, list)
		if err != nil {
			return err
		}
		if !found {
			return ErrNoShow(showID)
		}
		tx.Touch(0) // every counter re-prices: one with this show's checkout open quotes it again
		detail := "show on the standing list"
		if list != "" {
			detail = "show on the " + list + " list"
		}
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditPriceChange, ShowID: showID, Detail: detail}, 0)
	})
}
