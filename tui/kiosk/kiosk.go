// Package kiosk is the self-service kiosk (issue 13): a Bubble Tea model
// apart from the counter's, in a package that cannot see it. It is given
// only Backend — the programme and the kiosk's own store calls — and acts
// as the kiosk role, so no key it is sent can reach a staff screen or a
// staff action: there is none to call, and the store refuses the role
// anyway.
package kiosk

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/paper"
)

// The self-service kiosk (issue 13): a model of its own, apart from the
// counter's Model. It is given only Backend — the programme and the
// kiosk's own store calls — and acts as the kiosk role, so no key it is
// sent can reach a staff screen or a staff action: there is none to call,
// and the store refuses the role anyway.

// Backend is all a kiosk may ask of the booking core.
type Backend interface {
	TicketTypes(ctx context.Context) ([]booking.TicketType, error)
	Shows(ctx context.Context, actor booking.Actor, day time.Time) ([]booking.Show, error)
	SeatMap(ctx context.Context, actor booking.Actor, showID int64, owner string) (*booking.SeatMap, error)
	// Prices is the price table, for the totals a customer sees before
	// and after reserving (a kiosk may read it: it is public).
	Prices(ctx context.Context, actor booking.Actor) (*booking.PriceTable, error)
	booking.Kiosk
	// Cinema reads the settings: the age above which a film needs ID at
	// the door.
	Cinema(ctx context.Context, actor booking.Actor, site int64) (*booking.Cinema, error)
}

// Backend asks nothing booking.Store does not promise.
var _ Backend = booking.Store(nil)

// Options configure one kiosk session.
type Options struct {
	Store Backend
	// Owner is the session's unique id: the owner of its hold.
	Owner string
	// Terminal names the kiosk in the audit trail ("kiosk", "kiosk-ssh").
	Terminal string
	// Addr is where an SSH kiosk session comes from, for the store's
	// per-address limits (reservations an hour, collect's tries, the
	// slowing of let-go holds); "" for a kiosk in the building, whose
	// address is then its device (booking.DeviceAddr of Terminal).
	Addr string
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Idle starts the kiosk again, letting its hold go, after this long
	// without a key; booking.KioskIdle when zero.
	Idle time.Duration
	// Context bounds every call the session makes.
	Context context.Context
	Logger  *slog.Logger
	// Unlock checks the name and PIN a member of staff types after the
	// staff chord (ctrl+x then ctrl+e) and says whether they may close the
	// kiosk; nil (an SSH kiosk) makes the chord do nothing.
	Unlock func(ctx context.Context, name, pin string) error
	// Printer is the kiosk's own ticket printer (issue 12): a paid
	// booking's tickets print on it when they are collected. None: they
	// are only shown.
	Printer booking.Printer
	Layout  paper.Layout
}

type kioskScreen int

const (
	kHome kioskScreen = iota
	kFilms
	kShows
	kCount
	kSeats
	kDetails
	kReserved
	kCollect
	kCollected
	kUnlock
	kPay
)

// kField is a kiosk text field. It keeps what was typed as typed (up to
// max runes), so the store sees an escape sequence and refuses it with a
// clear message instead of storing what is left of it; it is drawn only
// cleaned.
type kField struct {
	label string
	value []rune
	max   int
	mask  bool
	// again marks a field kept after a wrong try: what is typed next
	// replaces it, as a customer retyping their digits expects.
	again bool
	// optional: the form may be sent with it empty (⏎ before it sends).
	optional bool
	// maskHead draws all but the last four characters hidden.
	maskHead bool
}

func (f *kField) insert(s string) {
	if f.again {
		f.value, f.again = nil, false
	}
	for _, r := range s {
		if len(f.value) >= f.max {
			return
		}
		f.value = append(f.value, r)
	}
}

func (f *kField) String() string { return string(f.value) }

// filmShows is one film and its shows still on sale today.
type filmShows struct {
	title string
	shows []booking.Show
}

// Model is one kiosk session. *Model implements tea.Model.
type Model struct {
	opts  Options
	actor booking.Actor
	ctx   context.Context
	now   func() time.Time
	log   *slog.Logger

	width, height int
	compact       bool // this frame is drawn compact (Render)
	screen        kioskScreen
	cursor        int
	note          string // the one line of news or trouble
	busy          bool

	films  []filmShows
	day    int // the day on sale on screen: days after today
	film   int
	prices *booking.PriceTable
	show   booking.Show
	// listKnown says show.PriceList was read (the list of shows does not
	// carry it): only then does the count say what tickets cost from.
	listKnown bool
	types     []booking.TicketType
	// idAbove is the cinema's rating.id_above: a film rated above it
	// needs ID at the door, and the kiosk says so.
	idAbove int
	counts  []int
	seats   *booking.SeatMap
	hold    *booking.Hold

	fields []kField
	focus  int

	reservation *booking.Reservation
	collection  *booking.Collection
	ticket      int // the collected ticket whose QR code is drawn

	chord   bool // ctrl+x seen: the staff chord's first half
	idleGen int
	closing bool
	// noTimer is a test hook: the idle timer is counted but not started,
	// and the test delivers its message.
	noTimer bool
}

// New makes a kiosk session.
func New(opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Idle <= 0 {
		opts.Idle = booking.KioskIdle
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Terminal == "" {
		opts.Terminal = "kiosk"
	}
	if opts.Addr == "" {
		opts.Addr = booking.DeviceAddr(opts.Terminal)
	}
	return &Model{opts: opts, ctx: opts.Context, now: opts.Now, log: opts.Logger,
		actor: booking.Actor{Name: "kiosk", Role: booking.RoleKiosk, Terminal: opts.Terminal}}
}

// Init arms the idle timer.
func (m *Model) Init() tea.Cmd { return m.armIdle() }

// Messages of the kiosk's store calls.
type (
	kShowsMsg struct {
		day     int // days after today
		shows   []booking.Show
		types   []booking.TicketType
		prices  *booking.PriceTable
		idAbove int
		err     error
	}
	kHoldMsg struct {
		hold *booking.Hold
		seat *booking.SeatMap
		err  error
	}
	kReservedMsg struct {
		r   *booking.Reservation
		err error
	}
	kCollectMsg struct {
		c   *booking.Collection
		err error
	}
	kPriceListMsg struct {
		showID int64
		list   string
		known  bool
		err    error
	}
	kPrintedMsg struct{ err error }
	kUnlockMsg  struct{ err error }
	kIdleMsg    struct{ gen int }
	kReleaseMsg struct{}
)

func (m *Model) armIdle() tea.Cmd {
	m.idleGen++
	gen := m.idleGen
	if m.noTimer {
		return nil
	}
	return tea.Tick(m.opts.Idle, func(time.Time) tea.Msg { return kIdleMsg{gen} })
}

// Update handles one message. Interrupt and suspend, whether keys or
// messages, do nothing: a kiosk is left only by the staff chord and a
// PIN.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.InterruptMsg, tea.SuspendMsg:
		return m, nil
	case tea.KeyPressMsg:
		return m, tea.Batch(m.armIdle(), m.onKey(msg))
	case tea.PasteMsg:
		if f := m.field(); f != nil {
			f.insert(msg.Content)
		}
		return m, m.armIdle()
	case kIdleMsg:
		if msg.gen == m.idleGen && m.screen != kHome {
			return m, m.reset("")
		}
	default:
		return m, m.onResult(msg)
	}
	return m, nil
}

// onResult takes a store call's answer.
func (m *Model) onResult(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case kShowsMsg:
		m.busy = false
		if msg.err != nil {
			m.note = booking.ErrorMessage(msg.err)
			return nil
		}
		return m.onShows(msg)
	case kHoldMsg:
		m.busy = false
		if msg.err != nil {
			m.note = booking.ErrorMessage(msg.err)
			return nil
		}
		m.hold, m.seats, m.screen, m.note = msg.hold, msg.seat, kSeats, ""
	case kReservedMsg:
		m.busy = false
		if msg.err != nil {
			m.note = booking.ErrorMessage(msg.err)
			return nil
		}
		m.reservation, m.hold, m.screen, m.note = msg.r, nil, kReserved, ""
	case kCollectMsg:
		m.busy = false
		if msg.err != nil {
			// The same screen for every wrong pair: what was typed kept,
			// the digits ready to be typed again, one message.
			m.fields[1].again = true
			m.focus, m.note = 1, booking.ErrorMessage(msg.err)
			return nil
		}
		m.collection, m.screen, m.note, m.ticket = msg.c, kCollected, "", 0
		return m.printCollected()
	case kPriceListMsg:
		if msg.err != nil {
			m.log.Warn("kiosk price list", "show", msg.showID, "err", msg.err)
		}
		if msg.known && m.show.ID == msg.showID {
			m.show.PriceList, m.listKnown = msg.list, true
		}
	case kPrintedMsg:
		m.note = "Take your tickets from the printer."
		if msg.err != nil {
			m.opts.Logger.Warn("kiosk print", "err", msg.err)
			m.note = "The printer is not working: show this screen at the counter."
		}
	case kPaidMsg:
		return m.onPaid(msg)
	case kUnlockMsg:
		m.busy = false
		if msg.err != nil {
			return m.reset("That name and PIN cannot close the kiosk.")
		}
		m.closing = true
		return tea.Sequence(m.releaseCmd(), tea.Quit)
	}
	return nil
}

// reset starts again from the first screen, letting any hold go.
func (m *Model) reset(note string) tea.Cmd {
	var cmd tea.Cmd
	if m.hold != nil {
		cmd = m.releaseCmd()
	}
	*m = Model{opts: m.opts, actor: m.actor, ctx: m.ctx, now: m.now, log: m.log, width: m.width, height: m.height,
		idleGen: m.idleGen, note: note, noTimer: m.noTimer}
	return cmd
}

func (m *Model) releaseCmd() tea.Cmd {
	ctx, store, actor, owner := m.ctx, m.opts.Store, m.actor, m.opts.Owner
	return func() tea.Msg {
		if _, err := store.KioskRelease(ctx, actor, owner); err != nil {
			return kReleaseMsg{}
		}
		return kReleaseMsg{}
	}
}

// Release lets go of the session's hold: for the host when the session
// ends.
func (m *Model) Release(ctx context.Context) error {
	_, err := m.opts.Store.KioskRelease(ctx, m.actor, m.opts.Owner)
	return err
}

// field is the field with the focus, nil on screens without fields.
func (m *Model) field() *kField {
	if m.focus < len(m.fields) {
		return &m.fields[m.focus]
	}
	return nil
}

// onKey handles a key press on the current screen.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	switch s {
	case "ctrl+c", "ctrl+z", "ctrl+\\", "ctrl+d":
		return nil // never leave, never suspend
	case "ctrl+x":
		m.chord = true
		return nil
	case "ctrl+e":
		if m.chord && m.opts.Unlock != nil {
			m.chord = false
			m.releaseAndGo(kUnlock)
			m.fields = []kField{{label: "Staff name", max: 40}, {label: "Manager PIN", max: 12, mask: true}}
			return m.releaseCmdIf()
		}
	}
	m.chord = false
	if m.busy {
		return nil
	}
	switch m.screen {
	case kHome:
		return m.keyHome(s)
	case kFilms, kShows:
		return m.keyList(s)
	case kCount:
		return m.keyCount(s)
	case kSeats:
		return m.keySeats(s)
	case kDetails, kCollect, kUnlock, kPay:
		return m.keyForm(k)
	case kCollected:
		m.keyCollected(s)
		if s == "enter" || s == "esc" {
			return m.reset("")
		}
	case kReserved:
		return m.keyReserved(s)
	}
	return nil
}

// keyCollected moves between a collected booking's tickets.
func (m *Model) keyCollected(s string) {
	n := len(m.collectedTickets())
	switch s {
	case "left":
		m.ticket = max(0, m.ticket-1)
	case "right":
		m.ticket = min(max(n-1, 0), m.ticket+1)
	}
}

// collectedTickets are the tickets of a collected, paid booking that may
// still come in: each has a code to show at the door.
func (m *Model) collectedTickets() []booking.Ticket {
	if m.collection == nil || m.collection.Booking == nil {
		return nil
	}
	return paper.Printable(m.collection.Booking)
}

// releaseAndGo moves to screen, keeping nothing of the booking under way.
func (m *Model) releaseAndGo(to kioskScreen) {
	m.screen, m.cursor, m.focus, m.note = to, 0, 0, ""
}

// releaseCmdIf lets the hold go when there is one.
func (m *Model) releaseCmdIf() tea.Cmd {
	if m.hold == nil {
		return nil
	}
	m.hold = nil
	return m.releaseCmd()
}

func (m *Model) keyHome(s string) tea.Cmd {
	switch s {
	case "up", "down", "tab":
		m.cursor = 1 - m.cursor
	case "enter":
		m.note = ""
		if m.cursor == 1 {
			m.releaseAndGo(kCollect)
			m.fields = collectFields()
			return nil
		}
		m.busy = true
		return m.showsCmd(0, 0)
	}
	return nil
}

func collectFields() []kField {
	return []kField{{label: "Booking number", max: 16}, {label: "Last four digits of your phone", max: 4}}
}

// kioskDaysAhead bounds how far → looks for the next day with shows on
// sale: a week, so a day the cinema is closed is stepped over.
const kioskDaysAhead = 7

// showsCmd reads the shows of the day days after today, with the
// ticket types and prices. step (+1 or -1) steps on over days with
// nothing on sale, a week at most, never before today.
func (m *Model) showsCmd(days, step int) tea.Cmd {
	ctx, store, actor, now := m.ctx, m.opts.Store, m.actor, m.now()
	return func() tea.Msg {
		var shows []booking.Show
		for range kioskDaysAhead {
			var err error
			if shows, err = store.Shows(ctx, actor, now.AddDate(0, 0, days)); err != nil {
				return kShowsMsg{err: err}
			}
			if step == 0 || len(groupFilms(shows, now)) > 0 || days+step < 0 {
				break
			}
			days += step
		}
		types, err := store.TicketTypes(ctx)
		if err != nil {
			return kShowsMsg{err: err}
		}
		prices, err := store.Prices(ctx, actor)
		if err != nil {
			return kShowsMsg{err: err}
		}
		c, err := store.Cinema(ctx, actor, booking.AllSites)
		if err != nil {
			return kShowsMsg{err: err}
		}
		return kShowsMsg{day: days, shows: shows, types: types, prices: prices, idAbove: c.IDAbove}
	}
}

// onShows shows the films of the day read. A day after today with
// nothing on sale is past the programme: the kiosk stays on its day.
func (m *Model) onShows(msg kShowsMsg) tea.Cmd {
	films := groupFilms(msg.shows, m.now())
	if msg.day > 0 && len(films) == 0 {
		m.note = "Nothing else is on sale yet."
		return nil
	}
	m.films, m.types, m.prices, m.day, m.idAbove = films, msg.types, msg.prices, msg.day, msg.idAbove
	m.screen, m.cursor, m.note = kFilms, 0, ""
	if len(m.films) == 0 {
		m.note = "Nothing more is on today: → for the next days."
	}
	return nil
}

// dayLabel names the day days after today.
func (m *Model) dayLabel(days int) string {
	switch days {
	case 0:
		return "today"
	case 1:
		return "tomorrow"
	}
	return m.now().AddDate(0, 0, days).Format("Mon 2 Jan")
}

// groupFilms lists each film with its shows still on sale at now, in the
// order of their first show.
func groupFilms(shows []booking.Show, now time.Time) []filmShows {
	var out []filmShows
	for _, sh := range shows {
		if booking.SalesOpen(sh, now) != nil || sh.Free() == 0 {
			continue
		}
		i := slices.IndexFunc(out, func(f filmShows) bool { return f.title == sh.Film.Title })
		if i < 0 {
			out = append(out, filmShows{title: sh.Film.Title})
			i = len(out) - 1
		}
		out[i].shows = append(out[i].shows, sh)
	}
	return out
}

// kioskTrim is s cleaned for a kiosk screen, at most n runes.
func kioskTrim(s string, n int) string { return booking.CleanLine(strings.TrimSpace(s), n) }

// Filter is the kiosk program's message filter: interrupt and
// suspend never reach Bubble Tea's handling of them (which would end or
// stop the program).
func Filter(_ tea.Model, msg tea.Msg) tea.Msg {
	switch msg.(type) {
	case tea.InterruptMsg, tea.SuspendMsg:
		return nil
	}
	return msg
}
