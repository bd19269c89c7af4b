package booking

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The cinema's books beyond the tickets: the day close across every till,
// the cash drawer and the age ratings a sale checks.

// Books is the day close and the drawer (the returns are Returns).
type Books interface {
	Returns
	// CloseDay closes a site's local day once every shift opened on it is
	// closed: it adds the shifts' Z reports up (takings by method, the
	// cash to bank, the variance, the tax by rate) and stores the result,
	// which is never changed after. Needs ActionCloseDay. EConflict
	// naming the shifts still open, or when the day was closed already;
	// EInvalid for a day still to come.
	CloseDay(ctx context.Context, actor Actor, day time.Time, site int64) (*DayReport, error)
	// DayReport reads a closed day's report as it was stored, to print
	// it again. Needs ActionViewReports. ENotFound when the day was not
	// closed.
	DayReport(ctx context.Context, actor Actor, day time.Time, site int64) (*DayReport, error)

	// SetTerminalDrawer says whether a terminal's printer opens its cash
	// drawer on a cash sale, a cash refund and a float count. Needs
	// ActionManageStaff. ENotFound for the name.
	SetTerminalDrawer(ctx context.Context, actor Actor, name string, on bool) (*Terminal, error)
	// TerminalDrawer reads whether a terminal's printer opens the drawer
	// (true for a name that is not registered: the command line's own
	// --printer). Needs ActionSell.
	TerminalDrawer(ctx context.Context, actor Actor, name string) (bool, error)
	// OpenDrawer records a "no sale" opening of the drawer with its
	// reason, in the audit trail. Needs ActionShift, and an open shift of
	// the actor (ErrNoShift). EInvalid without a reason.
	OpenDrawer(ctx context.Context, actor Actor, reason string) error
	// ConfirmID records that the clerk checked the ID of whoever the
	// tickets of an age-rated show are for (NeedsID), once a sale. Needs
	// ActionSell. EInvalid for a show whose film needs no ID; ENotFound.
	ConfirmID(ctx context.Context, actor Actor, showID int64) error
}

// Actions and audit rows of the books.
const (
	ActionCloseDay Action      = "close_day"
	AuditDayClose  AuditAction = "day_close"
	AuditNoSale    AuditAction = "no_sale"
	AuditIDCheck   AuditAction = "id_check"
	AuditFilmHire  AuditAction = "film_hire"
)

// MethodTakings is one payment method's money over a day.
type MethodTakings struct {
	Method         PayMethod
	Sales, Refunds Money
	SaleN, RefundN int
	Net            Money
}

// DayShift is one shift of a closed day as its Z report had it.
type DayShift struct {
	ID       int64
	Staff    string
	Terminal string
	Float    Money
	Expected Money
	Counted  Money
	Variance Money
}

// DayReport is a site's closed day: its shifts, the takings by method,
// the cash to bank (every drawer's count less the floats that stay in
// them), the net variance and the tax by rate.
type DayReport struct {
	Site       int64
	Day        time.Time // the local day's midnight
	ClosedBy   string
	ClosedAt   time.Time
	Shifts     []DayShift
	Methods    []MethodTakings
	Floats     Money
	Counted    Money
	CashToBank Money
	Variance   Money
	Tax        []TaxRow
}

// NewDayReport adds the Z reports of a day's shifts up. Every one must be
// final (closed).
func NewDayReport(day time.Time, site int64, zs []*ShiftReport) *DayReport {
	r := &DayReport{Site: site, Day: DayStart(day)}
	cash := MethodTakings{Method: Cash}
	card := MethodTakings{Method: Card}
	tax := map[Rate]*TaxRow{}
	var rates []Rate
	for _, z := range zs {
		sh := z.Shift
		r.Shifts = append(r.Shifts, DayShift{ID: sh.ID, Staff: sh.Staff, Terminal: sh.Terminal, Float: sh.Float,
			Expected: z.Expected, Counted: z.Counted, Variance: z.Variance})
		cash.Sales, cash.Refunds = cash.Sales+z.CashSales, cash.Refunds+z.CashRefunds
		cash.SaleN, cash.RefundN = cash.SaleN+z.CashSaleCount, cash.RefundN+z.CashRefundCount
		card.Sales, card.Refunds = card.Sales+z.CardSales, card.Refunds+z.CardRefunds
		card.SaleN, card.RefundN = card.SaleN+z.CardSaleCount, card.RefundN+z.CardRefundCount
		r.Floats += sh.Float
		r.Counted += z.Counted
		r.Variance += z.Variance
		for _, t := range z.Tax {
			row, ok := tax[t.Rate]
			if !ok {
				row = &TaxRow{Rate: t.Rate}
				tax[t.Rate] = row
				rates = append(rates, t.Rate)
			}
			row.Sales += t.Sales
			row.Returns += t.Returns
			row.Gross += t.Gross
			row.Tax += t.Tax
			row.Net += t.Net
			row.Sold += t.Sold
			row.Back += t.Back
		}
	}
	cash.Net, card.Net = cash.Sales-cash.Refunds, card.Sales-card.Refunds
	r.Methods = []MethodTakings{cash, card}
	r.CashToBank = r.Counted - r.Floats
	slices.Sort(rates)
	for _, rt := range rates {
		r.Tax = append(r.Tax, *tax[rt])
	}
	return r
}

// Total is the day's takings, every method.
func (r *DayReport) Total() MethodTakings {
	t := MethodTakings{Method: "total"}
	for _, m := range r.Methods {
		t.Sales += m.Sales
		t.Refunds += m.Refunds
		t.SaleN += m.SaleN
		t.RefundN += m.RefundN
		t.Net += m.Net
	}
	return t
}

// DaySheet is a closed day as a sheet: a row a method, then the cash to
// bank, the variance and each tax rate as rows of their own.
func DaySheet(r *DayReport) *ReportSheet {
	if r == nil {
		return nil
	}
	t := newSheet("day-close", r.Day, r.Day, "",
		SheetColumn{"line", "line"}, SheetColumn{"count", "count"}, SheetColumn{"sales", "sales"},
		SheetColumn{"refunds", "refunds"}, SheetColumn{"net", "net"}, SheetColumn{"tax", "tax"})
	for _, m := range r.Methods {
		t.Rows = append(t.Rows, []any{string(m.Method), m.SaleN + m.RefundN, m.Sales, m.Refunds, m.Net, nil})
	}
	t.Rows = append(t.Rows, []any{"floats", len(r.Shifts), nil, nil, r.Floats, nil},
		[]any{"counted", len(r.Shifts), nil, nil, r.Counted, nil},
		[]any{"cash to bank", nil, nil, nil, r.CashToBank, nil},
		[]any{"variance", nil, nil, nil, r.Variance, nil})
	var tax Money
	for _, x := range r.Tax {
		t.Rows = append(t.Rows, []any{"tax " + x.Rate.String(), x.Sold - x.Back, x.Sales, x.Returns, x.Net, x.Tax})
		tax += x.Tax
	}
	tot := r.Total()
	t.Total = map[string]any{"count": tot.SaleN + tot.RefundN, "sales": tot.Sales, "refunds": tot.Refunds, "net": tot.Net, "tax": tax}
	return t
}

// ErrShiftsOpen refuses a day close while shifts of the day are open,
// naming each (its number, who and where).
func ErrShiftsOpen(day time.Time, open []Shift) error {
	names := make([]string, 0, len(open))
	for _, s := range open {
		n := fmt.Sprintf("#%d %s", s.ID, CleanLine(s.Staff, 40))
		if s.Terminal != "" {
			n += " at " + CleanLine(s.Terminal, 40)
		}
		names = append(names, n)
	}
	return Errorf(EConflict, "%s cannot be closed: %d shift(s) still open (%s). Close them first.",
		day.Format(time.DateOnly), len(open), strings.Join(names, ", "))
}

// ErrDayClosed refuses a second close of a day.
func ErrDayClosed(day time.Time, by string, at time.Time) error {
	return Errorf(EConflict, "%s was closed already by %s at %s; `day report %s` prints it again.",
		day.Format(time.DateOnly), CleanLine(by, 40), at.Format("15:04"), day.Format(time.DateOnly))
}

// MaxDrawerReason bounds a "no sale" reason.
const MaxDrawerReason = 120

// DrawerReason checks a "no sale" reason.
func DrawerReason(s string) (string, error) {
	r := CleanLine(strings.TrimSpace(s), MaxDrawerReason)
	if r == "" {
		return "", Errorf(EInvalid, "Opening the drawer without a sale needs a reason (change for the kiosk, a float top-up).")
	}
	return r, nil
}

// OpensDrawer reports whether money paid by m moves cash through the
// drawer: a cash sale or refund does, a card one does not.
func OpensDrawer(m PayMethod, amount Money) bool { return m == Cash && amount != 0 }

// DefaultIDAbove is the age above which a film's tickets need the
// clerk to check ID when nobody set rating.id_above.
const DefaultIDAbove = 12

// RatingAge is the minimum age a rating names: "18", "R18", "12A" and
// "FSK 16" read as their number, "U", "PG" and an empty or unknown rating
// as 0.
func RatingAge(rating string) int {
	start := strings.IndexAny(rating, "0123456789")
	if start < 0 {
		return 0
	}
	end := start
	for end < len(rating) && rating[end] >= '0' && rating[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(rating[start:end])
	if err != nil || n > 21 {
		return 0
	}
	return n
}

// NeedsID reports whether a film rated rating needs the clerk to check
// ID at a sale: its age is above above.
func NeedsID(rating string, above int) bool { return RatingAge(rating) > above }

// ErrIDNotChecked refuses a sale of an age-rated film the clerk has not
// confirmed ID for.
func ErrIDNotChecked(f Film) error {
	return Errorf(EInvalid, "%s is rated %s: check the customer's ID, then confirm it (--id-checked).",
		CleanLine(f.Title, 60), CleanLine(f.Rating, 8))
}

// IDAtDoor is what the kiosk says of a film that needs ID.
func IDAtDoor(f Film) string {
	return fmt.Sprintf("%s is rated %s: ID will be checked at the door.", CleanLine(f.Title, 60), CleanLine(f.Rating, 8))
}
