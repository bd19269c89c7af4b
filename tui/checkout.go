package tui

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// checkoutState is the sale of the seats held: a ticket type per seat,
// payment and an optional customer, then an explicit Sell step.
type checkoutState struct {
	// hold is the hold being sold and key its idempotency key, the same
	// for every try (see checkoutKey): a double enter, a retry after an
	// error or a checkout resumed after a dropped connection lands on one
	// booking.
	hold   int64
	key    string
	seats  []booking.Seat
	types  map[string]string // seat label -> ticket type code
	focus  int               // 0..len(seats)-1 seat rows, then the fields below
	method booking.PayMethod

	tendered, name, phone field
	// voucher and items are what the sale carries beside its seats: a
	// voucher code and items typed as popcorn:2 cola (saleextras.go).
	voucher, items field
	busy           bool
	tries          int
	// lapsed is set when the hold ran out (or was let go) with the form
	// open: enter then takes the same seats again instead of selling.
	lapsed bool
	// quote is the store's last word on what the seats cost (quote.go).
	quote *booking.Quote

	// openFloat is the float typed when the sale met ErrNoShift: the sale
	// goes again carrying it, and the shift opens with the sale.
	openFloat *booking.Money
	// customer is the account the sale is for (customer.go), nil for
	// none.
	customer *booking.Customer

	// gift is the gift card's number while it is asked (giftOn), giftCard
	// the card taken: it pays first (checkout_giftcard.go).
	gift     field
	giftOn   bool
	giftCard string
	// part is the card part's amount while it is asked (partOn),
	// cardPart the part taken: paid by card, the rest in cash
	// (checkout_split.go).
	part     field
	partOn   bool
	cardPart booking.Money
}

// Checkout focus positions after the seat rows, counted from len(seats).
// enter moves down the form; only enter on focusSell sells.
const (
	focusMethod = iota
	focusTendered
	focusName
	focusPhone
	focusVoucher
	focusItems
	focusSell
	numFocus
)

type checkoutMsg struct {
	key     string
	booking *booking.Booking
	err     error
}

// reheldMsg answers holdAgainCmd: the seats of a lapsed checkout held anew.
type reheldMsg struct {
	key  string // the checkout it belongs to
	hold *booking.Hold
	err  error
}

// checkoutKey is the idempotency key of the sale of one hold. A hold is
// confirmed at most once, so one key per hold is enough, and deriving it
// rather than making it up means a session that takes over a dropped one's
// owner (the SSH server's reconnect) sends the key the dropped session
// sent, and lands on the booking it may already have made. The owner is
// unique per session and hold ids are unique in the store, so the key
// names one hold only.
func checkoutKey(owner string, holdID int64) string {
	return owner + "/hold-" + strconv.FormatInt(holdID, 10)
}

// openCheckout starts the sale of the seats held, under the key of their
// hold.
func (m *Model) openCheckout() tea.Cmd {
	mine := m.seats.mine()
	hold := m.seats.holdID
	if hold == 0 && len(mine) > 0 && m.seats.sm != nil {
		hold = m.seats.sm.HoldID[mine[0].ID]
	}
	c := checkoutState{
		hold:     hold,
		key:      checkoutKey(m.opts.Owner, hold),
		seats:    mine,
		method:   booking.Cash,
		tendered: newField(10),
		name:     newField(60),
		phone:    newField(24),
		voucher:  newField(booking.MaxVoucherCode),
		items:    newField(maxItemsText),
	}
	c.voucher.accept, c.items.accept = isCodeRune, isItemsRune
	c.tendered.accept = isAmountRune
	c.phone.accept = isPhoneRune
	// The party typed on the map puts its types on the seats.
	c.types = m.partyTypes(mine, m.defaultType())
	// Start on the tendered amount: with adult tickets and cash, a sale
	// is the amount (or nothing, for exact money), enter to Sell, enter.
	c.focus = len(mine) + focusTendered
	if m.prices != nil {
		// The figures from the prices this counter holds, at once; the
		// store's quote, asked for below, has the last word.
		c.quote = &booking.Quote{ShowID: m.seats.show.ID, List: m.seats.show.PriceList, Table: m.prices}
	}
	m.checkout = c
	m.screen = screenCheckout
	m.setInfo("")
	return tea.Batch(m.ensureTick(), m.quoteCmd(), m.cinemaCmd())
}

// defaultType is adult, or the first type when there is no adult.
func (m *Model) defaultType() string {
	for _, t := range m.types {
		if t.Code == "adult" {
			return t.Code
		}
	}
	if len(m.types) > 0 {
		return m.types[0].Code
	}
	return "adult"
}

func (m *Model) typeByCode(code string) (booking.TicketType, bool) {
	for _, t := range m.types {
		if t.Code == code {
			return t, true
		}
	}
	return booking.TicketType{}, false
}

func (c *checkoutState) focusedField() *field {
	if c.busy {
		return nil
	}
	if c.giftOn {
		return &c.gift
	}
	if c.partOn {
		return &c.part
	}
	switch c.focus - len(c.seats) {
	case focusTendered:
		if c.method == booking.Cash {
			return &c.tendered
		}
	case focusName:
		return &c.name
	case focusPhone:
		return &c.phone
	case focusVoucher:
		return &c.voucher
	case focusItems:
		return &c.items
	}
	return nil
}

// checkoutScreen is the checkout (see checkoutState); its drawing is in
// checkout_view.go.
type checkoutScreen struct{}

func (checkoutScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	c := &m.checkout
	k := m.keys
	if c.busy {
		// Enter again while the sale is under way does nothing: the
		// answer to the first is on its way.
		return nil
	}
	if cmd, ok := m.idKey(msg); ok {
		return cmd // the one key of the ID check (idcheck.go)
	}
	rel := c.focus - len(c.seats)
	switch {
	case c.giftOn:
		return m.giftCardKey(msg)
	case c.partOn:
		return m.cardPartKey(msg)
	case key.Matches(msg, k.GiftCards):
		m.askCheckoutGiftCard()
	case key.Matches(msg, k.CardPart):
		m.askCardPart()
	case key.Matches(msg, k.Back):
		return m.backToSeats()
	case key.Matches(msg, k.Confirm):
		return m.checkoutEnter()
	case key.Matches(msg, k.Account) && !c.lapsed:
		return m.openCustomer()
	case key.Matches(msg, k.NextField):
		c.moveFocus(1)
	case key.Matches(msg, k.PrevField):
		c.moveFocus(-1)
	case key.Matches(msg, k.Extend) && rel != focusPhone:
		// + extends here too (the form stays as it is); in Phone it is
		// the international prefix.
		return m.extend()
	case !c.typing() && key.Matches(msg, k.SaleItems):
		c.focus = len(c.seats) + focusItems
	case rel < 0 && key.Matches(msg, k.CycleType):
		m.cycleType(c.seats[c.focus].Label, key.Matches(msg, k.PrevType))
	case !c.typing() && key.Matches(msg, k.PayCard):
		// One key to a card sale's Sell button (the sale itself is
		// still enter there); again, back to cash and the amount.
		if c.method == booking.Cash {
			c.method, c.focus = booking.Card, len(c.seats)+focusSell
		} else {
			c.method, c.focus = booking.Cash, len(c.seats)+focusTendered
		}
	case rel == focusMethod && key.Matches(msg, k.Method):
		if c.method == booking.Cash {
			c.method = booking.Card
		} else {
			c.method = booking.Cash
		}
	default:
		if f := c.focusedField(); f != nil {
			f.key(msg, &m.keys)
		}
	}
	return nil
}

func (checkoutScreen) focus(m *Model) *field { return m.checkout.focusedField() }

// back brings find and the door opened from the checkout back to it while
// its seats are held.
func (checkoutScreen) back(m *Model) screen {
	if m.heldCount() > 0 {
		return screenCheckout
	}
	return screenShows
}

// moveFocus steps through the form, past Tendered when paying by card.
func (c *checkoutState) moveFocus(d int) {
	n := len(c.seats) + numFocus
	c.focus = (c.focus + d + n) % n
	if c.focus-len(c.seats) == focusTendered && c.method == booking.Card {
		c.focus = (c.focus + d + n) % n
	}
}

// checkoutEnter is enter on the checkout. It moves down the form — from
// Tendered (or the payment, for a card) straight to Sell, from Customer to
// Phone to Sell — and sells only on Sell: a name typed and enter never
// sells, while an untouched checkout still sells with enter, enter (exact
// money). On a lapsed hold it takes the seats again instead.
func (m *Model) checkoutEnter() tea.Cmd {
	c := &m.checkout
	if c.lapsed {
		return m.holdAgainCmd()
	}
	sell := len(c.seats) + focusSell
	switch rel := c.focus - len(c.seats); {
	case rel == focusSell:
		return m.confirmSale()
	case rel == focusTendered:
		if _, err := m.tendered(); err != nil {
			m.fail(err)
			return nil
		}
		c.focus = sell
	case rel == focusMethod && c.method == booking.Card, rel == focusPhone, rel == focusVoucher:
		c.focus = sell
	case rel == focusItems:
		if _, err := c.saleItems(); err != nil {
			m.fail(err)
			return nil
		}
		c.focus = sell
	case rel == focusMethod, rel == focusName:
		c.moveFocus(1)
	case c.focus == len(c.seats)-1:
		c.focus = len(c.seats) + focusTendered
		if c.method == booking.Card {
			c.focus = sell
		}
	default:
		c.focus++
	}
	return nil
}

// tendered is the cash typed, 0 for exact money (or a card), refused
// when it is not an amount or short of the total.
func (m *Model) tendered() (booking.Money, error) {
	c := &m.checkout
	if c.method != booking.Cash || c.tendered.Empty() {
		return 0, nil
	}
	t, err := booking.ParseMoney(c.tendered.String())
	if err != nil {
		return 0, booking.Errorf(booking.EInvalid, "Type the cash handed over, like 20 or 20.50.")
	}
	if total, ok := m.total(); ok && t < total-c.cardPartOf() && !c.extras() && c.giftCard == "" {
		return 0, booking.Errorf(booking.EInvalid, "%s is less than the total %s.", t.String(), total.String())
	}
	return t, nil
}

// backToSeats returns to the map, saying honestly whether the hold is
// still there.
func (m *Model) backToSeats() tea.Cmd {
	m.screen = screenSeatMap
	if m.checkout.lapsed || len(m.seats.mine()) == 0 {
		m.setError("Back to the seats: the hold had run out; choose them again.")
	} else {
		m.setInfo("Back to the seats; the hold is kept.")
	}
	return m.loadSeatMapCmd()
}

// cycleType moves a seat to the next (or previous) ticket type.
func (m *Model) cycleType(label string, back bool) {
	if len(m.types) == 0 {
		return
	}
	cur := 0
	for i, t := range m.types {
		if t.Code == m.checkout.types[label] {
			cur = i
		}
	}
	d := 1
	if back {
		d = len(m.types) - 1
	}
	m.checkout.types[label] = m.types[(cur+d)%len(m.types)].Code
}

// confirmSale sends the checkout with the total on screen: the store sells
// at that total or refuses with the new one. The hold and its key are the
// ones the screen opened with, however many times this runs.
func (m *Model) confirmSale() tea.Cmd {
	c := &m.checkout
	if m.askID() {
		return nil // the sale goes once the clerk answers yes (idcheck.go)
	}
	total, ok := m.total()
	if !ok {
		m.setError("Ticket prices are not loaded yet.")
		return tea.Batch(m.loadTypesCmd(), m.quoteCmd())
	}
	tendered, err := m.tendered()
	if err != nil {
		m.fail(err)
		c.focus = len(c.seats) + focusTendered
		return nil
	}
	types := make(map[string]string, len(c.types))
	for k, v := range c.types {
		types[k] = v
	}
	req := booking.CheckoutRequest{
		HoldID:         c.hold,
		Owner:          m.opts.Owner,
		IdempotencyKey: c.key,
		Types:          types,
		Customer:       booking.CleanLine(c.name.String(), 60),
		Phone:          booking.CleanLine(c.phone.String(), 24),
		Method:         c.method,
		Tendered:       tendered,
		ExpectedTotal:  total,
		CheckTotal:     true,
		OpenFloat:      c.openFloat,
		CustomerID:     c.customerID(),
	}
	if req.Items, err = c.saleItems(); err != nil {
		m.fail(err)
		c.focus = len(c.seats) + focusItems
		return nil
	}
	req.Voucher = strings.TrimSpace(c.voucher.String())
	req = m.withCardPart(m.withGiftCard(req))
	c.busy = true
	c.tries++
	m.setInfo("Selling…")
	store, actor := m.store, m.actor()
	return m.money(func(ctx context.Context) (tea.Msg, error) {
		b, err := store.Checkout(ctx, actor, req)
		return checkoutMsg{key: req.IdempotencyKey, booking: b, err: err}, err
	})
}

// unavailableRetry is how long a checkout waits before it sends a sale
// again that the database server could not take.
const unavailableRetry = 2 * time.Second

// checkoutRetryMsg sends the sale of the checkout with key again.
type checkoutRetryMsg struct{ key string }

// onCheckoutRetry sends the sale again if the clerk is still on that
// checkout and nothing else is under way; moving away stops the retries.
func (m *Model) onCheckoutRetry(msg checkoutRetryMsg) tea.Cmd {
	c := &m.checkout
	if m.screen != screenCheckout || msg.key != c.key || c.busy {
		return nil
	}
	return m.confirmSale()
}

// diskFullSale is what the checkout says when the disk is full: what did
// not happen, and what to do.
const diskFullSale = "The disk is full: the sale was not made. Free space and try again."

func (m *Model) onCheckout(msg checkoutMsg) tea.Cmd {
	c := &m.checkout
	if msg.key != c.key {
		return nil
	}
	c.busy = false
	if msg.err != nil {
		var changed *booking.PriceChangedError
		switch code := booking.ErrorCode(msg.err); {
		case errors.As(msg.err, &changed):
			// The figure on screen was not the store's: show the new
			// prices and let the clerk confirm again.
			m.fail(msg.err)
			c.focus = len(c.seats) + focusSell
			return tea.Batch(m.loadTypesCmd(), m.quoteCmd(), m.loadSeatMapCmd())
		case code == booking.EExpired, code == booking.ENotFound:
			return m.lapse(m.seats.mine())
		case booking.IsNoShift(msg.err):
			m.askFloat(floatSale, screenCheckout)
			return nil
		case code == booking.EDiskFull:
			// The seats stay held and the form as it was: enter sells
			// once space is freed (the same idempotency key).
			m.setError(diskFullSale)
			return m.loadSeatMapCmd()
		case code == booking.EUnavailable:
			// The database server is away (PostgreSQL restarting): the
			// seats stay held, the form as it was, and the sale is sent
			// again by itself with the same key until the server answers
			// (a sale whose answer was lost is found by its key, never
			// made twice). The store's words say what is known.
			m.setError(booking.ErrorMessage(msg.err))
			key := c.key
			return m.park(parkRetry, m.tick(unavailableRetry, func(time.Time) tea.Msg { return checkoutRetryMsg{key: key} }))
		}
		m.fail(msg.err)
		return m.loadSeatMapCmd()
	}
	m.seats.holdID, m.seats.expires = 0, time.Time{}
	m.openDone(msg.booking)
	return tea.Batch(m.loadSeatMapCmd(), m.printBooking(msg.booking.Number))
}

// holdAgainCmd tries to take a lapsed checkout's seats again, all or
// nothing, as a new hold.
func (m *Model) holdAgainCmd() tea.Cmd {
	c := &m.checkout
	ids := make([]int64, len(c.seats))
	for i, seat := range c.seats {
		ids[i] = seat.ID
	}
	req := booking.HoldRequest{ShowID: m.seats.show.ID, SeatIDs: ids, Owner: m.opts.Owner, TTL: booking.DefaultHoldTTL, ByHand: true}
	c.busy = true
	m.setInfo("Holding " + joinLabels(c.seats) + " again…")
	store, actor, key := m.store, m.actor(), c.key
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		h, err := store.Hold(ctx, actor, req)
		return reheldMsg{key: key, hold: h, err: err}, err
	})
}

// onReheld carries on with the checkout under the new hold (a new hold,
// so a new idempotency key), or shows the clash on the map when any seat
// went meanwhile.
func (m *Model) onReheld(msg reheldMsg) tea.Cmd {
	c := &m.checkout
	if msg.key != c.key {
		return nil
	}
	c.busy = false
	var taken *booking.SeatsTakenError
	var single *booking.SingleSeatsError
	switch {
	case errors.As(msg.err, &single):
		// Meanwhile the seats around them sold: the map says which seat
		// they would leave single, and takes it or the override.
		m.screen = screenSeatMap
		m.seats.lapsed, m.seats.single = nil, single
		m.setInfo("")
		return m.loadSeatMapCmd()
	case errors.As(msg.err, &taken):
		m.screen = screenSeatMap
		m.seats.lapsed = nil
		m.seats.clash = newClash(taken)
		if offer := m.seats.clash.offerSeats(); len(offer) > 0 {
			m.seats.curRow, m.seats.curCol = offer[0].Row, offer[0].Col
		}
		m.setInfo("")
		return m.loadSeatMapCmd()
	case msg.err != nil:
		m.fail(msg.err)
		return m.loadSeatMapCmd()
	}
	h := msg.hold
	c.hold, c.key, c.lapsed = h.ID, checkoutKey(m.opts.Owner, h.ID), false
	c.focus = len(c.seats) + focusSell
	cmd := m.adoptHold(h)
	m.setInfo(joinLabels(h.Seats) + " held again — enter sells.")
	return cmd
}
