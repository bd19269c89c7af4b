package store

import (
	"context"
	"slices"
	"strings"

	"boxoffice/booking"
)

// RefundTx is what the unwinds of a booking — refunds, cancels, a show's
// cancel, exchanges — ask of a transaction.
type RefundTx interface {
	// BookingByNumberForUpdate reads the booking with number, locking its
	// row, so the unwinds of one booking take turns (on any server) and
	// each reads what the one before committed; found is false when no
	// booking has it.
	BookingByNumberForUpdate(number string) (b BookingRow, found bool, err error)
	// BookingForUpdate is BookingByNumberForUpdate by the booking's id.
	BookingForUpdate(id int64) (b BookingRow, found bool, err error)
	// BookingStatus reads a booking's status as it is now.
	BookingStatus(id int64) (booking.BookingStatus, error)
	// CancelBooking moves a booking confirmed -> cancelled at the
	// transaction's time, by compare-and-set, saying who, who approved
	// and why; false when it was no longer confirmed.
	CancelBooking(id int64, c Cancellation) (bool, error)
	// BookingTickets reads a booking's tickets in id order, each with
	// its seat's label.
	BookingTickets(bookingID int64) ([]TicketRow, error)
	// TicketStatus reads a ticket's status as it is now: a statement of
	// its own, which sees an admission that won the ticket meanwhile.
	TicketStatus(ticketID int64) (booking.TicketStatus, error)
	// TakeTicket moves an issued ticket to to (refunded or void) by
	// compare-and-set; false when it was no longer issued.
	TakeTicket(ticketID int64, to booking.TicketStatus) (bool, error)
	// CountTickets counts a booking's tickets in any of statuses.
	CountTickets(bookingID int64, statuses ...booking.TicketStatus) (int, error)
	// FreeSeats moves the booking's sold claims sold -> cancelled — those
	// on seatIDs, or every one when seatIDs is nil — and takes them off
	// its show; how many it freed.
	FreeSeats(b BookingRow, seatIDs []int64) (int, error)
	// SaleMethod reads how a booking was paid: its sale payment's method.
	SaleMethod(bookingID int64) (booking.PayMethod, error)
	// InsertPayment writes one payment at the transaction's time and
	// returns its id. The engine refuses a second refund of one ticket.
	InsertPayment(p PaymentRow) (int64, error)
}

// BookingRow is a booking as an unwind reads it.
type BookingRow struct {
	ID, ShowID, HoldID int64
	Number             string
	Status             booking.BookingStatus
	Customer, Phone    string
}

// TicketRow is one ticket of a booking as an unwind reads it.
type TicketRow struct {
	ID, SeatID int64
	Label      string // its seat's
	Type       string
	Price      booking.Money
	Status     booking.TicketStatus
}

// Cancellation is who cancelled a booking, who approved it ("" for no
// one) and why.
type Cancellation struct {
	By, ApprovedBy, Reason string
}

// PaymentRow is one payment as a driver writes it.
type PaymentRow struct {
	BookingID        int64
	Kind             booking.PaymentKind
	Method           booking.PayMethod
	Amount           booking.Money
	Tendered, Change booking.Money // cash handed over and given back, for a cash sale
	Staff, Terminal  string
	ShiftID          int64 // 0: none
	TicketID         int64 // the ticket a refund is for; 0: none
	ApprovedBy       string
	Reason           string // why a refund was made; "" for none given
}

// lockBooking reads and locks the booking with number; ENotFound when
// there is none.
func lockBooking(tx Tx, number string) (BookingRow, error) {
	b, found, err := tx.BookingByNumberForUpdate(number)
	if err == nil && !found {
		err = booking.ErrNoBooking(number)
	}
	return b, err
}

// staleBooking is the refusal of an unwind of a booking no longer
// confirmed, saying what it is now.
func staleBooking(number string, status booking.BookingStatus) error {
	return &booking.StaleError{What: "Booking " + number, Current: string(status)}
}

// afterStart refuses, on the transaction's clock, a refund of a show that
// has started unless a manager made or approved it.
func (s *Store) afterStart(tx Tx, showID int64, ok Approval) error {
	show, err := s.prog.Show(tx.Context(), showID)
	if err != nil {
		return err
	}
	if tx.Now().Before(show.Starts) || ok.Role >= booking.MinRole(booking.ActionCancelStarted) {
		return nil
	}
	return booking.Errorf(booking.EForbidden, "The %s show has started: a %s must approve the refund.",
		show.Starts.Format("Mon 15:04"), booking.MinRole(booking.ActionCancelStarted))
}

// Refundable is a ticket whose price goes back.
type Refundable struct {
	TicketID int64
	Price    booking.Money
}

// refunder writes a booking's refund payments: by the way it was paid,
// out of the refunding person's shift.
type refunder struct {
	actor            booking.Actor
	approver, reason string
	bookingID, shift int64
	method           booking.PayMethod
	// tender is set for a booking paid in parts or by a gift card: each
	// refund goes back part by part (checkout_tender.go).
	tender *tenderBack
}

// newRefunder finds how the booking was paid and the shift its refunds
// belong to (ShiftFor): a cash refund with no shift open needs openFloat.
// Each refund it writes keeps reason: a booking refunded seat by seat has
// a reason per refund, and its own reason is only its cancel's.
func newRefunder(tx Tx, actor booking.Actor, approver, reason string, bookingID int64, openFloat *booking.Money) (*refunder, error) {
	r := &refunder{actor: actor, approver: approver, reason: reason, bookingID: bookingID}
	var err error
	if r.tender, r.method, err = loadTender(tx, bookingID); err != nil {
		return nil, err
	}
	if r.shift, err = ShiftFor(tx, actor, r.method, openFloat); err != nil {
		return nil, err
	}
	return r, nil
}

// refund writes one ticket's refund payment.
func (r *refunder) refund(tx Tx, t Refundable) error {
	if r.tender != nil {
		return r.tender.refund(tx, r, t)
	}
	_, err := tx.InsertPayment(PaymentRow{BookingID: r.bookingID, Kind: booking.PaymentRefund, Method: r.method, Amount: t.Price,
		Staff: r.actor.Name, Terminal: r.actor.Terminal, ShiftID: r.shift, TicketID: t.TicketID, ApprovedBy: r.approver, Reason: r.reason})
	return err
}

// refundAll refunds each of ts and returns what went back.
func (r *refunder) refundAll(tx Tx, ts []Refundable) (booking.Money, error) {
	var sum booking.Money
	for _, t := range ts {
		if err := r.refund(tx, t); err != nil {
			return 0, err
		}
		sum += t.Price
	}
	return sum, nil
}

// RefundTickets refunds some tickets of a confirmed booking, each once.
// The booking is read locked first, so a refund and a cancel, or two
// refunds, of one booking take turns; each ticket moves issued ->
// refunded by compare-and-set.
func (s *Store) RefundTickets(ctx context.Context, actor booking.Actor, req booking.RefundRequest) (*booking.Booking, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	number := booking.NormalizeNumber(req.Number)
	ok, err := Approve(s, ctx, actor, booking.ActionRefund, req.Approver, req.Addr, "refund of "+number)
	if err != nil {
		return nil, err
	}
	reason := booking.CleanLine(req.Reason, 200)
	var seats []string
	for _, l := range req.Seats {
		if l = strings.ToUpper(booking.CleanLine(l, 8)); !slices.Contains(seats, l) {
			seats = append(seats, l)
		}
	}
	id, err := write(s, ctx, actor, Write{Op: "refund"}, func(tx Tx) (int64, error) {
		b, err := lockBooking(tx, number)
		if err != nil {
			return 0, err
		}
		if b.Status != booking.BookingConfirmed {
			return 0, staleBooking(number, b.Status)
		}
		if err := s.afterStart(tx, b.ShowID, ok); err != nil {
			return 0, err
		}
		return b.ID, refundSeats(tx, actor, ok.Name, b, reason, seats, req.OpenFloat)
	})
	if err != nil {
		s.approvalNotUsed(ctx, actor, ok, "refund of "+number, err)
		return nil, err
	}
	return s.committedBooking(ctx, id)
}

// approvalNotUsed follows the override row an approval left (checkPIN
// writes it when the PIN is right, before the write it approves) with
// one saying that write was not made, and why: the trail must never
// read as if a supervisor's override let money go that stayed. Nothing
// when no one else approved or the write was made. A failure to write
// the row is logged: the caller's refusal is what the clerk is told.
func (s *Store) approvalNotUsed(ctx context.Context, actor booking.Actor, ok Approval, what string, refused error) {
	if ok.Name == "" || refused == nil {
		return
	}
	approver := booking.Actor{Name: ok.Name, Role: ok.Role, Terminal: actor.Terminal}
	e := booking.AuditEntry{Action: booking.AuditOverride,
		Detail: what + " by " + actor.Name + " approved, not made: " + booking.ErrorMessage(refused)}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), answerTimeout)
	defer cancel()
	if err := apply(s, ctx, booking.System, Write{Op: "approval not used"}, func(tx Tx) error { return Audit(tx, approver, e, 0) }); err != nil {
		s.log.Warn("audit an approval not used", "what", what, "err", err)
	}
}

// refundSeats refunds the named seats' tickets of b and cancels b when
// none is left to use.
func refundSeats(tx Tx, actor booking.Actor, approver string, b BookingRow, reason string, seats []string, openFloat *booking.Money) error {
	r, err := newRefunder(tx, actor, approver, reason, b.ID, openFloat)
	if err != nil {
		return err
	}
	tickets, err := tx.BookingTickets(b.ID)
	if err != nil {
		return err
	}
	var refunded booking.Money
	for _, label := range seats {
		i := slices.IndexFunc(tickets, func(t TicketRow) bool { return strings.EqualFold(t.Label, label) })
		if i < 0 {
			return booking.Errorf(booking.EInvalid, "%s is not a seat of %s.", label, b.Number)
		}
		t := tickets[i]
		if err := takeTicket(tx, b, t, booking.TicketRefunded, "refunded"); err != nil {
			return err
		}
		if err := r.refund(tx, Refundable{TicketID: t.ID, Price: t.Price}); err != nil {
			return err
		}
		refunded += t.Price
	}
	left, err := tx.CountTickets(b.ID, booking.TicketIssued, booking.TicketAdmitted)
	if err != nil {
		return err
	}
	if left == 0 {
		if _, err := tx.CancelBooking(b.ID, Cancellation{By: actor.Name, ApprovedBy: approver, Reason: reason}); err != nil {
			return err
		}
	}
	tx.Touch(b.ShowID)
	detail := b.Number + " " + strings.Join(seats, " ")
	if reason != "" {
		detail += ": " + reason
	}
	return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditRefund, ShowID: b.ShowID, ShiftID: r.shift, Amount: refunded, Detail: detail}, b.ID)
}

// takeTicket moves ticket t of b issued -> to by compare-and-set and
// frees its seat: a ticket admitted (before, or by a door that won its
// row meanwhile, read again to tell) or no longer issued stops the whole
// unwind, which verb names ("refunded", "exchanged").
func takeTicket(tx Tx, b BookingRow, t TicketRow, to booking.TicketStatus, verb string) error {
	status := t.Status
	if status == booking.TicketIssued {
		moved, err := tx.TakeTicket(t.ID, to)
		if err != nil {
			return err
		}
		if moved {
			return freeSeat(tx, b, t, verb)
		}
		if status, err = tx.TicketStatus(t.ID); err != nil {
			return err
		}
	}
	if status == booking.TicketAdmitted {
		return booking.Errorf(booking.EConflict, "The ticket for %s was already admitted; it cannot be %s.", t.Label, verb)
	}
	return &booking.StaleError{What: "The ticket for " + t.Label, Current: string(status)}
}

// freeSeat frees the one seat of ticket t of b.
func freeSeat(tx Tx, b BookingRow, t TicketRow, verb string) error {
	n, err := tx.FreeSeats(b, []int64{t.SeatID})
	if err != nil {
		return err
	}
	if n != 1 {
		return booking.Errorf(booking.EInternal, "%s: %d claims freed for %s", verb, n, t.Label)
	}
	return nil
}
