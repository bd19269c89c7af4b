package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
)

// hall, film, show and price: the programme and what it costs.

func hallCommand() *command {
	return &command{name: "hall", json: machine,
		missing: "usage: boxoffice hall check FILE... | hall add FILE... | hall list",
		subs: []*command{
			{name: "check", args: "FILE...", short: "check hall layouts (see README), print their sizes", run: hallFiles("check")},
			{name: "add", args: "FILE...", short: "check hall layouts and add the halls", run: hallFiles("add")},
			{name: "list", args: "[--json]", short: "the halls", run: (*env).hallList},
		}}
}

// hallFiles is hall check or hall add: checking touches no database.
func hallFiles(verb string) runFunc {
	return func(c *env, pos []string) error {
		if len(pos) < 1 {
			return usagef("usage: boxoffice hall %s FILE...", verb)
		}
		halls, err := c.parseHalls(pos)
		if err != nil || verb == "check" {
			return err
		}
		return c.withStore(func(st backend) error {
			site, ok, err := c.site(st)
			if err != nil {
				return err
			}
			for _, h := range halls {
				h.Site = site.ID
				id, err := st.AddHall(c.ctx, booking.System, h)
				if err != nil {
					return err
				}
				c.say("Added hall %d: %s (%d seats)%s.", id, booking.Clean(h.Name), len(h.Seats), atSite(site, ok))
			}
			return nil
		})
	}
}

// parseHalls reads and parses layout files, printing each one's size or
// every mistake as file:line:col.
func (c *env) parseHalls(paths []string) ([]booking.Hall, error) {
	var halls []booking.Hall
	var failed error
	for _, path := range paths {
		// The name as printed: a file name can hold anything but '/' and
		// NUL, escape sequences included.
		name := booking.CleanLine(path, 200)
		h, err := assets.ReadLayoutFile(path)
		if err != nil {
			fmt.Fprintln(c.stderr, booking.ErrorMessage(err))
			failed = shown(usagef("%s", booking.ErrorMessage(err)))
			continue
		}
		kinds := map[booking.SeatKind]int{}
		for _, s := range h.Seats {
			kinds[s.Kind]++
		}
		c.say("%s: %s, %d rows, %d seats (%d premium, %d wheelchair, %d companion)",
			name, booking.Clean(h.Name), len(h.Rows), len(h.Seats), kinds[booking.Premium], kinds[booking.Wheelchair], kinds[booking.Companion])
		halls = append(halls, *h)
	}
	return halls, failed
}

func (c *env) hallList(_ []string) error {
	return c.withStore(func(st backend) error {
		halls, err := st.Halls(c.ctx, booking.System)
		if err != nil {
			return err
		}
		sites, err := c.siteNames(st)
		if err != nil {
			return err
		}
		if sites != nil { // a chain: with the site of each
			c.print(hallSitesView{halls, sites})
			return nil
		}
		c.print(hallView(halls))
		return nil
	})
}

type hallView []booking.Hall

type hallJSON struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Rows  int    `json:"rows"`
	Seats int    `json:"seats"`
}

func (v hallView) jsonValue() any {
	out := make([]hallJSON, 0, len(v))
	for _, h := range v {
		out = append(out, hallJSON{h.ID, booking.Clean(h.Name), len(h.Rows), len(h.Seats)})
	}
	return out
}

func (v hallView) writeText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tHALL\tROWS\tSEATS")
	for _, h := range v {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\n", h.ID, booking.Clean(h.Name), len(h.Rows), len(h.Seats))
	}
	tw.Flush()
}

func filmCommand() *command {
	return &command{name: "film", json: machine,
		missing: `usage: boxoffice film add "TITLE" --minutes N [--rating R] | film list | film edit ID ... | film retire ID`,
		subs: []*command{
			{name: "add", args: `"TITLE" --minutes N [--rating R]`, short: "add a film", flags: filmAddFlags},
			{name: "list", args: "[--json]", short: "the films", run: (*env).filmList},

			// manager screens: editing the programme.
			{name: "edit", args: `ID [--title "TITLE"] [--minutes N] [--rating R]`, short: "change a film (what is not given stays)", flags: filmEditFlags},
			{name: "retire", args: "ID", short: "no new shows of a film; its shows stay", run: (*env).filmRetire},
			// The books: the hire agreed with its distributor.
			filmHireCmd(),
		}}
}

func filmAddFlags(fs *flag.FlagSet) runFunc {
	minutes := fs.Int("minutes", 0, "the running time in `MINUTES`, trailers included")
	rating := fs.String("rating", "", "the age `RATING`, like 12A")
	return func(c *env, pos []string) error {
		if len(pos) != 1 {
			return usagef(`usage: boxoffice film add "TITLE" --minutes N [--rating R]`)
		}
		return c.withStore(func(st backend) error {
			id, err := st.AddFilm(c.ctx, booking.System, booking.Film{Title: pos[0], Minutes: *minutes, Rating: *rating})
			if err != nil {
				return err
			}
			c.say("Added film %d: %s (%d min).", id, booking.CleanLine(pos[0], 120), *minutes)
			return nil
		})
	}
}

func (c *env) filmList(_ []string) error {
	return c.withStore(func(st backend) error {
		films, err := st.Films(c.ctx, booking.System)
		if err != nil {
			return err
		}
		c.print(filmView(films))
		return nil
	})
}

type filmView []booking.Film

type filmJSON struct {
	ID      int64  `json:"id"`
	Title   string `json:"title"`
	Minutes int    `json:"minutes"`
	Rating  string `json:"rating"`
	Retired bool   `json:"retired"` // manager screens: no new shows
}

func (v filmView) jsonValue() any {
	out := make([]filmJSON, 0, len(v))
	for _, f := range v {
		out = append(out, filmJSON{f.ID, booking.Clean(f.Title), f.Minutes, booking.Clean(f.Rating), f.Retired})
	}
	return out
}

func (v filmView) writeText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tMIN\tRATING")
	for _, f := range v {
		title := booking.Clean(f.Title)
		if f.Retired {
			title += " (retired)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\n", f.ID, title, f.Minutes, booking.Clean(f.Rating))
	}
	tw.Flush()
}

const showUsage = `usage: boxoffice show add --film ID --hall NAME --at "2026-12-01 19:30" [--price-list L] [--sales-close 30m] | show price-list SHOW LIST | show move ID --at TIME [--hall NAME] | show cancel SHOW --reason R | show sales-close SHOW CLOSE`

func showCommand() *command {
	return &command{name: "show", run: func(*env, []string) error { return usagef(showUsage) },
		subs: append([]*command{
			{name: "add", args: `--film ID --hall NAME --at "2026-12-01 19:30" [--price-list L] [--sales-close 30m]`, short: "schedule a film in a hall", flags: showAddFlags},
			{name: "price-list", args: "SHOW LIST", short: "sell a show at a price list (standing: the usual prices)", run: (*env).showPriceList},

			// manager screens: editing the programme.
			{name: "move", args: `ID --at "2026-12-05 20:00" [--hall NAME]`, short: "move a show (its bookings keep their seats)", flags: showMoveFlags},
		}, showLifeCommands()...)}
}

func showAddFlags(fs *flag.FlagSet) runFunc {
	film := fs.Int64("film", 0, "the film's `ID` (boxoffice film list)")
	hall := fs.String("hall", "", "the hall's `NAME` or id (boxoffice hall list)")
	at := fs.String("at", "", "the start, local `TIME`, like \"2026-12-01 19:30\"")
	list := fs.String("price-list", "", "the price `LIST` the show sells at (boxoffice price list)")
	closes := fs.String("sales-close", "", "when its sales `CLOSE`, relative to the start: 30m, -10m (default: the cinema's)")
	return func(c *env, pos []string) error { return c.showAdd(pos, *film, *hall, *at, *list, *closes) }
}

// showAdd schedules a film in a hall, on a price list when one is named.
func (c *env) showAdd(pos []string, film int64, hall, at, list, closes string) error {
	if len(pos) != 0 || film == 0 || hall == "" || at == "" {
		return usagef(showUsage)
	}
	starts, err := time.ParseInLocation("2006-01-02 15:04", at, time.Local)
	if err != nil {
		return usagef(`--at %q is not a time like "2026-12-01 19:30"`, booking.CleanLine(at, 30))
	}
	if list, err = booking.ParseListName(list, true); err != nil {
		return usagef("--price-list: %s", booking.ErrorMessage(err))
	}
	closeAt, err := salesCloseFlag(closes)
	if err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		hallID, err := c.findHall(st, hall)
		if err != nil {
			return err
		}
		if err := checkList(c, st, list); err != nil {
			return err
		}
		id, err := st.AddShow(c.ctx, booking.System, film, hallID, starts)
		if err != nil {
			return err
		}
		if list != "" {
			if err := st.SetShowPriceList(c.ctx, booking.System, id, list); err != nil {
				return err
			}
		}
		if closeAt != nil {
			if err := st.SetSalesClose(c.ctx, booking.System, id, closeAt); err != nil {
				return err
			}
		}
		c.say("Added show %d at %s%s.", id, starts.Format("Mon 02 Jan 2006 15:04"), onList(list))
		return nil
	})
}

// findHall is the hall called nameOrID, or numbered so.
func (c *env) findHall(st backend, nameOrID string) (int64, error) {
	halls, err := st.Halls(c.ctx, booking.System)
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
