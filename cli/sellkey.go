package cli

import (
	"fmt"
	"slices"
	"strings"

	"boxoffice/booking"
)

// A sell command's --key lands a retry on the booking the first run made
// (sellOn). A key used again for another sale must not answer with that
// booking as if this one were made: sameSale tells a retry from a
// different sale under the same key.

// sameSale returns nil when b, the booking a's idempotency key made, is
// the sale a asks for: the same show, the seats named (or as many as
// --best asked for, with as many wheelchair places), every ticket of a's
// type, paid the same way (and with the same cash handed over, when
// given). Otherwise a conflict that says the key was used for another
// sale. Who the customer is does not make another sale.
func sameSale(a *sellArgs, b *booking.Booking) error {
	why := saleDiffers(a, b)
	if why == "" {
		return nil
	}
	return booking.Errorf(booking.EConflict, "The key %q already made booking %s, and %s: nothing was sold. Give this sale a key of its own (or none); the same command again shows %s.",
		booking.CleanLine(a.req.IdempotencyKey, 40), b.Number, why, b.Number)
}

// saleDiffers says how b is not the sale a asks for, "" when it is.
func saleDiffers(a *sellArgs, b *booking.Booking) string {
	if b.Show.ID != a.showID {
		return fmt.Sprintf("that was for show %d", b.Show.ID)
	}
	labels := b.SeatLabels()
	if a.best == 0 {
		mine := slices.Clone(a.seats)
		theirs := make([]string, len(labels))
		for i, l := range labels {
			theirs[i] = strings.ToUpper(l)
		}
		slices.Sort(mine)
		slices.Sort(theirs)
		if !slices.Equal(mine, theirs) {
			return "that was for " + strings.Join(labels, " ")
		}
	} else {
		wheelchair := 0
		for _, t := range b.Tickets {
			if t.Seat.Kind == booking.Wheelchair {
				wheelchair++
			}
		}
		if len(b.Tickets) != a.best || wheelchair != a.wheelchair {
			return fmt.Sprintf("that was for %d seats (%s)", len(b.Tickets), strings.Join(labels, " "))
		}
	}
	for _, t := range b.Tickets {
		if t.Type != a.typ {
			return "its tickets are " + booking.CleanLine(t.Type, 16)
		}
	}
	for _, p := range b.Payments {
		if p.Kind != booking.PaymentSale {
			continue
		}
		// Paid in parts: its first part written is one of the parts asked
		// (a card that held nothing wrote none).
		inParts := slices.ContainsFunc(a.req.Tender, func(t booking.TenderPart) bool { return t.Method == p.Method })
		if p.Method != a.req.Method && !inParts {
			return "it was paid by " + string(p.Method)
		}
		if given := p.Tendered + itemsTendered(b); a.req.Tendered != 0 && len(a.req.Tender) == 0 && given != a.req.Tendered {
			return fmt.Sprintf("%s was handed over for it", given.String())
		}
		break
	}
	return ""
}
