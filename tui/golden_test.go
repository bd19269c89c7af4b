package tui

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"boxoffice/assets"
	"boxoffice/booking"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares the view, downsampled to profile as a terminal would
// receive it, with testdata/name.golden.
func golden(t *testing.T, m *Model, name string, profile colorprofile.Profile) {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: profile}
	if _, err := w.WriteString(m.View().Content); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui/ -run Golden -update)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from %s (run with -update if the change is intended)\ngot:\n%s\nwant:\n%s", name, path, buf.Bytes(), want)
	}
}

// TestGolden draws the shows list, a seat map with every seat state and
// the checkout at 80×24 and 120×40, in the Ascii and ANSI256 profiles, on a
// fixed clock.
func TestGolden(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()

	// Another counter sold three seats and holds two more.
	shows, err := s.Shows(ctx, booking.System, dayOf(testStart))
	if err != nil {
		t.Fatal(err)
	}
	var grand booking.Show
	for _, sh := range shows {
		if sh.HallName == "Grand" {
			grand = sh
			break
		}
	}
	h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: grand.ID, Seats: []string{"H9", "H10", "H11"}, Owner: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: "elsewhere", IdempotencyKey: "golden", Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: grand.ID, Seats: []string{"K12", "K13"}, Owner: "elsewhere"}); err != nil {
		t.Fatal(err)
	}

	profiles := []colorprofile.Profile{colorprofile.Ascii, colorprofile.ANSI256}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, hgt := size[0], size[1]
		m := newTestModel(t, s, clock, fmt.Sprintf("golden-%d", w), w, hgt)
		signIn(t, m, assets.DemoUser, assets.DemoPIN)
		m.setInfo("")
		shot := func(screen string) {
			for _, p := range profiles {
				golden(t, m, fmt.Sprintf("%s-%dx%d-%s", screen, w, hgt, p), p)
			}
		}
		shot("shows")

		for m.shows.visible()[m.shows.cursor].ID != grand.ID {
			press(t, m, "down")
		}
		press(t, m, "enter")
		goTo(t, m, "N8-9")
		m.setInfo("")
		shot("seatmap")
		press(t, m, "esc") // leaving with seats held asks first
		shot("seatmap-leaving")
		press(t, m, "n")

		press(t, m, "enter", "shift+tab", "shift+tab", "t")
		press(t, m, "tab", "tab")
		typeText(t, m, "40")
		m.setInfo("")
		shot("checkout")

		// The hold runs out with the checkout open.
		clock.Add(booking.DefaultHoldTTL)
		send(t, m, tickMsg{})
		shot("checkout-lapsed")
		if _, err := s.ReleaseOwner(ctx, m.opts.Owner); err != nil {
			t.Fatal(err)
		}
		clock.Add(-booking.DefaultHoldTTL)
	}
}
