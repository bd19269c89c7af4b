package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"boxoffice/booking"
)

// find: the counter's search (ctrl+f) on the command line.

const findLong = `Searches as the counter's find screen does (booking.FindBookings): a
booking number alone finds that booking and nothing else; three or more
digits are the end of a phone number; anything else is the start of the
customer's names, in any order ("ann mor" finds Ann Moreau). The newest
bookings come first, at most 20. Nothing matching is exit code 4.`

// find searches bookings by number, phone or name. The words need no
// quotes: boxoffice find Ann Moreau.
func (c *env) find(pos []string) error {
	text := strings.Join(pos, " ")
	if strings.TrimSpace(text) == "" {
		return usagef("usage: boxoffice find TEXT (a booking number, a phone number or a name)")
	}
	return c.withStore(func(st backend) error {
		found, err := st.FindBookings(c.ctx, booking.System, booking.BookingQuery{Text: text})
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return booking.Errorf(booking.ENotFound, "No booking matches %q.", booking.CleanLine(text, 64))
		}
		c.print(foundView(found))
		return nil
	})
}

// foundView is what find answers: one line a booking, newest first.
type foundView []booking.Booking

func (v foundView) jsonValue() any {
	out := make([]any, len(v))
	for i := range v {
		out[i] = bookingView{&v[i]}.jsonValue()
	}
	return out
}

func (v foundView) writeText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BOOKING\tSTATUS\tSHOW\tSEATS\tCUSTOMER")
	for _, b := range v {
		who := strings.TrimSpace(booking.CleanLine(b.Customer, 40) + " " + booking.CleanLine(b.Phone, 24))
		fmt.Fprintf(tw, "%s\t%s\t%s %s, %s\t%s\t%s\n", b.Number, b.Status, b.Show.Starts.Format("Mon 02 Jan 15:04"),
			booking.CleanLine(b.Show.Film.Title, 30), booking.CleanLine(b.Show.HallName, 20), seatList(b.SeatLabels()), who)
	}
	tw.Flush()
}

// seatList is a booking's seats on one line of a table: the first few,
// then how many more.
func seatList(labels []string) string {
	const shown = 6
	if len(labels) <= shown {
		return strings.Join(labels, " ")
	}
	return fmt.Sprintf("%s +%d", strings.Join(labels[:shown], " "), len(labels)-shown)
}
