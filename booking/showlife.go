package booking

import (
	"fmt"
	"strings"
	"time"
)

// A show's whole life: on sale until its sales close (a time relative to
// the start, per show or the cinema's default), then over once the film
// has run, when the sweeper settles each confirmed booking as completed
// (a ticket was admitted) or no_show (none was). A show can instead be
// cancelled, which refunds every booking of it.

// ShowStatus is whether a show is still on the programme.
type ShowStatus string

const (
	ShowScheduled ShowStatus = "scheduled"
	ShowCancelled ShowStatus = "cancelled"
)

// DefaultSalesClose is the cinema's sales close until a manager sets
// another: half an hour after the start, so latecomers buy through the
// trailers.
const DefaultSalesClose = 30 * time.Minute

// MinSalesClose and MaxSalesClose bound a sales close: from a day before
// the start (a members' preview sold in advance only) to an hour after
// it (past that, the film is well under way).
const (
	MinSalesClose = -24 * time.Hour
	MaxSalesClose = time.Hour
)

// SettleGrace is how long after a show ends its bookings are settled
// (completed or no_show): long enough for a door whose clock runs a few
// minutes behind, or a scan in flight, to be counted first.
const SettleGrace = 15 * time.Minute

// Ends is when the show is over: its start plus the film's running time.
// The door admits nobody after it.
func (s Show) Ends() time.Time { return s.Starts.Add(time.Duration(s.Film.Minutes) * time.Minute) }

// Cancelled reports whether the show was cancelled.
func (s Show) Cancelled() bool { return s.Status == ShowCancelled }

// ParseSalesClose reads a sales close like "30m", "15m", "-10m" or "1h"
// (before the start when negative) and checks its bounds. EInvalid.
func ParseSalesClose(text string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(text))
	if err != nil {
		return 0, Errorf(EInvalid, "Sales close %q is not a time like 30m, 15m or -10m (before the start).", CleanLine(text, 20))
	}
	return d, ValidateSalesClose(d)
}

// ValidateSalesClose refuses a sales close outside MinSalesClose ..
// MaxSalesClose or finer than a minute. EInvalid.
func ValidateSalesClose(d time.Duration) error {
	if d < MinSalesClose || d > MaxSalesClose {
		return Errorf(EInvalid, "Sales close between %s before and %s after the start, not %s.", FormatSalesClose(-MinSalesClose), FormatSalesClose(MaxSalesClose), FormatSalesClose(d))
	}
	if d%time.Minute != 0 {
		return Errorf(EInvalid, "Sales close in whole minutes, not %s.", d)
	}
	return nil
}

// FormatSalesClose writes a sales close as ParseSalesClose reads it:
// "30m", "-10m", "1h", "1h30m".
func FormatSalesClose(d time.Duration) string {
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	if s == "" || s == "-" {
		return "0m"
	}
	return s
}

// DescribeSalesClose says when sales close, for a clerk: "30 min after
// the start", "10 min before the start", "at the start".
func DescribeSalesClose(d time.Duration) string {
	switch {
	case d == 0:
		return "at the start"
	case d < 0:
		return fmt.Sprintf("%d min before the start", int(-d.Minutes()))
	}
	return fmt.Sprintf("%d min after the start", int(d.Minutes()))
}

// SalesCloseAt is when the show's sales close.
func (s Show) SalesCloseAt() time.Time { return s.Starts.Add(s.SalesClose) }

// CancelContact is one customer of a cancelled show to tell: who, how to
// reach them, their booking and what went back to them.
type CancelContact struct {
	Booking  string
	Name     string
	Phone    string
	Refunded Money
	Method   PayMethod
	Tickets  int
}

// ShowCancellation is a cancelled show and the customers to contact: every
// booking the cancellation refunded, by this call or an earlier one that
// was interrupted, by booking number.
type ShowCancellation struct {
	Show     Show
	Reason   string
	By       string
	At       time.Time
	Contacts []CancelContact
	// RefundedNow is how many bookings this call refunded; the others
	// were refunded by an earlier or a concurrent run.
	RefundedNow int
}

// Total is the money the cancellation gave back.
func (c *ShowCancellation) Total() Money {
	var t Money
	for _, k := range c.Contacts {
		t += k.Refunded
	}
	return t
}

// CheckCancelReason cleans the reason for cancelling a show, which every
// customer may be told. EInvalid when there is none.
func CheckCancelReason(reason string) (string, error) {
	r := CleanLine(reason, 120)
	if r == "" {
		return "", Errorf(EInvalid, "Say why the show is cancelled (--reason): the customers will be told.")
	}
	return r, nil
}
