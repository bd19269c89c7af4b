// Package tui is the counter: the Bubble Tea screens a clerk sells from,
// run in a local terminal by Run or served per SSH session by New.
//
// The model does no I/O in Update or View. Every call to the booking core is
// a tea.Cmd that returns a message, and the core is reached only through
// Backend, so the package never sees a database.
package tui

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/internal/drain"
	"boxoffice/paper"
)

// Backend is what the counter needs of the booking core: the capabilities
// its screens use, by embedding, so a method added to one of them is
// there at once. A *db.Store satisfies it; tests may pass anything that
// behaves like one.
type Backend interface {
	booking.Sales     // hold, extend, release, sell; the price list
	booking.Bookings  // find, look up, cancel and refund
	booking.Programme // the day's shows and their seat maps
	booking.Roster    // sign in at a shared counter
	booking.Door      // admit tickets
	booking.Waitlist  // the waiting list of a sold-out show
	booking.Changes   // repaint on every committed change
	booking.Audit     // the manager's audit trail
	booking.Reports   // the managers' reports screen
	booking.Shifts    // the clerk's own drawer: float, X report, blind count

	// Blocked and house seats, from the seat map.
	booking.SeatBlocks
	// kiosk: reservations found, made and paid at the counter (issue 13)
	booking.Reservations
	booking.Kiosk
	// issue 14: the sites of a chain, for the manager's lists
	booking.Sites
	booking.Items     // concessions: the items screen (items.go)
	booking.Customers // customer accounts, found or opened from the checkout (customer.go)
	booking.Vouchers  // the report of redemptions (saleextras.go)
	booking.GiftCards // the gift-card screen (giftcard.go)
	// The books: the ID check of a sale, the drawer (idcheck.go, drawer.go).
	booking.Books
	// The cinema's settings and tax rates, read for every print job
	// (print.go jobLayout).
	booking.Settings
	booking.Taxes
}

// Backend asks nothing of the core that booking.Store does not promise.
var _ Backend = booking.Store(nil)

// Options configure one counter session.
type Options struct {
	// Store is the booking core.
	Store Backend
	// Demo shows the demo credentials on the sign-in screen.
	Demo bool
	// DemoCredentials are the credentials the sign-in screen shows when
	// Demo is set (assets.DemoUser and assets.DemoPIN).
	DemoCredentials booking.Credentials
	// Owner is this session's unique id: the owner of its holds.
	Owner string
	// Staff, when set, opens the session signed in (a personal SSH key);
	// nil opens the sign-in screen. Only its StaffID, Name and Role are
	// read: where the session is comes from the three fields below.
	Staff *booking.Actor
	// Terminal is the counter device's name, recorded on every sale and
	// on every failed PIN typed here.
	Terminal string
	// TerminalID is the registered terminal (an SSH counter device) the
	// session runs on, 0 for none (a local counter, a personal key). Every
	// write checks that it is still registered, and a removed one signs
	// nobody in.
	TerminalID int64
	// Addr is the session's remote address (an SSH client's host:port),
	// logged with every failed PIN and approval typed here; "" for a local
	// counter.
	Addr string
	// Site is the site of a chain the session works at (issue 14): a
	// registered terminal's, a personal key's member of staff's, or the
	// local counter's --site; 0 for every site, narrowed to the site of
	// whoever signs in when they work at one. The counter lists and sells
	// that site's programme.
	Site int64
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// IdleSignOut signs the clerk out after this long without a key press;
	// zero never does.
	IdleSignOut time.Duration
	// Logger receives internal errors; discarded when nil.
	Logger *slog.Logger
	// Context, when set, bounds every call the session makes and its
	// subscription to live changes (an SSH session's context).
	Context context.Context
	// Resume, when set, is where a dropped session of the same Owner left
	// off (see Model.Resume): the session reopens it once the clerk it
	// records is signed in.
	Resume *Resume

	// Printing (issue 12; see print.go).

	// Printer is where the counter prints tickets and receipts after a
	// sale; the zero Printer is none.
	Printer booking.Printer
	// PDFDir, when there is no Printer, is where the tickets of a sale
	// are written as a PDF instead; the status line names the file. ""
	// with no Printer prints nothing.
	PDFDir string
	// PrintTimeout bounds a print job; paper.Timeout when zero.
	PrintTimeout time.Duration
	// Layout is what heads the printouts (the cinema's name, its zone).
	Layout paper.Layout

	// LayoutsDir is the folder the manager screens add halls from: a
	// layout file is named inside it and read nowhere else (a manager
	// over SSH must not read whatever the server can). "" adds none.
	LayoutsDir string

	// LogRing, for a local counter, holds the log lines its log file could
	// not take; the messages (ctrl+l) show them on L (logring.go). nil: none.
	LogRing *LogRing
	// ExportDir is where the reports screen saves CSV files, under names
	// it makes (nobody types a path); "" saves none.
	ExportDir string
}

// Model is one counter session. *Model implements tea.Model.
type Model struct {
	opts   Options
	store  Backend
	ctx    context.Context
	cancel context.CancelFunc
	now    func() time.Time
	log    *slog.Logger
	styles Styles
	keys   KeyMap
	help   help.Model

	width, height int
	screen        screen
	clerk         *clerk // nil when signed out; see identity.go
	types         []booking.TicketType
	prices        *booking.PriceTable // for a checkout's first figures; see quote.go

	notice    string // server notice banner
	status    string // one line under the screen
	statusErr bool
	msgs      messageLog  // the last messages the status said (messages.go)
	leaving   *leaveState // asking what to do with held seats on the way out
	closing   bool        // quit under way

	lastInput time.Time
	idleArmed bool
	ticking   bool

	door doorState

	// calls are waiting-list customers to ring (see calls.go).
	calls    []booking.WaitlistEntry
	callsGen int
	signin   signInState
	shows    showsState
	seats    seatMapState
	checkout checkoutState
	id       idState // the ID check of the checkout (idcheck.go)
	done     doneState
	find     findState
	waitlist waitlistState
	audit    auditState
	reports  reportsState
	shift    shiftState
	manage   manageState // manager screens (issue 11)

	// The booking view and an exchange under way (issue 11).
	bview bookingViewState
	exch  *exchangeState

	resv     reservationsState // kiosk: the counter's reservations screen
	items    itemsState        // concessions: the items screen (items.go)
	customer customerState     // customer accounts, from the checkout (customer.go)
	giftCard giftCardState     // the gift-card screen (giftcard.go)

	logs logsState // the log lines over the screen (ctrl+l; logring.go)

	resume *Resume // still to reopen; cleared once tried

	printing bool // a print job is under way (see print.go)

	live <-chan booking.ShowChanged

	// frame is the last screen drawn; drawn says it is still current.
	frame string
	drawn bool

	// parkBlocking is a test hook: commands that wait (timers, the live
	// subscription) are parked in parked instead of returned, so tests can
	// run every other command synchronously.
	parkBlocking bool
	parked       []parkedCmd

	// What a host reads from other goroutines (see identity.go, store.go):
	// who acts, whether the store withdrew the session's access, and the
	// sales and refunds under way.
	acting    atomic.Pointer[clerk]
	withdrawn atomic.Bool
	settling  drain.Drain
}

var _ tea.Model = (*Model)(nil)

// New returns a counter session.
func New(opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	parent := opts.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	m := &Model{
		opts:   opts,
		store:  opts.Store,
		ctx:    ctx,
		cancel: cancel,
		now:    opts.Now,
		log:    opts.Logger,
		styles: DefaultStyles(),
		keys:   DefaultKeyMap(),
		help:   help.New(),
		width:  MinWidth,
		height: MinHeight,
	}
	m.help.Styles = m.styles.Help
	m.help.SetWidth(m.width)
	m.signin = newSignInState()
	m.find = newFindState()
	m.shows.day = dayOf(m.now())
	m.resume = opts.Resume
	if st := opts.Staff; st != nil {
		m.setClerk(&clerk{id: st.StaffID, name: st.Name, role: st.Role})
		m.screen = screenShows
		if st.Role == booking.RoleDoor {
			// Door staff with a key of their own land on the door, as
			// they do after signing in at a shared counter.
			m.openDoor()
		}
	}
	return m
}

// Close ends the session's commands and live subscription. The program
// calls it on quit; a server calls it when the session ends.
func (m *Model) Close() { m.cancel() }

// tick is tea.Tick that gives up when the session ends (Close): otherwise
// each of a session's timers, the idle sign-out's ten minutes among them,
// keeps a goroutine waiting that long after the session has gone.
func (m *Model) tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	ctx := m.ctx
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case now := <-t.C:
			return fn(now)
		case <-ctx.Done():
			return nil
		}
	}
}

// Init subscribes to live changes and, when the session opens signed in,
// loads the day's shows.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.subscribeCmd(), m.clockCmd()}
	if m.clerk != nil {
		cmds = append(cmds, m.afterSignIn()...)
	}
	return tea.Batch(cmds...)
}

// Messages returned by commands.
type (
	subscribedMsg struct{ ch <-chan booking.ShowChanged }
	changeMsg     booking.ShowChanged
	tickMsg       struct{}
	idleMsg       struct{}
	typesMsg      struct {
		types  []booking.TicketType
		prices *booking.PriceTable
		err    error
	}
	signedOutMsg struct{ err error }
)

// Update handles one message: the clerk's input here, what comes from
// outside in onLive, a store call's answer in onResult.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if !quiet(msg) {
		m.drawn = false
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		if msg.Width <= 0 || msg.Height <= 0 {
			// Output that is no terminal cannot say its size: keep the
			// last one rather than refuse every key as "too small".
			return m, nil
		}
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		return m, nil
	case tea.KeyPressMsg:
		m.lastInput = m.now()
		return m, m.onKey(msg)
	case tea.PasteMsg:
		return m, m.onPaste(msg.Content)
	case tea.MouseClickMsg:
		if c, ok := m.active().(clicker); ok && !m.tooSmall() && m.clerk != nil && !m.Withdrawn() {
			return m, c.click(m, msg.Mouse())
		}
		return m, nil
	}
	if cmd, ok := m.onLive(msg); ok {
		return m, cmd
	}
	return m, m.onResult(msg)
}

// onResult routes a store call's answer to its screen.
func (m *Model) onResult(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case typesMsg:
		m.onTypes(msg)
		return nil
	case withdrawnMsg:
		return m.onWithdrawn()
	case withdrawnEndMsg:
		if m.closing {
			return nil // ctrl+c was quicker
		}
		return m.endCmd()
	case signedOutMsg:
		if msg.err != nil {
			m.fail(msg.err)
		}
		return nil
	case signInMsg:
		return m.onSignIn(msg)
	case showsMsg:
		return m.onShows(msg)
	case seatMapMsg:
		return m.onSeatMap(msg)
	case holdMsg:
		return m.onHold(msg)
	case releaseMsg:
		return m.onRelease(msg)
	case extendMsg:
		return m.onExtend(msg)
	case checkoutMsg:
		return m.onCheckout(msg)
	case cinemaMsg:
		return m.onCinema(msg)
	case idCheckedMsg:
		return m.onIDChecked(msg)
	case noSaleMsg:
		return m.onNoSale(msg)
	case checkoutRetryMsg:
		return m.onCheckoutRetry(msg)
	case quoteMsg:
		return m.onQuote(msg)
	case findMsg:
		return m.onFind(msg)
	case bookingMsg:
		return m.onBooking(msg)
	case cancelMsg:
		return m.onCancel(msg)
	case admitMsg:
		return m.onAdmit(msg)
	case callsMsg:
		return m.onCalls(msg)
	case waitlistedMsg:
		return m.onWaitlisted(msg)
	case calledMsg:
		return m.onCalled(msg)
	case resumedMsg:
		return m.onResumed(msg)
	case reheldMsg:
		return m.onReheld(msg)
	case waitlistMsg:
		return m.onWaitlist(msg)
	case removedMsg:
		return m.onRemoved(msg)
	case auditMsg:
		return m.onAudit(msg)
	}
	cmd, _ := m.onHouseResult(msg)
	return cmd
}

// onHouseResult handles the results of the screens that run the house:
// reports and shifts (issue 10), printing (issue 12), the manager screens
// and exchanges (issue 11). ok is false for a message none of them sent.
func (m *Model) onHouseResult(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case reportMsg:
		return m.onReport(msg), true
	case exportedMsg:
		return m.onExported(msg), true
	case currentShiftMsg:
		return m.onCurrentShift(msg), true
	case openedShiftMsg:
		return m.onOpenedShift(msg), true
	case shiftReportMsg:
		return m.onShiftReport(msg), true

	// Printing (issue 12).
	case printedMsg:
		return m.onPrinted(msg), true
	// Manager screens (issue 11).
	case mgrLoadedMsg:
		return m.onMgrLoaded(msg), true
	case mgrDoneMsg:
		return m.onMgrDone(msg), true
	case cancelShowMsg:
		return m.onCancelShow(msg), true
	case pickShowsMsg:
		return m.onPickShows(msg), true
	// Exchanges (issue 11).
	case exchangeQuoteMsg:
		return m.onExchangeQuote(msg), true
	case exchangedMsg:
		return m.onExchanged(msg), true
	// Blocked and house seats (issue 11).
	case blockMsg:
		return m.onBlock(msg), true
	// Reservations at the counter (issue 13).
	case reservationsMsg:
		return m.onReservations(msg), true
	case reservationPaidMsg:
		return m.onReservationPaid(msg), true
	case resvQuoteMsg:
		return m.onResvQuote(msg), true
	case reservedForMsg:
		return m.onReservedFor(msg), true
	case itemsMsg: // concessions (items.go)
		return m.onItems(msg), true
	case customerMsg: // customer accounts (customer.go)
		return m.onCustomer(msg), true
	case customerCardsMsg:
		return m.onCustomerCards(msg), true
	case giftCardMsg: // gift cards (giftcard.go)
		return m.onGiftCard(msg), true
	case giftCardWhoMsg:
		return m.onGiftCardWho(msg), true
	}
	return nil, false
}

// onTypes takes a fresh list of ticket types, for the checkout's choice of
// type; what the seats cost comes from the quote (onQuote).
func (m *Model) onTypes(msg typesMsg) {
	if msg.err != nil {
		m.fail(msg.err)
		return
	}
	m.types = msg.types
	if msg.prices != nil {
		m.prices = msg.prices
	}
}

func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if m.leaving != nil {
		return m.leaveKey(msg)
	}
	if key.Matches(msg, k.Quit) {
		if m.Withdrawn() {
			return m.endCmd() // without asking: nothing may be kept for later
		}
		return m.leave(leaveQuit)
	}
	if m.closing || m.Withdrawn() || m.tooSmall() {
		return nil
	}
	if m.logs.open {
		return m.logKeys(msg)
	}
	if m.msgs.open && m.opts.LogRing != nil && key.Matches(msg, k.LogLines) {
		m.msgs.open = false
		return m.openLogs()
	}
	if m.logKey(msg) {
		return nil
	}
	if m.help.ShowAll {
		if key.Matches(msg, k.Help) || key.Matches(msg, k.Back) {
			m.help.ShowAll = false
		}
		return nil
	}
	if key.Matches(msg, k.Help) && m.helpKeyFree() {
		m.help.ShowAll = true
		return nil
	}
	if m.clerk != nil {
		switch {
		case key.Matches(msg, k.SignOut):
			return m.leave(leaveSignOut)
		case key.Matches(msg, k.Find) && m.mayFind():
			return m.leave(leaveFind)
		case key.Matches(msg, k.Door) && m.screen != screenDoor:
			return m.leave(leaveDoor)
		case key.Matches(msg, k.Called) && len(m.calls) > 0:
			return m.markCalledCmd()
		case key.Matches(msg, k.Audit) && m.screen != screenAudit:
			return m.openAudit()

		case key.Matches(msg, k.Reports) && m.screen != screenReports && m.clerk.role >= booking.MinRole(booking.ActionViewReports):
			return m.leave(leaveReports)
		case key.Matches(msg, k.Shift) && m.screen != screenShift && m.clerk.role >= booking.MinRole(booking.ActionShift):
			return m.openShiftScreen()

		// Manager screens (issue 11).
		case key.Matches(msg, k.Manage) && m.screen != screenManage:
			return m.openManage()
		// kiosk
		case key.Matches(msg, k.Reservations) && m.screen == screenSeatMap && m.seats.holdID != 0 && m.heldCount() > 0:
			return m.openReserveFor()
		case key.Matches(msg, k.Reservations) && m.screen != screenReservations && m.clerk.role >= booking.MinRole(booking.ActionFindBooking):
			return m.openReservations()
		}
	}
	return m.active().keys(m, msg)
}

// helpKeyFree reports whether ? opens the keys: when no text field has
// focus, or the focused one is still empty. Otherwise ? is typed, and the
// hint bar stops offering it (see helpFor).
func (m *Model) helpKeyFree() bool {
	f := m.focusedField()
	return f == nil || f.Empty()
}

// onPaste types pasted text into the focused field, if any.
func (m *Model) onPaste(s string) tea.Cmd {
	if f := m.focusedField(); f != nil {
		f.insert(s)
	}
	return nil
}

// focusedField returns the text field keys go to, or nil.
func (m *Model) focusedField() *field { return m.active().focus(m) }
