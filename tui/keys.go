package tui

import (
	"charm.land/bubbles/v2/key"

	"boxoffice/booking"
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

	// Sign-in and forms.
	NextField key.Binding
	PrevField key.Binding
	Submit    key.Binding

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
	Clear     key.Binding
	Extend    key.Binding
	Checkout  key.Binding
	TakeOffer key.Binding
	Dismiss   key.Binding

	// Checkout.
	CycleType key.Binding
	Method    key.Binding
	Confirm   key.Binding

	// Done.
	NewSale    key.Binding
	PrevTicket key.Binding
	NextTicket key.Binding

	// Find booking.
	CancelBooking key.Binding
	// Choose is ← → on a pair of buttons (the refund's No and Yes).
	Choose key.Binding

	// Waiting-list screen.
	RemoveEntry key.Binding

	// Yes/no prompts. Keep goes on with seats still held.
	Yes  key.Binding
	No   key.Binding
	Keep key.Binding
}

// DefaultKeyMap returns the counter's keys.
func DefaultKeyMap() KeyMap {
	b := key.NewBinding
	k, h := key.WithKeys, key.WithHelp
	return KeyMap{
		Quit:    b(k("ctrl+c"), h("ctrl+c", "quit")),
		Help:    b(k("?"), h("?", "keys")),
		Back:    b(k("esc"), h("esc", "back")),
		Find:    b(k("ctrl+f"), h("ctrl+f", "find booking")),
		Door:    b(k("ctrl+d"), h("ctrl+d", "door: admit tickets")),
		Called:  b(k("ctrl+k"), h("ctrl+k", "waiting-list customer called")),
		SignOut: b(k("ctrl+o"), h("ctrl+o", "sign out/switch clerk")),

		NextField: b(k("tab", "down"), h("tab", "next field")),
		PrevField: b(k("shift+tab", "up"), h("shift+tab/↑", "previous field")),
		Submit:    b(k("enter"), h("enter", "sign in")),

		Up:      b(k("up"), h("↑", "up")),
		Down:    b(k("down"), h("↓", "down")),
		PrevDay: b(k("left"), h("←", "previous day")),
		NextDay: b(k("right"), h("→", "next day")),
		Open:    b(k("enter"), h("enter", "open")),
		Filter:  hint("type", "filter by film"),

		SeatUp:    b(k("up", "k"), h("↑/k", "up")),
		SeatDown:  b(k("down", "j"), h("↓/j", "down")),
		SeatLeft:  b(k("left", "h"), h("←/h", "left")),
		SeatRight: b(k("right", "l"), h("→/l", "right")),
		Toggle:    b(k("space"), h("space", "hold/release")),
		GoTo:      b(k("/"), h("/", "go to G7 or G7-9")),
		Waitlist:  b(k("w"), h("w", "add to waiting list")),
		WaitList:  b(k("W"), h("W", "waiting-list screen")),
		Count:     b(k("1", "2", "3", "4", "5", "6", "7", "8", "9"), h("1-9", "party size")),
		Best:      b(k("b"), h("b", "best seats")),
		Clear:     b(k("x"), h("x", "release all")),
		Extend:    b(k("+"), h("+", "extend hold")),
		Checkout:  b(k("enter"), h("enter", "checkout")),
		TakeOffer: b(k("enter"), h("enter", "take offer")),
		Dismiss:   b(k("esc"), h("esc", "choose again")),

		CycleType: b(k("t", "space", "left", "right"), h("t", "ticket type")),
		Method:    b(k("space", "left", "right"), h("space", "cash/card")),
		Confirm:   b(k("enter"), h("enter", "next field; on Sell, sell")),

		NewSale:    b(k("enter", "n"), h("enter", "next sale")),
		PrevTicket: b(k("left"), h("←", "previous tickets")),
		NextTicket: b(k("right"), h("→", "more tickets")),

		CancelBooking: b(k("c"), h("c", "cancel/refund")),
		Choose:        b(k("left", "right", "tab", "shift+tab"), h("←/→", "choose")),

		RemoveEntry: b(k("d", "delete"), h("d", "remove from the list")),

		Yes:  b(k("y"), h("y", "yes, release")),
		No:   b(k("n", "esc", "enter"), h("n/enter", "no, keep them")),
		Keep: b(k("k"), h("k", "keep them and go")),
	}
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

// helpFor returns the keys the current screen answers to. While ? would
// be typed into a field, the hint bar does not offer it.
func (m *Model) helpFor() helpKeys {
	h := m.screenHelp()
	if !m.helpKeyFree() {
		short := make([]key.Binding, 0, len(h.short))
		for _, b := range h.short {
			if b.Help().Key != m.keys.Help.Help().Key {
				short = append(short, b)
			}
		}
		h.short = short
	}
	return h
}

func (m *Model) screenHelp() helpKeys {
	k := m.keys
	global := []key.Binding{k.Back, k.Find, k.Door, k.Called, k.SignOut, k.Help, k.Quit}
	switch {
	case m.leaving != nil && m.leaving.action.canKeep():
		return helpKeys{short: []key.Binding{k.Keep, k.Yes, hint("n", "stay")}}
	case m.leaving != nil:
		return helpKeys{short: []key.Binding{k.Yes, k.No}}
	case m.screen == screenSignIn:
		return helpKeys{
			short: []key.Binding{k.Submit, k.NextField, k.Quit},
			full:  [][]key.Binding{{k.Submit, k.NextField, k.PrevField}, {k.Help, k.Quit}},
		}
	case m.screen == screenShows:
		return helpKeys{
			short: []key.Binding{k.Open, k.PrevDay, k.NextDay, k.Filter, k.Find, k.Help},
			full:  [][]key.Binding{{k.Up, k.Down, k.Open}, {k.PrevDay, k.NextDay, k.Filter}, global},
		}
	case m.screen == screenSeatMap && m.seats.clash != nil:
		return helpKeys{
			short: []key.Binding{k.TakeOffer, k.Dismiss, k.Help},
			full:  [][]key.Binding{{k.TakeOffer, k.Dismiss}, global},
		}
	case m.screen == screenSeatMap && m.seats.waitPrompt:
		return helpKeys{short: []key.Binding{
			hint("enter", "add to the waiting list"),
			hint("esc", "cancel"),
		}}
	case m.screen == screenSeatMap && m.seats.prompt:
		return helpKeys{short: []key.Binding{
			hint("enter", "toggle seats"),
			hint("esc", "cancel"),
		}}
	case m.screen == screenSeatMap:
		enter := k.Checkout
		if m.seats.showLapsed() {
			enter = hint("enter", "hold them again")
		}
		return helpKeys{
			short: []key.Binding{k.Toggle, hint("1-9 b", "best N"), k.GoTo, enter, k.Help},
			full: [][]key.Binding{
				{k.SeatUp, k.SeatDown, k.SeatLeft, k.SeatRight},
				{k.Toggle, k.GoTo, k.Count, k.Best},
				{k.Clear, k.Extend, k.Waitlist, k.WaitList, k.Checkout},
				global,
			},
		}
	case m.screen == screenCheckout:
		c := &m.checkout
		enter := hint("enter", "next")
		switch rel := c.focus - len(c.seats); {
		case c.lapsed:
			enter = hint("enter", "hold the seats again")
		case rel == focusSell:
			enter = hint("enter", "sell")
		case rel == focusTendered, rel == focusMethod && c.method == booking.Card:
			enter = hint("enter", "to Sell")
		}
		return helpKeys{
			short: []key.Binding{enter, k.CycleType, k.NextField, k.Extend, k.Back, k.Help},
			full: [][]key.Binding{
				{k.NextField, k.PrevField},
				{k.CycleType, k.Method, k.Confirm, k.Extend},
				global,
			},
		}
	case m.screen == screenWaitlist:
		return m.waitlistHelp()
	case m.screen == screenDone:
		return helpKeys{
			short: []key.Binding{k.NewSale, k.PrevTicket, k.NextTicket, k.Find, k.Help},
			full:  [][]key.Binding{{k.NewSale, k.PrevTicket, k.NextTicket}, global},
		}
	case m.screen == screenFind:
		return m.findHelp()
	case m.screen == screenDoor:
		return m.doorHelp()
	}
	return helpKeys{short: global}
}
