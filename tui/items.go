package tui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/paper"
)

// The items screen (concessions, docs/concessions.md): ctrl+n from the
// shows opens the items on sale. A clerk puts some in the basket (→ or +
// one more, ← one less, a digit that many), enter goes to the payment and
// enter on Sell sells them as one order, like a checkout: cash or card,
// the cash handed over, and the float when no shift is open. A manager
// changes the items on the same screen: a adds one, e prices it, s counts
// its stock, d takes in a delivery, r retires it. Its drawing is in
// items_view.go.

// itemsState is the items screen's state.
type itemsState struct {
	list   []booking.Item
	loaded bool
	cursor int
	qty    map[string]int // the basket: code -> how many
	seq    int

	// paying is the payment of the basket under way: its method, the
	// cash typed, the float when the sale met ErrNoShift, and the focus
	// (payFocus). key is the sale's idempotency key: one a basket, so a
	// second enter after a lost answer lands on the order the first made.
	paying          bool
	focus           payFocus
	method          booking.PayMethod
	tendered, float field
	noShift         bool
	key             string
	busy            bool
	last            *booking.ItemOrder // the order just sold

	form   *itemForm     // a manager's change under way
	retire *booking.Item // asked before: retire it? y/N
}

// payFocus is where enter is on the payment.
type payFocus int

const (
	payMethod payFocus = iota
	payTendered
	payFloat
	paySell
)

// itemsOp says what an itemsMsg answers.
type itemsOp int

const (
	itemsLoaded itemsOp = iota
	itemsSold
	itemsChanged
)

// itemsMsg is the answer of every store call of the items screen.
type itemsMsg struct {
	op    itemsOp
	seq   int
	items []booking.Item
	order *booking.ItemOrder
	info  string
	err   error
}

// openItems opens the items on sale, the basket empty.
func (m *Model) openItems() tea.Cmd {
	if booking.Authorize(m.actor(), booking.ActionSell) != nil {
		m.setError("Selling items needs a clerk.")
		return nil
	}
	m.items = itemsState{qty: map[string]int{}, method: booking.Cash, tendered: newField(10), float: newField(10)}
	m.items.tendered.accept, m.items.float.accept = isAmountRune, isAmountRune
	m.screen = screenItems
	m.setInfo("")
	return m.loadItemsCmd()
}

// mayManageItems reports whether the clerk may change the items.
func (m *Model) mayManageItems() bool {
	return m.clerk != nil && booking.Authorize(m.actor(), booking.ActionManageItems) == nil
}

func (m *Model) loadItemsCmd() tea.Cmd {
	m.items.seq++
	store, actor, seq, all := m.store, m.actor(), m.items.seq, m.mayManageItems()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		list, err := store.Items(ctx, actor, all)
		return itemsMsg{op: itemsLoaded, seq: seq, items: list, err: err}, err
	})
}

// onItems takes every answer of the items screen's store calls.
func (m *Model) onItems(msg itemsMsg) tea.Cmd {
	s := &m.items
	switch msg.op {
	case itemsLoaded:
		if msg.seq != s.seq {
			return nil
		}
		if msg.err != nil {
			m.fail(msg.err)
			return nil
		}
		s.list, s.loaded = msg.items, true
		s.cursor = min(s.cursor, max(len(s.list)-1, 0))
		return nil
	case itemsSold:
		return m.onItemsSold(msg)
	}
	s.busy = false
	if msg.err != nil {
		if s.form != nil {
			s.form.err = errorText(msg.err)
		} else {
			m.fail(msg.err)
		}
		return m.loadItemsCmd()
	}
	s.form = nil
	m.setInfo(msg.info)
	return m.loadItemsCmd()
}

// itemsScreen is the screen's contract.
type itemsScreen struct{}

func (itemsScreen) focus(m *Model) *field {
	s := &m.items
	switch {
	case s.busy:
		return nil
	case s.form != nil:
		return &s.form.fields[s.form.focus].f
	case s.paying && s.focus == payTendered:
		return &s.tendered
	case s.paying && s.focus == payFloat:
		return &s.float
	}
	return nil
}

// changed reads the items again after any commit: a sale at another
// counter may have taken the last of one.
func (itemsScreen) changed(m *Model, _ booking.ShowChanged) tea.Cmd {
	if m.items.busy {
		return nil
	}
	return m.loadItemsCmd()
}

func (itemsScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	s := &m.items
	switch {
	case s.busy:
		return nil // the answer to the first enter is on its way
	case s.retire != nil:
		return m.retireKey(msg)
	case s.form != nil:
		return m.itemFormKey(msg)
	case s.paying:
		return m.payKey(msg)
	}
	return m.basketKey(msg)
}

// basketKey answers the list: move, change how many, pay, and a
// manager's changes.
func (m *Model) basketKey(msg tea.KeyPressMsg) tea.Cmd {
	s, k := &m.items, m.keys
	var it *booking.Item
	if s.cursor < len(s.list) {
		it = &s.list[s.cursor]
	}
	switch {
	case key.Matches(msg, k.Back):
		return m.goBack(screenShows)
	case key.Matches(msg, k.Up):
		s.cursor = max(s.cursor-1, 0)
	case key.Matches(msg, k.Down):
		s.cursor = min(s.cursor+1, max(len(s.list)-1, 0))
	case it != nil && !it.Retired && (key.Matches(msg, k.NextDay) || key.Matches(msg, k.Extend)):
		s.setQty(it.Code, s.qty[it.Code]+1)
	case it != nil && (key.Matches(msg, k.PrevDay) || msg.String() == "-"):
		s.setQty(it.Code, s.qty[it.Code]-1)
	case it != nil && !it.Retired && key.Matches(msg, k.Count):
		s.setQty(it.Code, digit(msg))
	case key.Matches(msg, k.Open):
		return m.startPaying()
	case m.mayManageItems():
		return m.manageItemKey(msg, it)
	}
	return nil
}

// setQty puts n of code in the basket (0 takes it out), within
// booking.MaxItemQty; a new basket is a new sale, with a key of its own.
func (s *itemsState) setQty(code string, n int) {
	n = min(max(n, 0), booking.MaxItemQty)
	if n == 0 {
		delete(s.qty, code)
	} else {
		s.qty[code] = n
	}
	s.key = ""
}

// basket is the lines of the basket, and their total at the prices on
// screen; ok is false when the basket is empty.
func (s *itemsState) basket() (lines []booking.ItemLine, total booking.Money, ok bool) {
	for _, it := range s.list {
		if n := s.qty[it.Code]; n > 0 {
			lines = append(lines, booking.ItemLine{Code: it.Code, Qty: n})
			total += booking.Money(n) * it.Price
		}
	}
	return lines, total, len(lines) > 0
}

// startPaying opens the payment of the basket, on the cash typed: with
// exact money a sale is enter, enter.
func (m *Model) startPaying() tea.Cmd {
	s := &m.items
	if _, _, ok := s.basket(); !ok {
		m.setError("Put something in the basket first: → or + adds one of the item under the cursor.")
		return nil
	}
	s.paying, s.focus, s.noShift = true, payTendered, false
	if s.method == booking.Card {
		s.focus = paySell
	}
	if s.key == "" {
		var b [8]byte
		rand.Read(b[:])
		s.key = "items-" + hex.EncodeToString(b[:])
	}
	m.setInfo("")
	return nil
}

// payKey answers the payment: the method, the cash, the float, Sell.
func (m *Model) payKey(msg tea.KeyPressMsg) tea.Cmd {
	s, k := &m.items, m.keys
	switch {
	case key.Matches(msg, k.Back):
		s.paying = false
		m.setInfo("Back to the basket; nothing was sold.")
	case key.Matches(msg, k.Confirm):
		return m.payEnter()
	case key.Matches(msg, k.NextField):
		s.moveFocus(1)
	case key.Matches(msg, k.PrevField):
		s.moveFocus(-1)
	case s.focus == payMethod && key.Matches(msg, k.Method):
		if s.method == booking.Cash {
			s.method = booking.Card
		} else {
			s.method = booking.Cash
		}
	default:
		if f := (itemsScreen{}).focus(m); f != nil {
			f.key(msg, &m.keys)
		}
	}
	return nil
}

// payFocuses are the payment's stops in order: the cash only for cash,
// the float only once the sale met ErrNoShift.
func (s *itemsState) payFocuses() []payFocus {
	out := []payFocus{payMethod}
	if s.method == booking.Cash {
		out = append(out, payTendered)
		if s.noShift {
			out = append(out, payFloat)
		}
	}
	return append(out, paySell)
}

func (s *itemsState) moveFocus(d int) { s.focus = nextStop(s.payFocuses(), s.focus, d) }

// nextStop is the stop d places from at in stops, round the end; from the
// first when at is not among them.
func nextStop[T comparable](stops []T, at T, d int) T {
	i := max(slices.Index(stops, at), 0)
	return stops[(i+d%len(stops)+len(stops))%len(stops)]
}

// payEnter moves down the payment and sells only on Sell.
func (m *Model) payEnter() tea.Cmd {
	s := &m.items
	switch s.focus {
	case paySell:
		return m.sellItemsCmd()
	case payTendered:
		if _, err := m.itemsTendered(); err != nil {
			m.fail(err)
			return nil
		}
		if s.noShift {
			s.focus = payFloat
			return nil
		}
		s.focus = paySell
	case payFloat:
		if _, err := typedFloat(&s.float); err != nil {
			m.fail(err)
			return nil
		}
		s.focus = paySell
	default:
		s.moveFocus(1)
	}
	return nil
}

// itemsTendered is the cash typed, 0 for exact money or a card.
func (m *Model) itemsTendered() (booking.Money, error) {
	s := &m.items
	if s.method != booking.Cash || s.tendered.Empty() {
		return 0, nil
	}
	t, err := booking.ParseMoney(s.tendered.String())
	if err != nil {
		return 0, booking.Errorf(booking.EInvalid, "Type the cash handed over, like 20 or 20.50.")
	}
	if _, total, _ := s.basket(); t < total {
		return 0, booking.Errorf(booking.EInvalid, "%s is less than the total %s.", t.String(), total.String())
	}
	return t, nil
}

// sellItemsCmd sells the basket at the total on screen: the store sells
// at that total or refuses with the new one.
func (m *Model) sellItemsCmd() tea.Cmd {
	s := &m.items
	lines, total, ok := s.basket()
	tendered, err := m.itemsTendered()
	if !ok || err != nil {
		m.fail(cmpErr(err, "The basket is empty."))
		return nil
	}
	req := booking.ItemSaleRequest{Lines: lines, IdempotencyKey: s.key, Method: s.method, Tendered: tendered, ExpectedTotal: total, CheckTotal: true}
	if s.noShift && s.method == booking.Cash {
		float, err := typedFloat(&s.float)
		if err != nil {
			s.focus = payFloat
			m.fail(err)
			return nil
		}
		req.OpenFloat = &float
	}
	s.busy = true
	m.setInfo("Selling…")
	store, actor := m.store, m.actor()
	return m.money(func(ctx context.Context) (tea.Msg, error) {
		o, err := store.SellItems(ctx, actor, req)
		return itemsMsg{op: itemsSold, order: o, err: err}, err
	})
}

// floatAsk is said by a payment that met ErrNoShift and asks for the
// float on its own screen (the items, the gift cards): the sale opens the
// shift with it, in its own transaction.
const floatAsk = "Open a shift first: type the float counted into the drawer; the sale opens it."

// floatNote is drawn beside such a Float field.
const floatNote = "opens your shift with the sale"

// typedFloat is the float typed in f: nothing typed asks for it, and
// what is not an amount says why, in ParseMoney's words. Its bounds are
// the request's (booking checks OpenFloat in Validate).
func typedFloat(f *field) (booking.Money, error) {
	if f.Empty() {
		return 0, booking.Errorf(booking.EInvalid, "Type the float counted into the drawer, like 100.")
	}
	return booking.ParseMoney(f.String())
}

// cmpErr is err, or one saying text when err is nil.
func cmpErr(err error, text string) error {
	if err != nil {
		return err
	}
	return booking.Errorf(booking.EInvalid, "%s", text)
}

// onItemsSold ends the sale: a new basket and the receipt printed, or
// the refusal said where it can be put right.
func (m *Model) onItemsSold(msg itemsMsg) tea.Cmd {
	s := &m.items
	s.busy = false
	var changed *booking.PriceChangedError
	switch err := msg.err; {
	case err == nil:
	case errors.As(err, &changed):
		m.fail(err)
		s.focus = paySell
		return m.loadItemsCmd()
	case booking.IsNoShift(err):
		s.noShift, s.method, s.focus = true, booking.Cash, payFloat
		m.setError(floatAsk)
		return nil
	case booking.ErrorCode(err) == booking.EConflict || booking.ErrorCode(err) == booking.ENotFound:
		// Sold out or retired meanwhile: nothing was sold; the basket
		// is the clerk's to change.
		s.paying = false
		m.fail(err)
		return m.loadItemsCmd()
	default:
		m.fail(err)
		return nil
	}
	o := msg.order
	s.last, s.paying, s.qty, s.key = o, false, map[string]int{}, ""
	s.tendered.Reset()
	s.float.Reset()
	change := ""
	if o.Method() == booking.Cash {
		change = ", change " + o.Change().String()
	}
	m.setInfo(fmt.Sprintf("Sold %s: %s %s%s.", o.Number, o.Total.String(), o.Method(), change))
	return tea.Batch(m.loadItemsCmd(), m.printAlone("receipt", receiptJob(paper.ItemSaleReceipt(o))))
}

// manageItemKey answers a manager's keys on the list.
func (m *Model) manageItemKey(msg tea.KeyPressMsg, it *booking.Item) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.MgrAdd):
		m.openItemForm("Add an item", "Stock empty: sold without a count.", m.addItemSubmit,
			textField("Code", booking.MaxItemCode, ""), textField("Name", booking.MaxItemName, ""),
			textField("Price", 10, ""), textField("Stock", 8, ""), textField("Category", booking.MaxItemCategory, ""))
	case it == nil || it.Retired:
		return nil
	case key.Matches(msg, k.MgrEdit):
		m.openItemForm("Price of "+booking.CleanLine(it.Name, 40), "Orders made keep their price.", m.priceItemSubmit(it.Code),
			textField("Price", 10, it.Price.String()))
	case key.Matches(msg, k.MgrSetPrice):
		m.openItemForm("Stock-take of "+booking.CleanLine(it.Name, 40), "The count found; unlimited for none. Audited with the difference.",
			m.stockItemSubmit(it.Code, false), textField("Counted", 9, it.StockText()), textField("Reason", 200, "stock-take"))
	case key.Matches(msg, k.MgrDisable):
		m.openItemForm("Delivery of "+booking.CleanLine(it.Name, 40), "How many came in: added to the stock.",
			m.stockItemSubmit(it.Code, true), textField("Added", 7, ""), textField("Reason", 200, "delivery"))
	case key.Matches(msg, k.MgrRetire):
		m.items.retire = it
	}
	return nil
}

// retireKey answers "retire it? y/N": only y does.
func (m *Model) retireKey(msg tea.KeyPressMsg) tea.Cmd {
	s := &m.items
	it := s.retire
	s.retire = nil
	if !key.Matches(msg, m.keys.MgrYes) {
		m.setInfo("Nothing changed.")
		return nil
	}
	store, actor := m.busyItems()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		_, err := store.RetireItem(ctx, actor, it.Code)
		return changedItems(booking.CleanLine(it.Name, 40)+" is off sale.", err)
	})
}

// busyItems marks a manager's change under way and returns who makes it
// where.
func (m *Model) busyItems() (Backend, booking.Actor) {
	m.items.busy = true
	return m.store, m.actor()
}

// changedItems is the answer to a manager's change: info says what was
// done.
func changedItems(info string, err error) (tea.Msg, error) {
	return itemsMsg{op: itemsChanged, info: info, err: err}, err
}

func (m *Model) addItemSubmit(vals []string) (tea.Cmd, error) {
	price, err := booking.ParseMoney(vals[2])
	if err != nil {
		return nil, err
	}
	it := booking.Item{Code: vals[0], Name: vals[1], Price: price, Category: vals[4]}
	if strings.TrimSpace(vals[3]) != "" {
		if it.Stock, err = booking.ParseItemStock(vals[3]); err != nil {
			return nil, err
		}
	}
	if it, err = booking.ValidItem(it); err != nil {
		return nil, err
	}
	store, actor := m.busyItems()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		added, err := store.AddItem(ctx, actor, it)
		if err != nil {
			return changedItems("", err)
		}
		return changedItems(fmt.Sprintf("Added %s at %s, stock %s.", added.Code, added.Price.String(), added.StockText()), nil)
	}), nil
}

func (m *Model) priceItemSubmit(code string) itemSubmit {
	return func(vals []string) (tea.Cmd, error) {
		price, err := booking.ParseMoney(vals[0])
		if err != nil {
			return nil, err
		}
		store, actor := m.busyItems()
		return m.call(func(ctx context.Context) (tea.Msg, error) {
			it, err := store.SetItemPrice(ctx, actor, code, price)
			if err != nil {
				return changedItems("", err)
			}
			return changedItems(fmt.Sprintf("%s now costs %s.", booking.CleanLine(it.Name, 40), it.Price.String()), nil)
		}), nil
	}
}

func (m *Model) stockItemSubmit(code string, restock bool) itemSubmit {
	return func(vals []string) (tea.Cmd, error) {
		n, err := booking.ParseItemStock(vals[0])
		if err != nil {
			return nil, err
		}
		req := booking.StockRequest{Code: code, N: n, Reason: vals[1]}
		if err := req.Validate(restock); err != nil {
			return nil, err
		}
		store, actor := m.busyItems()
		return m.call(func(ctx context.Context) (tea.Msg, error) {
			var c *booking.StockChange
			var err error
			if restock {
				c, err = store.Restock(ctx, actor, req)
			} else {
				c, err = store.StockTake(ctx, actor, req)
			}
			if err != nil {
				return changedItems("", err)
			}
			return changedItems(stockInfo(c), nil)
		}), nil
	}
}

// stockInfo says an item's stock after a change: "Popcorn: stock 47, was
// 50 (-3)."
func stockInfo(c *booking.StockChange) string {
	info := fmt.Sprintf("%s: stock %s, was %s", booking.CleanLine(c.Item.Name, 40), c.Item.StockText(), booking.StockText(c.Was))
	if c.Was != nil && c.Item.Stock != nil {
		info += fmt.Sprintf(" (%+d)", c.Difference())
	}
	return info + "."
}
