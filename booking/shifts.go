package booking

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// ShiftStatus is where a shift is: open while its person takes money,
// closed once they counted the drawer.
type ShiftStatus string

const (
	ShiftOpen   ShiftStatus = "open"
	ShiftClosed ShiftStatus = "closed"
)

// Shift is one person's drawer from the float they counted in to the blind
// count that closed it. It follows the person (staff name, "system" for
// the command line), not the terminal.
type Shift struct {
	ID       int64
	Staff    string
	Terminal string // where it was opened
	Status   ShiftStatus
	OpenedAt time.Time
	Float    Money
	ClosedAt time.Time // zero while open
	Counted  Money     // the blind count; zero while open
	Expected Money     // float + cash sales − cash refunds + gift cards sold for cash, set at the close
	ClosedBy string
}

// Variance is counted − expected: negative when the drawer is short.
// Zero for an open shift.
func (s Shift) Variance() Money {
	if s.Status != ShiftClosed {
		return 0
	}
	return s.Counted - s.Expected
}

// ShiftReport is an X report (an open shift, nothing closed) or a Z report
// (the close): the shift and what went through it.
type ShiftReport struct {
	Shift Shift
	// Final is true for a Z report: the shift is closed and Counted and
	// Variance mean something.
	Final bool
	// CashSales and CashRefunds are the cash of the shift's payments;
	// CardSales and CardRefunds the card payments taken while it was open.
	CashSales, CashRefunds Money
	CardSales, CardRefunds Money
	Sales, Refunds         int // how many payments of each kind
	// CashSaleCount and CardSaleCount split Sales by how the customer
	// paid, CashRefundCount and CardRefundCount Refunds: a report that
	// says "Cash sales (n)" counts only the cash ones.
	CashSaleCount, CardSaleCount     int
	CashRefundCount, CardRefundCount int
	// GiftCardSales and GiftCardRefunds are the parts of sales paid by
	// gift card and given back to one (takings, but no money in the
	// drawer); CardsSoldCash and CardsSoldCard the money taken for gift
	// cards sold (in the drawer and the card total, but not takings),
	// CardsSold how many.
	GiftCardSales, GiftCardRefunds         Money
	GiftCardSaleCount, GiftCardRefundCount int
	CardsSoldCash, CardsSoldCard           Money
	CardsSold                              int
	// Expected is Float + CashSales − CashRefunds + CardsSoldCash: what
	// the drawer should hold now.
	Expected Money
	// Counted and Variance are the blind count and Counted − Expected,
	// for a Z report only.
	Counted, Variance Money
	Breakdown         string // the count by denomination, when typed so
	// Events are the shift's opens, closes and reopens, oldest first.
	Events []ShiftEvent
	// Items are the items sold and refunded in the shift, by category
	// (their money is in the sales and refunds above); LowStock, on an X
	// report, the items on sale at or below LowStock now.
	Items    []ItemTally
	LowStock []Item
	// Tax is the tax of the tickets sold and taken back through the
	// shift, by rate (booking/tax.go), the untaxed 0 % too.
	Tax []TaxRow
}

// ShiftEvent is one open, close or reopen of a shift.
type ShiftEvent struct {
	Kind      string // "open", "close", "reopen"
	At        time.Time
	By        string
	Counted   Money
	Expected  Money
	Breakdown string
	Reason    string
}

// OpenShiftRequest opens the actor's shift with the float counted into the
// drawer.
type OpenShiftRequest struct {
	Float Money
}

// Validate refuses a float out of range.
func (r OpenShiftRequest) Validate() error { return checkFloat("float", r.Float) }

// CloseShiftRequest is the blind count of the actor's drawer: the total
// and, when typed so, the count by denomination ("50x2 20x10").
type CloseShiftRequest struct {
	Counted   Money
	Breakdown string
}

// Validate refuses a count out of range, and a breakdown that is not one
// or does not add up to the count.
func (r CloseShiftRequest) Validate() error {
	if err := checkFloat("count", r.Counted); err != nil {
		return err
	}
	if strings.TrimSpace(r.Breakdown) == "" {
		return nil
	}
	sum, err := ParseBreakdown(r.Breakdown)
	if err != nil {
		return err
	}
	if sum != r.Counted {
		return Errorf(EInvalid, "The count by denomination adds up to %s, not the %s counted.", sum.String(), r.Counted.String())
	}
	return nil
}

// ParseBreakdown adds up a count by denomination, "50x2 20x10 0.50x3":
// each note or coin's value, x, how many. Commas or spaces separate them.
func ParseBreakdown(s string) (Money, error) {
	bad := Errorf(EInvalid, "Count by denomination like 50x2 20x10 0.50x3 (value x how many).")
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == ';' })
	if len(fields) == 0 {
		return 0, bad
	}
	var sum Money
	for _, f := range fields {
		value, count, ok := strings.Cut(strings.ToLower(f), "x")
		if !ok {
			return 0, bad
		}
		v, err := ParseMoney(value)
		n, nerr := strconv.Atoi(count)
		if err != nil || nerr != nil || n < 0 || n > 100_000 || v <= 0 {
			return 0, bad
		}
		if sum += v * Money(n); sum > MaxMoney {
			return 0, Errorf(EInvalid, "The count is more than %s; check it.", MaxMoney.String())
		}
	}
	return sum, nil
}

// ReopenShiftRequest reopens a closed shift, with the reason, which is
// kept with the first count.
type ReopenShiftRequest struct {
	ID     int64
	Reason string
}

// Validate requires a shift and a reason.
func (r ReopenShiftRequest) Validate() error {
	if r.ID <= 0 {
		return Errorf(EInvalid, "Which shift? Give its number.")
	}
	if CleanLine(r.Reason, 200) == "" {
		return Errorf(EInvalid, "Say why the shift is reopened.")
	}
	return nil
}

// ShiftQuery lists shifts: Open only open ones; Staff one person's (any
// case); Limit the newest N (0: 50).
type ShiftQuery struct {
	Staff string
	Open  bool
	Limit int
}

func checkFloat(what string, m Money) error {
	if m < 0 {
		return Errorf(EInvalid, "The %s cannot be negative.", what)
	}
	if m > MaxMoney {
		return Errorf(EInvalid, "The %s of %s is more than %s; check the amount.", what, m.String(), MaxMoney.String())
	}
	return nil
}

// ErrNoShift is the refusal of a cash sale or refund by someone with no
// open shift and no float in the request to open one with.
var ErrNoShift = &Error{Code: EInvalid, Message: "Open a shift first: count the float in the drawer."}

// noShiftForCash ends the refusal of NoShiftForCash.
const noShiftForCash = " paid in cash: open a shift first (the float in the drawer); their refunds come out of it."

// NoShiftForCash is ErrNoShift for cancelling a show whose n bookings
// paid in cash would be refunded out of the actor's drawer: it says how
// many, and IsNoShift knows it, so a screen asks for the float as it does
// for a sale.
func NoShiftForCash(n int) *Error {
	what := "1 booking"
	if n != 1 {
		what = strconv.Itoa(n) + " bookings"
	}
	return &Error{Code: ErrNoShift.Code, Message: what + noShiftForCash}
}

// IsNoShift reports whether err is ErrNoShift or NoShiftForCash.
func IsNoShift(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == ErrNoShift.Code && (e.Message == ErrNoShift.Message || strings.HasSuffix(e.Message, noShiftForCash))
}

// RefundRequest refunds some tickets of a booking, named by seat: each
// goes back by the way it was paid, the seat comes free, and the booking
// is cancelled once no ticket of it is left.
type RefundRequest struct {
	Number string
	Seats  []string
	Reason string
	// Approver is a supervisor (a manager after the show started) who
	// typed their name and PIN at the counter of someone below.
	Approver *Credentials
	Addr     string
	// OpenFloat, when set, opens the refunder's shift with this float in
	// the same transaction if they have none open and the refund is cash.
	OpenFloat *Money
}

// Validate refuses a refund without a booking or seats, or with too many.
func (r RefundRequest) Validate() error {
	if CleanLine(r.Number, 20) == "" {
		return Errorf(EInvalid, "Which booking? Give its number.")
	}
	if len(r.Seats) == 0 {
		return Errorf(EInvalid, "Name the seats to refund.")
	}
	if len(r.Seats) > MaxSeatsPerSale {
		return Errorf(EInvalid, "A booking has at most %d seats.", MaxSeatsPerSale)
	}
	if r.OpenFloat != nil {
		return checkFloat("float", *r.OpenFloat)
	}
	return nil
}
