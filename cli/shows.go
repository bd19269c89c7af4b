package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
)

// shows and seats: what is on, and what is free.

func showsFlags(fs *flag.FlagSet) runFunc {
	date := fs.String("date", "", "the `DAY` as YYYY-MM-DD (default today)")
	return func(c *env, pos []string) error { return c.shows(pos, *date) }
}

// shows lists a day's shows.
func (c *env) shows(pos []string, date string) error {
	if len(pos) > 0 {
		return usagef("shows takes no arguments")
	}
	day := c.now()
	if date != "" {
		var err error
		if day, err = time.ParseInLocation("2006-01-02", date, time.Local); err != nil {
			return usagef("--date %q is not a date like 2026-11-29", date)
		}
	}
	return c.withStore(func(st backend) error {
		site, _, err := c.site(st)
		if err != nil {
			return err
		}
		at := booking.System
		at.Site = site.ID // --site: that site's programme only
		shows, err := st.Shows(c.ctx, at, day)
		if err != nil {
			return err
		}
		c.print(showList{shows, day})
		return nil
	})
}

// showJSON is a show as --json prints it.
type showJSON struct {
	ID       int64  `json:"id"`
	Film     string `json:"film"`
	Hall     string `json:"hall"`
	Start    string `json:"start"`
	Free     int    `json:"free"`
	Capacity int    `json:"capacity"`

	// A show's life: said only of a cancelled show.
	Status       string `json:"status,omitempty"`
	CancelReason string `json:"cancel_reason,omitempty"`
}

func newShowJSON(s booking.Show) showJSON {
	j := showJSON{ID: s.ID, Film: booking.Clean(s.Film.Title), Hall: booking.Clean(s.HallName), Start: s.Starts.Format(time.RFC3339), Free: s.Free(), Capacity: s.Capacity}
	if s.Cancelled() {
		j.Status, j.CancelReason = string(s.Status), booking.CleanLine(s.CancelReason, 120)
	}
	return j
}

// showList is a day's shows.
type showList struct {
	shows []booking.Show
	day   time.Time
}

func (l showList) jsonValue() any {
	out := make([]showJSON, 0, len(l.shows))
	for _, s := range l.shows {
		out = append(out, newShowJSON(s))
	}
	return out
}

func (l showList) writeText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTART\tFILM\tHALL\tFREE\tCAPACITY")
	for _, s := range l.shows {
		free := strconv.Itoa(s.Free())
		if s.Cancelled() {
			free = "cancelled"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\n", s.ID, s.Starts.Format("Mon 02 Jan 15:04"), booking.Clean(s.Film.Title), booking.Clean(s.HallName), free, s.Capacity)
	}
	tw.Flush()
	if len(l.shows) == 0 {
		fmt.Fprintf(w, "No shows on %s.\n", l.day.Format("Mon 02 Jan 2006"))
	}
}

// parseID reads a show's (or an entry's) id: a positive number.
func parseID(s string) (int64, bool) {
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil && id > 0
}

// showArg reads a SHOW argument.
func showArg(s string) (int64, error) {
	id, ok := parseID(s)
	if !ok {
		return 0, usagef("SHOW must be a show id from `boxoffice shows`, not %q", booking.CleanLine(s, 20))
	}
	return id, nil
}

// seats prints every seat of a show with its state.
func (c *env) seats(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice seats SHOW")
	}
	showID, err := showArg(pos[0])
	if err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		m, err := st.SeatMap(c.ctx, booking.System, showID, "")
		if err != nil {
			return err
		}
		c.print(seatMapView{m})
		return nil
	})
}

// seatMapView is a show's seats: a plain map as text, every seat's state
// in JSON.
type seatMapView struct{ m *booking.SeatMap }

type seatJSON struct {
	Seat   string `json:"seat"`
	Row    string `json:"row"`
	Number int    `json:"number"`
	Kind   string `json:"kind"`
	State  string `json:"state"`
	// Block says why a seat is kept out of sale; absent when it is not.
	Block *blockJSON `json:"block,omitempty"`
}

func (v seatMapView) jsonValue() any {
	m := v.m
	out := make([]seatJSON, 0, len(m.Hall.Seats))
	for _, s := range m.Hall.Seats {
		j := seatJSON{s.Label, s.RowTag, s.Number, s.Kind.String(), m.State(s.ID).String(), nil}
		if b, ok := m.Blocks[s.ID]; ok {
			j.Block = newBlockJSON(b)
		}
		out = append(out, j)
	}
	return map[string]any{"show": newShowJSON(m.Show), "seats": out}
}

func (v seatMapView) writeText(w io.Writer) {
	m := v.m
	fmt.Fprintf(w, "%s — %s, %s\n", booking.Clean(m.Show.Film.Title), booking.Clean(m.Show.HallName), m.Show.Starts.Format("Mon 02 Jan 15:04"))
	if m.Show.Cancelled() {
		fmt.Fprintf(w, "Cancelled — %s\n", booking.CleanLine(m.Show.CancelReason, 120))
	}
	fmt.Fprintf(w, "%d free of %d   (. free  h held  X sold  # blocked  H house  w wheelchair  c companion)\n\n", m.Show.Free(), m.Show.Capacity)
	writeASCIIMap(w, m)
}

// writeASCIIMap prints a plain seat map: one character per column.
func writeASCIIMap(w io.Writer, m *booking.SeatMap) {
	h := m.Hall
	fmt.Fprintf(w, "    %s\n", centre("SCREEN", h.Width))
	row := -1
	var line []byte
	flush := func() {
		if row >= 0 {
			fmt.Fprintf(w, "%3s %s\n", h.Rows[row], strings.TrimRight(string(line), " "))
		}
	}
	for _, s := range h.Seats {
		if s.Row != row {
			flush()
			row = s.Row
			line = []byte(strings.Repeat(" ", h.Width))
		}
		if s.Col < len(line) {
			line[s.Col] = seatChar(m, s)
		}
	}
	flush()
}

// seatChar is a seat's character on the plain map.
func seatChar(m *booking.SeatMap, s booking.Seat) byte {
	switch {
	case m.State(s.ID) == booking.SeatSold:
		return 'X'
	case m.State(s.ID) == booking.SeatHeldByOther || m.State(s.ID) == booking.SeatHeldByMe:
		return 'h'
	case m.State(s.ID) == booking.SeatBlocked:
		return '#'
	case m.State(s.ID) == booking.SeatHouse:
		return 'H'
	case s.Kind == booking.Wheelchair:
		return 'w'
	case s.Kind == booking.Companion:
		return 'c'
	}
	return '.'
}

func centre(s string, width int) string {
	if width <= len(s) {
		return s
	}
	pad := (width - len(s)) / 2
	return strings.Repeat(" ", pad) + s
}
