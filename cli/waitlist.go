package cli

import (
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
)

// waitlist: customers waiting for seats of a sold-out show.

const waitlistUsage = "usage: boxoffice waitlist add SHOW --name N --phone P [--seats N] | waitlist SHOW | waitlist remove ENTRY_ID"

func waitlistCommand() *command {
	return &command{name: "waitlist", args: "SHOW [--json]", short: "a show's waiting list and where each customer stands",
		json: machine, run: (*env).waitlist,
		subs: []*command{
			{name: "add", args: "SHOW --name N --phone P [--seats N]", short: "a customer waits for seats of a sold-out show", flags: waitlistAddFlags},
			{name: "remove", args: "ENTRY_ID", short: "take a customer off a waiting list", run: (*env).waitlistRemove},
		}}
}

// waitlist prints a show's waiting list.
func (c *env) waitlist(pos []string) error {
	if len(pos) != 1 {
		return usagef("%s", waitlistUsage)
	}
	id, err := showArg(pos[0])
	if err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		list, err := st.Waitlist(c.ctx, booking.System, id)
		if err != nil {
			return err
		}
		c.print(waitlistView{list, c.now()})
		return nil
	})
}

func waitlistAddFlags(fs *flag.FlagSet) runFunc {
	name := fs.String("name", "", "the customer's `NAME`")
	phone := fs.String("phone", "", "the `PHONE` number to call")
	seats := fs.Int("seats", 1, "the party's size, in `SEATS`")
	customer := fs.Int64("customer", 0, "the customer account `ID` the entry belongs to (optional)")
	return func(c *env, pos []string) error {
		if len(pos) != 1 || *customer < 0 {
			return usagef("%s", waitlistUsage)
		}
		id, err := showArg(pos[0])
		if err != nil {
			return err
		}
		return c.withStore(func(st backend) error {
			e, err := st.AddWaitlistEntry(c.ctx, booking.System, booking.WaitlistRequest{ShowID: id, Name: *name, Phone: *phone, Seats: *seats, CustomerID: *customer})
			if err != nil {
				return err
			}
			c.say("%s (%s) waits for %d seats as entry %d; the box office is told when they come free.",
				booking.Clean(e.Name), booking.Clean(e.Phone), e.Seats, e.ID)
			return nil
		})
	}
}

func (c *env) waitlistRemove(pos []string) error {
	if len(pos) != 1 {
		return usagef("%s", waitlistUsage)
	}
	id, ok := parseID(pos[0])
	if !ok {
		return usagef("ENTRY_ID must be an entry id from `boxoffice waitlist SHOW`, not %q", booking.CleanLine(pos[0], 20))
	}
	return c.withStore(func(st backend) error {
		if err := st.RemoveWaitlist(c.ctx, booking.System, id); err != nil {
			return err
		}
		c.say("Removed waiting-list entry %d.", id)
		return nil
	})
}

// waitlistView is a show's waiting list: id, name, phone, seats and where
// each entry stands at now.
type waitlistView struct {
	list []booking.WaitlistEntry
	now  time.Time
}

type entryJSON struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	Phone     string `json:"phone"`
	Seats     int    `json:"seats"`
	Status    string `json:"status"`
	Notified  string `json:"notified,omitempty"`
	Called    string `json:"called,omitempty"`
	CalledBy  string `json:"called_by,omitempty"`
	OfferEnds string `json:"offer_ends,omitempty"`
}

func (v waitlistView) jsonValue() any {
	out := make([]entryJSON, 0, len(v.list))
	for _, e := range v.list {
		j := entryJSON{ID: e.ID, Name: booking.Clean(e.Name), Phone: booking.Clean(e.Phone), Seats: e.Seats, Status: e.State(v.now).String()}
		if e.NotifiedAt != nil {
			j.Notified = e.NotifiedAt.Format(time.RFC3339)
			j.OfferEnds = e.OfferEnds().Format(time.RFC3339)
		}
		if e.CalledAt != nil {
			j.Called, j.CalledBy = e.CalledAt.Format(time.RFC3339), booking.Clean(e.CalledBy)
		}
		out = append(out, j)
	}
	return out
}

func (v waitlistView) writeText(w io.Writer) {
	if len(v.list) == 0 {
		fmt.Fprintln(w, "Nobody is waiting for this show.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPHONE\tSEATS\tSTATUS")
	for _, e := range v.list {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\n", e.ID, booking.Clean(e.Name), booking.Clean(e.Phone), e.Seats, waitStatus(e, v.now))
	}
	tw.Flush()
}

// waitStatus says in words where an entry stands, with the times a clerk
// acts on.
func waitStatus(e booking.WaitlistEntry, now time.Time) string {
	switch e.State(now) {
	case booking.ToCall:
		return fmt.Sprintf("seats free since %s: call (promised till %s)", e.NotifiedAt.Format("15:04"), e.OfferEnds().Format("15:04"))
	case booking.Called:
		return fmt.Sprintf("called by %s at %s (promised till %s)", booking.Clean(e.CalledBy), e.CalledAt.Format("15:04"), e.OfferEnds().Format("15:04"))
	case booking.Bought:
		return "bought"
	case booking.Lapsed:
		return "offer lapsed at " + e.OfferEnds().Format("15:04")
	}
	return "waiting"
}
