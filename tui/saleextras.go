package tui

import (
	"strings"

	"boxoffice/booking"
)

// What a checkout sells beside its seats: a voucher code and items,
// typed in two fields of the form ("popcorn:2 cola"); the store prices
// both in the sale's own transaction and refuses the whole sale for a
// used-up voucher or a sold-out item.

// maxItemsText bounds the items typed: MaxItemLines lines of a code and
// a count, with a space between.
const maxItemsText = booking.MaxItemLines * (booking.MaxItemCode + 4)

// isCodeRune accepts what a voucher code is made of.
func isCodeRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
}

// isItemsRune accepts what items typed are made of: codes, counts,
// colons and spaces.
func isItemsRune(r rune) bool { return isCodeRune(r) || r == ':' || r == ' ' || r == ',' }

// typing reports whether the focus is on a text field every key types
// into, where a letter is never a command.
func (c *checkoutState) typing() bool {
	switch c.focus - len(c.seats) {
	case focusName, focusPhone, focusVoucher, focusItems:
		return true
	}
	return false
}

// extras reports whether the sale carries a voucher or items: its total
// is then the store's to work out, and short cash is the store's to
// refuse.
func (c *checkoutState) extras() bool {
	return !c.voucher.Empty() || strings.TrimSpace(c.items.String()) != ""
}

// saleItems reads the items typed, nil for none.
func (c *checkoutState) saleItems() ([]booking.ItemLine, error) {
	var out []booking.ItemLine
	for _, w := range strings.FieldsFunc(c.items.String(), func(r rune) bool { return r == ' ' || r == ',' }) {
		l, err := booking.ParseItemLine(w)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, nil
	}
	_, err := booking.NormalItemLines(out)
	return out, err
}

// vouchersTable is the report of redemptions: each use, its booking and
// discount, and whether a cancel gave it back.
func vouchersTable(rep *booking.VoucherReport) *reportTable {
	if rep == nil {
		return nil
	}
	t := &reportTable{head: []string{"At", "Code", "Booking", "Staff", "Discount", "Status"}, empty: "No voucher was redeemed in these days.", cut: []int{3}}
	sheet := booking.VouchersSheet(rep)
	for _, r := range rep.Redemptions {
		status := "redeemed"
		if r.Cancelled {
			status = "given back"
		}
		t.rows = append(t.rows, []string{r.At.Format(reportStamp), r.Code, booking.CleanLine(r.Booking, 14), booking.CleanLine(r.Staff, 20),
			reportMoney(r.Discount), status})
	}
	total, _ := sheet.Total["discount"].(booking.Money)
	t.total = []string{"Total", "", "", "", reportMoney(total), booking.SheetCell(sheet.Total["status"])}
	return t
}
