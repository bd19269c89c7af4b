package booking

import "fmt"

// BookingSums is one booking as an invariant check sees it: its total and
// status beside what its tickets, payments, claims and exchanges add up to,
// read by each backend's CheckInvariants in one query.
type BookingSums struct {
	Number                           string
	Status                           BookingStatus
	Total, TicketSum, LiveSum, Gone  Money // Gone: refunded and void tickets
	Sale, Refund                     Money
	LiveCount, SoldClaims, Misplaced int64
	// Exchanges: the credit a booking was made with (CreditIn) and the
	// part of it paid back (Back, one of its refunds), and the credit its
	// exchanged tickets carried away (CreditOut).
	CreditIn, Back, CreditOut Money
}

// Problem says what is wrong with a booking's sums, or "".
func (b BookingSums) Problem() string {
	switch {
	case b.TicketSum != b.Total:
		return fmt.Sprintf("tickets add up to %s, total %s", b.TicketSum.String(), b.Total.String())
	case b.Sale+b.CreditIn-b.Back != b.Total:
		return fmt.Sprintf("paid %s (and %s exchanged in) for a total of %s", b.Sale.String(), (b.CreditIn - b.Back).String(), b.Total.String())
	case b.Sale+b.CreditIn-b.Refund-b.CreditOut != b.LiveSum:
		return fmt.Sprintf("paid %s less %s refunded for %s of live tickets", (b.Sale + b.CreditIn).String(), (b.Refund + b.CreditOut).String(), b.LiveSum.String())
	case b.Refund-b.Back+b.CreditOut != b.Gone:
		return fmt.Sprintf("refunded %s for %s of refunded and void tickets", (b.Refund - b.Back + b.CreditOut).String(), b.Gone.String())
	case b.Status == BookingCancelled && (b.Refund-b.Back+b.CreditOut != b.Total || b.LiveCount != 0):
		return fmt.Sprintf("cancelled with %s refunded and %d live tickets", (b.Refund - b.Back + b.CreditOut).String(), b.LiveCount)
	case b.SoldClaims != b.LiveCount:
		return fmt.Sprintf("%d sold seats for %d live tickets", b.SoldClaims, b.LiveCount)
	case b.Misplaced != 0:
		return fmt.Sprintf("%d tickets in its id range belong to another booking", b.Misplaced)
	}
	return ""
}
