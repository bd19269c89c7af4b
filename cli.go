package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/tui"
)

// cli runs one command with the process's streams.
type cli struct {
	ctx   context.Context
	stdin io.Reader
	// stdout and stderr clean everything printed (see cleanWriter); term
	// is the raw terminal the counter draws its screen on.
	stdout, stderr     io.Writer
	term               io.Writer
	dataFlag, syncFlag string
	jsonOut            bool
	// now is the clock every command reads: time.Now, or the instant in
	// BOXOFFICE_NOW (for tests that need fixed output).
	now func() time.Time
}

// flags returns a flag set with the global flags already on it.
func (c *cli) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.dataFlag, "data", "", "data directory")
	fs.StringVar(&c.syncFlag, "sync", "full", "SQLite synchronous mode: full or normal")
	return fs
}

// parse parses flags anywhere among the positional arguments, so
// `sell 3 G7 --pay card` and `sell --pay card 3 G7` both work.
func (c *cli) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// usageErr prints a usage mistake and returns exit code 2.
func (c *cli) usageErr(format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	if c.jsonOut {
		c.printJSON(map[string]string{"error": booking.EInvalid, "message": msg})
	} else {
		fmt.Fprintf(c.stderr, "boxoffice: %s\n(see boxoffice help)\n", msg)
	}
	return exitUsage
}

// fail reports err and returns its exit code.
func (c *cli) fail(err error) int {
	var taken *booking.SeatsTakenError
	if c.jsonOut {
		if errors.As(err, &taken) {
			sug := taken.SuggestionLabels()
			if sug == nil {
				sug = [][]string{}
			}
			c.printJSON(map[string]any{"error": "seats_taken", "taken": taken.TakenLabels(), "suggestions": sug, "message": taken.Message()})
		} else {
			code := booking.ErrorCode(err)
			if errors.Is(err, booking.ErrStaleStatus) {
				code = "stale_status"
			}
			c.printJSON(map[string]string{"error": code, "message": booking.ErrorMessage(err)})
		}
	} else {
		fmt.Fprintf(c.stderr, "boxoffice: %s\n", booking.ErrorMessage(err))
		if errors.As(err, &taken) {
			for i, s := range taken.SuggestionLabels() {
				fmt.Fprintf(c.stderr, "  free instead (%d): %s\n", i+1, strings.Join(s, " "))
			}
		}
	}
	if booking.ErrorCode(err) == booking.EInternal {
		var de *booking.Error
		if !errors.As(err, &de) {
			// Not a domain error: a file or a flag problem the person can
			// act on, so show the text too.
			fmt.Fprintf(c.stderr, "boxoffice: %v\n", err)
		}
	}
	return exitCode(err)
}

func exitCode(err error) int {
	switch booking.ErrorCode(err) {
	case "":
		return exitOK
	case booking.EInvalid, booking.EForbidden:
		return exitUsage
	case booking.EConflict, booking.EExpired:
		return exitConflict
	case booking.ENotFound:
		return exitNotFound
	}
	return exitInternal
}

// open opens the data dir for a command, logging to stderr.
func (c *cli) open(noDemo bool) (*opened, error) {
	dir, err := dataDir(c.dataFlag)
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return openData(c.ctx, dir, c.syncFlag, noDemo, c.now, logger)
}

func (c *cli) counter(args []string) int {
	fs := c.flags("boxoffice")
	idle := fs.Duration("idle-signout", 10*time.Minute, "sign a clerk out after this long without a key press (0 never)")
	if _, err := c.parse(fs, args); err != nil {
		return c.usageErr("%v", err)
	}
	if *idle < 0 {
		return c.usageErr("--idle-signout must not be negative")
	}
	dir, err := dataDir(c.dataFlag)
	if err != nil {
		return c.fail(err)
	}
	logger, closer, err := fileLogger(dir)
	if err != nil {
		return c.fail(err)
	}
	defer closer.Close()
	o, err := openData(c.ctx, dir, c.syncFlag, false, c.now, logger)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	err = tui.Run(c.ctx, tui.Options{
		Store:           o.store,
		Demo:            o.demo,
		DemoCredentials: o.demoHint(c.ctx),
		Owner:           "local-" + randomID(),
		Terminal:        hostTerminal(),
		Logger:          logger,
		IdleSignOut:     *idle,
	}, c.stdin, c.term)
	if err != nil {
		logger.Error("counter", "err", err)
		return c.fail(err)
	}
	return exitOK
}

func hostTerminal() string {
	if h, err := os.Hostname(); err == nil {
		return "local:" + h
	}
	return "local"
}

func randomID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (c *cli) init(args []string) int {
	fs := c.flags("init")
	noDemo := fs.Bool("no-demo", false, "create an empty cinema")
	history := fs.Int("demo-history", 0, "give the demo cinema this many days of past sales")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) > 0 {
		return c.usageErr("init takes no arguments")
	}
	if *history < 0 || *history > maxHistoryDays || (*history > 0 && *noDemo) {
		return c.usageErr("--demo-history takes 1 to %d days of the demo cinema (not with --no-demo)", maxHistoryDays)
	}
	o, err := c.open(*noDemo)
	if err != nil {
		return c.fail(err)
	}
	if *history > 0 {
		fmt.Fprintf(c.stdout, "Data directory: %s\n", o.dir)
		return c.demoHistory(o, *history)
	}
	defer o.store.Close()
	fmt.Fprintf(c.stdout, "Data directory: %s\n", o.dir)
	hint := ""
	if h := o.demoHint(c.ctx); h.Name != "" {
		hint = fmt.Sprintf(" Sign in as %s with PIN %s.", h.Name, h.PIN)
	}
	switch {
	case o.seeded && o.demo:
		fmt.Fprintf(c.stdout, "Created the demo cinema.%s\n", hint)
	case o.demo:
		fmt.Fprintf(c.stdout, "The demo cinema is already there.%s\n", hint)
	case o.seeded:
		fmt.Fprintln(c.stdout, "Created an empty cinema. Next: boxoffice hall add FILE, film add, show add, price set,")
		fmt.Fprintln(c.stdout, "and a manager: echo PIN | boxoffice staff add NAME --role manager")
	default:
		fmt.Fprintln(c.stdout, "The database is ready.")
	}
	return exitOK
}

type showJSON struct {
	ID       int64  `json:"id"`
	Film     string `json:"film"`
	Hall     string `json:"hall"`
	Start    string `json:"start"`
	Free     int    `json:"free"`
	Capacity int    `json:"capacity"`
}

func (c *cli) shows(args []string) int {
	fs := c.flags("shows")
	date := fs.String("date", "", "day as YYYY-MM-DD (default today)")
	fs.BoolVar(&c.jsonOut, "json", false, "machine output")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) > 0 {
		return c.usageErr("shows takes no arguments")
	}
	day := c.now()
	if *date != "" {
		day, err = time.ParseInLocation("2006-01-02", *date, time.Local)
		if err != nil {
			return c.usageErr("--date %q is not a date like 2026-11-29", *date)
		}
	}
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	shows, err := o.store.Shows(c.ctx, booking.System, day)
	if err != nil {
		return c.fail(err)
	}
	if c.jsonOut {
		out := make([]showJSON, 0, len(shows))
		for _, s := range shows {
			out = append(out, showJSON{s.ID, booking.Clean(s.Film.Title), booking.Clean(s.HallName), s.Starts.Format(time.RFC3339), s.Free(), s.Capacity})
		}
		c.printJSON(out)
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTART\tFILM\tHALL\tFREE\tCAPACITY")
	for _, s := range shows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\n", s.ID, s.Starts.Format("Mon 02 Jan 15:04"), booking.Clean(s.Film.Title), booking.Clean(s.HallName), s.Free(), s.Capacity)
	}
	tw.Flush()
	if len(shows) == 0 {
		fmt.Fprintf(c.stdout, "No shows on %s.\n", day.Format("Mon 02 Jan 2006"))
	}
	return exitOK
}

func parseShowID(s string) (int64, bool) {
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil && id > 0
}

func (c *cli) seats(args []string) int {
	fs := c.flags("seats")
	fs.BoolVar(&c.jsonOut, "json", false, "machine output")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) != 1 {
		return c.usageErr("usage: boxoffice seats SHOW")
	}
	showID, ok := parseShowID(pos[0])
	if !ok {
		return c.usageErr("SHOW must be a show id from `boxoffice shows`, not %q", booking.CleanLine(pos[0], 20))
	}
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	m, err := o.store.SeatMap(c.ctx, booking.System, showID, "")
	if err != nil {
		return c.fail(err)
	}
	if c.jsonOut {
		type seatJSON struct {
			Seat   string `json:"seat"`
			Row    string `json:"row"`
			Number int    `json:"number"`
			Kind   string `json:"kind"`
			State  string `json:"state"`
		}
		out := make([]seatJSON, 0, len(m.Hall.Seats))
		for _, s := range m.Hall.Seats {
			out = append(out, seatJSON{s.Label, s.RowTag, s.Number, s.Kind.String(), m.State(s.ID).String()})
		}
		c.printJSON(map[string]any{"show": showJSON{m.Show.ID, booking.Clean(m.Show.Film.Title), booking.Clean(m.Show.HallName), m.Show.Starts.Format(time.RFC3339), m.Show.Free(), m.Show.Capacity}, "seats": out})
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%s — %s, %s\n", booking.Clean(m.Show.Film.Title), booking.Clean(m.Show.HallName), m.Show.Starts.Format("Mon 02 Jan 15:04"))
	fmt.Fprintf(c.stdout, "%d free of %d   (. free  h held  X sold  # blocked  w wheelchair  c companion)\n\n", m.Show.Free(), m.Show.Capacity)
	writeASCIIMap(c.stdout, m)
	return exitOK
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
		ch := byte('.')
		switch {
		case m.State(s.ID) == booking.SeatSold:
			ch = 'X'
		case m.State(s.ID) == booking.SeatHeldByOther || m.State(s.ID) == booking.SeatHeldByMe:
			ch = 'h'
		case m.State(s.ID) == booking.SeatBlocked:
			ch = '#'
		case s.Kind == booking.Wheelchair:
			ch = 'w'
		case s.Kind == booking.Companion:
			ch = 'c'
		}
		if s.Col < len(line) {
			line[s.Col] = ch
		}
	}
	flush()
}

func centre(s string, width int) string {
	if width <= len(s) {
		return s
	}
	pad := (width - len(s)) / 2
	return strings.Repeat(" ", pad) + s
}

type bookingJSON struct {
	Number   string        `json:"booking"`
	Status   string        `json:"status"`
	ShowID   int64         `json:"show"`
	Film     string        `json:"film"`
	Hall     string        `json:"hall"`
	Start    string        `json:"start"`
	Seats    []string      `json:"seats"`
	Total    string        `json:"total"`
	Change   string        `json:"change"`
	Customer string        `json:"customer,omitempty"`
	Phone    string        `json:"phone,omitempty"`
	Tickets  []ticketJSON  `json:"tickets"`
	Payments []paymentJSON `json:"payments"`
}

type ticketJSON struct {
	Seat   string `json:"seat"`
	Type   string `json:"type"`
	Price  string `json:"price"`
	Status string `json:"status"`
	Code   string `json:"code"`
}

type paymentJSON struct {
	Kind     string `json:"kind"`
	Method   string `json:"method"`
	Amount   string `json:"amount"`
	Tendered string `json:"tendered"`
	Change   string `json:"change"`
}

func (c *cli) printBooking(b *booking.Booking) int {
	if c.jsonOut {
		out := bookingJSON{
			Number: b.Number, Status: b.Status, ShowID: b.Show.ID, Film: booking.Clean(b.Show.Film.Title),
			Hall: booking.Clean(b.Show.HallName), Start: b.Show.Starts.Format(time.RFC3339), Seats: b.SeatLabels(),
			Total: db.Money(b.Total), Change: db.Money(b.Change()), Customer: booking.Clean(b.Customer), Phone: booking.Clean(b.Phone),
		}
		for _, t := range b.Tickets {
			out.Tickets = append(out.Tickets, ticketJSON{t.Seat.Label, t.Type, db.Money(t.Price), t.Status, t.Code})
		}
		for _, p := range b.Payments {
			out.Payments = append(out.Payments, paymentJSON{p.Kind, string(p.Method), db.Money(p.Amount), db.Money(p.Tendered), db.Money(p.Change)})
		}
		c.printJSON(out)
		return exitOK
	}
	w := c.stdout
	fmt.Fprintf(w, "Booking  %s (%s)\n", b.Number, b.Status)
	fmt.Fprintf(w, "Show     %s — %s, %s\n", booking.Clean(b.Show.Film.Title), booking.Clean(b.Show.HallName), b.Show.Starts.Format("Mon 02 Jan 15:04"))
	fmt.Fprintf(w, "Seats    %s\n", strings.Join(b.SeatLabels(), " "))
	if b.Customer != "" || b.Phone != "" {
		fmt.Fprintf(w, "Customer %s %s\n", booking.Clean(b.Customer), booking.Clean(b.Phone))
	}
	fmt.Fprintf(w, "Total    %s\n", db.Money(b.Total))
	for _, p := range b.Payments {
		switch {
		case p.Kind == "refund":
			fmt.Fprintf(w, "Refund   %s by %s\n", db.Money(p.Amount), p.Method)
		case p.Method == booking.Cash:
			fmt.Fprintf(w, "Paid     %s cash, change due %s\n", db.Money(p.Tendered), db.Money(p.Change))
		default:
			fmt.Fprintf(w, "Paid     %s by card\n", db.Money(p.Amount))
		}
	}
	if b.Status == booking.BookingCancelled {
		fmt.Fprintf(w, "Cancelled by %s", booking.Clean(b.CancelledBy))
		if b.ApprovedBy != "" {
			fmt.Fprintf(w, ", approved by %s", booking.Clean(b.ApprovedBy))
		}
		if b.Reason != "" {
			fmt.Fprintf(w, ": %s", booking.Clean(b.Reason))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "Tickets")
	for _, t := range b.Tickets {
		fmt.Fprintf(w, "  %-5s %-8s %7s  %-8s %s\n", t.Seat.Label, t.Type, db.Money(t.Price), t.Status, t.Code)
	}
	return exitOK
}

func (c *cli) booking(args []string) int {
	fs := c.flags("booking")
	fs.BoolVar(&c.jsonOut, "json", false, "machine output")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) != 1 {
		return c.usageErr("usage: boxoffice booking NUMBER")
	}
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	b, err := o.store.Booking(c.ctx, booking.System, pos[0])
	if err != nil {
		return c.fail(err)
	}
	return c.printBooking(b)
}

func (c *cli) cancel(args []string) int {
	fs := c.flags("cancel")
	reason := fs.String("reason", "", "why (kept with the booking)")
	fs.BoolVar(&c.jsonOut, "json", false, "machine output")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) != 1 {
		return c.usageErr("usage: boxoffice cancel NUMBER [--reason R]")
	}
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	b, err := o.store.Cancel(c.ctx, booking.System, booking.CancelRequest{Number: pos[0], Reason: *reason})
	if err != nil {
		return c.fail(err)
	}
	return c.printBooking(b)
}
