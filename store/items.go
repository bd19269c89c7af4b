package store

import (
	"context"

	"boxoffice/booking"
)

// Concessions (booking/items.go): the items, their stock, and their sale
// at the counter. Stock never goes below zero under any concurrency: a
// sale takes each line off its item's stock by one guarded statement
// (TakeStock: "… SET stock = stock - n WHERE … stock >= n"), which the
// engine runs on the newest version of the row whoever else is selling,
// and the schema's CHECK (stock >= 0) refuses whatever slips past the Go
// code. A sale whose guard refuses a line writes nothing: the whole
// transaction rolls back. A refund moves each line to refunded by
// compare-and-set before its stock and money go back, so they go back
// once.

// ItemsTx is what the concessions ask of a transaction.
type ItemsTx interface {
	// TakeStock takes qty of the item with code off its stock in one
	// guarded statement, when the item is on sale and has at least qty
	// left (an item without a count keeps none), and returns the item as
	// it is now. ok is false, and nothing changed, when no item on sale
	// with that code has qty left, or none has the code.
	TakeStock(code string, qty int) (it booking.Item, ok bool, err error)
	// ItemByCode reads an item; found is false when no item has the code.
	ItemByCode(code string) (it booking.Item, found bool, err error)
	// ItemForUpdate is ItemByCode with the item's row locked, so a
	// stock-take, a restock or a price change and the item's sales take
	// turns and each reads what the one before committed.
	ItemForUpdate(code string) (it booking.Item, found bool, err error)
	// InsertItem adds an item at the transaction's time; ok is false, and
	// nothing is written, when its code is taken.
	InsertItem(it booking.Item) (id int64, ok bool, err error)
	// SetItemStock sets an item's stock (nil: unlimited).
	SetItemStock(itemID int64, stock *int) error
	// ReturnStock puts n back on an item's stock; an item without a count
	// keeps none.
	ReturnStock(itemID int64, n int) error
	// SetItemPrice sets an item's price.
	SetItemPrice(itemID int64, price booking.Money) error
	// RetireItem takes an item off sale by compare-and-set; false when it
	// was retired already.
	RetireItem(itemID int64) (bool, error)

	// KeyedItemOrder finds the order an idempotency key made; found is
	// false when none did.
	KeyedItemOrder(key string) (id int64, found bool, err error)
	// InsertItemOrder writes an order at the transaction's time and
	// returns its id. The engine refuses a second order of one key.
	InsertItemOrder(o ItemOrderRow) (int64, error)
	// InsertItemLine writes one line of an order and returns its id.
	InsertItemLine(orderID int64, l ItemLineRow) (int64, error)
	// InsertItemPayment writes one payment of an order at the
	// transaction's time. The engine refuses a second sale payment of an
	// order, a second refund of a line, and cash that no open shift of
	// its person takes.
	InsertItemPayment(p ItemPaymentRow) (int64, error)
	// ItemOrderForUpdate reads the order with number and how it was paid,
	// its row locked, so the refunds of one order take turns (on any
	// server) and each reads what the one before committed; found is
	// false when no order has the number.
	ItemOrderForUpdate(number string) (o ItemOrderRow, found bool, err error)
	// ItemOrderLines reads an order's lines in id order as they are now.
	ItemOrderLines(orderID int64) ([]ItemLineRow, error)
	// RefundItemLine marks a line refunded at the transaction's time by
	// compare-and-set; false when it was refunded already.
	RefundItemLine(lineID int64) (bool, error)
}

// ItemReads are the reads of items and orders outside a transaction.
type ItemReads interface {
	// ReadItems lists the items by code: the retired ones too when all.
	ReadItems(ctx context.Context, all bool) ([]booking.Item, error)
	// ReadItemOrder reads an order with its lines and payments (each in
	// id order) in one snapshot; found is false when there is no such
	// order.
	ReadItemOrder(ctx context.Context, id int64) (o *booking.ItemOrder, found bool, err error)
	// ItemOrderIDByNumber finds an order by its (normalized) number;
	// ItemOrderIDByKey the order an idempotency key made. found is false
	// when none.
	ItemOrderIDByNumber(ctx context.Context, number string) (id int64, found bool, err error)
	ItemOrderIDByKey(ctx context.Context, key string) (id int64, found bool, err error)
	// ItemTakings adds up the item payments taken in [w.From, w.To) at
	// w.Site by the category of their lines and their kind, in one
	// snapshot: a row a category and kind, in any order.
	ItemTakings(ctx context.Context, w ReportWindow) ([]ItemTallyRow, error)
	// ShiftItems adds up a shift's item payments the same way.
	ShiftItems(ctx context.Context, shiftID int64) ([]ItemTallyRow, error)
}

// ItemTallyRow is what the items of one category took by one kind of
// payment: sales (the lines of the orders sold) or refunds (the lines
// refunded).
type ItemTallyRow struct {
	Category string
	Kind     booking.PaymentKind
	Qty      int
	Sum      booking.Money
}

// ItemOrderRow is an order as a driver writes and an unwind reads it.
type ItemOrderRow struct {
	ID     int64
	Number string
	Key    string
	// BookingID is the ticket sale the order was sold with; 0 for items
	// sold alone.
	BookingID       int64
	Total           booking.Money
	Staff, Terminal string
	// Site is where it was sold (the actor's, else the main site); an
	// engine with one site keeps none.
	Site int64
	// Method is how it was paid, as ItemOrderForUpdate reads it.
	Method booking.PayMethod
}

// ItemLineRow is one line of an order: the item as it was sold.
type ItemLineRow struct {
	ID, ItemID           int64
	Code, Name, Category string
	Qty                  int
	Price                booking.Money // each
	Refunded             bool          // as ItemOrderLines reads it
}

// amount is the line's money.
func (l ItemLineRow) amount() booking.Money { return booking.Money(l.Qty) * l.Price }

// ItemPaymentRow is one payment of an order as a driver writes it.
type ItemPaymentRow struct {
	OrderID          int64
	LineID           int64 // the line a refund is for; 0 for the sale
	Kind             booking.PaymentKind
	Method           booking.PayMethod
	Amount           booking.Money
	Tendered, Change booking.Money // cash handed over and given back, for a cash sale
	Staff, Terminal  string
	ShiftID          int64 // 0: none
	ApprovedBy       string
}

// Items lists the items by code.
func (s *Store) Items(ctx context.Context, actor booking.Actor, all bool) ([]booking.Item, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return nil, err
	}
	return s.d.ReadItems(ctx, all)
}

// AddItem adds an item.
func (s *Store) AddItem(ctx context.Context, actor booking.Actor, it booking.Item) (*booking.Item, error) {
	if err := booking.Authorize(actor, booking.ActionManageItems); err != nil {
		return nil, err
	}
	it, err := booking.ValidItem(it)
	if err != nil {
		return nil, err
	}
	it.Retired = false
	return write(s, ctx, actor, Write{Op: "add item"}, func(tx Tx) (*booking.Item, error) {
		id, ok, err := tx.InsertItem(it)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, booking.Errorf(booking.EConflict, "An item %s exists already.", it.Code)
		}
		it.ID = id
		detail := it.Code + " added: " + it.Name + ", " + it.Price.String() + ", stock " + it.StockText()
		return &it, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditItemChange, Detail: detail}, 0)
	})
}

// lockItem reads and locks the item with code; ENotFound when there is
// none.
func lockItem(tx Tx, code string) (booking.Item, error) {
	it, found, err := tx.ItemForUpdate(code)
	if err == nil && !found {
		err = booking.ErrNoItem(code)
	}
	return it, err
}

// SetItemPrice changes an item's price.
func (s *Store) SetItemPrice(ctx context.Context, actor booking.Actor, code string, price booking.Money) (*booking.Item, error) {
	if err := booking.Authorize(actor, booking.ActionManageItems); err != nil {
		return nil, err
	}
	code, err := booking.ParseItemCode(code)
	if err != nil {
		return nil, err
	}
	if _, err := booking.ValidItem(booking.Item{Code: code, Name: code, Price: price}); err != nil {
		return nil, err
	}
	return write(s, ctx, actor, Write{Op: "item price"}, func(tx Tx) (*booking.Item, error) {
		it, err := lockItem(tx, code)
		if err != nil {
			return nil, err
		}
		was := it.Price
		if err := tx.SetItemPrice(it.ID, price); err != nil {
			return nil, err
		}
		it.Price = price
		detail := code + " price " + was.String() + " -> " + price.String()
		return &it, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditItemChange, Amount: price, Detail: detail}, 0)
	})
}

// StockTake sets an item's stock to the count found.
func (s *Store) StockTake(ctx context.Context, actor booking.Actor, req booking.StockRequest) (*booking.StockChange, error) {
	return s.changeStock(ctx, actor, req, false)
}

// Restock adds to an item's stock.
func (s *Store) Restock(ctx context.Context, actor booking.Actor, req booking.StockRequest) (*booking.StockChange, error) {
	return s.changeStock(ctx, actor, req, true)
}

// changeStock is a stock-take (the count found) or a restock (n more) of
// the item, read locked first: sales of it meanwhile wait, and the
// difference audited is the one this change made.
func (s *Store) changeStock(ctx context.Context, actor booking.Actor, req booking.StockRequest, restock bool) (*booking.StockChange, error) {
	if err := booking.Authorize(actor, booking.ActionManageItems); err != nil {
		return nil, err
	}
	if err := req.Validate(restock); err != nil {
		return nil, err
	}
	code, _ := booking.ParseItemCode(req.Code)
	reason := booking.CleanLine(req.Reason, 200)
	return write(s, ctx, actor, Write{Op: "item stock"}, func(tx Tx) (*booking.StockChange, error) {
		it, err := lockItem(tx, code)
		if err != nil {
			return nil, err
		}
		now := req.N
		if restock {
			if it.Stock == nil {
				return nil, booking.Errorf(booking.EInvalid, "%s has no stock count: count it first (a stock-take).", it.Name)
			}
			if *it.Stock+*req.N > booking.MaxItemStock {
				return nil, booking.Errorf(booking.EInvalid, "%s would have more than %d.", it.Name, booking.MaxItemStock)
			}
			n := *it.Stock + *req.N
			now = &n
		}
		if err := tx.SetItemStock(it.ID, now); err != nil {
			return nil, err
		}
		c := &booking.StockChange{Item: it, Was: it.Stock}
		c.Item.Stock = now
		detail := booking.StockDetail(code, it.Stock, now, reason)
		return c, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditStockChange, Detail: detail}, 0)
	})
}

// RetireItem takes an item off sale for good.
func (s *Store) RetireItem(ctx context.Context, actor booking.Actor, code string) (*booking.Item, error) {
	if err := booking.Authorize(actor, booking.ActionManageItems); err != nil {
		return nil, err
	}
	code, err := booking.ParseItemCode(code)
	if err != nil {
		return nil, err
	}
	return write(s, ctx, actor, Write{Op: "retire item"}, func(tx Tx) (*booking.Item, error) {
		it, err := lockItem(tx, code)
		if err != nil {
			return nil, err
		}
		ok, err := tx.RetireItem(it.ID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, booking.Errorf(booking.EConflict, "%s is retired already.", it.Name)
		}
		it.Retired = true
		return &it, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditItemChange, Detail: code + " retired"}, 0)
	})
}
