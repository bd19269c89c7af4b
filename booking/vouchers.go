package booking

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Vouchers and promo codes: a code typed at the checkout that takes an
// amount or a percentage off a sale's tickets, a number of times (once
// by default), until a date, optionally only for one film, one show or
// one ticket type. The discount is spread over the ticket lines it
// applies to, so each ticket is stored at what was paid for it: its
// refund, its VAT and the takings are net of the discount without a
// second sum. A use is taken by one guarded statement in the sale's
// transaction and given back once when the booking is cancelled.

// Limits on a voucher.
const (
	MinVoucherCode = 3
	MaxVoucherCode = 24
	// MaxVoucherUses bounds a voucher's use count.
	MaxVoucherUses = 100_000
)

// ActionManageVouchers adds, lists and retires vouchers.
const ActionManageVouchers Action = "manage_vouchers"

// AuditVoucherChange is the audit row of a voucher added or retired.
const AuditVoucherChange AuditAction = "voucher_change"

// Voucher is one code and what it takes off.
type Voucher struct {
	ID   int64
	Code string // upper case: "SUMMER10"
	// Off is an amount off the sale's tickets; Percent a percentage off
	// each ticket (1 to 100). Exactly one is set.
	Off     Money
	Percent int
	// Uses is how many times it may be used; UsesLeft how many are left.
	Uses, UsesLeft int
	// Until is when it stops being accepted; zero for never.
	Until time.Time
	// FilmID, ShowID and TicketType limit it; 0 and "" for any.
	FilmID, ShowID int64
	TicketType     string
	Retired        bool
	CreatedAt      time.Time
}

// LastDay is the last local day the voucher is accepted, as
// 2026-12-31; "" for no end.
func (v Voucher) LastDay() string {
	if v.Until.IsZero() {
		return ""
	}
	return v.Until.Add(-time.Millisecond).In(time.Local).Format(time.DateOnly)
}

// LimitText says what the voucher is kept to: "film 2, child", or "any".
func (v Voucher) LimitText() string {
	var out []string
	if v.FilmID != 0 {
		out = append(out, fmt.Sprintf("film %d", v.FilmID))
	}
	if v.ShowID != 0 {
		out = append(out, fmt.Sprintf("show %d", v.ShowID))
	}
	if v.TicketType != "" {
		out = append(out, Clean(v.TicketType))
	}
	if len(out) == 0 {
		return "any"
	}
	return strings.Join(out, ", ")
}

// OffText says what the voucher takes off: "2.50 off" or "10% off".
func (v Voucher) OffText() string {
	if v.Percent > 0 {
		return strconv.Itoa(v.Percent) + "% off"
	}
	return v.Off.String() + " off"
}

// VoucherUse is a voucher as a sale used it: its code and the discount
// it gave. Returned is set once the use went back (the booking was
// cancelled).
type VoucherUse struct {
	Code     string
	Discount Money
	Returned bool
}

// ParseVoucherCode reads a code as typed: letters, digits, - and _,
// MinVoucherCode to MaxVoucherCode of them, kept in upper case.
func ParseVoucherCode(s string) (string, error) {
	code := strings.ToUpper(strings.TrimSpace(s))
	ok := len(code) >= MinVoucherCode && len(code) <= MaxVoucherCode
	for _, r := range code {
		ok = ok && (r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}
	if !ok {
		return "", Errorf(EInvalid, "A voucher code is %d to %d letters, digits, - or _, like SUMMER10, not %q.", MinVoucherCode, MaxVoucherCode, CleanLine(s, 30))
	}
	return code, nil
}

// ValidVoucher returns v cleaned for storing (its code read as
// ParseVoucherCode, a ticket type in lower case, uses 1 when not given,
// UsesLeft = Uses), or refuses it.
func ValidVoucher(v Voucher) (Voucher, error) {
	var err error
	if v.Code, err = ParseVoucherCode(v.Code); err != nil {
		return v, err
	}
	switch {
	case (v.Off > 0) == (v.Percent > 0) || v.Off < 0 || v.Percent < 0:
		return v, Errorf(EInvalid, "A voucher takes either an amount off (--off 2.50) or a percentage off (--percent 10), one of them.")
	case v.Off > MaxMoney:
		return v, Errorf(EInvalid, "A voucher's amount off is at most %s.", MaxMoney.String())
	case v.Percent > 100:
		return v, Errorf(EInvalid, "A voucher's percentage off is 1 to 100.")
	}
	if v.Uses == 0 {
		v.Uses = 1
	}
	if v.Uses < 1 || v.Uses > MaxVoucherUses {
		return v, Errorf(EInvalid, "A voucher is used 1 to %d times.", MaxVoucherUses)
	}
	v.UsesLeft = v.Uses
	if v.FilmID < 0 || v.ShowID < 0 {
		return v, Errorf(EInvalid, "A film or show id is a positive number.")
	}
	v.TicketType = strings.ToLower(CleanLine(v.TicketType, MaxTicketTypeCode+1))
	if v.TicketType != "" && !ValidTicketTypeCode(v.TicketType) {
		return v, ErrTicketTypeCode()
	}
	return v, nil
}

// ErrNoVoucher is the answer for a code that names no voucher.
func ErrNoVoucher(code string) error {
	return Errorf(ENotFound, "No voucher %q.", CleanLine(code, MaxVoucherCode+4))
}

// VoucherRefusal says why v cannot be used at now: retired, expired or
// used up (EConflict, as a taken seat), or nil when it can.
func VoucherRefusal(v Voucher, now time.Time) error {
	switch {
	case v.Retired:
		return Errorf(EConflict, "Voucher %s is no longer valid.", v.Code)
	case !v.Until.IsZero() && !now.Before(v.Until):
		return Errorf(EConflict, "Voucher %s expired on %s.", v.Code, v.Until.Add(-time.Millisecond).Format("2 Jan 2006"))
	case v.UsesLeft <= 0:
		return Errorf(EConflict, "Voucher %s is used up.", v.Code)
	}
	return nil
}

// ApplyVoucher takes v off the ticket lines of a sale of show: each line
// it applies to (all, or those of v's ticket type) is lowered by its
// share, and the lines are returned with the discount in all. A
// percentage is taken off each line, rounded half up per line (as VAT
// is); an amount off, at most the lines' sum, is shared out in
// proportion to the lines' amounts, the pennies left by rounding down
// going to the largest remainders first, so the shares add up to the
// discount exactly and no line goes below zero. A voucher for another
// film or show, or for a ticket type the sale has none of, is refused
// (EInvalid) naming what it is for.
func ApplyVoucher(v Voucher, show Show, lines []QuoteLine) ([]QuoteLine, Money, error) {
	if v.FilmID != 0 && v.FilmID != show.Film.ID {
		return nil, 0, Errorf(EInvalid, "Voucher %s is for another film (film %d).", v.Code, v.FilmID)
	}
	if v.ShowID != 0 && v.ShowID != show.ID {
		return nil, 0, Errorf(EInvalid, "Voucher %s is for another show (show %d).", v.Code, v.ShowID)
	}
	out := make([]QuoteLine, len(lines))
	copy(out, lines)
	var on []int
	var base Money
	for i, l := range out {
		if v.TicketType == "" || l.Type == v.TicketType {
			on = append(on, i)
			base += l.Amount
		}
	}
	if len(on) == 0 {
		return nil, 0, Errorf(EInvalid, "Voucher %s is for %s tickets; this sale has none.", v.Code, v.TicketType)
	}
	shares := voucherShares(v, out, on, base)
	var all Money
	for k, i := range on {
		out[i].Amount -= shares[k]
		all += shares[k]
	}
	return out, all, nil
}

// voucherShares is each line's share of the discount, lines on[k] of
// lines whose amounts add up to base.
func voucherShares(v Voucher, lines []QuoteLine, on []int, base Money) []Money {
	shares := make([]Money, len(on))
	if v.Percent > 0 {
		for k, i := range on {
			shares[k] = (lines[i].Amount*Money(v.Percent) + 50) / 100
		}
		return shares
	}
	off := min(v.Off, base)
	if base == 0 {
		return shares
	}
	rem := make([]Money, len(on))
	var given Money
	for k, i := range on {
		shares[k] = off * lines[i].Amount / base
		rem[k] = off * lines[i].Amount % base
		given += shares[k]
	}
	for ; given < off; given++ {
		best := -1
		for k := range on {
			if shares[k] < lines[on[k]].Amount && (best < 0 || rem[k] > rem[best]) {
				best = k
			}
		}
		shares[best]++
		rem[best] = -1
	}
	return shares
}

// ParseVoucherUntil reads --until's DATE (2026-12-31) in loc: the
// voucher is accepted to the end of that day.
func ParseVoucherUntil(s string, loc *time.Location) (time.Time, error) {
	day, err := time.ParseInLocation("2006-01-02", strings.TrimSpace(s), loc)
	if err != nil {
		return time.Time{}, Errorf(EInvalid, "A date is like 2026-12-31, not %q.", CleanLine(s, 20))
	}
	return day.AddDate(0, 0, 1), nil
}

// VoucherRedemption is one use of a voucher, for the report.
type VoucherRedemption struct {
	Code      string
	Booking   string // the booking's number
	Discount  Money
	At        time.Time
	Staff     string
	Cancelled bool // the use went back with the booking
}

// VoucherReport lists the redemptions of a range, oldest first.
type VoucherReport struct {
	From, To    time.Time
	Redemptions []VoucherRedemption
}

// VouchersSheet is the report of redemptions as a sheet: the discount
// given by each use, and the total of the uses that stand.
func VouchersSheet(rep *VoucherReport) *ReportSheet {
	if rep == nil {
		return nil
	}
	t := newSheet("vouchers", rep.From, rep.To, "",
		SheetColumn{"at", "At"}, SheetColumn{"code", "Code"}, SheetColumn{"booking", "Booking"},
		SheetColumn{"staff", "Staff"}, SheetColumn{"discount", "Discount"}, SheetColumn{"status", "Status"})
	var sum Money
	n := 0
	for _, r := range rep.Redemptions {
		status := "redeemed"
		if r.Cancelled {
			status = "returned"
		} else {
			sum += r.Discount
			n++
		}
		t.Rows = append(t.Rows, []any{r.At.Format(sheetTime), r.Code, r.Booking, r.Staff, r.Discount, status})
	}
	t.Total["at"] = "total"
	t.Total["discount"] = sum
	t.Total["status"] = strconv.Itoa(n) + " redeemed"
	return t
}

// Vouchers keeps the vouchers and their report; a sale redeems one by
// CheckoutRequest.Voucher.
type Vouchers interface {
	// AddVoucher adds a voucher (ValidVoucher). Needs
	// ActionManageVouchers. EInvalid for a bad voucher or a ticket type
	// limit that names none; EConflict when its code is taken; ENotFound
	// for a film or show limit that names none.
	AddVoucher(ctx context.Context, actor Actor, v Voucher) (*Voucher, error)
	// ListVouchers lists the vouchers by code, the retired ones too.
	// Needs ActionManageVouchers.
	ListVouchers(ctx context.Context, actor Actor) ([]Voucher, error)
	// RetireVoucher stops a voucher being accepted; its uses stay.
	// Needs ActionManageVouchers. ENotFound; EConflict when retired
	// already.
	RetireVoucher(ctx context.Context, actor Actor, code string) (*Voucher, error)
	// ReportVouchers lists the redemptions made in r. Needs
	// ActionViewReports.
	ReportVouchers(ctx context.Context, actor Actor, r ReportRange) (*VoucherReport, error)
}
