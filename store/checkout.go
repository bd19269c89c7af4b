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

// Selling a hold: Checkout, and the payment of a reservation's hold
// (sellReservation). The sale is priced at what the database says in the
// sale's own transaction: in one step (SellHold), by prices the store
// remembers at a price generation the step verifies; on the checked path,
// by the price table read inside the transaction, so a price changed at
// another counter or by another process is never recorded behind the
// clerk's back (booking.CheckoutRequest.ExpectedTotal).

// MsgSaleMaybeMade is the clerk's words when a checkout cannot tell
// whether its sale was made: the server went away after it was sent.
const MsgSaleMaybeMade = "The database server cannot be reached: the sale may have gone through. Trying again…"

// MsgReadUnreachable and MsgUnreachable are the clerk's words when the
// database server cannot be reached: for a read, and for a write that
// failed before anything went out (PostgreSQL's; SQLite has no server).
const (
	MsgReadUnreachable = "The database server cannot be reached."
	MsgUnreachable     = "The database server cannot be reached: nothing was saved. Trying again…"
)

// beforeWrite is an error of the reads a write makes before its
// transaction, in a write's words: a hold whose show could not be read
// saved nothing, and the counter tries it again.
func beforeWrite(err error) error {
	if booking.ErrorCode(err) == booking.EUnavailable && booking.ErrorMessage(err) == MsgReadUnreachable {
		return booking.Errorf(booking.EUnavailable, MsgUnreachable)
	}
	return err
}

// errKeyMadeSale rolls back a checkout whose idempotency key made a
// booking already: the checkout answers with that booking. A
// *booking.Error, so every driver hands it back as it is.
var errKeyMadeSale = &booking.Error{Code: booking.EConflict, Message: "That sale was made already."}

// saleInput is a checkout's request cleaned before its transaction.
type saleInput struct {
	key, customer, phone string
	// number is a reservation's, which its booking keeps; "" draws one.
	number string
}

// Checkout sells a live hold. The same idempotency key again lands on
// the booking the first call made, whatever happened to the hold since.
func (s *Store) Checkout(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest) (*booking.Booking, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	// Customer accounts are staff's (customers.go): a kiosk names none.
	if req.CustomerID != 0 {
		if err := booking.Authorize(actor, booking.ActionCustomers); err != nil {
			return nil, err
		}
	}
	// A reservation's hold is sold by PayReservation, which also marks
	// the reservation paid; a checkout naming its owner would leave it
	// reserved.
	if err := RefuseReservationCheckout(req.Owner); err != nil {
		return nil, err
	}
	in := saleInput{key: strings.TrimSpace(req.IdempotencyKey), customer: booking.CleanLine(req.Customer, 80), phone: booking.CleanLine(req.Phone, 32)}
	for attempt := 0; ; attempt++ {
		b, err := s.checkout(ctx, actor, req, in)
		if err == nil || !errors.Is(err, errKeyMadeSale) && !refused(err) {
			return b, err
		}
		// A retry (double Enter, resubmit, reconnect) finds its hold
		// sold already: answer with the booking its key made.
		id, found, kerr := s.d.BookingIDByKey(ctx, in.key)
		switch {
		case kerr != nil:
			return nil, kerr
		case found:
			b, err := s.committedBooking(ctx, id)
			if booking.ErrorCode(err) == booking.EUnavailable {
				return nil, booking.Errorf(booking.EUnavailable, MsgSaleMaybeMade)
			}
			return b, err
		case errors.Is(err, errKeyMadeSale) && attempt < 3:
			continue // the key's booking was rolled back since
		case errors.Is(err, errKeyMadeSale):
			return nil, booking.Errorf(booking.EConflict, "That was changed at another counter; try again.")
		}
		return nil, err
	}
}

// refused reports a domain refusal: the sale was refused as asked, not
// failed.
func refused(err error) bool {
	switch booking.ErrorCode(err) {
	case booking.EInternal, booking.EUnavailable, booking.EDiskFull, booking.EDamaged:
		return false
	}
	return err != nil
}

// checkout is one attempt of Checkout: in one step when the store knows
// the hold, its show's price list, the prices and (for cash) the clerk's
// shift; otherwise, or when the database disagreed, checked.
func (s *Store) checkout(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest, in saleInput) (*booking.Booking, error) {
	if plan, ok := s.planSale(ctx, actor, req, in); ok {
		b, missed, err := oneStep(s, ctx, Write{Op: "checkout"}, func(tx Tx) (*booking.Booking, bool, error) {
			return s.sellDecided(tx, actor, plan)
		})
		if !missed {
			if err == nil {
				s.sales.forget(req.HoldID)
				s.signCodes(b)
			}
			return b, err
		}
		if req.Method == booking.Cash {
			s.sales.setShift(actor.Name, 0) // read it anew
		}
	}
	b, err := write(s, ctx, actor, Write{Op: "checkout"}, func(tx Tx) (*booking.Booking, error) {
		return s.sell(tx, actor, req, in)
	})
	if err != nil {
		return nil, err
	}
	s.sales.forget(req.HoldID)
	if saleExtras(req) {
		return s.committedBooking(ctx, b.ID) // with its voucher and items as read
	}
	s.signCodes(b)
	return b, nil
}

// plannedSale is a checkout decided before its transaction, from what
// the store remembers.
type plannedSale struct {
	sale  Sale
	show  booking.Show
	seats []booking.Seat
	lines []booking.QuoteLine
}

// planSale decides a checkout from what the store remembers (saleCache),
// exactly as sell would from what it reads; ok is false when the hold is
// not one this store made, or the decision would be a refusal (the
// checked path then says why, from the truth). What it has not yet
// remembered (the prices, the show's price list, a cash clerk's shift)
// it reads first, outside any transaction: the one step verifies it.
func (s *Store) planSale(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest, in saleInput) (plannedSale, bool) {
	if req.CustomerID != 0 || saleExtras(req) || len(req.Tender) > 0 {
		return plannedSale{}, false // a customer's row, a voucher, items or parts: the checked path
	}
	h, list, prices, gen, ok := s.sales.sale(req.HoldID, req.Owner)
	if !ok {
		if !s.warm(ctx, h, req.HoldID, req.Owner) {
			return plannedSale{}, false
		}
		h, list, prices, gen, ok = s.sales.sale(req.HoldID, req.Owner)
	}
	if !ok || len(h.seats) == 0 {
		return plannedSale{}, false
	}
	var shiftID int64
	if req.Method == booking.Cash {
		if shiftID = s.shiftOf(ctx, actor); shiftID == 0 {
			return plannedSale{}, false
		}
	}
	show, err := s.prog.Show(ctx, h.showID)
	if err != nil || checkTypes(req.Types, prices) != nil {
		return plannedSale{}, false
	}
	show.PriceList = list
	quote, err := booking.QuoteSeats(prices, strings.ToLower(list), h.seats, req.Types)
	if err != nil || req.CheckTotal && quote.Total != req.ExpectedTotal {
		return plannedSale{}, false
	}
	tendered, change, err := req.Payment(quote.Total)
	if err != nil {
		return plannedSale{}, false
	}
	ids := seatIDs(h.seats)
	slices.Sort(ids)
	return plannedSale{show: show, seats: h.seats, lines: quote.Lines, sale: Sale{
		HoldID: req.HoldID, Owner: req.Owner, SeatIDs: ids, PriceGen: gen, PriceList: list,
		Booking: NewBooking{ShowID: show.ID, HoldID: req.HoldID, Key: in.key, Customer: in.customer, Phone: in.phone, Total: quote.Total,
			SoldBy: actor.Name, Terminal: actor.Terminal},
		Lines: quote.Lines, Method: req.Method, Tendered: tendered, Change: change, ShiftID: shiftID, Actor: actorCheck(actor),
	}}, true
}

// warm reads what the store has not remembered yet for a checkout of a
// hold it made: the prices at their generation, the show's price list.
// False when the hold is not one it made (or is another owner's).
func (s *Store) warm(ctx context.Context, h cachedHold, holdID int64, owner string) bool {
	if !s.sales.made(holdID, owner) {
		return false
	}
	if s.sales.priceTable(s.sales.generation()) == nil {
		t, gen, err := s.d.ReadPrices(ctx)
		if err != nil {
			return false
		}
		s.sales.setPrices(t, gen)
	}
	if !s.sales.knowsList(h.showID) {
		list, err := s.d.ReadShowPriceList(ctx, h.showID)
		if err != nil {
			return false
		}
		s.sales.setList(h.showID, list)
	}
	return true
}

// shiftOf is actor's open shift as remembered, or read when not: 0 when
// none is open.
func (s *Store) shiftOf(ctx context.Context, actor booking.Actor) int64 {
	if id := s.sales.shift(actor.Name); id != 0 {
		return id
	}
	sh, found, err := s.d.ReadOpenShift(ctx, actor.Name)
	if err != nil || !found {
		return 0
	}
	s.sales.setShift(actor.Name, sh.ID)
	return sh.ID
}

// sellDecided writes the planned sale in one step (SellHold) and returns
// the booking as written; ok false when the database disagreed.
func (s *Store) sellDecided(tx Tx, actor booking.Actor, p plannedSale) (*booking.Booking, bool, error) {
	sale := p.sale
	sale.Audit = auditRow(tx.Now(), actor, booking.AuditEntry{Action: booking.AuditSale, ShowID: p.show.ID, Amount: sale.Booking.Total,
		Detail: saleDetail(sale.Method, p.seats)}, 0)
	tx.Touch(p.show.ID)
	done, ok, err := tx.SellHold(sale)
	if err != nil || !ok {
		return nil, ok, err
	}
	b := newBooking(tx, actor, p.show, sale.Booking, done.BookingID, done.Number)
	b.Tickets = tickets(done.BookingID, p.lines)
	b.Payments = []booking.Payment{salePayment(b, done.PaymentID, sale.Method, sale.Tendered, sale.Change, done.ShiftID)}
	return b, true, nil
}

// sell turns owner's live hold into a booking inside tx, checking and
// reading everything anew, and returns the booking as written.
func (s *Store) sell(tx Tx, actor booking.Actor, req booking.CheckoutRequest, in saleInput) (*booking.Booking, error) {
	show, seats, prices, err := s.confirmHold(tx, req)
	if err != nil {
		return nil, err
	}
	if err := checkTypes(req.Types, prices); err != nil {
		return nil, err
	}
	// Each seat by its ticket type (adult unless the request names
	// another), its seat kind and the show's price list (PriceFor).
	quote, err := booking.QuoteSeats(prices, strings.ToLower(show.PriceList), seats, req.Types)
	if err != nil {
		return nil, err
	}
	if req.CheckTotal && quote.Total != req.ExpectedTotal {
		return nil, &booking.PriceChangedError{Expected: req.ExpectedTotal, Total: quote.Total}
	}
	quote, use, err := voucherQuote(tx, req, show, quote)
	if err != nil {
		return nil, err
	}
	tendered, change, err := ticketPayment(req, quote.Total)
	if err != nil {
		return nil, err
	}
	// A cash sale needs its clerk's shift open (or opens it with the
	// float the clerk counted); a card sale joins the open shift, if any.
	if len(req.Tender) > 0 {
		req.Method = tenderShiftMethod(req.Tender)
	}
	shiftID, err := ShiftFor(tx, actor, req.Method, req.OpenFloat)
	if err != nil {
		return nil, err
	}
	nb := NewBooking{ShowID: show.ID, HoldID: req.HoldID, Key: in.key, Number: in.number, Customer: in.customer, Phone: in.phone, Total: quote.Total,
		SoldBy: actor.Name, Terminal: actor.Terminal}
	id, number, err := tx.InsertSale(nb)
	if errors.Is(err, ErrKeyUsed) {
		return nil, errKeyMadeSale
	}
	if err != nil {
		return nil, err
	}
	if err := sellClaims(tx, req.HoldID, id, show.ID, len(seats)); err != nil {
		return nil, err
	}
	if err := attachCustomer(tx, req.CustomerID, func(c int64) error { _, err := tx.SetBookingCustomer(id, c); return err }); err != nil {
		return nil, err
	}
	b := newBooking(tx, actor, show, nb, id, number)
	if b.Tickets, err = tx.InsertTickets(id, quote.Lines); err != nil {
		return nil, err
	}
	if b.Payments, err = pay(tx, actor, req, b, tendered, change, shiftID); err != nil {
		return nil, err
	}
	if err := sellExtras(tx, actor, req, b, use, shiftID); err != nil {
		return nil, err
	}
	detail := saleDetail(req.Method, seats)
	if len(req.Tender) > 0 {
		detail = tenderDetail(b.Payments) + ": " + strings.Join(booking.Labels(seats), " ")
	}
	if req.CustomerID != 0 {
		detail += fmt.Sprintf("; customer %d", req.CustomerID)
	}
	if err := Audit(tx, actor, booking.AuditEntry{Action: booking.AuditSale, ShowID: show.ID, Amount: quote.Total, Detail: detail}, id); err != nil {
		return nil, err
	}
	tx.Touch(show.ID)
	// What the next sale may be decided from: the show's price list and,
	// for cash, the clerk's shift.
	s.sales.setList(show.ID, show.PriceList)
	if req.Method == booking.Cash {
		s.sales.setShift(actor.Name, shiftID)
	}
	return b, nil
}

// pay writes b's sale payment: one by req.Method, or one a part for a
// sale paid in parts (payTender).
func pay(tx Tx, actor booking.Actor, req booking.CheckoutRequest, b *booking.Booking, tendered, change booking.Money, shiftID int64) ([]booking.Payment, error) {
	if len(req.Tender) > 0 {
		return payTender(tx, actor, req, b, shiftID)
	}
	payID, err := tx.InsertPayment(PaymentRow{BookingID: b.ID, Kind: booking.PaymentSale, Method: req.Method, Amount: b.Total,
		Tendered: tendered, Change: change, Staff: actor.Name, Terminal: actor.Terminal, ShiftID: shiftID})
	if err != nil {
		return nil, err
	}
	return []booking.Payment{salePayment(b, payID, req.Method, tendered, change, shiftID)}, nil
}

// sellClaims moves the n held claims of hold holdID to sold by booking
// bookingID, every one of them.
func sellClaims(tx Tx, holdID, bookingID, showID int64, n int) error {
	sold, err := tx.SellHeldClaims(holdID, bookingID, showID)
	if err == nil && sold != n {
		err = fmt.Errorf("sale: %d claims sold for %d seats", sold, n)
	}
	return err
}

// newBooking is the booking a sale wrote, as a read would give it.
func newBooking(tx Tx, actor booking.Actor, show booking.Show, nb NewBooking, id int64, number string) *booking.Booking {
	if number == "" {
		number = nb.Number
	}
	return &booking.Booking{ID: id, Number: number, Show: show, Status: booking.BookingConfirmed, Customer: nb.Customer, Phone: nb.Phone,
		Total: nb.Total, SoldBy: actor.Name, Terminal: actor.Terminal, CreatedAt: time.UnixMilli(tx.Now().UnixMilli())}
}

// tickets are the tickets a sale of lines issues to booking id: ids
// TicketsPerBooking × id + n, so a booking's tickets are a range.
func tickets(id int64, lines []booking.QuoteLine) []booking.Ticket {
	out := make([]booking.Ticket, len(lines))
	for i, l := range lines {
		out[i] = booking.Ticket{ID: id*TicketsPerBooking + int64(i), Seat: l.Seat, Type: l.Type, Price: l.Amount, PriceSource: l.Source, Status: booking.TicketIssued}
	}
	return out
}

// TicketsPerBooking spaces ticket ids: booking n's tickets are
// 32n..32n+19 (at most booking.MaxSeatsPerSale), on either engine, so a
// code verifies the same everywhere.
const TicketsPerBooking = 32

// salePayment is a sale's payment as written.
func salePayment(b *booking.Booking, id int64, method booking.PayMethod, tendered, change booking.Money, shiftID int64) booking.Payment {
	return booking.Payment{ID: id, Kind: booking.PaymentSale, Method: method, Amount: b.Total, Tendered: tendered, Change: change,
		At: b.CreatedAt, Staff: b.SoldBy, Terminal: b.Terminal, ShiftID: shiftID}
}

// saleDetail says how a sale was paid and what it sold; the row names
// the booking itself.
func saleDetail(method booking.PayMethod, seats []booking.Seat) string {
	return fmt.Sprintf("%s: %s", method, strings.Join(booking.Labels(seats), " "))
}

// checkTypes refuses a ticket type the cinema does not sell.
func checkTypes(types map[string]string, prices *booking.PriceTable) error {
	for label, code := range types {
		if _, ok := booking.PriceFor(prices, "", code, booking.Standard); !ok {
			return booking.Errorf(booking.EInvalid, "Unknown ticket type %q for %s.", booking.CleanLine(code, 16), booking.CleanLine(label, 8))
		}
	}
	return nil
}

// signCodes fills in each ticket's code: a pure function of the ticket id
// and the signing key, computed when a booking is read, never stored.
func (s *Store) signCodes(b *booking.Booking) {
	if len(s.opts.TicketKeys) == 0 {
		return
	}
	for i := range b.Tickets {
		b.Tickets[i].Code = booking.SignTicket(s.opts.TicketKeys[0], b.Tickets[i].ID)
	}
}

// confirmHold moves the hold held -> confirmed by compare-and-set, which
// requires it live and the owner's, and returns its show (with the price
// list it sells at now), its seats and the price table at the price
// generation the transaction sees. Only when the move fails does it read
// why.
func (s *Store) confirmHold(tx Tx, req booking.CheckoutRequest) (booking.Show, []booking.Seat, *booking.PriceTable, error) {
	c, ok, err := tx.ConfirmHold(req.HoldID, req.Owner)
	if err != nil {
		return booking.Show{}, nil, nil, err
	}
	if !ok {
		return booking.Show{}, nil, nil, s.whyNotLive(tx, req)
	}
	show, err := s.prog.Show(tx.Context(), c.ShowID)
	if err != nil {
		return booking.Show{}, nil, nil, err
	}
	show.PriceList = c.PriceList
	seats, err := s.heldSeats(tx, show.HallID, req.HoldID)
	if err != nil {
		return booking.Show{}, nil, nil, err
	}
	if len(seats) == 0 {
		return booking.Show{}, nil, nil, booking.Errorf(booking.EInvalid, "No seats are held; choose seats first.")
	}
	prices, err := s.txPrices(tx, c.PriceGen)
	return show, seats, prices, err
}

// txPrices is the price table as tx sees it, given the price generation
// tx read: the store's copy while the generation is the one it was read
// at, else the table read inside tx (and kept).
func (s *Store) txPrices(tx Tx, gen string) (*booking.PriceTable, error) {
	if t := s.sales.priceTable(gen); t != nil {
		return t, nil
	}
	t, err := tx.PriceTable()
	if err != nil {
		return nil, err
	}
	s.sales.setPrices(t, gen)
	return t, nil
}

// whyNotLive explains a hold that could not be confirmed.
func (s *Store) whyNotLive(tx Tx, req booking.CheckoutRequest) error {
	h, found, err := tx.HoldForUpdate(req.HoldID, req.Owner)
	if err != nil {
		return err
	}
	if !found {
		return booking.Errorf(booking.ENotFound, "That hold is gone; choose the seats again.")
	}
	// A show's life: a cancelled show's holds were let go with it.
	sh, err := LiveShow(tx, s.prog, h.ShowID)
	if err != nil {
		return err
	}
	if sh.Cancelled() {
		return booking.SalesOpen(sh, tx.Now())
	}
	what := "the seats"
	ids, err := tx.ClaimedSeatIDs(req.HoldID)
	if err != nil {
		return err
	}
	if seats, err := s.seatsOf(tx.Context(), sh.HallID, ids); err != nil {
		return err
	} else if len(seats) > 0 {
		what = strings.Join(booking.Labels(seats), ", ")
	}
	now := tx.Now().UnixMilli()
	switch h.Status {
	case booking.HoldHeld, booking.HoldExpired:
		if h.Expires > now {
			// Made later than the clock says now: the clock was set
			// back, and the hold lapsed (HoldLive).
			return booking.Errorf(booking.EExpired, "The hold on %s ran out: the clock was set back since it was made. Hold the seats again.", what)
		}
		return booking.Errorf(booking.EExpired, "The hold on %s ran out %s ago; hold the seats again.", what, roundAgo(time.Duration(now-h.Expires)*time.Millisecond))
	case booking.HoldConfirmed:
		return booking.Errorf(booking.EConflict, "Those seats were already sold with another checkout.")
	}
	return booking.Errorf(booking.EExpired, "The hold on %s was released; hold the seats again.", what)
}

// roundAgo says how long ago a hold ran out: "40s", "3 min".
func roundAgo(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%d min", int(d.Minutes()))
}

// sellReservation sells reservation number's hold inside tx as a checkout
// does, under the reservation's number, and returns the booking's id:
// ErrKeyUsed when req's key made another sale or a booking drew the
// number since the reservation was made.
func (s *Store) sellReservation(tx Tx, actor booking.Actor, req booking.CheckoutRequest, number string) (int64, error) {
	if err := tx.PayingReservation(number); err != nil {
		return 0, err
	}
	b, err := s.sell(tx, actor, req, saleInput{key: strings.TrimSpace(req.IdempotencyKey), customer: req.Customer, phone: req.Phone, number: number})
	if errors.Is(err, errKeyMadeSale) {
		return 0, ErrKeyUsed
	}
	if err != nil {
		return 0, err
	}
	return b.ID, nil
}
