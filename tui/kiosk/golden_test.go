package kiosk

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
)

var update = flag.Bool("update", false, "rewrite the golden files under ../testdata/")

var (
	// goldenNumber is the random part of a booking number; goldenQR a
	// run of a QR code's half blocks, which follow from the number.
	goldenNumber = regexp.MustCompile(`BO-[2-9A-Z]{8}`)
	goldenQR     = regexp.MustCompile(`[█▀▄][█▀▄ ]*[█▀▄]`)
)

// kioskGolden compares the kiosk's screen, unstyled, with the counter's
// goldens in tui/testdata: every line within the window, the booking
// number and the QR code's modules (random) masked.
func kioskGolden(t *testing.T, m *Model, name string) {
	t.Helper()
	screen := ansi.Strip(m.Render())
	lines := strings.Split(screen, "\n")
	if len(lines) > m.height {
		t.Errorf("%s: %d lines in a %d-line window", name, len(lines), m.height)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > m.width || strings.HasSuffix(strings.TrimRight(l, " "), "…") {
			t.Errorf("%s: line %d is cut or too wide: %q", name, i+1, l)
		}
	}
	got := goldenNumber.ReplaceAllString(screen, "BO-NUMBER01")
	got = goldenQR.ReplaceAllStringFunc(got, func(s string) string { return strings.Repeat("▓", len([]rune(s))) })
	path := filepath.Join("..", "testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui/kiosk -run Golden -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run with -update if the change is intended)\ngot:\n%s\nwant:\n%s", name, path, got, want)
	}
}

// TestKiosk_Golden80x24 walks a customer through the Grand at 80×24:
// the films of a day (→ the next day, ← back), the count with what it
// costs from, the whole hall with its premium seats marked, the total of
// the seats held, and the reservation with its total; no screen cuts its
// key line or the hall's last rows.
func TestKiosk_Golden80x24(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t, newClock())
	m := newTestKiosk(s, "kiosk-golden")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	kioskPress(t, m, "enter")
	if m.screen != kFilms || m.day != 0 {
		t.Fatalf("films: screen %d\n%s", m.screen, m.Render())
	}
	kioskPress(t, m, "right")
	if m.day != 1 || !strings.Contains(m.Render(), "tomorrow") {
		t.Fatalf("→ did not go to tomorrow: day %d, %q\n%s", m.day, m.note, m.Render())
	}
	kioskGolden(t, m, "kiosk-films-tomorrow-80x24")
	kioskPress(t, m, "left")
	if m.day != 0 {
		t.Fatalf("← did not come back to today: day %d", m.day)
	}
	grandFilm, grandShow := -1, -1
	for i, f := range m.films {
		for j, sh := range f.shows {
			if sh.HallName == "Grand" && grandFilm < 0 {
				grandFilm, grandShow = i, j
			}
		}
	}
	if grandFilm < 0 {
		t.Fatal("no Grand show on sale today")
	}
	for range grandFilm {
		kioskPress(t, m, "down")
	}
	kioskPress(t, m, "enter")
	for range grandShow {
		kioskPress(t, m, "down")
	}
	kioskPress(t, m, "enter", "right", "right")
	if !strings.Contains(m.Render(), "from ") {
		t.Fatalf("the count shows no total:\n%s", m.Render())
	}
	kioskGolden(t, m, "kiosk-count-80x24")
	kioskPress(t, m, "enter")
	screen := m.Render()
	if m.screen != kSeats || !strings.Contains(screen, "⏎ these seats") || !strings.Contains(screen, "T ") ||
		!strings.Contains(screen, "◇") || !strings.Contains(screen, " to pay") {
		t.Fatalf("the Grand at 80×24 (its last row T, ◇ premium, the total, the key line):\n%s", screen)
	}
	kioskGolden(t, m, "kiosk-seats-grand-80x24")
	held, ok := m.heldTotal()
	if want := booking.Money(2 * 1250); !ok || held != want {
		t.Fatalf("two adults on standard seats cost %s, want %s", held, want)
	}
	kioskPress(t, m, "enter")
	kioskType(t, m, "Ann Lee")
	kioskPress(t, m, "tab")
	kioskType(t, m, "020 7946 0018")
	kioskPress(t, m, "enter")
	if m.screen != kReserved || !strings.Contains(m.Render(), "To pay: "+held.String()) || !strings.Contains(m.Render(), "⏎ done") {
		t.Fatalf("reserved (want to pay %s):\n%s", held, m.Render())
	}
	kioskGolden(t, m, "kiosk-reserved-80x24")

	number := m.reservation.Number
	if _, err := s.PayReservation(context.Background(), booking.Actor{Name: "carl", Role: booking.RoleClerk},
		booking.PayReservationRequest{Number: number, Method: booking.Card, IdempotencyKey: "pay-" + number}); err != nil {
		t.Fatal(err)
	}
	kioskPress(t, m, "enter", "down", "enter")
	kioskType(t, m, number)
	kioskPress(t, m, "tab")
	kioskType(t, m, "0018")
	kioskPress(t, m, "enter", "right")
	if screen := m.Render(); m.screen != kCollected || !strings.Contains(screen, "Ticket 2 of 2") || !strings.Contains(screen, "⏎ done") {
		t.Fatalf("collect at 80×24:\n%s", screen)
	}
	kioskGolden(t, m, "kiosk-collect-80x24")
}
