package tui

import "charm.land/bubbles/v2/key"

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

	// Yes/no prompts.
	Yes key.Binding
	No  key.Binding
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
		Waitlist:  b(k("w"), h("w", "waiting list")),
		Count:     b(k("1", "2", "3", "4", "5", "6", "7", "8", "9"), h("1-9", "party size")),
		Best:      b(k("b"), h("b", "best seats")),
		Clear:     b(k("x"), h("x", "release all")),
		Extend:    b(k("+"), h("+", "extend hold")),
		Checkout:  b(k("enter"), h("enter", "checkout")),
		TakeOffer: b(k("enter"), h("enter", "take offer")),
		Dismiss:   b(k("esc"), h("esc", "choose again")),

		CycleType: b(k("t", "space", "left", "right"), h("t", "ticket type")),
		Method:    b(k("space", "left", "right"), h("space", "cash/card")),
		Confirm:   b(k("enter"), h("enter", "sell")),

		NewSale:    b(k("enter", "n"), h("enter", "next sale")),
		PrevTicket: b(k("left"), h("←", "previous tickets")),
		NextTicket: b(k("right"), h("→", "more tickets")),

		CancelBooking: b(k("c"), h("c", "cancel/refund")),

		Yes: b(k("y", "enter"), h("y", "yes")),
		No:  b(k("n", "esc"), h("n", "no")),
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

// helpFor returns the keys the current screen answers to.
func (m *Model) helpFor() helpKeys {
	k := m.keys
	global := []key.Binding{k.Back, k.Find, k.Door, k.Called, k.SignOut, k.Help, k.Quit}
	switch {
	case m.quitting:
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
		return helpKeys{
			short: []key.Binding{k.Toggle, hint("1-9 b", "best N"), k.GoTo, k.Checkout, k.Help},
			full: [][]key.Binding{
				{k.SeatUp, k.SeatDown, k.SeatLeft, k.SeatRight},
				{k.Toggle, k.GoTo, k.Count, k.Best},
				{k.Clear, k.Extend, k.Waitlist, k.Checkout},
				global,
			},
		}
	case m.screen == screenCheckout:
		return helpKeys{
			short: []key.Binding{k.Confirm, k.CycleType, k.NextField, k.Back, k.Help},
			full: [][]key.Binding{
				{k.NextField, k.PrevField},
				{k.CycleType, k.Method, k.Confirm},
				global,
			},
		}
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
