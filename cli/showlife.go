package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// show cancel and show sales-close: a show's life from the command line.

// showLifeCommands are the show subcommands of a show's life.
func showLifeCommands() []*command {
	return []*command{
		{name: "cancel", args: "SHOW --reason R [--json]", short: "cancel a show: refund every booking, list the customers to contact",
			long: showCancelLong, json: machine, flags: showCancelFlags},
		{name: "sales-close", args: "SHOW CLOSE | --default CLOSE | SHOW --default", short: "when a show's sales close, like 15m after the start or -10m before",
			long: salesCloseLong, flags: salesCloseFlags},
	}
}

const showCancelLong = `Cancels the show for good: no counter can hold or sell a seat of it from
then on, and every open seat map says so. Every booking is then cancelled and
refunded by the way it was paid, one small transaction each; cash comes out
of the command line's open shift (boxoffice shift open --float AMOUNT first).
Interrupted, or run twice at once, it refunds each booking exactly once; run
it again to finish. It prints everyone to contact, with what went back.`

const salesCloseLong = `CLOSE is a time relative to the start: 30m (after), 0m (at the start),
-10m (ten minutes before), from -24h to 1h. --default CLOSE sets the
cinema's default for every show without its own (30m until set);
SHOW --default puts a show back on it.`

// dieAfterRefundsEnv makes show cancel kill its own process after that
// many refunds, the way a power cut would: how the tests prove a rerun
// finishes the job.
const dieAfterRefundsEnv = "BOXOFFICE_TEST_DIE_AFTER_REFUNDS"

func showCancelFlags(fs *flag.FlagSet) runFunc {
	reason := fs.String("reason", "", "why, which every customer is told (required)")
	return func(c *env, pos []string) error { return c.showCancel(pos, *reason) }
}

// showCancel cancels a show and prints the contact list.
func (c *env) showCancel(pos []string, reason string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice show cancel SHOW --reason R")
	}
	showID, err := showArg(pos[0])
	if err != nil {
		return err
	}
	if _, err := booking.CheckCancelReason(reason); err != nil {
		return usagef("%s", booking.ErrorMessage(err))
	}
	ctx := c.ctx
	if n, err := strconv.Atoi(os.Getenv(dieAfterRefundsEnv)); err == nil && n > 0 {
		ctx = store.WithCancelProgress(ctx, func(done int) {
			if done >= n {
				p, _ := os.FindProcess(os.Getpid())
				p.Kill()
				select {}
			}
		})
	}
	return c.withStore(func(st backend) error {
		res, err := st.CancelShow(ctx, booking.System, showID, reason)
		if err != nil {
			return err
		}
		c.print(cancellationView{res})
		return nil
	})
}

// cancellationView is a cancelled show and whom to contact.
type cancellationView struct{ c *booking.ShowCancellation }

type contactJSON struct {
	Booking  string `json:"booking"`
	Name     string `json:"name"`
	Phone    string `json:"phone"`
	Refunded string `json:"refunded"`
	Method   string `json:"method"`
	Tickets  int    `json:"tickets"`
}

func (v cancellationView) jsonValue() any {
	c := v.c
	contacts := make([]contactJSON, 0, len(c.Contacts))
	for _, k := range c.Contacts {
		contacts = append(contacts, contactJSON{booking.Clean(k.Booking), booking.CleanLine(k.Name, 80), booking.CleanLine(k.Phone, 32),
			k.Refunded.String(), string(k.Method), k.Tickets})
	}
	return map[string]any{
		"show": newShowJSON(c.Show), "status": string(c.Show.Status), "reason": booking.CleanLine(c.Reason, 120),
		"cancelled_by": booking.CleanLine(c.By, 40), "cancelled_at": c.At.Format(time.RFC3339),
		"refunded_now": c.RefundedNow, "bookings": len(c.Contacts), "total": c.Total().String(), "contacts": contacts,
	}
}

func (v cancellationView) writeText(w io.Writer) {
	c := v.c
	fmt.Fprintf(w, "Cancelled show %d: %s — %s, %s.\nReason: %s\n", c.Show.ID, booking.Clean(c.Show.Film.Title), booking.Clean(c.Show.HallName),
		c.Show.Starts.Format("Mon 02 Jan 15:04"), booking.CleanLine(c.Reason, 120))
	fmt.Fprintf(w, "%s refunded, %s in all (%d by this run).\n\n", plural(len(c.Contacts), "booking", "bookings"), c.Total().String(), c.RefundedNow)
	if len(c.Contacts) == 0 {
		fmt.Fprintln(w, "Nobody to contact: the show had no bookings.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BOOKING\tNAME\tPHONE\tREFUNDED\tPAID BY\tTICKETS")
	for _, k := range c.Contacts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", booking.Clean(k.Booking), orDash(booking.CleanLine(k.Name, 40)), orDash(booking.CleanLine(k.Phone, 32)),
			k.Refunded.String(), k.Method, k.Tickets)
	}
	tw.Flush()
}

// orDash is s, or "-" for nothing.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func salesCloseFlags(fs *flag.FlagSet) runFunc {
	def := fs.Bool("default", false, "the cinema's default (with CLOSE), or back to it (with SHOW)")
	return func(c *env, pos []string) error { return c.salesClose(pos, *def) }
}

// salesClose sets a show's sales close or the cinema's default.
func (c *env) salesClose(pos []string, def bool) error {
	const usage = "usage: boxoffice show sales-close SHOW CLOSE | show sales-close --default CLOSE | show sales-close SHOW --default"
	var showID int64
	var close *time.Duration
	switch {
	case def && len(pos) == 1 && !isNumber(pos[0]):
		d, err := booking.ParseSalesClose(pos[0])
		if err != nil {
			return usagef("%s", booking.ErrorMessage(err))
		}
		close = &d
	case def && len(pos) == 1:
		id, err := showArg(pos[0])
		if err != nil {
			return err
		}
		showID = id
	case !def && len(pos) == 2:
		id, err := showArg(pos[0])
		if err != nil {
			return err
		}
		d, err := booking.ParseSalesClose(pos[1])
		if err != nil {
			return usagef("%s", booking.ErrorMessage(err))
		}
		showID, close = id, &d
	default:
		return usagef(usage)
	}
	return c.withStore(func(st backend) error {
		if err := st.SetSalesClose(c.ctx, booking.System, showID, close); err != nil {
			return err
		}
		switch {
		case showID == 0:
			c.say("Sales close %s for every show without its own.", booking.DescribeSalesClose(*close))
		case close == nil:
			c.say("Show %d follows the cinema's sales close again.", showID)
		default:
			c.say("Sales for show %d close %s.", showID, booking.DescribeSalesClose(*close))
		}
		return nil
	})
}

// isNumber reports whether s is a show id rather than a sales close.
func isNumber(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// salesCloseFlag reads show add's --sales-close: nil when not given.
func salesCloseFlag(text string) (*time.Duration, error) {
	if text == "" {
		return nil, nil
	}
	d, err := booking.ParseSalesClose(text)
	if err != nil {
		return nil, usagef("--sales-close: %s", booking.ErrorMessage(err))
	}
	return &d, nil
}
