package booking

import "strings"

// ExchangeRequest moves tickets of a confirmed booking to other seats, of
// the same show or of another. The moved tickets are voided (their codes
// stop admitting) and a new booking with new tickets is made for the new
// seats, each ticket keeping its type and priced at the new show's prices;
// the difference is paid (dearer) or paid back (cheaper) by Method.
type ExchangeRequest struct {
	// Number is the booking the tickets are moved from.
	Number string
	// Tickets names the tickets to move, each by its seat label ("G7") or
	// its ticket code; empty moves every issued ticket of the booking.
	Tickets []string
	// ToShow is the show to move to; 0 is the booking's own show.
	ToShow int64
	// Seats are the new seats, one for each ticket moved, in the order of
	// Tickets (or of the booking's tickets when Tickets is empty).
	Seats []string
	// IdempotencyKey is made once when the exchange is first asked for;
	// the same key again returns the exchange the first call made.
	IdempotencyKey string
	Method         PayMethod
	// Tendered is the cash handed over for a dearer exchange; 0 means
	// exact money.
	Tendered Money
	// ExpectedDifference is the difference the clerk saw and confirmed
	// (positive: the customer pays), checked when CheckDifference is set:
	// a price changed in between refuses the exchange with the new figure.
	ExpectedDifference Money
	CheckDifference    bool
	Reason             string
	// Approver is a supervisor who typed their name and PIN: an exchange
	// that pays money back needs what a refund needs, and one after the
	// show started what a refund then needs (a manager).
	Approver *Credentials
	Addr     string
	// OpenFloat opens the clerk's shift with this float in the same
	// transaction when a cash exchange meets no open shift.
	OpenFloat *Money
	// HoldID, when set, is the counter's live hold of Owner on the new
	// seats (picked on the seat map): the exchange lets go of it in its
	// own transaction, so the seats pass from the hold to the new booking
	// with no moment in which another counter could take them.
	HoldID int64
	Owner  string
}

// Validate checks what an exchange request says about itself before
// anything is written: a booking, new seats (as many as tickets named),
// a key and a way to pay.
func (r ExchangeRequest) Validate() error {
	if CleanLine(r.Number, 20) == "" {
		return Errorf(EInvalid, "Which booking? Give its number.")
	}
	if len(r.Seats) == 0 {
		return Errorf(EInvalid, "Name the new seats.")
	}
	if len(r.Seats) > MaxSeatsPerSale || len(r.Tickets) > MaxSeatsPerSale {
		return Errorf(EInvalid, "A booking has at most %d seats.", MaxSeatsPerSale)
	}
	if len(r.Tickets) > 0 && len(r.Tickets) != len(r.Seats) {
		return Errorf(EInvalid, "%d tickets to move but %d new seats: name one new seat for each.", len(r.Tickets), len(r.Seats))
	}
	if !uniqueFold(r.Seats) || !uniqueFold(r.Tickets) {
		return Errorf(EInvalid, "A seat or ticket is named twice.")
	}
	if r.HoldID != 0 && r.Owner == "" {
		return Errorf(EInvalid, "A hold needs an owner.")
	}
	if r.ToShow < 0 {
		return Errorf(EInvalid, "No such show.")
	}
	c := CheckoutRequest{IdempotencyKey: r.IdempotencyKey, Method: r.Method, Tendered: r.Tendered, OpenFloat: r.OpenFloat}
	if err := c.Validate(); err != nil {
		return err
	}
	if r.ExpectedDifference < -MaxMoney || r.ExpectedDifference > MaxMoney {
		return Errorf(EInvalid, "The difference must be within %s.", MaxMoney.String())
	}
	return nil
}

// uniqueFold reports whether no two of list are equal ignoring case and
// surrounding space.
func uniqueFold(list []string) bool {
	seen := make(map[string]bool, len(list))
	for _, s := range list {
		k := strings.ToUpper(strings.TrimSpace(s))
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

// ExchangeResult is an exchange done: the booking the tickets left (its
// moved tickets void; cancelled when none is left) and the new booking
// with the new tickets.
type ExchangeResult struct {
	From *Booking
	To   *Booking
	// Credit is what the moved tickets had cost; Difference is the new
	// tickets' total less Credit: paid when positive, paid back when
	// negative.
	Credit     Money
	Difference Money
}

// Signed writes an amount with its sign, as a difference is read: "+2.50"
// paid, "-5.00" paid back, "0.00" none.
func (m Money) Signed() string {
	switch {
	case m > 0:
		return "+" + m.String()
	case m < 0:
		return "-" + (-m).String()
	}
	return m.String()
}

// PaidBy is how b was paid: the method of its sale. Its refunds go back
// by it, and an exchange of it pays or pays back its difference by it
// unless someone says otherwise. ok is false when no sale is recorded.
func (b *Booking) PaidBy() (method PayMethod, ok bool) {
	for _, p := range b.Payments {
		if p.Kind == PaymentSale {
			return p.Method, true
		}
	}
	return "", false
}

// ExchangePayment reports whether p is the difference of the exchange that
// made b: its sale (the difference paid, 0.00 when none) or the refund
// without a ticket (the difference paid back).
func (b *Booking) ExchangePayment(p Payment) bool {
	return b.ExchangedFrom != "" && p.TicketID == 0
}
