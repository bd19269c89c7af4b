package store

import (
	"context"
	"strings"
	"time"

	"boxoffice/booking"
)

// A shift is one person's drawer. Every cash payment names the open shift
// of whoever took it (each engine's schema refuses one that does not); a
// card payment names it when one is open. Expected cash is worked out
// from the payments, never kept as a running figure that could drift
// from them. Shifts follow the person, whose name compares without case.

// ShiftTx is what shifts ask of a transaction.
type ShiftTx interface {
	// OpenShiftID reads the id of a person's open shift; 0 when none is
	// open.
	OpenShiftID(staff string) (int64, error)
	// InsertShift opens a shift at the transaction's time; ok is false,
	// and nothing is written, when the person has one open already.
	InsertShift(sh NewShift) (id int64, ok bool, err error)
	// InsertShiftEvent appends one open, close or reopen to a shift's
	// history.
	InsertShiftEvent(shiftID int64, e ShiftEventRow) error
	// OpenShiftForUpdate reads a person's open shift, locked so that
	// every payment into it committed before the close reads its cash
	// and every later one finds it closed; found is false when none is
	// open.
	OpenShiftForUpdate(staff string) (id int64, float booking.Money, found bool, err error)
	// ShiftCash sums the cash of a shift's payments: sales less refunds.
	ShiftCash(shiftID int64) (booking.Money, error)
	// CloseShiftRow moves an open shift to closed at the transaction's
	// time with the count, the figure expected and who closed it.
	CloseShiftRow(shiftID int64, counted, expected booking.Money, by string) error
	// ShiftForUpdate reads a shift's status and person, locked; found is
	// false when there is no such shift.
	ShiftForUpdate(shiftID int64) (status booking.ShiftStatus, staff string, found bool, err error)
	// ReopenShiftRow moves a closed shift to open, its count cleared (the
	// close event keeps it), by compare-and-set; ok is false when its
	// person has another shift open.
	ReopenShiftRow(shiftID int64) (ok bool, err error)
}

// ShiftReads are the reads of shifts outside a transaction.
type ShiftReads interface {
	// ReadOpenShift reads a person's open shift; found is false when
	// none is open.
	ReadOpenShift(ctx context.Context, staff string) (sh booking.Shift, found bool, err error)
	// ReadShiftRecord reads a shift, the sums of its payments and its
	// events in one snapshot, so the three agree; found is false when
	// there is no such shift.
	ReadShiftRecord(ctx context.Context, id int64) (r ShiftRecord, found bool, err error)
	// ReadShifts lists shifts newest first: staff's only when staff is
	// not empty (any case), open ones only when open, at most limit.
	ReadShifts(ctx context.Context, staff string, open bool, limit int) ([]booking.Shift, error)
}

// NewShift is a shift to open.
type NewShift struct {
	Staff    string
	StaffID  int64 // 0: the command line, which has no staff row
	Terminal string
	Float    booking.Money
	// Site is where the shift is kept: the actor's, else the main site.
	// An engine with one site has nothing to keep.
	Site int64
}

// ShiftEventRow is one event of a shift as a driver stores it.
type ShiftEventRow struct {
	Kind              string // "open", "close", "reopen"
	At                time.Time
	By                string
	Counted, Expected *booking.Money // nil: not part of this kind of event
	Breakdown, Reason string
}

// ShiftRecord is a shift with what went through it.
type ShiftRecord struct {
	Shift  booking.Shift
	Money  []ShiftMoney         // one row per kind and method of payment
	Events []booking.ShiftEvent // oldest first
}

// ShiftMoney is the sum and number of a shift's payments of one kind by
// one method.
type ShiftMoney struct {
	Kind   booking.PaymentKind
	Method booking.PayMethod
	Sum    booking.Money
	N      int
}

// defaultShiftList is how many shifts ListShifts lists unless asked.
const defaultShiftList = 50

// ShiftFor returns the shift a payment of method by actor belongs to,
// inside tx: the actor's open shift, or for cash with a float given one
// opened now, in the same transaction; ErrNoShift for cash with neither.
// A card payment with no shift open belongs to none (0). The native sale
// paths call it too, so every cash movement obeys the one rule.
func ShiftFor(tx Tx, actor booking.Actor, method booking.PayMethod, openFloat *booking.Money) (int64, error) {
	id, err := tx.OpenShiftID(actor.Name)
	switch {
	case err != nil || id != 0:
		return id, err
	case method != booking.Cash:
		return 0, nil
	case openFloat == nil:
		return 0, booking.ErrNoShift
	}
	sh, err := OpenShiftIn(tx, actor, *openFloat)
	if err != nil {
		return 0, err
	}
	return sh.ID, nil
}

// OpenShiftIn opens actor's shift with float inside tx, with its event and
// audit row. EConflict when the actor has one open already.
func OpenShiftIn(tx Tx, actor booking.Actor, float booking.Money) (*booking.Shift, error) {
	id, ok, err := tx.InsertShift(NewShift{Staff: actor.Name, StaffID: actor.StaffID, Terminal: actor.Terminal, Float: float, Site: max(actor.Site, booking.MainSite)})
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, booking.Errorf(booking.EConflict, "%s has a shift open already; close it first.", actor.Name)
	}
	if err := tx.InsertShiftEvent(id, ShiftEventRow{Kind: "open", At: tx.Now(), By: actor.Name, Counted: &float}); err != nil {
		return nil, err
	}
	sh := &booking.Shift{ID: id, Staff: actor.Name, Terminal: actor.Terminal, Status: booking.ShiftOpen, OpenedAt: tx.Now(), Float: float}
	return sh, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditShiftOpen, ShiftID: id, Amount: float, Detail: "float " + float.String()}, 0)
}

// OpenShift opens the actor's shift with the float counted into the
// drawer; at most one is open per person.
func (s *Store) OpenShift(ctx context.Context, actor booking.Actor, req booking.OpenShiftRequest) (*booking.Shift, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return write(s, ctx, actor, Write{Op: "open shift"}, func(tx Tx) (*booking.Shift, error) {
		return OpenShiftIn(tx, actor, req.Float)
	})
}

// CurrentShift returns the actor's open shift.
func (s *Store) CurrentShift(ctx context.Context, actor booking.Actor) (*booking.Shift, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	sh, found, err := s.d.ReadOpenShift(ctx, actor.Name)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, noShiftOpen(actor)
	}
	return &sh, nil
}

// noShiftOpen is the refusal of what needs the actor's open shift.
func noShiftOpen(actor booking.Actor) error {
	return booking.Errorf(booking.ENotFound, "%s has no shift open.", actor.Name)
}

// CloseShift closes the actor's open shift with the blind count and
// returns the Z report. The shift is read locked and its cash summed
// after, inside the transaction: a payment committed just before is in
// the figure, and one just after is refused for want of an open shift.
func (s *Store) CloseShift(ctx context.Context, actor booking.Actor, req booking.CloseShiftRequest) (*booking.ShiftReport, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	breakdown := booking.CleanLine(req.Breakdown, 200)
	id, err := write(s, ctx, actor, Write{Op: "close shift"}, func(tx Tx) (int64, error) {
		id, float, found, err := tx.OpenShiftForUpdate(actor.Name)
		if err != nil {
			return 0, err
		}
		if !found {
			return 0, noShiftOpen(actor)
		}
		cash, err := tx.ShiftCash(id)
		if err != nil {
			return 0, err
		}
		expected := float + cash
		if err := tx.CloseShiftRow(id, req.Counted, expected, actor.Name); err != nil {
			return 0, err
		}
		e := ShiftEventRow{Kind: "close", At: tx.Now(), By: actor.Name, Counted: &req.Counted, Expected: &expected, Breakdown: breakdown}
		if err := tx.InsertShiftEvent(id, e); err != nil {
			return 0, err
		}
		detail := "counted " + req.Counted.String() + ", expected " + expected.String()
		return id, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditShiftClose, ShiftID: id, Amount: req.Counted, Detail: detail}, 0)
	})
	if err != nil {
		return nil, err
	}
	return committed(ctx, func(ctx context.Context) (*booking.ShiftReport, error) { return s.shiftReport(ctx, id) })
}

// ShiftReport reports on one shift: X while open, Z once closed. Another
// person's shift is for a supervisor to see.
func (s *Store) ShiftReport(ctx context.Context, actor booking.Actor, id int64) (*booking.ShiftReport, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	r, err := s.shiftReport(ctx, id)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(r.Shift.Staff, actor.Name) {
		if err := booking.Authorize(actor, booking.ActionReopenShift); err != nil {
			return nil, booking.Errorf(booking.EForbidden, "Shift %d is %s's; a supervisor may see it.", id, booking.CleanLine(r.Shift.Staff, 40))
		}
	}
	return r, nil
}

// ListShifts lists shifts newest first: the actor's own, or anyone's for
// a supervisor.
func (s *Store) ListShifts(ctx context.Context, actor booking.Actor, q booking.ShiftQuery) ([]booking.Shift, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	staff := booking.CleanLine(q.Staff, 40)
	if booking.Authorize(actor, booking.ActionReopenShift) != nil {
		staff = actor.Name
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultShiftList
	}
	return s.d.ReadShifts(ctx, staff, q.Open, limit)
}

// ReopenShift reopens a closed shift with a reason; the count it was
// closed with stays in its close event.
func (s *Store) ReopenShift(ctx context.Context, actor booking.Actor, req booking.ReopenShiftRequest) (*booking.Shift, error) {
	if err := booking.Authorize(actor, booking.ActionReopenShift); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	reason := booking.CleanLine(req.Reason, 200)
	err := apply(s, ctx, actor, Write{Op: "reopen shift"}, func(tx Tx) error {
		status, staff, found, err := tx.ShiftForUpdate(req.ID)
		if err != nil {
			return err
		}
		if !found {
			return noShift(req.ID)
		}
		if status != booking.ShiftClosed {
			return booking.Errorf(booking.EConflict, "Shift %d is open already.", req.ID)
		}
		ok, err := tx.ReopenShiftRow(req.ID)
		if err != nil {
			return err
		}
		if !ok {
			return booking.Errorf(booking.EConflict, "%s has another shift open; close it before reopening shift %d.", booking.CleanLine(staff, 40), req.ID)
		}
		if err := tx.InsertShiftEvent(req.ID, ShiftEventRow{Kind: "reopen", At: tx.Now(), By: actor.Name, Reason: reason}); err != nil {
			return err
		}
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditShiftReopen, ShiftID: req.ID, Detail: reason}, 0)
	})
	if err != nil {
		return nil, err
	}
	return committed(ctx, func(ctx context.Context) (*booking.Shift, error) {
		r, err := s.shiftReport(ctx, req.ID)
		if err != nil {
			return nil, err
		}
		return &r.Shift, nil
	})
}

// noShift is the answer for a shift id that names none.
func noShift(id int64) error { return booking.Errorf(booking.ENotFound, "No shift %d.", id) }

// shiftReport reads a shift and works out its report.
func (s *Store) shiftReport(ctx context.Context, id int64) (*booking.ShiftReport, error) {
	rec, found, err := s.d.ReadShiftRecord(ctx, id)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, noShift(id)
	}
	r := report(rec)
	if r.Tax, err = s.shiftTax(ctx, r.Shift); err != nil {
		return nil, err
	}
	return r, s.shiftItems(ctx, r)
}

// report works out a shift's X or Z report from its record: the cash and
// card of its sales and refunds, what the drawer should hold now, and
// for a closed shift the figures its close recorded, which are what the
// person who counted was shown.
func report(rec ShiftRecord) *booking.ShiftReport {
	sh := rec.Shift
	r := &booking.ShiftReport{Shift: sh, Final: sh.Status == booking.ShiftClosed, Events: rec.Events}
	for _, m := range rec.Money {
		switch {
		case m.Kind == booking.PaymentIssue || m.Method == booking.GiftCard:
			giftCardMoney(r, m)
		case m.Kind == booking.PaymentSale && m.Method == booking.Cash:
			r.CashSales, r.CashSaleCount = r.CashSales+m.Sum, r.CashSaleCount+m.N
		case m.Kind == booking.PaymentSale:
			r.CardSales, r.CardSaleCount = r.CardSales+m.Sum, r.CardSaleCount+m.N
		case m.Method == booking.Cash:
			r.CashRefunds, r.CashRefundCount = r.CashRefunds+m.Sum, r.CashRefundCount+m.N
		default:
			r.CardRefunds, r.CardRefundCount = r.CardRefunds+m.Sum, r.CardRefundCount+m.N
		}
	}
	r.Sales, r.Refunds = r.CashSaleCount+r.CardSaleCount, r.CashRefundCount+r.CardRefundCount
	for _, e := range rec.Events {
		if e.Kind == "close" {
			r.Breakdown = e.Breakdown
		}
	}
	r.Expected = sh.Float + r.CashSales - r.CashRefunds + r.CardsSoldCash
	if r.Final {
		r.Expected, r.Counted, r.Variance = sh.Expected, sh.Counted, sh.Variance()
	}
	return r
}
