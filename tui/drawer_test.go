package tui

import (
	"testing"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/escpos/escpostest"
	"boxoffice/paper"
)

// TestModel_CashSaleOpensDrawer is the drawer's must-show: a cash sale
// printed on an ESC/POS printer whose counter has a drawer opens it (ESC
// p, read back by the test parser) before the receipt; a card sale
// prints the same without the pulse.
func TestModel_CashSaleOpensDrawer(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	pr := escpostest.NewPrinter(t)
	p, err := booking.ParsePrinter(pr.URL())
	if err != nil {
		t.Fatal(err)
	}
	m := newPrintModel(t, s, clock, "drawer", Options{Printer: p, PrintTimeout: 5 * time.Second, Layout: paper.Layout{Drawer: true}})
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	sale := func(keys ...string) []escpostest.Cmd {
		t.Helper()
		openGrand(t, m)
		press(t, m, keys...)
		if m.screen != screenDone {
			t.Fatalf("sale: screen %v status %q", m.screen, m.status)
		}
		run(t, m, takeParked(t, m, parkPrint))
		cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		press(t, m, "esc") // back to the shows
		return cmds
	}
	cash := sale("2", "b", "enter", "enter", "enter") // exact cash
	if n := escpostest.Count(cash, "drawer"); n != 1 || escpostest.Count(cash, "qr-print") != 2 {
		t.Fatalf("a cash sale: %d drawer pulses, %d tickets; want 1 and 2", n, escpostest.Count(cash, "qr-print"))
	}
	card := sale("2", "b", "enter", "c", "enter") // card, to Sell
	if n := escpostest.Count(card, "drawer"); n != 0 || escpostest.Count(card, "qr-print") != 2 {
		t.Fatalf("a card sale: %d drawer pulses, %d tickets; want 0 and 2", n, escpostest.Count(card, "qr-print"))
	}
}
