package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// KeyMap is every key the counter answers to, each with its help text.
// Screens that take typed text (the shows filter, names, PINs, amounts)
// read letters as text, so their bindings avoid plain letters.
type KeyMap struct {
	// Everywhere.
	Quit    key.Binding
	Help    key.Binding
	Back    key.Binding
	Find    key.Binding
	Door    key.Binding
	Called  key.Binding
	SignOut key.Binding
	// Messages opens the log of the last messages the status line said
	// (see messages.go): a message too long for its two lines is read
	// whole there.
	Messages key.Binding

	// Sign-in and forms. Submit is enter wherever it sends what was
	// typed: a sign-in, a prompt, a ticket code, a form's next step.
	NextField key.Binding
	PrevField key.Binding
	Submit    key.Binding

	// Editing a text field.
	DeleteChar key.Binding
	ClearField key.Binding
	DeleteWord key.Binding

	// Lists (shows, bookings found).
	Up      key.Binding
	Down    key.Binding
	PrevDay key.Binding
	NextDay key.Binding
	Open    key.Binding
	Filter  key.Binding // help only: typing filters the shows by film

	// Seat map.
	SeatUp    key.Binding
	SeatDown  key.Binding
	SeatLeft  key.Binding
	SeatRight key.Binding
	Toggle    key.Binding
	GoTo      key.Binding
	Waitlist  key.Binding
	WaitList  key.Binding // the show's waiting-list screen
	Count     key.Binding
	Best      key.Binding
	BestN     key.Binding // help only: a party size, then b
	// PartyType is help only: a count and a ticket type's letter ("2a1c")
	// make the party row (seatmap_party.go); its letters follow the
	// ticket types. Wheelchair, on a party row, makes one of it a
	// wheelchair user: best available gives a wheelchair place with a
	// companion seat beside it.
	PartyType  key.Binding
	Wheelchair key.Binding
	// AllowSingle holds seats that would leave a single empty seat all
	// the same, from the map's single-seat banner: an override the store
	// logs with the clerk's name.
	AllowSingle key.Binding
	Clear       key.Binding
	Extend      key.Binding
	Checkout    key.Binding
	TakeOffer   key.Binding
	Dismiss     key.Binding

	// Checkout. PrevType is the one key of CycleType that steps back.
	CycleType key.Binding
	PrevType  key.Binding
	Method    key.Binding
	Confirm   key.Binding
	// PayCard pays by card and goes to Sell in one key (again: cash).
	PayCard key.Binding

	// Done.
	NewSale    key.Binding
	PrevTicket key.Binding
	NextTicket key.Binding

	// Find booking. IntoBooking moves from the search field into the
	// booking a search opened, whose letter keys (e, r, c…) work only
	// from then on; OutOfBooking goes back to the search field.
	IntoBooking   key.Binding
	OutOfBooking  key.Binding
	CancelBooking key.Binding
	// Choose is ← → on a pair of buttons (the refund's No and Yes).
	Choose key.Binding

	// Waiting-list screen.
	RemoveEntry key.Binding

	// Yes/no prompts. Keep goes on with seats still held.
	Yes  key.Binding
	No   key.Binding
	Keep key.Binding

	// Prices. BestPremium is best available with premium seats allowed:
	// b keeps a party out of them unless nothing else fits.
	BestPremium key.Binding

	// audit: the trail, for managers.
	Audit key.Binding
	// LogLines shows the log lines a local counter's log file missed.
	LogLines key.Binding

	// Reports (issue 10): Reports opens them, for managers only;
	// ReportNext and ReportPrev change the report, ReportBy what it adds
	// up by, ReportPeriod how many days.
	Reports      key.Binding
	ReportNext   key.Binding
	ReportPrev   key.Binding
	ReportBy     key.Binding
	ReportPeriod key.Binding
	// ReportExport saves the report on show as a CSV file in the data
	// folder's exports.
	ReportExport key.Binding

	// Shifts and refunds. Shift opens the clerk's own shift from any
	// screen away from the seats; XReport and CloseShift work on it.
	// RefundTicket refunds one ticket of the booking on screen.
	Shift      key.Binding
	XReport    key.Binding
	CloseShift key.Binding
	// NoSale opens the drawer without a sale, with a reason (drawer.go).
	NoSale       key.Binding
	RefundTicket key.Binding

	// Printing (issue 12): print a booking's tickets and receipt again.
	Reprint key.Binding
	// Manager screens (issue 11): Manage opens them, for managers only;
	// the rest are the sections' own keys.
	Manage        key.Binding
	MgrAdd        key.Binding
	MgrEdit       key.Binding
	MgrRetire     key.Binding
	MgrMove       key.Binding
	MgrCancelShow key.Binding
	MgrHall       key.Binding
	MgrWeek       key.Binding
	MgrSetPrice   key.Binding
	MgrTicketType key.Binding
	MgrShowList   key.Binding
	MgrList       key.Binding
	MgrDisable    key.Binding
	MgrRole       key.Binding
	MgrPIN        key.Binding
	MgrUnlock     key.Binding
	MgrRemove     key.Binding
	MgrYes        key.Binding
	// MgrPrinter sets a terminal's printer; MgrSalesClose when a show's
	// sales close (or the cinema's default); MgrReopen reopens a closed
	// shift.
	MgrPrinter    key.Binding
	MgrSalesClose key.Binding
	MgrReopen     key.Binding
	// MgrFind finds a gift card by its number (manage_money.go).
	MgrFind key.Binding
	// The booking view (issue 11): exchange the booking, its tickets'
	// QR codes again, and the view opened from the done screen.
	ExchangeBooking key.Binding
	ShowCodes       key.Binding
	ViewBooking     key.Binding
	// Blocked and house seats (issue 11), on the seat map, for the seat
	// under the cursor or the seats held: BlockSeat blocks them for this
	// show (or unblocks them), BlockHall for every show of the hall from
	// now on, HouseSeat holds them back as house seats (managers);
	// ReleaseHouse releases house seats into sale (supervisors).
	BlockSeat    key.Binding
	BlockHall    key.Binding
	HouseSeat    key.Binding
	ReleaseHouse key.Binding
	// kiosk: Reservations opens the counter's reservations screen, where
	// ResvPay takes payment for the one chosen by ResvMethod's method.
	Reservations key.Binding
	ResvPay      key.Binding
	ResvMethod   key.Binding
	// Items opens the items screen from the shows (items.go).
	Items key.Binding
	// Account finds or opens the customer account of a sale, from the
	// checkout; on the customer screen's search, a new account
	// (customer.go).
	Account key.Binding
	// SaleItems jumps, on the checkout, to the items sold with the
	// tickets (checkout.go).
	SaleItems key.Binding
	// GiftCards opens the gift-card screen from the shows (giftcard.go).
	GiftCards key.Binding
	// CardPart asks, on the checkout, for a part paid by card; the rest
	// is cash (checkout_split.go).
	CardPart key.Binding
}

// DefaultKeyMap returns the counter's keys.
func DefaultKeyMap() KeyMap {
	b := key.NewBinding
	k, h := key.WithKeys, key.WithHelp
	km := KeyMap{
		Quit:     b(k("ctrl+c"), h("ctrl+c", "quit")),
		Help:     b(k("?"), h("?", "keys")),
		Back:     b(k("esc"), h("esc", "back")),
		Find:     b(k("ctrl+f"), h("ctrl+f", "find booking")),
		Door:     b(k("ctrl+d"), h("ctrl+d", "door: admit tickets")),
		Called:   b(k("ctrl+k"), h("ctrl+k", "waiting-list customer called")),
		SignOut:  b(k("ctrl+o"), h("ctrl+o", "sign out/switch clerk")),
		Messages: b(k("ctrl+l"), h("ctrl+l", "messages")),

		NextField: b(k("tab", "down"), h("tab", "next field")),
		PrevField: b(k("shift+tab", "up"), h("shift+tab/↑", "previous field")),
		Submit:    b(k("enter"), h("enter", "sign in")),

		DeleteChar: b(k("backspace", "ctrl+h"), h("backspace", "delete")),
		ClearField: b(k("ctrl+u"), h("ctrl+u", "clear the field")),
		DeleteWord: b(k("ctrl+w"), h("ctrl+w", "delete a word")),

		Up:      b(k("up"), h("↑", "up")),
		Down:    b(k("down"), h("↓", "down")),
		PrevDay: b(k("left"), h("←", "previous day")),
		NextDay: b(k("right"), h("→", "next day")),
		Open:    b(k("enter"), h("enter", "open")),
		Filter:  hint("type", "filter by film"),

		SeatUp:      b(k("up", "k"), h("↑/k", "up")),
		SeatDown:    b(k("down", "j"), h("↓/j", "down")),
		SeatLeft:    b(k("left", "h"), h("←/h", "left")),
		SeatRight:   b(k("right", "l"), h("→/l", "right")),
		Toggle:      b(k("space"), h("space", "hold/release")),
		GoTo:        b(k("/"), h("/", "go to G7 or G7-9")),
		Waitlist:    b(k("w"), h("w", "add to waiting list")),
		WaitList:    b(k("W"), h("W", "waiting-list screen")),
		Count:       b(k("1", "2", "3", "4", "5", "6", "7", "8", "9", "0"), h("0-9", "party size")),
		Best:        b(k("b"), h("b", "best seats")),
		BestN:       hint("4b", "best 4"),
		PartyType:   hint("2a1c", "party: 2 adult 1 child"),
		Wheelchair:  b(k("w"), h("w", "wheelchair user + companion")),
		AllowSingle: b(k("y"), h("y", "hold anyway (logged)")),
		Clear:       b(k("x"), h("x", "release all")),
		Extend:      b(k("+"), h("+", "extend hold")),
		Checkout:    b(k("enter"), h("enter", "checkout")),
		TakeOffer:   b(k("enter"), h("enter", "take offer")),
		Dismiss:     b(k("esc"), h("esc", "choose again")),

		CycleType: b(k("t", "space", "left", "right"), h("t", "ticket type")),
		PrevType:  b(k("left"), h("←", "previous ticket type")),
		Method:    b(k("space", "left", "right"), h("space", "cash/card")),
		Confirm:   b(k("enter"), h("enter", "next field; on Sell, sell")),
		PayCard:   b(k("c"), h("c", "card, to Sell")),

		NewSale:    b(k("enter", "n"), h("enter", "next sale")),
		PrevTicket: b(k("left"), h("←", "previous tickets")),
		NextTicket: b(k("right"), h("→", "more tickets")),

		IntoBooking:   b(k("tab", "down"), h("tab", "work on this booking")),
		OutOfBooking:  b(k("up", "shift+tab"), h("↑", "search again")),
		CancelBooking: b(k("c"), h("c", "cancel/refund")),
		Choose:        b(k("left", "right", "tab", "shift+tab"), h("←/→", "choose")),

		RemoveEntry: b(k("d", "delete"), h("d", "remove from the list")),

		Yes:  b(k("y"), h("y", "yes, release")),
		No:   b(k("n", "esc", "enter"), h("n/enter", "no, keep them")),
		Keep: b(k("k"), h("k", "keep them and go")),

		BestPremium: b(k("p"), h("p", "best incl. premium")),

		Audit: b(k("ctrl+e"), h("ctrl+e", "audit trail (managers)")),

		LogLines: logLinesKey, // a local counter's missed log lines (logring.go)
	}
	return withReservationKeys(withBlockKeys(withBookingView(managerKeys(moneyKeys(besideSeatsKeys(km))))))
}

// besideSeatsKeys adds the keys of what a counter sells beside seats:
// items, gift cards, and the customer account a sale is for.
func besideSeatsKeys(km KeyMap) KeyMap {
	b := key.NewBinding
	k, h := key.WithKeys, key.WithHelp
	km.Items = b(k("ctrl+n"), h("ctrl+n", "items: snacks and drinks"))
	km.Account = b(k("ctrl+a"), h("ctrl+a", "customer account"))
	km.SaleItems = b(k("i"), h("i", "add items to the sale"))
	km.GiftCards = b(k("ctrl+b"), h("ctrl+b", "gift cards: sell, balance"))
	km.CardPart = b(k("ctrl+s"), h("ctrl+s", "card part, the rest cash"))
	return km
}

// moneyKeys adds the keys of the money screens: reports, shifts, refunds
// and printing (issues 10 and 12).
func moneyKeys(km KeyMap) KeyMap {
	b := key.NewBinding
	k, h := key.WithKeys, key.WithHelp
	// Reports (issue 10).
	km.Reports = b(k("ctrl+r"), h("ctrl+r", "reports (managers)"))
	km.ReportNext = b(k("tab"), h("tab", "next report"))
	km.ReportPrev = b(k("shift+tab"), h("shift+tab", "previous report"))
	km.ReportBy = b(k("b"), h("b", "add up by"))
	km.ReportPeriod = b(k("p"), h("p", "day/week/month/year"))
	km.ReportExport = b(k("e"), h("e", "export CSV"))
	km.Shift = b(k("ctrl+t"), h("ctrl+t", "my shift"))
	km.XReport = b(k("x"), h("x", "X report"))
	km.CloseShift = b(k("c"), h("c", "close: blind count"))
	km.NoSale = b(k("n"), h("n", "no sale"))
	km.RefundTicket = b(k("r"), h("r", "refund one ticket"))
	km.Reprint = b(k("p"), h("p", "print tickets again")) // printing (issue 12)
	return km
}

// managerKeys adds the manager screens' keys (issue 11).
func managerKeys(km KeyMap) KeyMap {
	b := key.NewBinding
	k, h := key.WithKeys, key.WithHelp
	km.Manage = b(k("ctrl+g"), h("ctrl+g", "manager screens (managers)"))
	km.MgrAdd = b(k("a"), h("a", "add"))
	km.MgrEdit = b(k("e"), h("e", "edit"))
	km.MgrRetire = b(k("r"), h("r", "retire"))
	km.MgrMove = b(k("m"), h("m", "move show"))
	km.MgrCancelShow = b(k("c"), h("c", "cancel show"))
	km.MgrHall = b(k("tab", "shift+tab"), h("tab", "next hall"))
	km.MgrWeek = b(k("[", "]"), h("[/]", "week before/after"))
	km.MgrSetPrice = b(k("s"), h("s", "set a price"))
	km.MgrTicketType = b(k("t"), h("t", "ticket type"))
	km.MgrShowList = b(k("l"), h("l", "show on a list"))
	km.MgrList = b(k("tab", "shift+tab"), h("tab", "next price list"))
	km.MgrDisable = b(k("d"), h("d", "disable/enable"))
	km.MgrRole = b(k("r"), h("r", "role"))
	km.MgrPIN = b(k("p"), h("p", "reset PIN"))
	km.MgrUnlock = b(k("u"), h("u", "unlock"))
	km.MgrRemove = b(k("x"), h("x", "remove"))
	km.MgrYes = b(k("y"), h("y", "yes"))
	km.MgrPrinter = b(k("p"), h("p", "printer"))
	km.MgrSalesClose = b(k("s"), h("s", "sales close"))
	km.MgrReopen = b(k("o"), h("o", "reopen"))
	km.MgrFind = b(k("f"), h("f", "find by number"))
	return km
}

// withReservationKeys adds the counter's reservation keys (issue 13).
func withReservationKeys(km KeyMap) KeyMap {
	km.Reservations, km.ResvPay, km.ResvMethod = reservationsKey, resvPayKey, resvMethodKey
	return km
}

// withBookingView adds the booking view's keys (issue 11) to km.
func withBookingView(km KeyMap) KeyMap {
	b := key.NewBinding
	k, h := key.WithKeys, key.WithHelp
	km.ExchangeBooking = b(k("e"), h("e", "exchange"))
	km.ShowCodes = b(k("t"), h("t", "QR codes again"))
	km.ViewBooking = b(k("v"), h("v", "view the booking"))
	return km
}

// hint is a binding shown in the help only; its key is handled by the
// screen itself (digits, typed text). A binding without keys is treated as
// disabled by bubbles/help, so it gets one no terminal can send.
func hint(keys, desc string) key.Binding {
	return key.NewBinding(key.WithKeys("\x00"+keys), key.WithHelp(keys, desc))
}

// helpKeys is the help for one screen: a short line and the full table.
type helpKeys struct {
	short []key.Binding
	full  [][]key.Binding
}

func (h helpKeys) ShortHelp() []key.Binding  { return h.short }
func (h helpKeys) FullHelp() [][]key.Binding { return h.full }

// helpFor returns the keys the session answers to now: the question on
// the way out, else the active screen's. While ? would be typed into a
// field, the hint bar does not offer it.
func (m *Model) helpFor() helpKeys {
	var h helpKeys
	if m.leaving != nil {
		h = m.leaveHelp()
	} else {
		h = m.active().help(m)
	}
	if !m.helpKeyFree() {
		short := make([]key.Binding, 0, len(h.short))
		for _, b := range h.short {
			if b.Help().Key != m.keys.Help.Help().Key {
				short = append(short, b)
			}
		}
		h.short = short
	}
	if m.clerk != nil && !m.mayFind() {
		h = h.without(m.keys.Find)
	}
	return h
}

// hintBar is the line of keys under every screen: the screen's own keys
// first, in the order it gives them, then the keys every screen answers
// to (the ctrl+ chords), then ? last, which lists them all. Each is drawn
// whole or not at all: what does not fit the width is left out rather
// than cut, and ? stays whenever it is offered, so nothing is out of
// reach.
func (m *Model) hintBar(bindings []key.Binding) string {
	st := m.help.Styles
	sep := st.ShortSeparator.Inline(true).Render(m.help.ShortSeparator)
	sepW := ansi.StringWidth(sep)
	item := func(b key.Binding) string {
		h := b.Help()
		return st.ShortKey.Inline(true).Render(h.Key) + " " + st.ShortDesc.Inline(true).Render(h.Desc)
	}
	var own, global []key.Binding
	var help *key.Binding
	for i, b := range bindings {
		switch k := b.Help().Key; {
		case !b.Enabled():
		case k == m.keys.Help.Help().Key:
			help = &bindings[i]
		case strings.HasPrefix(k, "ctrl+"):
			global = append(global, b)
		default:
			own = append(own, b)
		}
	}
	room := m.width
	last := ""
	if help != nil {
		last = item(*help)
		room -= ansi.StringWidth(last) + sepW
	}
	var out []string
	used := 0
	for _, b := range append(own, global...) {
		s := item(b)
		w := ansi.StringWidth(s)
		if len(out) > 0 {
			w += sepW
		}
		if used+w > room {
			break // the rest matter less than what is shown
		}
		out = append(out, s)
		used += w
	}
	if last != "" {
		out = append(out, last)
	}
	return strings.Join(out, sep)
}

// forManagers adds to a screen's ? overlay the keys only a manager is
// offered: the audit trail, the reports and the manager screens.
func (m *Model) forManagers(full [][]key.Binding) [][]key.Binding {
	if !m.isManager() {
		return full
	}
	return append(full, []key.Binding{m.keys.Audit, m.keys.Reports, m.keys.Manage})
}

// global is the ? overlay's column of the keys every signed-in screen
// answers to.
func (k *KeyMap) global() []key.Binding {
	return []key.Binding{k.Back, k.Find, k.Door, k.Called, k.SignOut, k.Shift, k.Reservations, k.Messages, k.Help, k.Quit}
}

// says is b as the hint bar shows it in one state: the same keys, and what
// they do there ("enter sell", "esc back to the map").
func says(b key.Binding, desc string) key.Binding {
	return relabel(b, b.Help().Key, desc)
}

// relabel is b with other help text, for a state where only some of its
// keys are worth offering ("n stay" for n, esc and enter).
func relabel(b key.Binding, keys, desc string) key.Binding {
	b.SetHelp(keys, desc)
	return b
}

// digit is the number a key of Count stands for.
func digit(msg tea.KeyPressMsg) int {
	s := msg.String()
	if len(s) != 1 || !isDigit(rune(s[0])) {
		return 0
	}
	return int(s[0] - '0')
}
