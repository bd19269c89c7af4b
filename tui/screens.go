package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// screen is which screen the session shows: an index into screens.
type screen int

const (
	screenSignIn screen = iota
	screenShows
	screenSeatMap
	screenCheckout
	screenDone
	screenFind
	screenDoor
	screenWaitlist

	// audit
	screenAudit

	screenReports // managers' reports (issue 10)

	screenShift

	screenManage   // manager screens (issue 11)
	screenExchange // an exchange's confirmation (issue 11)
	// kiosk: reservations at the counter (issue 13)
	screenReservations
	screenItems // concessions: items sold alone, and a manager's changes
	// customer accounts: found or opened from the checkout (customer.go)
	screenCustomer
	screenGiftCard // gift cards sold and read (giftcard.go)
	numScreens
)

// screenView is the contract every screen keeps. The Model owns each
// screen's state (one struct per screen) and what all screens share: the
// keys that work everywhere, the question on the way out with seats
// held, the title bar, the status and the hint bar. A screen answers the
// rest of the keys, draws its body, names the bindings it answers to and
// the text field that has focus.
//
// Like every Update, keys may change the model and returns the commands
// that do the I/O; view and help only read it.
type screenView interface {
	// keys handles a key press the keys of every screen did not take.
	keys(m *Model, msg tea.KeyPressMsg) tea.Cmd
	// view draws the body: at most height lines of at most m.width cells.
	view(m *Model, height int) string
	// help is the screen's bindings in its current state: the hint bar
	// and the ? overlay both come from it.
	help(m *Model) helpKeys
	// focus is the text field typed keys and pastes go to, or nil when
	// letters are keys.
	focus(m *Model) *field
}

// A screen may do more than the contract asks through these.
type (
	// reloader is a screen that shows more than the seats held, and reads
	// it again when a commit changes show c (0: anything, prices too).
	reloader interface {
		changed(m *Model, c booking.ShowChanged) tea.Cmd
	}
	// clicker is a screen that answers a mouse click.
	clicker interface {
		click(m *Model, ms tea.Mouse) tea.Cmd
	}
	// returner is a screen that find or the door, opened from it, come
	// back to; a screen that is not goes back to the shows.
	returner interface {
		back(m *Model) screen
	}
)

// heldUse is how a screen treats the seats this session holds.
type heldUse int

const (
	// heldAway: the seats wait while the clerk works here; the title bar
	// shows them and their countdown.
	heldAway heldUse = iota
	// heldBeside: the clerk works beside the seats (the waiting list of
	// their show): every way out asks first, as on the map.
	heldBeside
	// heldOnMap: the screen works on the seats themselves and draws them
	// and their countdown (the seat map, the checkout); a change to their
	// show reloads the map.
	heldOnMap
)

// screenSpec is one row of the screens table.
type screenSpec struct {
	name string
	held heldUse
	ui   screenView
}

// screens is every screen, indexed by the screen enum.
var screens = [numScreens]screenSpec{
	screenSignIn:   {"sign-in", heldAway, signInScreen{}},
	screenShows:    {"shows", heldAway, showsScreen{}},
	screenSeatMap:  {"seat map", heldOnMap, seatMapScreen{}},
	screenCheckout: {"checkout", heldOnMap, checkoutScreen{}},
	screenDone:     {"done", heldAway, doneScreen{}},
	screenFind:     {"find booking", heldAway, findScreen{}},
	screenDoor:     {"door", heldAway, doorScreen{}},
	screenWaitlist: {"waiting list", heldBeside, waitlistScreen{}},

	// audit
	screenAudit: {"audit trail", heldAway, auditScreen{}},

	// Reports (issue 10).
	screenReports: {"reports", heldAway, reportsScreen{}},

	screenShift: {"my shift", heldAway, shiftScreen{}},

	// Manager screens (issue 11).
	screenManage: {"manager", heldAway, manageScreen{}},
	// Exchanges (issue 11): it works on the seats held for the exchange.
	screenExchange: {"exchange", heldOnMap, exchangeScreen{}},
	// kiosk
	screenReservations: {"reservations", heldAway, reservationsScreen{}},
	screenItems:        {"items", heldAway, itemsScreen{}},
	screenCustomer:     {"customer", heldAway, customerScreen{}},
	screenGiftCard:     {"gift cards", heldAway, giftCardScreen{}},
}

func (s screen) String() string {
	if s >= 0 && s < numScreens {
		return screens[s].name
	}
	return fmt.Sprintf("screen(%d)", int(s))
}

// spec is the screen's row of the table.
func (s screen) spec() screenSpec { return screens[s] }

// active is the screen on show.
func (m *Model) active() screenView { return m.screen.spec().ui }

// returnScreen is where esc from find or the door goes back to, opened
// from the screen on show: the seats the clerk was working on when they
// are still held, else the shows.
func (m *Model) returnScreen() screen {
	if r, ok := m.active().(returner); ok {
		return r.back(m)
	}
	return screenShows
}
