package cli

import (
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
)

// customer and watch: customer accounts (docs/customers.md) and the film
// watchlist.

const customerUsage = "usage: boxoffice customer add --name N --email E [--phone P] | customer find TEXT | customer show ID | customer attach BOOKING ID | customer erase ID"

func customerCommand() *command {
	return &command{name: "customer", json: machine, missing: customerUsage,
		subs: []*command{
			{name: "add", args: "--name N --email E [--phone P] [--json]", short: "open a customer account (one per e-mail address and phone)",
				long: customerAddLong, flags: customerAddFlags},
			{name: "find", args: "TEXT [--json]", short: "find customers by e-mail address, phone or name", run: (*env).customerFind},
			{name: "show", args: "ID [--json]", short: "a customer with their bookings, reservations, waiting lists, watches and gift cards", run: (*env).customerShow},
			{name: "attach", args: "BOOKING ID", short: "make a booking a customer's", run: (*env).customerAttach},
			{name: "erase", args: "ID", short: "erase a customer's name, e-mail and phone everywhere (for good)", long: customerEraseLong, run: (*env).customerErase},
		}}
}

const customerAddLong = `An e-mail address is kept in lower case without the spaces around it, and
a phone number as its international digits (BOXOFFICE_PHONE_COUNTRY for a
number typed with a leading 0): "Ann@Example.com" and "ann@example.com" are
one address, and a second account for it is refused (exit 3) naming the
customer it belongs to.`

const customerEraseLong = `At the customer's request: their name, e-mail address and phone are
blanked on the account and on every booking, reservation, waiting-list entry
and film watch that is theirs. Payments and totals are kept. It cannot be
undone; bookings not attached to the account are not touched (attach them
first).`

func customerAddFlags(fs *flag.FlagSet) runFunc {
	name := fs.String("name", "", "the customer's `NAME`")
	email := fs.String("email", "", "their e-mail `ADDRESS`")
	phone := fs.String("phone", "", "their `PHONE` number (optional)")
	return func(c *env, pos []string) error {
		if len(pos) != 0 {
			return usagef("%s", customerUsage)
		}
		return c.withStore(func(st backend) error {
			cu, err := st.AddCustomer(c.ctx, booking.System, booking.NewCustomer{Name: *name, Email: *email, Phone: *phone})
			if err != nil {
				return err
			}
			c.print(customerAdded{cu})
			return nil
		})
	}
}

// customerArg reads a customer ID argument.
func customerArg(s string) (int64, error) {
	id, ok := parseID(s)
	if !ok {
		return 0, usagef("ID must be a customer id from `boxoffice customer find`, not %q", booking.CleanLine(s, 20))
	}
	return id, nil
}

func (c *env) customerFind(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice customer find TEXT")
	}
	return c.withStore(func(st backend) error {
		list, err := st.FindCustomers(c.ctx, booking.System, pos[0])
		if err != nil {
			return err
		}
		c.print(customerList(list))
		return nil
	})
}

func (c *env) customerShow(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice customer show ID")
	}
	id, err := customerArg(pos[0])
	if err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		d, err := st.Customer(c.ctx, booking.System, id)
		if err != nil {
			return err
		}
		c.print(customerDetail{d})
		return nil
	})
}

func (c *env) customerAttach(pos []string) error {
	if len(pos) != 2 {
		return usagef("usage: boxoffice customer attach BOOKING ID")
	}
	id, err := customerArg(pos[1])
	if err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		if err := st.AttachCustomer(c.ctx, booking.System, pos[0], id); err != nil {
			return err
		}
		c.say("Booking %s is customer %d's.", booking.NormalizeNumber(booking.CleanLine(pos[0], 16)), id)
		return nil
	})
}

func (c *env) customerErase(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice customer erase ID")
	}
	id, err := customerArg(pos[0])
	if err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		e, err := st.EraseCustomer(c.ctx, booking.System, id)
		if err != nil {
			return err
		}
		c.say("%s", e.String())
		return nil
	})
}

// customerJSON is a customer as every --json answer gives one.
type customerJSON struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Phone     string `json:"phone"`
	Created   string `json:"created"`
	CreatedBy string `json:"created_by"`
	Erased    string `json:"erased,omitempty"`
	ErasedBy  string `json:"erased_by,omitempty"`
}

func customerValue(cu booking.Customer) customerJSON {
	j := customerJSON{ID: cu.ID, Name: booking.Clean(cu.Name), Email: booking.Clean(cu.Email), Phone: phoneShown(cu.Phone),
		Created: cu.CreatedAt.Format(time.RFC3339), CreatedBy: booking.Clean(cu.CreatedBy)}
	if cu.ErasedAt != nil {
		j.Erased, j.ErasedBy = cu.ErasedAt.Format(time.RFC3339), booking.Clean(cu.ErasedBy)
	}
	return j
}

// phoneShown is a stored phone's international digits as a person dials
// them, "" for none.
func phoneShown(digits string) string {
	if digits == "" {
		return ""
	}
	return "+" + booking.Clean(digits)
}

// customerAdded is the answer of customer add.
type customerAdded struct{ c *booking.Customer }

func (v customerAdded) jsonValue() any { return customerValue(*v.c) }

func (v customerAdded) writeText(w io.Writer) {
	phone := ""
	if v.c.Phone != "" {
		phone = ", phone " + phoneShown(v.c.Phone)
	}
	fmt.Fprintf(w, "Added customer %d: %s%s.\n", v.c.ID, v.c.Label(), phone)
}

// customerList is what customer find found, newest first.
type customerList []booking.Customer

func (v customerList) jsonValue() any {
	out := make([]customerJSON, 0, len(v))
	for _, cu := range v {
		out = append(out, customerValue(cu))
	}
	return out
}

func (v customerList) writeText(w io.Writer) {
	if len(v) == 0 {
		fmt.Fprintln(w, "No customer found.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tE-MAIL\tPHONE")
	for _, cu := range v {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", cu.ID, booking.Clean(cu.Name), booking.Clean(cu.Email), phoneShown(cu.Phone))
	}
	tw.Flush()
}

// customerDetail is the answer of customer show.
type customerDetail struct{ d *booking.CustomerDetail }

type (
	custBookingJSON struct {
		Number string `json:"number"`
		Film   string `json:"film"`
		Start  string `json:"start"`
		Status string `json:"status"`
		Total  string `json:"total"`
	}
	custReservationJSON struct {
		Number string `json:"number"`
		Film   string `json:"film"`
		Start  string `json:"start"`
		Status string `json:"status"`
		Seats  int    `json:"seats"`
	}
	custWaitJSON struct {
		ID    int64  `json:"id"`
		Film  string `json:"film"`
		Start string `json:"start"`
		Seats int    `json:"seats"`
	}
	custWatchJSON struct {
		ID       int64  `json:"id"`
		Film     string `json:"film"`
		Status   string `json:"status"`
		CalledBy string `json:"called_by,omitempty"`
	}
	// custCardJSON is a gift card of the customer's, by its last four
	// digits (the number spends it).
	custCardJSON struct {
		Last4   string `json:"last4"`
		Balance string `json:"balance"`
		Amount  string `json:"amount"`
		Issued  string `json:"issued"`
	}
)

func (v customerDetail) jsonValue() any {
	d := v.d
	out := struct {
		customerJSON
		Bookings     []custBookingJSON     `json:"bookings"`
		Reservations []custReservationJSON `json:"reservations"`
		Waitlist     []custWaitJSON        `json:"waitlist"`
		Watching     []custWatchJSON       `json:"watching"`
		GiftCards    []custCardJSON        `json:"giftcards,omitempty"`
	}{customerJSON: customerValue(d.Customer), Bookings: []custBookingJSON{}, Reservations: []custReservationJSON{},
		Waitlist: []custWaitJSON{}, Watching: []custWatchJSON{}}
	for _, b := range d.Bookings {
		out.Bookings = append(out.Bookings, custBookingJSON{b.Number, booking.Clean(b.Show.Film.Title), b.Show.Starts.Format(time.RFC3339), string(b.Status), b.Total.String()})
	}
	for _, r := range d.Reservations {
		out.Reservations = append(out.Reservations, custReservationJSON{r.Number, booking.Clean(r.Show.Film.Title), r.Show.Starts.Format(time.RFC3339), string(r.Status), len(r.Seats)})
	}
	for _, e := range d.Waitlist {
		out.Waitlist = append(out.Waitlist, custWaitJSON{e.ID, booking.Clean(e.Show.Film.Title), e.Show.Starts.Format(time.RFC3339), e.Seats})
	}
	for _, f := range d.Watching {
		out.Watching = append(out.Watching, custWatchJSON{f.ID, booking.Clean(f.Film.Title), watchStatus(f), booking.Clean(f.CalledBy)})
	}
	for _, g := range d.GiftCards {
		out.GiftCards = append(out.GiftCards, custCardJSON{g.Tail, g.Balance.String(), g.Amount.String(), g.IssuedAt.Format(time.RFC3339)})
	}
	return out
}

func (v customerDetail) writeText(w io.Writer) {
	d := v.d
	fmt.Fprintf(w, "Customer %d: %s", d.ID, d.Label())
	if d.Phone != "" {
		fmt.Fprintf(w, ", phone %s", phoneShown(d.Phone))
	}
	fmt.Fprintf(w, "\nOpened %s by %s.\n", d.CreatedAt.Format("Mon 02 Jan 2006 15:04"), booking.Clean(d.CreatedBy))
	if d.ErasedAt != nil {
		fmt.Fprintf(w, "Erased at their request %s by %s.\n", d.ErasedAt.Format("Mon 02 Jan 2006 15:04"), booking.Clean(d.ErasedBy))
	}
	if len(d.Bookings)+len(d.Reservations)+len(d.Waitlist)+len(d.Watching)+len(d.GiftCards) == 0 {
		fmt.Fprintln(w, "Nothing belongs to this customer yet.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, b := range d.Bookings {
		fmt.Fprintf(tw, "booking\t%s\t%s\t%s\t%s %s\n", b.Number, booking.Clean(b.Show.Film.Title), b.Show.Starts.Format("Mon 02 Jan 15:04"), b.Status, b.Total.String())
	}
	for _, r := range d.Reservations {
		fmt.Fprintf(tw, "reservation\t%s\t%s\t%s\t%s, %d seats\n", r.Number, booking.Clean(r.Show.Film.Title), r.Show.Starts.Format("Mon 02 Jan 15:04"), r.Status, len(r.Seats))
	}
	for _, e := range d.Waitlist {
		fmt.Fprintf(tw, "waiting\tentry %d\t%s\t%s\t%d seats\n", e.ID, booking.Clean(e.Show.Film.Title), e.Show.Starts.Format("Mon 02 Jan 15:04"), e.Seats)
	}
	for _, f := range d.Watching {
		fmt.Fprintf(tw, "watching\twatch %d\t%s\t\t%s\n", f.ID, booking.Clean(f.Film.Title), watchStatus(f))
	}
	for _, g := range d.GiftCards {
		fmt.Fprintf(tw, "gift card\t…%s\tsold for %s\t%s\tbalance %s\n", g.Tail, g.Amount.String(), g.IssuedAt.Format("Mon 02 Jan 15:04"), g.Balance.String())
	}
	tw.Flush()
}

// watchStatus says where a watch stands: waiting for a show, to call,
// called, or erased at the customer's request (nobody to call).
func watchStatus(f booking.FilmWatch) string {
	switch {
	case f.Phone == "":
		return "erased"
	case f.CalledAt != nil:
		return "called"
	case f.NotifiedAt != nil:
		return "to call"
	}
	return "waiting"
}

const watchUsage = "usage: boxoffice watch FILM --name N --phone P [--email E] | watch FILM --customer ID | watch list FILM | watch calls | watch called ID"

func watchCommand() *command {
	return &command{name: "watch", args: "FILM --name N --phone P [--email E]\nFILM --customer ID",
		short: "tell someone when a film with no show goes on sale\nthe same, for a customer account", long: watchLong,
		json: machine, flags: watchFlags,
		subs: []*command{
			{name: "list", args: "FILM [--json]", short: "everyone watching a film, each once: waiting, to call or called", run: (*env).watchList},
			{name: "calls", args: "[--json]", short: "the watchers to call: their film's first show was added", run: (*env).watchCalls},
			{name: "called", args: "ID", short: "mark a watcher called (once)", run: (*env).watchCalled},
		}}
}

const watchLong = `FILM is a film id from ` + "`boxoffice film list`" + ` that has no show to come.
When its first show is added, everyone watching it is listed to call
(` + "`boxoffice watch calls`" + `), once, however many shows are added at once.`

func watchFlags(fs *flag.FlagSet) runFunc {
	name := fs.String("name", "", "who to call: their `NAME`")
	phone := fs.String("phone", "", "the `PHONE` number to call")
	email := fs.String("email", "", "their e-mail `ADDRESS` (optional)")
	customer := fs.Int64("customer", 0, "the customer account `ID` whose details to use")
	return func(c *env, pos []string) error {
		if len(pos) != 1 {
			return usagef("%s", watchUsage)
		}
		film, ok := parseID(pos[0])
		if !ok {
			return usagef("FILM must be a film id from `boxoffice film list`, not %q", booking.CleanLine(pos[0], 20))
		}
		return c.withStore(func(st backend) error {
			w, err := st.Watch(c.ctx, booking.System, booking.WatchRequest{FilmID: film, CustomerID: *customer, Name: *name, Phone: *phone, Email: *email})
			if err != nil {
				return err
			}
			c.say("%s (%s) watches %s as watch %d; they are listed to call when its first show is added.",
				booking.Clean(w.Name), booking.Clean(w.Phone), booking.Clean(w.Film.Title), w.ID)
			return nil
		})
	}
}

func (c *env) watchCalls(pos []string) error {
	if len(pos) != 0 {
		return usagef("usage: boxoffice watch calls [--json]")
	}
	return c.withStore(func(st backend) error {
		list, err := st.WatchCalls(c.ctx, booking.System)
		if err != nil {
			return err
		}
		c.print(watchCallsView(list))
		return nil
	})
}

func (c *env) watchList(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice watch list FILM [--json]")
	}
	film, ok := parseID(pos[0])
	if !ok {
		return usagef("FILM must be a film id from `boxoffice film list`, not %q", booking.CleanLine(pos[0], 20))
	}
	return c.withStore(func(st backend) error {
		list, err := st.FilmWatchers(c.ctx, booking.System, film)
		if err != nil {
			return err
		}
		c.print(filmWatchersView(list))
		return nil
	})
}

func (c *env) watchCalled(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice watch called ID")
	}
	id, ok := parseID(pos[0])
	if !ok {
		return usagef("ID must be a watch id from `boxoffice watch calls`, not %q", booking.CleanLine(pos[0], 20))
	}
	return c.withStore(func(st backend) error {
		if err := st.MarkWatchCalled(c.ctx, booking.System, id); err != nil {
			return err
		}
		c.say("Marked watch %d called.", id)
		return nil
	})
}

// watchCallsView is the watchers to call, oldest told first.
type watchCallsView []booking.FilmWatch

type watchCallJSON struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Phone    string `json:"phone"`
	Email    string `json:"email,omitempty"`
	Customer int64  `json:"customer,omitempty"`
	Film     string `json:"film"`
	Show     int64  `json:"show"`
	Start    string `json:"start"`
	Told     string `json:"told"`
}

func (v watchCallsView) jsonValue() any {
	out := make([]watchCallJSON, 0, len(v))
	for _, f := range v {
		out = append(out, watchCallJSON{ID: f.ID, Name: booking.Clean(f.Name), Phone: booking.Clean(f.Phone), Email: booking.Clean(f.Email),
			Customer: f.CustomerID, Film: booking.Clean(f.Film.Title), Show: f.ShowID, Start: f.Show.Starts.Format(time.RFC3339),
			Told: f.NotifiedAt.Format(time.RFC3339)})
	}
	return out
}

func (v watchCallsView) writeText(w io.Writer) {
	if len(v) == 0 {
		fmt.Fprintln(w, "Nobody to call.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPHONE\tFILM\tFIRST SHOW")
	for _, f := range v {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", f.ID, booking.Clean(f.Name), booking.Clean(f.Phone), booking.Clean(f.Film.Title), f.Show.Starts.Format("Mon 02 Jan 15:04"))
	}
	tw.Flush()
}

// filmWatchersView is one film's watchers, oldest first.
type filmWatchersView []booking.FilmWatch

type filmWatcherJSON struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Phone    string `json:"phone"`
	Email    string `json:"email,omitempty"`
	Customer int64  `json:"customer,omitempty"`
	Status   string `json:"status"`
	Show     int64  `json:"show,omitempty"`
	Start    string `json:"start,omitempty"`
	CalledBy string `json:"called_by,omitempty"`
}

func (v filmWatchersView) jsonValue() any {
	out := make([]filmWatcherJSON, 0, len(v))
	for _, f := range v {
		j := filmWatcherJSON{ID: f.ID, Name: booking.Clean(f.Name), Phone: booking.Clean(f.Phone), Email: booking.Clean(f.Email),
			Customer: f.CustomerID, Status: watchStatus(f), Show: f.ShowID, CalledBy: booking.Clean(f.CalledBy)}
		if f.ShowID != 0 {
			j.Start = f.Show.Starts.Format(time.RFC3339)
		}
		out = append(out, j)
	}
	return out
}

func (v filmWatchersView) writeText(w io.Writer) {
	if len(v) == 0 {
		fmt.Fprintln(w, "Nobody watches this film.")
		return
	}
	fmt.Fprintf(w, "Watching %s:\n", booking.Clean(v[0].Film.Title))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPHONE\tSTATUS\tFIRST SHOW")
	for _, f := range v {
		first := ""
		if f.ShowID != 0 {
			first = f.Show.Starts.Format("Mon 02 Jan 15:04")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", f.ID, booking.Clean(f.Name), booking.Clean(f.Phone), watchStatus(f), first)
	}
	tw.Flush()
}
