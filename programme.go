package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
)

// hall checks, adds and lists halls. Checking touches no database.
func (c *cli) hall(args []string) int {
	fs := c.flags("hall")
	fs.BoolVar(&c.jsonOut, "json", false, "machine output")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) == 0 {
		return c.usageErr("usage: boxoffice hall check FILE... | hall add FILE... | hall list")
	}
	switch pos[0] {
	case "check", "add":
		if len(pos) < 2 {
			return c.usageErr("usage: boxoffice hall %s FILE...", pos[0])
		}
		halls, code := c.parseHalls(pos[1:])
		if code != exitOK || pos[0] == "check" {
			return code
		}
		o, err := c.open(false)
		if err != nil {
			return c.fail(err)
		}
		defer o.store.Close()
		for _, h := range halls {
			id, err := o.store.AddHall(c.ctx, booking.System, h)
			if err != nil {
				return c.fail(err)
			}
			fmt.Fprintf(c.stdout, "Added hall %d: %s (%d seats).\n", id, booking.Clean(h.Name), len(h.Seats))
		}
		return exitOK
	case "list":
		o, err := c.open(false)
		if err != nil {
			return c.fail(err)
		}
		defer o.store.Close()
		halls, err := o.store.Halls(c.ctx, booking.System)
		if err != nil {
			return c.fail(err)
		}
		if c.jsonOut {
			type hallJSON struct {
				ID    int64  `json:"id"`
				Name  string `json:"name"`
				Rows  int    `json:"rows"`
				Seats int    `json:"seats"`
			}
			out := make([]hallJSON, 0, len(halls))
			for _, h := range halls {
				out = append(out, hallJSON{h.ID, booking.Clean(h.Name), len(h.Rows), len(h.Seats)})
			}
			c.printJSON(out)
			return exitOK
		}
		tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tHALL\tROWS\tSEATS")
		for _, h := range halls {
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d\n", h.ID, booking.Clean(h.Name), len(h.Rows), len(h.Seats))
		}
		tw.Flush()
		return exitOK
	}
	return c.usageErr("unknown hall command %q (check, add, list)", booking.CleanLine(pos[0], 20))
}

// parseHalls reads and parses layout files, printing each one's size or
// every mistake as file:line:col.
func (c *cli) parseHalls(paths []string) ([]booking.Hall, int) {
	var halls []booking.Hall
	code := exitOK
	for _, path := range paths {
		// The name as printed: a file name can hold anything but '/' and
		// NUL, escape sequences included.
		name := booking.CleanLine(path, 200)
		src, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(c.stderr, "%s: %s\n", name, readError(err))
			code = exitUsage
			continue
		}
		h, err := booking.ParseLayout(name, src)
		if err != nil {
			fmt.Fprintln(c.stderr, booking.ErrorMessage(err))
			code = exitUsage
			continue
		}
		kinds := map[booking.SeatKind]int{}
		for _, s := range h.Seats {
			kinds[s.Kind]++
		}
		fmt.Fprintf(c.stdout, "%s: %s, %d rows, %d seats (%d premium, %d wheelchair, %d companion)\n",
			name, booking.Clean(h.Name), len(h.Rows), len(h.Seats), kinds[booking.Premium], kinds[booking.Wheelchair], kinds[booking.Companion])
		halls = append(halls, *h)
	}
	return halls, code
}

// readError says why a file could not be read without repeating its name.
func readError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// film adds and lists films.
func (c *cli) film(args []string) int {
	fs := c.flags("film")
	minutes := fs.Int("minutes", 0, "running time in minutes, trailers included")
	rating := fs.String("rating", "", "age rating, like 12A")
	fs.BoolVar(&c.jsonOut, "json", false, "machine output")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) == 0 {
		return c.usageErr(`usage: boxoffice film add "TITLE" --minutes N [--rating R] | film list`)
	}
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	switch pos[0] {
	case "add":
		if len(pos) != 2 {
			return c.usageErr(`usage: boxoffice film add "TITLE" --minutes N [--rating R]`)
		}
		id, err := o.store.AddFilm(c.ctx, booking.System, booking.Film{Title: pos[1], Minutes: *minutes, Rating: *rating})
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.stdout, "Added film %d: %s (%d min).\n", id, booking.CleanLine(pos[1], 120), *minutes)
		return exitOK
	case "list":
		films, err := o.store.Films(c.ctx, booking.System)
		if err != nil {
			return c.fail(err)
		}
		if c.jsonOut {
			type filmJSON struct {
				ID      int64  `json:"id"`
				Title   string `json:"title"`
				Minutes int    `json:"minutes"`
				Rating  string `json:"rating"`
			}
			out := make([]filmJSON, 0, len(films))
			for _, f := range films {
				out = append(out, filmJSON{f.ID, booking.Clean(f.Title), f.Minutes, booking.Clean(f.Rating)})
			}
			c.printJSON(out)
			return exitOK
		}
		tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tTITLE\tMIN\tRATING")
		for _, f := range films {
			fmt.Fprintf(tw, "%d\t%s\t%d\t%s\n", f.ID, booking.Clean(f.Title), f.Minutes, booking.Clean(f.Rating))
		}
		tw.Flush()
		return exitOK
	}
	return c.usageErr("unknown film command %q (add, list)", booking.CleanLine(pos[0], 20))
}

// show schedules a film in a hall.
func (c *cli) show(args []string) int {
	fs := c.flags("show")
	film := fs.Int64("film", 0, "film id (boxoffice film list)")
	hall := fs.String("hall", "", "hall name or id (boxoffice hall list)")
	at := fs.String("at", "", `start, local time, like "2026-12-01 19:30"`)
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) != 1 || pos[0] != "add" || *film == 0 || *hall == "" || *at == "" {
		return c.usageErr(`usage: boxoffice show add --film ID --hall NAME --at "2026-12-01 19:30"`)
	}
	starts, err := time.ParseInLocation("2006-01-02 15:04", *at, time.Local)
	if err != nil {
		return c.usageErr(`--at %q is not a time like "2026-12-01 19:30"`, booking.CleanLine(*at, 30))
	}
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	hallID, err := findHall(c, o.store, *hall)
	if err != nil {
		return c.fail(err)
	}
	id, err := o.store.AddShow(c.ctx, booking.System, *film, hallID, starts)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.stdout, "Added show %d at %s.\n", id, starts.Format("Mon 02 Jan 2006 15:04"))
	return exitOK
}

func findHall(c *cli, store *db.Store, nameOrID string) (int64, error) {
	halls, err := store.Halls(c.ctx, booking.System)
	if err != nil {
		return 0, err
	}
	id, _ := strconv.ParseInt(nameOrID, 10, 64)
	for _, h := range halls {
		if h.ID == id || strings.EqualFold(h.Name, nameOrID) {
			return h.ID, nil
		}
	}
	return 0, booking.Errorf(booking.ENotFound, "There is no hall %q.", booking.CleanLine(nameOrID, 60))
}

// price sets and lists ticket types.
func (c *cli) price(args []string) int {
	fs := c.flags("price")
	fs.BoolVar(&c.jsonOut, "json", false, "machine output")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) == 0 || (pos[0] == "set" && len(pos) != 4) {
		return c.usageErr(`usage: boxoffice price set CODE "NAME" AMOUNT | price list`)
	}
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	switch pos[0] {
	case "set":
		amount, err := booking.ParseMoney(pos[3])
		if err != nil {
			return c.usageErr("AMOUNT: %s", booking.ErrorMessage(err))
		}
		if err := o.store.SetPrice(c.ctx, booking.System, booking.TicketType{Code: pos[1], Name: pos[2], Price: amount}); err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.stdout, "%s (%s) now costs %s.\n", booking.CleanLine(pos[2], 40), strings.ToLower(pos[1]), db.Money(amount))
		return exitOK
	case "list":
		types, err := o.store.TicketTypes(c.ctx)
		if err != nil {
			return c.fail(err)
		}
		if c.jsonOut {
			type priceJSON struct {
				Code  string `json:"code"`
				Name  string `json:"name"`
				Price string `json:"price"`
			}
			out := make([]priceJSON, 0, len(types))
			for _, t := range types {
				out = append(out, priceJSON{t.Code, booking.Clean(t.Name), db.Money(t.Price)})
			}
			c.printJSON(out)
			return exitOK
		}
		for _, t := range types {
			fmt.Fprintf(c.stdout, "%-10s %-12s %8s\n", t.Code, booking.Clean(t.Name), db.Money(t.Price))
		}
		return exitOK
	}
	return c.usageErr("unknown price command %q (set, list)", booking.CleanLine(pos[0], 20))
}

// waitlist adds to, lists and removes from a show's waiting list.
func (c *cli) waitlist(args []string) int {
	fs := c.flags("waitlist")
	name := fs.String("name", "", "customer name")
	phone := fs.String("phone", "", "phone number to call")
	seats := fs.Int("seats", 1, "party size")
	fs.BoolVar(&c.jsonOut, "json", false, "machine output")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	usage := "usage: boxoffice waitlist add SHOW --name N --phone P [--seats N] | waitlist SHOW | waitlist remove ENTRY_ID"
	var arg string
	switch {
	case len(pos) == 2 && (pos[0] == "add" || pos[0] == "remove"):
		arg = pos[1]
	case len(pos) == 1:
		arg = pos[0]
	default:
		return c.usageErr("%s", usage)
	}
	id, ok := parseShowID(arg)
	if !ok && pos[0] == "remove" {
		return c.usageErr("ENTRY_ID must be an entry id from `boxoffice waitlist SHOW`, not %q", booking.CleanLine(arg, 20))
	}
	if !ok {
		return c.usageErr("SHOW must be a show id from `boxoffice shows`, not %q", booking.CleanLine(arg, 20))
	}
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	switch pos[0] {
	case "add":
		e, err := o.store.AddWaitlist(c.ctx, booking.System, id, *name, *phone, *seats)
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.stdout, "%s (%s) waits for %d seats as entry %d; the box office is told when they come free.\n",
			booking.Clean(e.Name), booking.Clean(e.Phone), e.Seats, e.ID)
		return exitOK
	case "remove":
		if err := o.store.RemoveWaitlist(c.ctx, booking.System, id); err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.stdout, "Removed waiting-list entry %d.\n", id)
		return exitOK
	}
	list, err := o.store.Waitlist(c.ctx, booking.System, id)
	if err != nil {
		return c.fail(err)
	}
	c.printWaitlist(list, c.now())
	return exitOK
}

// printWaitlist prints a show's waiting list: id, name, phone, seats and
// where each entry stands.
func (c *cli) printWaitlist(list []booking.WaitlistEntry, now time.Time) {
	if c.jsonOut {
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
		out := make([]entryJSON, 0, len(list))
		for _, e := range list {
			j := entryJSON{ID: e.ID, Name: booking.Clean(e.Name), Phone: booking.Clean(e.Phone), Seats: e.Seats, Status: e.State(now).String()}
			if e.NotifiedAt != nil {
				j.Notified = e.NotifiedAt.Format(time.RFC3339)
				j.OfferEnds = e.OfferEnds().Format(time.RFC3339)
			}
			if e.CalledAt != nil {
				j.Called, j.CalledBy = e.CalledAt.Format(time.RFC3339), booking.Clean(e.CalledBy)
			}
			out = append(out, j)
		}
		c.printJSON(out)
		return
	}
	if len(list) == 0 {
		fmt.Fprintln(c.stdout, "Nobody is waiting for this show.")
		return
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPHONE\tSEATS\tSTATUS")
	for _, e := range list {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\n", e.ID, booking.Clean(e.Name), booking.Clean(e.Phone), e.Seats, waitStatus(e, now))
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
