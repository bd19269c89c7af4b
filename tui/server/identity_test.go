package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/tui/server"
)

// Who a session is, as the server knows it — the registered terminal its
// key belongs to and the address it connected from — reaches the store
// from the real session on every kind of call that names someone: a
// failed PIN is logged with the terminal and this connection's address, a
// sale records the terminal, a failed approval of a cancel is logged with
// both, and once the terminal is removed the store refuses the next write,
// which closes the session at once and releases its seats rather than
// keeping them for a reconnect.
func TestServer_SessionIdentity(t *testing.T) {
	t.Parallel()
	// No access polling: only the store can tell the terminal is gone.
	e := newEnv(t, func(c *server.Config) { c.AccessCheck = -1 })
	c := e.mustDial(e.terminalKey("till-3"))
	addr := "addr=" + c.conn.LocalAddr().String() + " " // the server's view of this connection
	c.waitText("Sign in at this counter")
	c.send("carl\t0000\r")
	c.waitText("Wrong name or PIN.")
	if !waitLog(e, "sign-in failed", "name=carl", "terminal=till-3", addr) {
		t.Errorf("the failed PIN was not logged with the terminal and %s:\n%s", addr, e.logs.String())
	}

	c.send("1234\r") // the name stays; the PIN has the focus
	c.waitText("carl (clerk)")
	c.openFirstShow()
	c.goTo("D4")
	c.send("\r")
	c.waitText("Holding 1: D4")
	number := c.sell()
	b, err := e.store.Booking(context.Background(), booking.System, number)
	if err != nil {
		t.Fatal(err)
	}
	if b.Terminal != "till-3" || b.SoldBy != "carl" {
		t.Errorf("sale recorded at %q by %q, want till-3 and carl", b.Terminal, b.SoldBy)
	}

	c.send("\r") // the next sale
	c.openFirstShow()
	c.goTo("E5")
	c.send("\r")
	c.waitText("Holding 1: E5")
	c.send("\x06") // ctrl+f, keeping the seat
	c.waitText("k keep them")
	c.send("k")
	c.waitText("Find a booking")
	c.send(number + "\r")
	c.waitText("tab work on this booking")
	c.send("\t") // into the booking: its letters are keys now
	c.waitText("c cancel/refund")
	c.send("c")
	c.waitText("A supervisor approves")
	c.send("changed plans\r")
	c.send("sue\r")
	c.send("9999\r")
	c.send("\x1b[C\r") // the confirmation: → Yes, enter
	c.waitText("Wrong name or PIN.")
	if !waitLog(e, "approval failed", "name=sue", "terminal=till-3", addr) {
		t.Errorf("the failed approval was not logged with the terminal and %s:\n%s", addr, e.logs.String())
	}

	if err := e.store.RemoveTerminal(context.Background(), booking.System, "till-3"); err != nil {
		t.Fatal(err)
	}
	removed := time.Now()
	c.send("1234\r")
	c.send("\x1b[C\r") // the cancel, now refused: the terminal is gone
	c.waitText("access was withdrawn")
	c.waitClosed(t, removed, 5*time.Second)
	if !waitHeld(t, e, 0, 5*time.Second) {
		t.Errorf("%d seats still held after the withdrawn session closed", heldSeats(t, e))
	}
	if !waitLog(e, "session withdrawn", "terminal=till-3", `reason="a write was refused"`) {
		t.Errorf("the withdrawal was not logged:\n%s", e.logs.String())
	}
	if got := bookingStatus(t, e, number); got != booking.BookingConfirmed {
		t.Errorf("a removed terminal's session cancelled the booking: %s", got)
	}
	if !strings.Contains(c.scr.Text(), "withdrawn") {
		t.Errorf("the session did not say why it closed:\n%s", c.scr.Text())
	}
}
