package booking

import (
	"strconv"
	"strings"
	"time"
)

// MaxSeatsPerSale keeps one counter from sweeping up a whole hall: the
// most seats one hold, one sale or one waiting party may have.
const MaxSeatsPerSale = 20

// SalesOpen refuses with EInvalid a hold or a sale of a cancelled show,
// or of show at now once its sales closed (show.SalesClose, relative to
// the start). Stores ask it inside the write transaction, on the
// transaction's clock, with the show's status and sales close read in
// that transaction.
func SalesOpen(show Show, now time.Time) error {
	if show.Cancelled() {
		return Errorf(EInvalid, "The %s show was cancelled: %s.", show.Starts.Format("Mon 15:04"), CleanLine(show.CancelReason, 120))
	}
	if now.Before(show.SalesCloseAt()) {
		return nil
	}
	return Errorf(EInvalid, "Sales for the %s show closed %s.", show.Starts.Format("Mon 15:04"), DescribeSalesClose(show.SalesClose))
}

// ParseSeatRange reads what a clerk types to pick seats — "G7", "g7",
// "G7-9" or "G7-G9", spaces anywhere — into seat labels in order. A range
// stays in one row and holds at most MaxSeatsPerSale seats; anything else
// is EInvalid. Whether the seats exist is for the hall to say.
func ParseSeatRange(text string) ([]string, error) {
	t := strings.ToUpper(strings.ReplaceAll(text, " ", ""))
	bad := Errorf(EInvalid, "Type a seat like G7, or a range like G7-9.")
	from, to, isRange := strings.Cut(t, "-")
	row, n1, ok := splitSeatLabel(from)
	if !ok {
		return nil, bad
	}
	if !isRange {
		return []string{row + strconv.Itoa(n1)}, nil
	}
	row2, n2, ok := splitSeatLabel(to)
	if !ok {
		if n, err := strconv.Atoi(to); err == nil && n > 0 {
			row2, n2, ok = row, n, true
		}
	}
	if !ok || row2 != row {
		return nil, bad
	}
	if n2 < n1 {
		n1, n2 = n2, n1
	}
	if n2-n1 >= MaxSeatsPerSale {
		return nil, Errorf(EInvalid, "At most %d seats at once.", MaxSeatsPerSale)
	}
	out := make([]string, 0, n2-n1+1)
	for n := n1; n <= n2; n++ {
		out = append(out, row+strconv.Itoa(n))
	}
	return out, nil
}

// splitSeatLabel splits "G7" into "G" and 7: letters, then a number from 1.
func splitSeatLabel(s string) (string, int, bool) {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' })
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return s[:i], n, true
}
